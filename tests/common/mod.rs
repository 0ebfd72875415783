//! Shared by the integration tests: start the real `etrade` binary and talk to it with a
//! real MCP client (rmcp) over stdio or streamable HTTP.

#![allow(dead_code)]

pub mod canary;
pub mod catalog;
pub mod login;
pub mod paper;
pub mod sandbox;
pub mod secret_service;
pub mod store_fixture;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

pub type Client = RunningService<RoleClient, ClientConfig>;

/// The `etrade` binary Cargo built for these tests. Read with `option_env!`: Cargo defines
/// `CARGO_BIN_EXE_etrade` when it builds the tests, but not when `.ci/check-targets`
/// type-checks them for another OS, and that check must still compile this file.
pub fn bin() -> &'static str {
    match option_env!("CARGO_BIN_EXE_etrade") {
        Some(path) => path,
        None => panic!("CARGO_BIN_EXE_etrade is unset: build the tests with cargo test or nextest"),
    }
}

pub fn client_info(version: ProtocolVersion) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("etrade-mcp-tests", "1.0.0"),
    )
    .with_protocol_version(version)
}

/// A state folder of its own for each server, so tests never share config or data.
/// Today (UTC) at 17:00 UTC: noon in New York in winter, 1 pm in summer. Tests that move
/// clocks by hours start there, so they never cross E*TRADE's midnight-Eastern token expiry,
/// whatever the hour they run at.
pub fn midday_eastern() -> jiff::Timestamp {
    let now = jiff::Timestamp::now().as_second();
    let day = now - now.rem_euclid(86_400);
    jiff::Timestamp::from_second(day + 17 * 3_600).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

/// A finished command's stdout then stderr, for assertion messages.
pub fn output_text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub fn home() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Where the stand-in browser ([`RECORD_BROWSER`]) writes the URLs servers open, in the
/// state folder.
pub const BROWSER_LOG: &str = "browser-opened.log";
/// Every child runs with `BROWSER` naming this script, so no test opens a real browser
/// and each can read what the person would have been shown.
pub const RECORD_BROWSER: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/record-browser");

/// The URLs the servers of `home` opened in the person's browser, once there are at least
/// `at_least` (waiting up to 10 s: the opener runs beside the call).
pub async fn opened_in_browser(home: &std::path::Path, at_least: usize) -> Vec<String> {
    let mut urls = Vec::new();
    for _ in 0..100 {
        urls = std::fs::read_to_string(home.join(BROWSER_LOG))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        if urls.len() >= at_least {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    urls
}

pub fn command(home: &tempfile::TempDir, args: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(bin());
    cmd.args(args)
        .env("ETRADE_MCP_HOME", home.path())
        .env("BROWSER", RECORD_BROWSER)
        .env_remove("ETRADE_MCP_HTTP_TOKEN")
        .env_remove("ETRADE_MCP_ENVIRONMENT")
        .env_remove("ETRADE_MCP_PROFILE")
        .env("ETRADE_MCP_CREDENTIAL_STORE", "memory")
        .kill_on_drop(true);
    cmd
}

pub async fn stdio_client(home: &tempfile::TempDir, extra: &[&str]) -> Client {
    stdio_client_with(home, extra, &[], Stdio::null()).await
}

/// A stdio server with extra environment variables and a chosen stderr.
pub async fn stdio_client_with(
    home: &tempfile::TempDir,
    extra: &[&str],
    envs: &[(&str, &str)],
    stderr: Stdio,
) -> Client {
    let mut args = vec!["serve"];
    args.extend_from_slice(extra);
    let mut cmd = command(home, &args);
    cmd.envs(envs.iter().copied());
    // The builder owns stdio: a stderr set on the command itself would be replaced.
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(stderr)
        .spawn()
        .expect("spawn etrade serve");
    client_info(ProtocolVersion::V_2025_11_25)
        .serve(transport)
        .await
        .expect("initialize over stdio")
}

/// A stdio server whose stdout — every MCP message it sends — is also appended, byte for
/// byte, to `stdout_copy` (for the canary scan). The caller keeps the child: dropping it
/// kills the server; [`stop_stdio_server`] shuts it down gracefully.
pub async fn stdio_client_recorded(
    home: &tempfile::TempDir,
    extra: &[&str],
    envs: &[(&str, &str)],
    stderr: Stdio,
    stdout_copy: &std::path::Path,
) -> (Client, tokio::process::Child) {
    let info = client_info(ProtocolVersion::V_2025_11_25);
    stdio_client_recorded_as(home, extra, envs, stderr, stdout_copy, info).await
}

/// [`stdio_client_recorded`] with the client saying `info` (its capabilities, e.g. the MCP
/// Apps extension).
pub async fn stdio_client_recorded_as(
    home: &tempfile::TempDir,
    extra: &[&str],
    envs: &[(&str, &str)],
    stderr: Stdio,
    stdout_copy: &std::path::Path,
    info: ClientConfig,
) -> (Client, tokio::process::Child) {
    let mut args = vec!["serve"];
    args.extend_from_slice(extra);
    let mut cmd = command(home, &args);
    cmd.envs(envs.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr);
    let mut child = cmd.spawn().expect("spawn etrade serve");
    let stdout = child.stdout.take().expect("stdout piped");
    let stdin = child.stdin.take().expect("stdin piped");
    let copy = canary::log_file(
        stdout_copy.parent().expect("a folder"),
        &stdout_copy
            .file_name()
            .expect("a file name")
            .to_string_lossy(),
    );
    let client = info
        .serve((
            Tee {
                inner: stdout,
                copy,
            },
            stdin,
        ))
        .await
        .expect("initialize over stdio");
    (client, child)
}

/// The MCP stdio shutdown: close the server's stdin, wait for it to exit (10 s), else kill.
pub async fn stop_stdio_server(client: Client, mut child: tokio::process::Child) {
    let _ = client.cancel().await;
    if tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
}

/// Reads from `inner`, appending a copy of every byte to `copy`.
struct Tee<R> {
    inner: R,
    copy: std::fs::File,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Tee<R> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::io::Write;
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut this.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(Ok(())) = &polled {
            let _ = this.copy.write_all(&buf.filled()[before..]);
        }
        polled
    }
}

/// A running `etrade serve --transport http` and the URL of its `/mcp` endpoint.
pub struct HttpServer {
    pub child: tokio::process::Child,
    pub url: String,
    pub _home: tempfile::TempDir,
    /// Everything the server wrote to stderr so far.
    pub stderr: std::sync::Arc<std::sync::Mutex<String>>,
    /// The task copying stderr into `stderr`; it ends at the pipe's end.
    drain: Option<tokio::task::JoinHandle<()>>,
}

impl HttpServer {
    pub fn stderr_text(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Stops the server and returns everything it wrote to stderr, to the last line (the
    /// drain may lag behind a running server, so a scan of `stderr_text` could miss the
    /// lines of the last calls).
    pub async fn stop_for_stderr(&mut self) -> String {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
        if let Some(drain) = self.drain.take() {
            let _ = tokio::time::timeout(Duration::from_secs(10), drain).await;
        }
        self.stderr_text()
    }
}

/// A server's standard error, read until its `listening on` line (30 s at most): the URL,
/// the lines after it, and the text read so far.
pub async fn listening_url(
    stderr: tokio::process::ChildStderr,
) -> (
    Option<String>,
    tokio::io::Lines<BufReader<tokio::process::ChildStderr>>,
    String,
) {
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = String::new();
    let found = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            seen.push_str(&line);
            seen.push('\n');
            if let Some(url) = line.strip_prefix("etrade-mcp: listening on ") {
                return Some(url.trim().to_string());
            }
        }
        None
    })
    .await
    .ok()
    .flatten();
    (found, lines, seen)
}

pub async fn http_server(extra: &[&str]) -> HttpServer {
    try_http_server(extra).await.expect("server started")
}

/// Start the server on an ephemeral loopback port; `Err(stderr)` when it exits instead.
pub async fn try_http_server(extra: &[&str]) -> Result<HttpServer, String> {
    try_http_server_with(extra, &[]).await
}

/// Like [`try_http_server`], with extra environment variables (e.g. a debug log level).
pub async fn try_http_server_with(
    extra: &[&str],
    envs: &[(&str, &str)],
) -> Result<HttpServer, String> {
    try_http_server_in(home(), extra, envs).await
}

/// Like [`try_http_server_with`], in a prepared home (e.g. with a `config.toml`).
pub async fn try_http_server_in(
    home: tempfile::TempDir,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> Result<HttpServer, String> {
    let mut args = vec!["serve", "--transport", "http"];
    if !extra.contains(&"--listen") {
        args.extend_from_slice(&["--listen", "127.0.0.1:0"]);
    }
    args.extend_from_slice(extra);
    let mut cmd = command(&home, &args);
    cmd.envs(envs.iter().copied());
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn etrade serve");
    let stderr = child.stderr.take().expect("stderr piped");
    let (found, mut lines, seen) = listening_url(stderr).await;
    match found {
        Some(url) => {
            // Keep draining stderr (kept for the canary scan) so the server never blocks on
            // a full pipe.
            let kept = std::sync::Arc::new(std::sync::Mutex::new(seen));
            let sink = kept.clone();
            let drain = tokio::spawn(async move {
                while let Ok(Some(line)) = lines.next_line().await {
                    // Bounded, for the load tests; a canary scan reads far less.
                    if let Ok(mut s) = sink.lock()
                        && s.len() < 16 << 20
                    {
                        s.push_str(&line);
                        s.push('\n');
                    }
                }
            });
            Ok(HttpServer {
                child,
                url,
                _home: home,
                stderr: kept,
                drain: Some(drain),
            })
        }
        None => {
            let _ = child.wait().await;
            Err(seen)
        }
    }
}

pub async fn http_client(url: &str) -> Client {
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    client_info(ProtocolVersion::V_2025_11_25)
        .serve(transport)
        .await
        .expect("initialize over HTTP")
}

pub async fn call<H: rmcp::ClientHandler>(
    client: &RunningService<RoleClient, H>,
    name: &str,
    args: Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let args: Map<String, Value> = match args {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
        .await
}

/// `name(args)` through any client: whether it failed, and its payload.
pub async fn call_payload<H: rmcp::ClientHandler>(
    client: &RunningService<RoleClient, H>,
    name: &str,
    args: Value,
) -> (bool, Value) {
    let result = call(client, name, args).await.expect("tools/call");
    (result.is_error == Some(true), payload(&result))
}

/// The parsed JSON text block, asserting it equals structuredContent.
pub fn payload(result: &CallToolResult) -> Value {
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent present");
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    assert_eq!(texts.len(), 1, "exactly one text block");
    let text: Value = serde_json::from_str(texts[0]).expect("text is JSON");
    assert_eq!(text, structured, "text block equals structuredContent");
    structured
}

/// A tool's annotations, read as the MCP spec defines the hints: readOnly defaults to false,
/// openWorld to true, and destructive and idempotent mean something only when not read-only.
/// A mutation states every hint outright.
pub fn assert_hints_as_the_spec_reads_them(
    tool: &rmcp::model::Tool,
    spec: &runtime::mcp::catalog::ToolDescriptor,
) {
    let a = tool.annotations.as_ref().expect("annotations");
    assert_eq!(a.read_only_hint, Some(spec.read_only), "{}", spec.name);
    assert_eq!(
        a.open_world_hint.unwrap_or(true),
        spec.open_world,
        "{}",
        spec.name
    );
    assert_eq!(a.title, None, "the tool's own title is the one shown");
    if spec.read_only {
        assert_eq!(
            (a.destructive_hint, a.idempotent_hint),
            (None, None),
            "{}",
            spec.name
        );
    } else {
        assert_eq!(a.destructive_hint, Some(spec.destructive), "{}", spec.name);
        assert_eq!(a.idempotent_hint, Some(spec.idempotent), "{}", spec.name);
        assert_eq!(a.open_world_hint, Some(spec.open_world), "{}", spec.name);
    }
}

/// Everything the foundation promises about tools/list and server_status, for one client.
pub async fn exercise_contract(client: &Client, transport: &str) {
    let tools = client.list_all_tools().await.expect("tools/list");
    let catalog = etrade_mcp::generated::TOOLS
        .iter()
        .filter(|t| {
            etrade_mcp::generated::PERMISSIONS
                .iter()
                .any(|p| p.name == t.permission && p.flag.is_none())
        })
        // App-only tools are listed only to clients that render apps.
        .filter(|t| !t.app_only())
        .collect::<Vec<_>>();
    assert_eq!(
        tools.iter().map(|t| t.name.to_string()).collect::<Vec<_>>(),
        catalog
            .iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>(),
        "tools/list equals the spec's default-granted tools, in order"
    );
    for (tool, spec) in tools.iter().zip(&catalog) {
        assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()));
        assert_eq!(tool.description.as_deref(), Some(spec.description));
        assert_eq!(tool.title.as_deref(), Some(spec.title));
        assert_hints_as_the_spec_reads_them(tool, spec);
        assert_eq!(tool.input_schema.get("type"), Some(&Value::from("object")));
        let out = tool.output_schema.as_ref().expect("output schema");
        assert_eq!(out.get("type"), Some(&Value::from("object")));
        let want_in: Value = serde_json::from_str(spec.input_schema).expect("spec schema");
        assert_eq!(Value::Object((*tool.input_schema).clone()), want_in);
        let want_out: Value = serde_json::from_str(spec.output_schema).expect("spec schema");
        assert_eq!(Value::Object((**out).clone()), want_out);
    }

    let status_tool = tools
        .iter()
        .find(|t| t.name == "server_status")
        .expect("server_status listed");
    let schema = Value::Object((**status_tool.output_schema.as_ref().expect("schema")).clone());
    let validator = jsonschema::validator_for(&schema).expect("output schema compiles");

    let ok = call(client, "server_status", serde_json::json!({}))
        .await
        .expect("server_status");
    assert_eq!(ok.is_error, Some(false));
    let p = payload(&ok);
    let problems: Vec<String> = validator.iter_errors(&p).map(|e| e.to_string()).collect();
    assert!(
        problems.is_empty(),
        "payload fits its outputSchema: {problems:?}"
    );
    assert_eq!(
        p.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["data".into(), "error".into(), "meta".into()])
    );
    assert_eq!(p["error"], Value::Null);
    assert_eq!(p["data"]["transport"], transport);
    assert_eq!(p["data"]["environment"], "paper");
    assert_eq!(p["meta"]["environment"], "paper");
    assert_eq!(p["meta"]["profile"], "default");
    assert_eq!(p["data"]["credentials"]["state"], "missing");
    let observed = p["meta"]["observed_at"].as_str().expect("observed_at");
    assert!(
        observed.ends_with('Z') && observed.parse::<jiff::Timestamp>().is_ok(),
        "RFC 3339 UTC: {observed}"
    );

    let bad = call(
        client,
        "server_status",
        serde_json::json!({"verbose": true}),
    )
    .await
    .expect("a tool result, not a protocol error");
    assert_eq!(bad.is_error, Some(true));
    let p = payload(&bad);
    let problems: Vec<String> = validator.iter_errors(&p).map(|e| e.to_string()).collect();
    assert!(
        problems.is_empty(),
        "error payload fits outputSchema too: {problems:?}"
    );
    assert_eq!(p["data"], Value::Null);
    let e = &p["error"];
    assert_eq!(e["code"], "invalid_input");
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
    let v = e["validation_errors"].as_array().expect("list");
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["path"], serde_json::json!([]));
    assert!(
        !p.to_string().contains("verbose"),
        "unknown key never named"
    );

    match call(client, "no_such_tool", serde_json::json!({})).await {
        Err(rmcp::ServiceError::McpError(e)) => assert_eq!(e.code.0, -32602),
        other => panic!("unknown tool must be JSON-RPC -32602, got {other:?}"),
    }
}

/// The JSON-RPC message in an HTTP answer's body: plain JSON, or the first SSE `data:` event
/// that is a JSON-RPC message.
pub fn jsonrpc_in(text: &str) -> Option<Value> {
    serde_json::from_str::<Value>(text).ok().or_else(|| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("jsonrpc").is_some())
    })
}

/// One POST of a 2026-07-28 client, with the SEP-2243 headers given (`Mcp-Name` when named).
pub fn modern_post_to(
    url: &str,
    body: &str,
    method: &str,
    name: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut r = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        r = r.header("mcp-name", name);
    }
    r.body(body.to_string())
}
