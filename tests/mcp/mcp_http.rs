//! The built binary over streamable HTTP: the MCP contract through a real client, then the
//! transport guards (Origin, token, body size, bind policy) with raw requests. Secret
//! canaries: the bearer tokens appear in no response body, nor in the server's stderr at
//! debug level, nor in its state folder.

use crate::common;

use common::canary::{Canaries, DEBUG_LOG};
use common::*;
use rmcp::ServiceExt;
use std::io::Write;

const TOKEN: &str = "CANARY-http-bearer-token-7f3a";
const OTHER_TOKEN: &str = "CANARY-http-bearer-token-9c2e";

/// The server's stderr (at debug level) and state folder hold no bearer token.
async fn assert_token_absent(server: &mut HttpServer, canaries: &Canaries) {
    let stderr = server.stop_for_stderr().await;
    assert!(stderr.contains("DEBUG"), "debug log captured: {stderr}");
    canaries.assert_absent_in_str("the server's stderr", &stderr);
    canaries.assert_absent_in_dir(server._home.path());
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

fn raw() -> reqwest::Client {
    reqwest::Client::builder().build().expect("client")
}

fn post(url: &str) -> reqwest::RequestBuilder {
    raw()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

#[tokio::test]
async fn http_contract() {
    let server = http_server(&[]).await;
    let client = http_client(&server.url).await;
    exercise_contract(&client, "http").await;
    client.cancel().await.expect("clean shutdown");
}

#[tokio::test]
async fn origin_is_validated() {
    let server = http_server(&[]).await;
    let status = |origin: Option<&'static str>| {
        let url = server.url.clone();
        async move {
            let mut r = post(&url).body(INIT);
            if let Some(o) = origin {
                r = r.header("origin", o);
            }
            r.send().await.expect("send").status().as_u16()
        }
    };
    assert_eq!(status(Some("http://evil.example")).await, 403);
    assert_eq!(status(Some("null")).await, 403);
    assert_eq!(status(Some("http://localhost.evil.example:80")).await, 403);
    assert_eq!(status(None).await, 200);
    assert_eq!(status(Some("http://localhost:5173")).await, 200);
    assert_eq!(status(Some("http://127.0.0.1:1")).await, 200);
    assert_eq!(status(Some("http://[::1]:8080")).await, 200);
}

#[tokio::test]
async fn token_is_required_when_configured() {
    let mut file = tempfile::NamedTempFile::new().expect("token file");
    writeln!(file, "{TOKEN}").expect("write token");
    let path = file.path().to_string_lossy().to_string();
    let mut server = try_http_server_with(&["--http-token-file", &path], &[DEBUG_LOG])
        .await
        .expect("server started");
    let canaries = Canaries::new().with("bearer token", TOKEN);
    let send = |auth: Option<String>| {
        let url = server.url.clone();
        async move {
            let mut r = post(&url).body(INIT);
            if let Some(a) = auth {
                r = r.header("authorization", a);
            }
            r.send().await.expect("send")
        }
    };
    let missing = send(None).await;
    assert_eq!(missing.status().as_u16(), 401);
    assert_eq!(
        missing
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok()),
        Some("Bearer")
    );
    assert_eq!(
        send(Some("Bearer wrong".into())).await.status().as_u16(),
        401
    );
    let bare = send(Some(TOKEN.into())).await;
    assert_eq!(bare.status().as_u16(), 401);
    canaries.assert_absent_in_str("a 401 body", &bare.text().await.expect("body"));
    let ok = send(Some(format!("Bearer {TOKEN}"))).await;
    assert_eq!(ok.status().as_u16(), 200);
    canaries.assert_absent_in_str("a 200 body", &ok.text().await.expect("body"));
    let body = send(None).await.text().await.expect("body");
    canaries.assert_absent_in_str("a 401 body", &body);
    // A real client with the token: tools/list and a few tools, then the scan.
    let config =
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            server.url.clone(),
        )
        .auth_header(TOKEN);
    let client = client_info(rmcp::model::ProtocolVersion::V_2025_11_25)
        .serve(rmcp::transport::StreamableHttpClientTransport::from_config(
            config,
        ))
        .await
        .expect("initialize with the token");
    let tools = client.list_all_tools().await.expect("tools/list");
    canaries.assert_absent_in_str("tools/list", &format!("{tools:?}"));
    for tool in ["server_status", "list_accounts"] {
        let r = call(&client, tool, serde_json::json!({}))
            .await
            .expect("a tool result");
        assert_eq!(r.is_error, Some(false), "{tool}: {r:?}");
        canaries.assert_absent_in_str(tool, &payload(&r).to_string());
    }
    client.cancel().await.expect("close");
    assert_token_absent(&mut server, &canaries).await;
}

#[tokio::test]
async fn oversize_body_is_413() {
    let server = http_server(&["--max-body-bytes", "4096"]).await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"{}","version":"1"}}}}}}"#,
        "x".repeat(8192)
    );
    let r = post(&server.url).body(big).send().await.expect("send");
    assert_eq!(r.status().as_u16(), 413);
    let r = post(&server.url).body(INIT).send().await.expect("send");
    assert_eq!(r.status().as_u16(), 200, "normal requests still served");
}

#[tokio::test]
async fn non_loopback_bind_without_token_is_refused() {
    let home = home();
    let out = command(
        &home,
        &["serve", "--transport", "http", "--listen", "0.0.0.0:0"],
    )
    .output()
    .await
    .expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not a loopback address") && stderr.contains("--http-token-file"),
        "clear message: {stderr}"
    );
}

#[tokio::test]
async fn non_loopback_bind_with_token_starts_and_requires_it() {
    let mut file = tempfile::NamedTempFile::new().expect("token file");
    writeln!(file, "{OTHER_TOKEN}").expect("write token");
    let path = file.path().to_string_lossy().to_string();
    let canaries = Canaries::new().with("bearer token", OTHER_TOKEN);
    // 0.0.0.0 is reached through loopback here; the point is the startup policy.
    let server = try_http_server_with(
        &["--listen", "0.0.0.0:0", "--http-token-file", &path],
        &[DEBUG_LOG],
    )
    .await;
    let mut server = match server {
        Ok(s) => s,
        Err(stderr) => panic!("should start with a token: {stderr}"),
    };
    let port = server
        .url
        .rsplit(':')
        .next()
        .and_then(|p| p.split('/').next())
        .expect("port");
    let url = format!("http://127.0.0.1:{port}/mcp");
    assert_eq!(
        post(&url)
            .body(INIT)
            .send()
            .await
            .expect("send")
            .status()
            .as_u16(),
        401
    );
    let ok = post(&url)
        .header("authorization", format!("Bearer {OTHER_TOKEN}"))
        .body(INIT)
        .send()
        .await
        .expect("send");
    assert_eq!(ok.status().as_u16(), 200);
    canaries.assert_absent_in_str("a 200 body", &ok.text().await.expect("body"));
    assert_token_absent(&mut server, &canaries).await;
}
