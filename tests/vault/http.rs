//! `etrade serve --transport http` through the vault, as the person: their listener and token
//! in front of the vault's server, the same approval rules as over stdio, and the vault's own
//! port closed to whoever lacks the token only the relay was told.

use crate::fixture::{PIN, REQUIRED, Vault, can_run, text};
use crate::person_paths::{account_key, call, place, preview, set_pin, uid_of};
use serde_json::json;
use std::time::Duration;

/// Starts the person's `etrade serve --transport http EXTRA` and returns it with its URL.
async fn person_http(
    v: &Vault,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (tokio::process::Child, String) {
    let mut args = vec!["serve", "--transport", "http", "--listen", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let mut std_cmd = v.person_command(&v.etrade, &args);
    std_cmd.envs(env.iter().copied());
    let mut cmd = tokio::process::Command::from(std_cmd);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().expect("serve runs");
    let (url, mut lines, seen) =
        crate::common::listening_url(child.stderr.take().expect("stderr")).await;
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (
        child,
        url.unwrap_or_else(|| panic!("no listening line: {seen}")),
    )
}

/// The loopback TCP ports `account` listens on (ss reports each socket's owner).
fn ports_of(account: &str) -> Vec<u16> {
    let uid = uid_of(account);
    let out = std::process::Command::new("ss")
        .args(["-Hltne"])
        .output()
        .expect("ss runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(&format!("uid:{uid} ")))
        .filter_map(|l| l.split_whitespace().nth(3))
        .filter_map(|addr| addr.rsplit(':').next()?.parse().ok())
        .collect()
}

#[tokio::test]
async fn the_person_trades_over_http_through_the_vault() {
    if !can_run("the_person_trades_over_http_through_the_vault") {
        return;
    }
    let v = Vault::start("hp", REQUIRED);
    set_pin(&v);
    let (mut server, url) = person_http(&v, &["--allow-trading"], &[]).await;
    let client = crate::common::http_client(&url).await;
    let (_, status) = call(&client, "server_status", json!({})).await;
    assert_eq!(
        status["data"]["trading_policy"]["approval"], "required",
        "{status}"
    );
    assert_eq!(status["data"]["transport"], "http", "{status}");
    let key = account_key(&client).await;
    let id = preview(&client, &key, "AAPL").await;
    let (refused, answer) = place(&client, &key, &id).await;
    assert!(refused, "{answer}");
    let approved = v.person(&["approve", &id, "--yes"], &format!("{PIN}\n"));
    assert!(approved.status.success(), "{}", text(&approved));
    let (err, placed) = place(&client, &key, &id).await;
    assert!(!err, "{placed}");

    // The vault's own port: closed to a request without the relay's token.
    let ports = ports_of(&v.vault_account.name);
    assert_eq!(
        ports.len(),
        1,
        "the vault's server listens on one port: {ports:?}"
    );
    let direct = tools_list(&format!("http://127.0.0.1:{}/mcp", ports[0]), &[]).await;
    assert_eq!(direct, reqwest::StatusCode::UNAUTHORIZED);

    let _ = client.cancel().await;
    let _ = server.start_kill();
    let _ = server.wait().await;
    // The relay gone, the vault's server for it ends too.
    let mut ended = false;
    for _ in 0..100 {
        if ports_of(&v.vault_account.name).is_empty() {
            ended = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ended, "the vault's server outlived its relay");
}

#[tokio::test]
async fn the_person_s_http_token_guards_the_relay() {
    if !can_run("the_person_s_http_token_guards_the_relay") {
        return;
    }
    let v = Vault::start("ht2", REQUIRED);
    let token = "person-token-0123456789abcdef0123456789";
    let (mut server, url) = person_http(
        &v,
        &["--allow-trading"],
        &[("ETRADE_MCP_HTTP_TOKEN", token)],
    )
    .await;
    let without = tools_list(&url, &[]).await;
    assert_eq!(without, reqwest::StatusCode::UNAUTHORIZED);
    let bearer = format!("Bearer {token}");
    let evil_origin = tools_list(
        &url,
        &[
            ("authorization", &bearer),
            ("origin", "http://evil.example"),
        ],
    )
    .await;
    assert_eq!(
        evil_origin,
        reqwest::StatusCode::FORBIDDEN,
        "the vault's server checks the Origin the relay passes on"
    );
    let _ = server.start_kill();
    let _ = server.wait().await;
}

/// The status of a `tools/list` POST to `url` with `headers`.
async fn tools_list(url: &str, headers: &[(&str, &str)]) -> reqwest::StatusCode {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("the port answers").status()
}
