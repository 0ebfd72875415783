//! MCP Apps in a real browser: headless Chromium renders the overview and the order ticket
//! under the official host side of the extension (`AppBridge` from
//! `@modelcontextprotocol/ext-apps`), whose MCP client (`@modelcontextprotocol/sdk`) talks to
//! `etrade serve --transport http` on the paper broker with trading on and approval required.
//! The runner, tests/browser/run.mjs, checks the tools' `_meta.ui`, the resources, every
//! figure of the overview in the iframe, the theme switch, and Approve in the ticket followed
//! by exactly one placement. Screenshots go to target/apps-screenshots/.

// Linux only: Chromium from the distribution, as CI installs it.
#![cfg(target_os = "linux")]

use crate::common;
use std::path::Path;

const PROFILE: &str = "appsweb";
/// The host's bearer token (long enough for a holder that may approve).
const BEARER_TOKEN: &str = "apps-browser-host-token-8f21c0d7";

#[tokio::test]
async fn apps_render_and_approve_in_headless_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let browser = root.join("tests/browser");
    assert!(
        browser
            .join("node_modules/@modelcontextprotocol/ext-apps")
            .is_dir()
            && browser.join("node_modules/playwright-core").is_dir(),
        "tests/browser/node_modules is missing: run `npm ci --prefix tests/browser` \
         (CI does, in .ci/run)"
    );

    // A paper profile with approval required, moved into a regular session so the runner's
    // market buys fill.
    let home = common::home();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[profiles.{PROFILE}]\nenvironment = \"paper\"\n\n\
             [profiles.{PROFILE}.trading]\napproval = \"required\"\n"
        ),
    )
    .expect("config");
    let secs = common::paper::into_session();
    let advance = format!("{secs}s");
    let out = common::command(&home, &["paper", "--profile", PROFILE, "advance", &advance])
        .output()
        .await
        .expect("etrade paper advance");
    assert!(out.status.success(), "{}", common::output_text(&out));

    // The host holds the bearer token: over HTTP only a client that holds it may approve
    // on the ticket (docs/guide/clients.md, "HTTP and approvals").
    let token_file = tempfile::NamedTempFile::new().expect("token file");
    std::fs::write(token_file.path(), BEARER_TOKEN).expect("token");
    let token_path = token_file.path().to_string_lossy().to_string();
    let mut server = common::try_http_server_in(
        home,
        &[
            "--profile",
            PROFILE,
            "--allow-trading",
            "--http-token-file",
            &token_path,
        ],
        &[],
    )
    .await
    .unwrap_or_else(|stderr| panic!("etrade serve --transport http did not start:\n{stderr}"));

    let shots = root.join("target/apps-screenshots");
    let run = tokio::process::Command::new("node")
        .arg(browser.join("run.mjs"))
        .arg(&server.url)
        .arg(&shots)
        .env("MCP_BEARER_TOKEN", BEARER_TOKEN)
        .current_dir(root)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(300), run)
        .await
        .expect("the browser test finished within 5 minutes")
        .expect("run node (is Node.js installed?)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    let server_log = server.stop_for_stderr().await;
    assert!(
        out.status.success(),
        "tests/browser/run.mjs failed ({}):\n{stdout}\n{stderr}\n--- server stderr ---\n{server_log}",
        out.status
    );
    for png in [
        "overview-light.png",
        "overview-dark.png",
        "order-ticket.png",
    ] {
        let len = std::fs::metadata(shots.join(png))
            .map(|m| m.len())
            .unwrap_or(0);
        assert!(len > 1000, "screenshot {png} was not written");
    }
}
