//! MCP 2026-07-28 clients — no `initialize`, no session, protocol version and client
//! capabilities in every request's `_meta` — on both transports: the official Python SDK
//! (pinned to 2026-07-28, and in `auto` mode, which must land on 2026-07-28), the rmcp
//! client, and raw requests. Each checks `server/discover`, tools/list (the same tools in the
//! same order twice, with its cache hints), server_status, a read tool and an invalid input,
//! each envelope as the contract says. Over HTTP the guards of the 2025-11-25 era hold for
//! stateless requests too: Origin, bearer token, body limit, session cap, and the
//! `Mcp-Method` header must match the body.

use crate::common;

use common::*;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};
use std::io::Write;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const MODERN: &str = "2026-07-28";

/// The tools a server with no permission flag lists to a client that renders no apps, in
/// spec order.
fn default_tools() -> Vec<String> {
    etrade_mcp::generated::TOOLS
        .iter()
        .filter(|t| {
            etrade_mcp::generated::PERMISSIONS
                .iter()
                .any(|p| p.name == t.permission && p.flag.is_none())
        })
        .filter(|t| !t.app_only())
        .map(|t| t.name.to_string())
        .collect()
}

fn assert_serves_every_revision(supported: &Value) {
    let supported: Vec<&str> = supported
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for v in [MODERN, "2025-11-25", "2025-06-18"] {
        assert!(supported.contains(&v), "{v} in {supported:?}");
    }
}

/// server_status's envelope for this transport, naming 2026-07-28 among its revisions.
fn assert_status(p: &Value, transport: &str) {
    assert_eq!(
        p.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["data".into(), "error".into(), "meta".into()]),
        "{p}"
    );
    assert_eq!(p["error"], Value::Null);
    assert_eq!(p["data"]["transport"], transport);
    assert_eq!(p["data"]["environment"], "paper");
    assert_eq!(p["meta"]["profile"], "default");
    assert_eq!(
        p["data"]["protocol_versions"],
        json!(["2025-06-18", "2025-11-25", MODERN])
    );
}

/// `server_status {"verbose": true}`: invalid_input, the unknown key never named.
fn assert_invalid_input(p: &Value) {
    assert_eq!(p["data"], Value::Null, "{p}");
    let e = &p["error"];
    assert_eq!(e["code"], "invalid_input", "{p}");
    assert_eq!(e["message"], "Tool arguments are invalid.");
    for k in [
        "status_code",
        "broker_code",
        "broker_message",
        "request_id",
        "alert_deletion_result",
    ] {
        assert_eq!(e[k], Value::Null, "{k}");
    }
    assert_eq!(e["validation_errors"].as_array().map(Vec::len), Some(1));
    assert_eq!(e["validation_errors"][0]["path"], json!([]));
    assert!(!p.to_string().contains("verbose"), "{p}");
}

/// The Python SDK's client in `mode` against `target` (`--url URL` or `-- COMMAND...`).
async fn python_client(home: &tempfile::TempDir, mode: &str, target: &[&str]) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/modern_client.py");
    let out = tokio::process::Command::new("python3")
        .arg(script)
        .arg(mode)
        .args(target)
        .env("ETRADE_MCP_HOME", home.path())
        .env("ETRADE_MCP_CREDENTIAL_STORE", "memory")
        .env("BROWSER", RECORD_BROWSER)
        .env_remove("ETRADE_MCP_HTTP_TOKEN")
        .env_remove("ETRADE_MCP_ENVIRONMENT")
        .env_remove("ETRADE_MCP_PROFILE")
        .kill_on_drop(true)
        .output()
        .await
        .expect("python3 (the MCP SDK: pip install mcp)");
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{text}"))
}

