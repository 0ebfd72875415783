//! Generates the E*TRADE answer models from spec/tools.yaml into OUT_DIR (see
//! `src/etrade/models/generated.rs`). Spec problems are reported as `spec/tools.yaml:LINE:COL`.

use std::path::Path;

fn main() {
    // The workspace's spec/tools.yaml (the one source) when built there; in the published
    // crate, `spec/tools.yaml` here, which `cargo package` stores from the symlink to it.
    let workspace = Path::new("..").join(codegen::SPEC_PATH);
    let spec = if workspace.is_file() {
        workspace
    } else {
        Path::new(codegen::SPEC_PATH).to_path_buf()
    };
    println!("cargo::rerun-if-changed={}", spec.display());
    let text = match std::fs::read_to_string(&spec) {
        Ok(t) => t,
        Err(e) => {
            println!("cargo::error=cannot read {}: {e}", spec.display());
            return;
        }
    };
    let models = match codegen::models(&text) {
        Ok(m) => m,
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
    let path = Path::new(&out_dir).join(codegen::MODELS_FILE);
    if let Err(e) = std::fs::write(&path, models) {
        println!("cargo::error=cannot write {}: {e}", path.display());
    }
}
