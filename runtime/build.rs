//! The one build script that reads spec/tools.yaml: it checks the spec once and writes every
//! generated file into OUT_DIR — the answer models and the endpoint rows this crate compiles
//! (see `src/etrade/models/generated.rs`, `src/etrade/request.rs`) and the tool layer and
//! apps, which the `etrade-mcp` crate's build script copies from here (through the `links`
//! metadata `DEP_ETRADE_SPEC_OUT_DIR`). Spec problems are reported as
//! `spec/tools.yaml:LINE:COL`.

use std::path::Path;

fn main() {
    // The workspace (the one source of the spec and the apps) when built there; in the
    // published crate, this package, where `cargo package` stored the symlinks to them.
    let workspace = Path::new("..");
    let root = if workspace.join(codegen::SPEC_PATH).is_file() {
        workspace
    } else {
        Path::new(".")
    };
    let spec = root.join(codegen::SPEC_PATH);
    println!("cargo::rerun-if-changed={}", spec.display());
    // The MCP Apps are assembled from their sources.
    println!(
        "cargo::rerun-if-changed={}",
        root.join(codegen::apps::APPS_DIR).display()
    );
    let text = match std::fs::read_to_string(&spec) {
        Ok(t) => t,
        Err(e) => {
            println!("cargo::error=cannot read {}: {e}", spec.display());
            return;
        }
    };
    let files = match codegen::generate_from(&text, root) {
        Ok(files) => files,
        Err(diagnostics) => {
            for d in diagnostics {
                println!("cargo::error={}", d.render(codegen::SPEC_PATH));
            }
            return;
        }
    };
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        println!("cargo::error=OUT_DIR is not set; run through cargo");
        return;
    };
    for (rel, content) in files {
        let path = Path::new(&out_dir).join(rel);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, content));
        if let Err(e) = written {
            println!("cargo::error=cannot write {}: {e}", path.display());
        }
    }
    println!("cargo::metadata=out_dir={}", Path::new(&out_dir).display());
}