fn assert_python_run(v: &Value, transport: &str) {
    assert_eq!(v["protocol_version"], MODERN, "{v}");
    assert_serves_every_revision(&v["discover"]["supportedVersions"]);
    assert_eq!(v["discover"]["resultType"], "complete", "{v}");
    let lists = v["lists"].as_array().expect("lists");
    assert_eq!(lists.len(), 2);
    assert_eq!(lists[0], lists[1], "the same tools in the same order");
    assert_eq!(lists[0][0], json!(default_tools()));
    assert_eq!(lists[0][1], 60_000, "ttlMs");
    assert_eq!(lists[0][2], "private", "cacheScope");
    for (name, is_error) in [
        ("server_status", false),
        ("list_accounts", false),
        ("invalid", true),
    ] {
        let call = &v["calls"][name];
        assert_eq!(call["is_error"], is_error, "{name}: {call}");
        assert_eq!(
            call["text"],
            json!([call["payload"].clone()]),
            "{name}: one text block, equal to structuredContent"
        );
    }
    assert_status(&v["calls"]["server_status"]["payload"], transport);
    let accounts = &v["calls"]["list_accounts"]["payload"];
    assert!(
        accounts["data"]["accounts"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{accounts}"
    );
    assert_invalid_input(&v["calls"]["invalid"]["payload"]);
}

#[tokio::test]
async fn python_sdk_2026_over_stdio() {
    for mode in [MODERN, "auto"] {
        let home = home();
        let v = python_client(&home, mode, &["--", bin(), "serve"]).await;
        assert_python_run(&v, "stdio");
    }
}

/// The Python SDK as an MCP Apps host (it advertises `io.modelcontextprotocol/ui`): the
/// tools' `_meta.ui`, the app resources listed and read as `text/html;profile=mcp-app` with
/// no outside address, and the app-only tools — offered to it, refused to a client that
/// renders no apps.
#[tokio::test]
async fn python_sdk_as_an_apps_host() {
    let home = home();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/apps_host.py");
    let out = tokio::process::Command::new("python3")
        .args([script, "--", bin(), "serve", "--allow-trading"])
        .env("ETRADE_MCP_HOME", home.path())
        .env("ETRADE_MCP_CREDENTIAL_STORE", "memory")
        .env_remove("ETRADE_MCP_HTTP_TOKEN")
        .env_remove("ETRADE_MCP_ENVIRONMENT")
        .env_remove("ETRADE_MCP_PROFILE")
        .kill_on_drop(true)
        .output()
        .await
        .expect("python3 (the MCP SDK: pip install mcp)");
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{text}"));
    let ui = &v["ui_tools"];
    assert_eq!(
        ui["get_account_overview"]["resourceUri"],
        "ui://etrade/overview.html"
    );
    assert_eq!(
        ui["preview_order"]["resourceUri"],
        "ui://etrade/order-ticket.html"
    );
    assert_eq!(
        ui["preview_change_order"]["resourceUri"],
        "ui://etrade/order-ticket.html"
    );
    assert_eq!(ui["get_order_ticket"]["visibility"], json!(["app"]));
    assert_eq!(ui["answer_order_ticket"]["visibility"], json!(["app"]));
    let resources = v["resources"].as_array().expect("resources");
    assert_eq!(resources.len(), 2, "{v}");
    for r in resources {
        assert_eq!(r["mimeType"], "text/html;profile=mcp-app", "{r}");
        assert_eq!(r["_meta"]["ui"]["csp"]["connectDomains"], json!([]), "{r}");
        assert_eq!(r["_meta"]["ui"]["csp"]["resourceDomains"], json!([]), "{r}");
        let doc = &v["documents"][r["uri"].as_str().expect("uri")];
        assert_eq!(doc["mimeType"], "text/html;profile=mcp-app", "{doc}");
        assert!(doc["length"].as_u64().is_some_and(|n| n > 1000), "{doc}");
        assert_eq!(doc["outside"], json!([]), "{doc}");
    }
    // The app host may call an app-only tool (this preview does not exist) …
    assert_eq!(v["app_call"]["error"]["code"], "not_found", "{v}");
    // … a client that renders no apps neither sees nor calls it.
    let plain: Vec<&str> = v["plain_tools"]
        .as_array()
        .expect("plain_tools")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        plain.contains(&"place_order") && !plain.contains(&"get_order_ticket"),
        "{v}"
    );
    assert!(!plain.contains(&"answer_order_ticket"), "{v}");
    assert_eq!(
        v["plain_call"]["error"]["code"], "tool_not_available",
        "{v}"
    );
}

#[tokio::test]
async fn python_sdk_2026_over_http() {
    let server = http_server(&[]).await;
    for mode in [MODERN, "auto"] {
        let v = python_client(&home(), mode, &["--url", &server.url]).await;
        assert_python_run(&v, "http");
    }
}

fn discover_only() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

async fn assert_rmcp_modern(client: &Client, transport: &str) {
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    let first = client.list_tools(None).await.expect("tools/list");
    assert_eq!(first.ttl_ms, Some(60_000));
    assert_eq!(
        serde_json::to_value(first.cache_scope).expect("JSON"),
        json!("private")
    );
    let names = |l: &rmcp::model::ListToolsResult| {
        l.tools
            .iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&first), default_tools());
    let second = client.list_tools(None).await.expect("tools/list");
    assert_eq!(names(&first), names(&second));
    // Every check a 2025-11-25 client gets, envelopes and the unknown tool included.
    exercise_contract(client, transport).await;
    let (err, p) = call_payload(client, "server_status", json!({})).await;
    assert!(!err, "{p}");
    assert_status(&p, transport);
    let (err, p) = call_payload(client, "list_accounts", json!({})).await;
    assert!(!err, "{p}");
    let (err, p) = call_payload(client, "server_status", json!({"verbose": true})).await;
    assert!(err, "{p}");
    assert_invalid_input(&p);
}

