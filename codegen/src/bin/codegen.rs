//! `codegen write` refreshes the committed `generated/` mirror; `codegen check` fails when it
//! is stale. Both run from the workspace root (or take `--root DIR`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut command = None;
    let mut root = PathBuf::from(".");
    while let Some(a) = args.next() {
        match a.as_str() {
            "--root" => match args.next() {
                Some(r) => root = PathBuf::from(r),
                None => return usage(),
            },
            "write" | "check" if command.is_none() => command = Some(a),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => return usage(),
        }
    }
    let Some(command) = command else {
        return usage();
    };
    let spec_path = root.join(codegen::SPEC_PATH);
    let text = match std::fs::read_to_string(&spec_path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {}: {e}", spec_path.display());
            return ExitCode::from(2);
        }
    };
    let files = match codegen::generate(&text) {
        Ok(f) => f,
        Err(diags) => {
            for d in diags {
                eprintln!("{}", d.render(codegen::SPEC_PATH));
            }
            return ExitCode::FAILURE;
        }
    };
    let dir = root.join("generated");
    if command == "write" {
        match write(&dir, &files) {
            Ok(n) => {
                println!("generated/: {n} file(s) updated");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("cannot write generated/: {e}");
                ExitCode::from(2)
            }
        }
    } else {
        let stale = stale(&dir, &files);
        if stale.is_empty() {
            println!("generated/ is fresh");
            ExitCode::SUCCESS
        } else {
            for s in stale {
                eprintln!("stale: generated/{s}");
            }
            eprintln!("run `cargo run -p etrade-codegen -- write` and commit the result");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: codegen [--root DIR] write|check\n  write  refresh generated/ from spec/tools.yaml\n  check  fail if generated/ differs from what spec/tools.yaml generates";

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}

fn write(dir: &Path, files: &BTreeMap<String, String>) -> std::io::Result<usize> {
    let mut n = 0;
    for (rel, content) in files {
        let path = dir.join(rel);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(content) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, content)?;
        n += 1;
    }
    for rel in codegen_files_on_disk(dir) {
        if !files.contains_key(&rel) {
            std::fs::remove_file(dir.join(&rel))?;
            n += 1;
        }
    }
    Ok(n)
}

fn stale(dir: &Path, files: &BTreeMap<String, String>) -> Vec<String> {
    let mut out: Vec<String> = files
        .iter()
        .filter(|(rel, content)| {
            std::fs::read_to_string(dir.join(rel)).ok().as_deref() != Some(content.as_str())
        })
        .map(|(rel, _)| rel.clone())
        .collect();
    out.extend(
        codegen_files_on_disk(dir)
            .into_iter()
            .filter(|rel| !files.contains_key(rel)),
    );
    out
}

/// Files under `generated/` (relative paths), to find ones the spec no longer produces.
fn codegen_files_on_disk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(dir) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}
