//! The built binary over streamable HTTP: the MCP contract through a real client, then the
//! transport guards (Origin, token, body size, bind policy) with raw requests.

mod common;

use common::*;
use std::io::Write;

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
    writeln!(file, "s3cret-token-for-tests").expect("write token");
    let path = file.path().to_string_lossy().to_string();
    let server = http_server(&["--http-token-file", &path]).await;
    let send = |auth: Option<&'static str>| {
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
    assert_eq!(send(Some("Bearer wrong")).await.status().as_u16(), 401);
    assert_eq!(
        send(Some("s3cret-token-for-tests")).await.status().as_u16(),
        401
    );
    assert_eq!(
        send(Some("Bearer s3cret-token-for-tests"))
            .await
            .status()
            .as_u16(),
        200
    );
    let body = send(None).await.text().await.expect("body");
    assert!(!body.contains("s3cret"), "the token is never echoed");
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
    writeln!(file, "another-test-token").expect("write token");
    let path = file.path().to_string_lossy().to_string();
    // 0.0.0.0 is reached through loopback here; the point is the startup policy.
    let server = try_http_server(&["--listen", "0.0.0.0:0", "--http-token-file", &path]).await;
    let server = match server {
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
        .header("authorization", "Bearer another-test-token")
        .body(INIT)
        .send()
        .await
        .expect("send");
    assert_eq!(ok.status().as_u16(), 200);
}