#[tokio::test]
async fn rmcp_client_2026_over_stdio() {
    let home = home();
    let (transport, _) = rmcp::transport::TokioChildProcess::builder(command(&home, &["serve"]))
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn etrade serve");
    let client = client_info(ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(transport, discover_only())
        .await
        .expect("server/discover at 2026-07-28");
    assert_rmcp_modern(&client, "stdio").await;
    client.cancel().await.expect("clean shutdown");
}

#[tokio::test]
async fn rmcp_client_2026_over_http() {
    let server = http_server(&[]).await;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url.clone());
    let client = client_info(ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(transport, discover_only())
        .await
        .expect("server/discover at 2026-07-28");
    assert_rmcp_modern(&client, "http").await;
    client.cancel().await.expect("clean shutdown");
}

/// `_meta` of a 2026-07-28 request: its protocol version and the client's capabilities.
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    })
}

fn modern_request(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = modern_meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call_request(id: u64, tool: &str, args: Value) -> Value {
    modern_request(id, "tools/call", json!({"name": tool, "arguments": args}))
}

/// A tools/call result's payload: the JSON text, which must equal structuredContent.
fn result_payload(answer: &Value) -> (bool, Value) {
    let r = &answer["result"];
    assert_eq!(r["resultType"], "complete", "{answer}");
    let text: Value = r["content"][0]["text"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_else(|| panic!("a JSON text block: {answer}"));
    assert_eq!(text, r["structuredContent"], "{answer}");
    (r["isError"] == true, text)
}

#[tokio::test]
async fn raw_stdio_serves_a_request_without_initialize() {
    let home = home();
    let mut child = command(&home, &["serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn etrade serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut ask = async |request: Value| -> Value {
        let line = format!("{request}\n");
        stdin.write_all(line.as_bytes()).await.expect("write");
        let answer = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("an answer in time")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&answer).expect("JSON-RPC")
    };
    // The very first message is a tool call: no initialize, no discover.
    let first = ask(call_request(1, "server_status", json!({}))).await;
    assert_eq!(first["id"], 1, "{first}");
    let (err, p) = result_payload(&first);
    assert!(!err, "{p}");
    assert_status(&p, "stdio");

    let discover = ask(modern_request(2, "server/discover", json!({}))).await;
    assert_serves_every_revision(&discover["result"]["supportedVersions"]);
    for id in [3, 4] {
        let listed = ask(modern_request(id, "tools/list", json!({}))).await;
        let r = &listed["result"];
        let names: Vec<&str> = r["tools"]
            .as_array()
            .map(|a| a.iter().filter_map(|t| t["name"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(names, default_tools(), "{listed}");
        assert_eq!(
            (&r["ttlMs"], &r["cacheScope"]),
            (&json!(60_000), &json!("private"))
        );
        assert_eq!(r["resultType"], "complete");
    }
    let (err, p) = result_payload(&ask(call_request(5, "list_accounts", json!({}))).await);
    assert!(!err, "{p}");
    let (err, p) =
        result_payload(&ask(call_request(6, "server_status", json!({"verbose": true}))).await);
    assert!(err);
    assert_invalid_input(&p);
    let unknown = ask(call_request(7, "no_such_tool", json!({}))).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
}

/// One POST of a 2026-07-28 client: self-contained, with the SEP-2243 headers.
fn modern_post(url: &str, body: &Value) -> reqwest::RequestBuilder {
    let method = body["method"].as_str().unwrap_or_default();
    post_with_headers(url, body, method, body["params"]["name"].as_str())
}

/// Like [`modern_post`], with the `Mcp-Method` and `Mcp-Name` headers given.
fn post_with_headers(
    url: &str,
    body: &Value,
    method: &str,
    name: Option<&str>,
) -> reqwest::RequestBuilder {
    common::modern_post_to(url, &body.to_string(), method, name)
}

/// The JSON-RPC answer in a response body, plain JSON or one SSE event.
async fn answer_of(response: reqwest::Response) -> Value {
    let text = response.text().await.expect("body");
    common::jsonrpc_in(&text).unwrap_or_else(|| panic!("a JSON-RPC answer in: {text}"))
}

#[tokio::test]
async fn raw_http_one_post_calls_a_tool() {
    let server = http_server(&["--max-body-bytes", "65536"]).await;
    let url = server.url.clone();

    let r = modern_post(&url, &call_request(1, "server_status", json!({})))
        .send()
        .await
        .expect("send");
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        r.headers().get("mcp-session-id").is_none(),
        "no session: {:?}",
        r.headers()
    );
    let (err, p) = result_payload(&answer_of(r).await);
    assert!(!err, "{p}");
    assert_status(&p, "http");

    let discover = answer_of(
        modern_post(&url, &modern_request(2, "server/discover", json!({})))
            .send()
            .await
            .expect("send"),
    )
    .await;
    assert_serves_every_revision(&discover["result"]["supportedVersions"]);
    let mut lists = Vec::new();
    for id in [3, 4] {
        let listed = answer_of(
            modern_post(&url, &modern_request(id, "tools/list", json!({})))
                .send()
                .await
                .expect("send"),
        )
        .await;
        assert_eq!(listed["result"]["ttlMs"], 60_000, "{listed}");
        assert_eq!(listed["result"]["cacheScope"], "private");
        lists.push(listed["result"]["tools"].clone());
    }
    assert_eq!(lists[0], lists[1]);
    let (err, p) = result_payload(
        &answer_of(
            modern_post(&url, &call_request(5, "list_accounts", json!({})))
                .send()
                .await
                .expect("send"),
        )
        .await,
    );
    assert!(!err, "{p}");
    let (err, p) = result_payload(
        &answer_of(
            modern_post(
                &url,
                &call_request(6, "server_status", json!({"verbose": true})),
            )
            .send()
            .await
            .expect("send"),
        )
        .await,
    );
    assert!(err);
    assert_invalid_input(&p);

    // The guards of the handshake era hold for a stateless request.
    let status = |req: reqwest::RequestBuilder| async move {
        req.send().await.expect("send").status().as_u16()
    };
    let call = call_request(7, "server_status", json!({}));
    assert_eq!(
        status(modern_post(&url, &call).header("origin", "http://evil.example")).await,
        403
    );
    assert_eq!(
        status(modern_post(&url, &call).header("origin", "http://localhost:5173")).await,
        200
    );
    let big = call_request(8, "server_status", json!({"pad": "x".repeat(70_000)}));
    assert_eq!(status(modern_post(&url, &big)).await, 413);

    // The headers must say what the body says: a router trusting them is not misled.
    let mismatched = post_with_headers(&url, &call, "tools/list", Some("server_status"))
        .send()
        .await
        .expect("send");
    let code = mismatched.status().as_u16();
    let body = answer_of(mismatched).await;
    assert_eq!(code, 400, "{body}");
    assert_eq!(body["error"]["code"], -32020, "{body}");
    let wrong_name = post_with_headers(&url, &call, "tools/call", Some("list_accounts"))
        .send()
        .await
        .expect("send");
    assert_eq!(wrong_name.status().as_u16(), 400);
}

#[tokio::test]
async fn stateless_requests_take_no_session_slot() {
    let server = http_server(&["--max-sessions", "1"]).await;
    let url = server.url.clone();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let initialize = || {
        reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init)
            .send()
    };
    let held = initialize().await.expect("send");
    assert_eq!(held.status().as_u16(), 200);
    assert!(held.headers().get("mcp-session-id").is_some());
    // The one slot is taken; 2026-07-28 requests are still served, many at once.
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..8 {
        let url = url.clone();
        calls.spawn(async move {
            let r = modern_post(&url, &call_request(i, "server_status", json!({})))
                .send()
                .await
                .expect("send");
            (r.status().as_u16(), answer_of(r).await)
        });
    }
    while let Some(done) = calls.join_next().await {
        let (status, answer) = done.expect("a call");
        assert_eq!(status, 200, "{answer}");
        let (err, p) = result_payload(&answer);
        assert!(!err, "{p}");
    }
    // And they took no slot: the cap still counts the one session.
    let refused = initialize().await.expect("send");
    assert_eq!(refused.status().as_u16(), 503);
}

#[tokio::test]
async fn stateless_requests_need_the_bearer_token() {
    const TOKEN: &str = "CANARY-modern-bearer-token-51d0";
    let mut file = tempfile::NamedTempFile::new().expect("token file");
    writeln!(file, "{TOKEN}").expect("write token");
    let path = file.path().to_string_lossy().to_string();
    let server = http_server(&["--http-token-file", &path]).await;
    let call = call_request(1, "server_status", json!({}));
    let missing = modern_post(&server.url, &call).send().await.expect("send");
    assert_eq!(missing.status().as_u16(), 401);
    let wrong = modern_post(&server.url, &call)
        .header("authorization", "Bearer wrong")
        .send()
        .await
        .expect("send");
    assert_eq!(wrong.status().as_u16(), 401);
    let discover = modern_post(
        &server.url,
        &modern_request(2, "server/discover", json!({})),
    )
    .send()
    .await
    .expect("send");
    assert_eq!(discover.status().as_u16(), 401, "discover is guarded too");
    let ok = modern_post(&server.url, &call)
        .header("authorization", format!("Bearer {TOKEN}"))
        .send()
        .await
        .expect("send");
    assert_eq!(ok.status().as_u16(), 200);
    let body = answer_of(ok).await;
    assert!(!body.to_string().contains(TOKEN));
    let (err, p) = result_payload(&body);
    assert!(!err, "{p}");
}
