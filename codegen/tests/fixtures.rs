//! Broken-spec fixtures: every `spec/fixtures/bad_*.yaml` must fail to load, and its rendered
//! diagnostics must equal `spec/fixtures/bad_*.expected` line for line.
//!
//! Refresh the snapshots after a deliberate change to a message or a check with
//! `UPDATE_SNAPSHOTS=1 cargo test -p etrade-codegen --test fixtures`, then review the diff.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen sits inside the workspace")
        .to_path_buf()
}

fn fixtures_dir() -> PathBuf {
    workspace_root().join("spec").join("fixtures")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn updating() -> bool {
    std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1")
}

/// `bad_*.yaml` under spec/fixtures, sorted by name.
fn bad_fixtures() -> Vec<PathBuf> {
    let dir = fixtures_dir();
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("bad_") && n.ends_with(".yaml"))
        })
        .collect();
    out.sort();
    out
}

/// The diagnostics of one fixture, rendered as a contributor sees them in the real file.
fn rendered(name: &str, text: &str) -> Result<String, String> {
    let result = catch_unwind(AssertUnwindSafe(|| codegen::load(text)))
        .map_err(|_| format!("{name}: codegen::load panicked"))?;
    let diags = match result {
        Ok(_) => {
            return Err(format!(
                "{name}: loaded without diagnostics, expected failure"
            ));
        }
        Err(diags) => diags,
    };
    if diags.is_empty() {
        return Err(format!("{name}: failed with an empty diagnostic list"));
    }
    let mut problems = Vec::new();
    for d in &diags {
        if d.line < 1 || d.column < 1 {
            problems.push(format!("{name}: diagnostic without a position: {d}"));
        }
        if d.message.trim().is_empty() {
            problems.push(format!("{name}: diagnostic with an empty message at {d}"));
        }
        if d.message.contains('\n') {
            problems.push(format!("{name}: multi-line diagnostic message at {d}"));
        }
    }
    if !diags.is_sorted() {
        problems.push(format!("{name}: diagnostics are not sorted by position"));
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    let mut out = String::new();
    for d in &diags {
        out.push_str(&d.render(codegen::SPEC_PATH));
        out.push('\n');
    }
    Ok(out)
}

#[test]
fn bad_fixtures_match_their_snapshots() {
    let fixtures = bad_fixtures();
    assert!(
        fixtures.len() >= 12,
        "expected at least 12 spec/fixtures/bad_*.yaml, found {}",
        fixtures.len()
    );
    let update = updating();
    let mut failures = Vec::new();
    for path in &fixtures {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expected_path = path.with_extension("expected");
        let actual = match rendered(&name, &read(path)) {
            Ok(a) => a,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        if update {
            let old = std::fs::read_to_string(&expected_path).ok();
            if old.as_deref() != Some(actual.as_str()) {
                std::fs::write(&expected_path, &actual)
                    .unwrap_or_else(|e| panic!("cannot write {}: {e}", expected_path.display()));
                println!(
                    "updated spec/fixtures/{}",
                    expected_path.file_name().unwrap().to_string_lossy()
                );
            }
            continue;
        }
        let Ok(expected) = std::fs::read_to_string(&expected_path) else {
            failures.push(format!(
                "{name}: no snapshot {} (run with UPDATE_SNAPSHOTS=1 to create it)",
                expected_path.file_name().unwrap().to_string_lossy()
            ));
            continue;
        };
        if expected != actual {
            failures.push(format!(
                "{name}: diagnostics differ from the snapshot\n--- expected\n{expected}+++ actual\n{actual}"
            ));
        }
    }
    // A snapshot whose fixture was renamed or deleted would silently stop being checked.
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "expected") && !p.with_extension("yaml").exists() {
            failures.push(format!("{}: snapshot without a fixture", p.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture problem(s):\n\n{}\n\nIf the change is intended, rerun with UPDATE_SNAPSHOTS=1 and review the diff.",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_real_spec_loads_without_diagnostics() {
    let text = read(&workspace_root().join(codegen::SPEC_PATH));
    if let Err(diags) = codegen::load(&text) {
        let lines: Vec<String> = diags.iter().map(|d| d.render(codegen::SPEC_PATH)).collect();
        panic!("spec/tools.yaml has diagnostics:\n{}", lines.join("\n"));
    }
}

#[test]
fn truncated_specs_never_panic() {
    let text = read(&workspace_root().join(codegen::SPEC_PATH));
    // Loading is linear in the prefix, so all prefixes would be quadratic in the spec's
    // size; a fixed budget of ~400 cuts spread over the file (line ends and mid-line bytes,
    // at strides coprime to typical indentation) keeps the run short as the catalog grows.
    let lines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    let line_step = (lines.len() / 250).max(1);
    let mut cuts: Vec<usize> = lines.iter().copied().step_by(line_step).collect();
    let byte_step = (text.len() / 150).max(1) | 1;
    cuts.extend(
        (0..text.len())
            .step_by(byte_step)
            .filter(|&i| text.is_char_boundary(i)),
    );
    cuts.push(0);
    cuts.sort_unstable();
    cuts.dedup();
    assert!(cuts.len() > 100, "too few prefixes to be meaningful");
    let mut panicked = Vec::new();
    for &cut in &cuts {
        let prefix = &text[..cut];
        if catch_unwind(|| {
            let _ = codegen::load(prefix);
        })
        .is_err()
        {
            let line = prefix.matches('\n').count() + 1;
            panicked.push(format!("byte {cut} (line {line})"));
        }
    }
    assert!(
        panicked.is_empty(),
        "codegen::load panicked on {} of {} prefixes: {}",
        panicked.len(),
        cuts.len(),
        panicked.join(", ")
    );
}

#[test]
fn the_kitchen_sink_fixture_loads_and_generates() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/fixtures/good_kitchen_sink.yaml");
    let text = std::fs::read_to_string(path).expect("kitchen sink fixture");
    match codegen::generate(&text) {
        Ok(files) => {
            let rs = files.get("tools.rs").expect("tools.rs");
            syn::parse_file(rs).expect("generated Rust parses");
            let outputs = files
                .get(codegen::emit_outputs::OUTPUTS_FILE)
                .expect("outputs.rs");
            syn::parse_file(outputs).expect("generated outputs parse");
        }
        Err(d) => panic!("{d:?}"),
    }
}
