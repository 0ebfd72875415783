//! The error schema offers `alert_deletion_result` only to the tools that can carry one:
//! the runtime builds an `AlertDeletionResult` only in those tools' desk methods.

use codegen::json_schema::ALERT_DELETION_TOOLS;

#[test]
fn only_alert_deletion_tools_carry_a_deletion_result() {
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a source folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("runtime/src"), &mut files);
    rust_files(&root.join("src"), &mut files);
    files.sort();
    let mut builders = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("source");
        let mut function = "";
        for line in text.lines().map(str::trim) {
            if let Some((_, rest)) = line.split_once("fn ") {
                function = rest.split(['(', '<']).next().unwrap_or("");
            }
            if line.contains("AlertDeletionResult {") && !line.starts_with("pub struct") {
                builders.push(function.to_string());
            }
        }
    }
    assert_eq!(builders, ALERT_DELETION_TOOLS);
}
