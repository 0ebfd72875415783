//! The runtime files codegen reads for what the runtime offers (src/runtime_facts.rs), copied
//! into OUT_DIR: from the workspace (`../runtime/src/etrade/...`, the one source) when built
//! there, else from `runtime-facts/`, whose symlinks to those files `cargo package` stores
//! as plain files in the published crate.

use std::path::Path;

const FILES: [(&str, &str); 3] = [
    (
        "endpoint_table.rs",
        "../runtime/src/etrade/endpoint_table.rs",
    ),
    ("answers.rs", "../runtime/src/etrade/answers.rs"),
    ("read.rs", "../runtime/src/etrade/models/read.rs"),
];

fn main() {
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        println!("cargo::error=OUT_DIR is not set; run through cargo");
        return;
    };
    for (name, workspace) in FILES {
        let packaged = format!("runtime-facts/{name}");
        let from = if Path::new(workspace).is_file() {
            workspace
        } else {
            packaged.as_str()
        };
        println!("cargo::rerun-if-changed={from}");
        if let Err(e) = std::fs::copy(from, Path::new(&out_dir).join(name)) {
            println!("cargo::error=cannot copy {from} into OUT_DIR: {e}");
        }
    }
}
