//! The runtime's top-level modules form layers, and a module may use only its own layer and
//! the ones before it:
//!
//! platform, paths, time, calendar, logging, store_lease → config → credentials → etrade →
//! outputs → emulation → contract, broker → trading, login → paper, summaries → mcp (→ the
//! `etrade` binary in `src/`).
//!
//! This test reads every `crate::…` path in `runtime/src` (comments aside) and fails on an
//! import of a later layer, naming the file, the line and the edge. The edges that still break
//! the order are listed in [`KNOWN`]; the test also fails when one of them is gone, so the
//! list only shrinks.
//!
//! Within a layer, files must not form cycles either: every `crate::…` and `super::…` path
//! resolved to the file it names, the graph of files has no strongly connected group
//! ([`KNOWN_CYCLES`] lists the ones still allowed: none).

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
    &["credentials"],
    &["etrade"],
    &["outputs"],
    &["emulation"],
    &["contract", "broker"],
    &["trading", "login"],
    &["paper", "summaries"],
    &["mcp", "__codegen", "vault"],
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

// --- file-level cycles ----------------------------------------------------------------------

/// Cycles between files that still exist, each with what keeps it: (files of the cycle,
/// sorted and joined with " ↔ ", why). The test fails on any other cycle and on a listed one
/// that is gone, so the list only shrinks.
const KNOWN_CYCLES: &[(&str, &str)] = &[];

/// The module a source file is: `trading/types.rs` → `trading::types`, `trading.rs` →
/// `trading`, `lib.rs` → the crate root (`""`).
fn module_of(path: &str) -> String {
    let stem = path.trim_end_matches(".rs");
    if stem == "lib" {
        return String::new();
    }
    stem.trim_end_matches("/mod").replace('/', "::")
}

/// Every module path a line names through `crate::` or `super::` (the longest prefix that
/// is a file's module), resolved against `from`, the file's own module. `use super::*` in a
/// test module names the file itself and is left out (test modules come last in a file:
/// nothing after `#[cfg(test)]` is read).
fn named_modules(code: &str, from: &str, modules: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let parent = |m: &str| {
        m.rsplit_once("::")
            .map(|(p, _)| p.to_string())
            .unwrap_or_default()
    };
    let mut starts = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        starts.push((i + "crate::".len(), String::new()));
    }
    for (i, _) in code.match_indices("super::") {
        // `super::super::` is found twice; the first one resolves it.
        if code[..i].ends_with("super::") {
            continue;
        }
        let mut base = parent(from);
        let mut j = i + "super::".len();
        while code[j..].starts_with("super::") {
            base = parent(&base);
            j += "super::".len();
        }
        starts.push((j, base));
    }
    for (at, base) in starts {
        let rest = &code[at..];
        let group: Vec<&str> = match rest.strip_prefix('{') {
            Some(g) => g[..g.find('}').unwrap_or(g.len())].split(',').collect(),
            None => vec![rest],
        };
        for item in group {
            let segments: Vec<String> = item
                .trim()
                .split("::")
                .map(|s| {
                    s.chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .take_while(|s| !s.is_empty())
                .collect();
            let mut best = base.clone();
            let mut path = base.clone();
            for s in segments {
                path = if path.is_empty() {
                    s
                } else {
                    format!("{path}::{s}")
                };
                if modules.contains(&path) {
                    best = path.clone();
                } else {
                    break;
                }
            }
            if best != from && !best.is_empty() {
                out.push(best);
            }
        }
    }
    out
}

/// Module → the modules it names (files only; the crate root left out).
fn file_graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = files.iter().map(|(p, _)| module_of(p)).collect();
    let mut graph = BTreeMap::new();
    for (path, text) in files {
        let from = module_of(path);
        if from.is_empty() {
            continue;
        }
        let targets: &mut BTreeSet<String> = graph.entry(from.clone()).or_default();
        for line in text.lines() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            for to in named_modules(code, &from, &modules) {
                // A parent naming its own child (re-exports) is how a module is built, not
                // a cycle; the child naming its parent is what counts.
                if !to.starts_with(&format!("{from}::")) {
                    targets.insert(to);
                }
            }
        }
    }
    graph
}

/// The strongly connected groups of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        w.index.insert(v, w.next);
        w.low.insert(v, w.next);
        w.next += 1;
        w.stack.push(v);
        w.on_stack.insert(v);
        if let Some(targets) = w.graph.get(v) {
            for t in targets {
                let t = t.as_str();
                if !w.index.contains_key(t) {
                    visit(w, t);
                    let lt = w.low[t];
                    let lv = w.low[v];
                    w.low.insert(v, lv.min(lt));
                } else if w.on_stack.contains(t) {
                    let it = w.index[t];
                    let lv = w.low[v];
                    w.low.insert(v, lv.min(it));
                }
            }
        }
        if w.low[v] == w.index[v] {
            let mut group = Vec::new();
            while let Some(x) = w.stack.pop() {
                w.on_stack.remove(x);
                group.push(x.to_string());
                if x == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                w.out.push(group);
            }
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !w.index.contains_key(v.as_str()) {
            visit(&mut w, v);
        }
    }
    w.out.sort();
    w.out
}

fn check_cycles(files: &[(String, String)], known: &[(&str, &str)]) -> Vec<String> {
    let found: Vec<String> = cycles(&file_graph(files))
        .into_iter()
        .map(|g| g.join(" ↔ "))
        .collect();
    let mut problems: Vec<String> = found
        .iter()
        .filter(|c| !known.iter().any(|(k, _)| k == c))
        .map(|c| format!("a cycle between files: {c}"))
        .collect();
    for (k, _) in known {
        if !found.iter().any(|c| c == k) {
            problems.push(format!(
                "the cycle {k} is gone: remove it from KNOWN_CYCLES in tests/layers.rs"
            ));
        }
    }
    problems
}

#[test]
fn no_file_of_the_runtime_is_in_a_cycle() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let mut files = Vec::new();
    sources(&base, &base, &mut files);
    let problems = check_cycles(&files, KNOWN_CYCLES);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_cycle_check_sees_super_paths_and_groups() {
    let file = |p: &str, t: &str| (p.to_string(), t.to_string());
    let files = [
        file(
            "trading.rs",
            "pub mod types; pub mod approval; pub use types::*;",
        ),
        file("trading/types.rs", "pub x: super::approval::Record,"),
        file(
            "trading/approval.rs",
            "use super::{types::Preview, reconcile::f};",
        ),
        file(
            "trading/reconcile.rs",
            "use crate::trading::types::Preview;",
        ),
        file("trading/desk.rs", "mod approvals; use super::types::X;"),
        file(
            "trading/desk/approvals.rs",
            "use super::{OrderDesk, blocking};",
        ),
        file(
            "mcp/a.rs",
            "fn f() {}\n#[cfg(test)]\nmod tests { use crate::mcp::b::g; }",
        ),
        file("mcp/b.rs", "use super::a::f;"),
    ];
    let problems = check_cycles(&files, &[("x ↔ y", "stale")]);
    assert_eq!(
        problems,
        [
            "a cycle between files: trading::approval ↔ trading::reconcile ↔ trading::types",
            "the cycle x ↔ y is gone: remove it from KNOWN_CYCLES in tests/layers.rs",
        ]
    );
}
