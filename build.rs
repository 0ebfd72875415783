//! Takes the tool layer from the runtime's build script, which reads spec/tools.yaml once
//! for the whole build: copies its generated files (all but the runtime's own) into this
//! crate's OUT_DIR, where `src/lib.rs` and the inventory tests include them.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let Some(from) = std::env::var_os("DEP_ETRADE_SPEC_OUT_DIR").map(PathBuf::from) else {
        println!(
            "cargo::error=DEP_ETRADE_SPEC_OUT_DIR is not set: etrade-runtime's build script (links = \"etrade_spec\") did not run"
        );
        return;
    };
    let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        println!("cargo::error=OUT_DIR is not set; run through cargo");
        return;
    };
    if let Err(e) = copy_tree(&from, &out_dir, Path::new("")) {
        println!(
            "cargo::error=cannot copy the tool layer from {}: {e}",
            from.display()
        );
    }
}

/// Copies every file under `from` except the runtime's own into `to`, and asks to be run
/// again when any of them changes.
fn copy_tree(from: &Path, to: &Path, rel: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from.join(rel))? {
        let entry = entry?;
        let rel = rel.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(to.join(&rel))?;
            copy_tree(from, to, &rel)?;
        } else if !codegen::RUNTIME_FILES.iter().any(|f| Path::new(f) == rel) {
            let source = from.join(&rel);
            println!("cargo::rerun-if-changed={}", source.display());
            std::fs::copy(&source, to.join(&rel))?;
        }
    }
    Ok(())
}
