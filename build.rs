//! Generates the tool layer from spec/tools.yaml into OUT_DIR (and nowhere else).
//! Spec problems are reported all at once as `spec/tools.yaml:LINE:COL: message`.

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed={}", codegen::SPEC_PATH);
    // The MCP Apps are assembled from their sources into OUT_DIR/apps/.
    println!("cargo::rerun-if-changed={}", codegen::apps::APPS_DIR);
    let text = match std::fs::read_to_string(codegen::SPEC_PATH) {
        Ok(t) => t,
        Err(e) => {
            println!("cargo::error=cannot read {}: {e}", codegen::SPEC_PATH);
            return;
        }
    };
    let files = match codegen::generate(&text) {
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
}
