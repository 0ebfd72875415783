//! The runtime's top-level modules form layers, and a module may use only its own layer and
//! the ones before it:
//!
//! platform, paths, time, calendar, logging, store_lease → config → emulation → credentials →
//! etrade → contract, broker → trading, login → paper, summaries → mcp (→ the `etrade` binary
//! in `src/`).
//!
//! This test reads every `crate::…` path in `runtime/src` (comments aside) and fails on an
//! import of a later layer, naming the file, the line and the edge. The edges that still break
//! the order are listed in [`KNOWN`]; the test also fails when one of them is gone, so the
//! list only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: &[&[&str]] = &[
    &[
        "platform",
        "paths",
        "time",
        "calendar",
        "logging",
        "store_lease",
    ],
    &["config"],
    &["emulation"],
    &["credentials"],
    &["etrade"],
    &["contract", "broker"],
    &["trading", "login"],
    &["paper", "summaries"],
    &["mcp", "__codegen"],
];

/// Edges that break the order today, each with what keeps it: (from, to, why).
const KNOWN: &[(&str, &str, &str)] = &[];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// (from module, to module) → the first `file:line` showing it.
fn edges(files: &[(String, String)]) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    for (path, text) in files {
        let from = path.split('/').next().unwrap_or("").trim_end_matches(".rs");
        if from == "lib" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for to in imported_modules(code) {
                if to != from {
                    out.entry((from.to_string(), to))
                        .or_insert_with(|| format!("runtime/src/{path}:{}", n + 1));
                }
            }
        }
    }
    out
}

/// The top-level modules a line of code names after `crate::`, including `crate::{a, b::c}`.
fn imported_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name = item.trim().split("::").next().unwrap_or("").trim();
                if !name.is_empty() {
                    out.push(name.to_string());
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

fn sources(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read runtime/src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, base, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p
                .strip_prefix(base)
                .expect("under runtime/src")
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).expect("read source")));
        }
    }
}

/// The edges of `files` that import a later layer, known ones aside, and the known ones that
/// no longer occur.
fn check(files: &[(String, String)], known: &[(&str, &str, &str)]) -> Vec<String> {
    let found = edges(files);
    let mut problems = Vec::new();
    let mut seen_known = BTreeSet::new();
    for ((from, to), at) in &found {
        let (Some(lf), Some(lt)) = (layer(from), layer(to)) else {
            if layer(from).is_none() {
                problems.push(format!("{at}: module `{from}` is in no layer"));
            }
            continue;
        };
        if lt <= lf {
            continue;
        }
        if known.iter().any(|(f, t, _)| f == from && t == to) {
            seen_known.insert((from.clone(), to.clone()));
        } else {
            problems.push(format!("{at}: `{from}` uses `{to}`, a later layer"));
        }
    }
    for (f, t, _) in known {
        if !seen_known.contains(&(f.to_string(), t.to_string())) {
            problems.push(format!(
                "`{f}` no longer uses `{t}`: remove the edge from KNOWN in tests/layers.rs"
            ));
        }
    }
    problems
}

#[test]
fn runtime_modules_use_only_earlier_layers() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let mut files = Vec::new();
    sources(&base, &base, &mut files);
    assert!(files.len() > 50, "read the runtime's sources");
    let problems = check(&files, KNOWN);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The E*TRADE client parses E*TRADE's answers on its own, so the fake server (built on the
/// emulation) still tests it: nothing under `runtime/src/etrade` may name `crate::emulation`.
#[test]
fn the_etrade_client_does_not_use_the_emulation() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let mut files = Vec::new();
    sources(&base, &base, &mut files);
    let uses: Vec<String> = edges(&files)
        .into_iter()
        .filter(|((from, to), _)| from == "etrade" && to == "emulation")
        .map(|(_, at)| at)
        .collect();
    assert!(
        uses.is_empty(),
        "the E*TRADE client must not use crate::emulation (the fake server is built on it and \
         tests the client's own parsing): {}",
        uses.join(", ")
    );
}

#[test]
fn the_check_finds_a_planted_edge_and_a_stale_known_one() {
    let file = |p: &str, t: &str| (p.to_string(), t.to_string());
    let files = [
        file("etrade/models/x.rs", "use crate::trading::desk::OrderDesk;"),
        file(
            "trading/y.rs",
            "use crate::{etrade::Endpoint, contract::errors::ToolError};",
        ),
        file("contract/z.rs", "// crate::mcp in a comment is no import"),
        file("config.rs", "let s = crate::paths::home();"),
    ];
    let problems = check(&files, &[("config", "trading", "stale")]);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("etrade/models/x.rs:1: `etrade` uses `trading`"));
    assert!(problems[1].contains("`config` no longer uses `trading`"));
    assert_eq!(
        imported_modules("use crate::{a, b::c};x(crate::d::e)"),
        ["a", "b", "d"]
    );
}
