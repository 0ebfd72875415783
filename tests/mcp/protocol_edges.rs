//! Protocol details real clients trip on, each replayed as the raw exchange over stdio and
//! over streamable HTTP against the real `etrade serve`:
//!
//! - stdio: a notification (or a response) as the first message is ignored, not fatal; a
//!   malformed line or a batch is answered with `id: null` and the process goes on; a
//!   session that only probed with `server/discover` ends with status 0; an `initialize`
//!   after 2026-07-28 requests selects the 2025 lifecycle, and a second one is refused;
//! - HTTP: malformed JSON and batches are JSON-RPC errors with status 400; resource
//!   subscriptions, which this server does not offer, are Method not found (404) before
//!   any header rule;
//! - both: a cursor this server never handed out is Invalid params; an unknown resource's
//!   error names its `uri`; 2026-07-28 results name the server in `_meta`.

use crate::common;

use common::{command, home, http_server};
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const MODERN: &str = "2026-07-28";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

/// A raw stdio server: write lines, read answers by id.
struct RawStdio {
    child: tokio::process::Child,
    stdin: Option<tokio::process::ChildStdin>,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    _home: tempfile::TempDir,
}

impl RawStdio {
    fn start() -> RawStdio {
        let home = home();
        let mut child = command(&home, &["serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn etrade serve");
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        RawStdio {
            child,
            stdin,
            lines,
            _home: home,
        }
    }

    async fn write(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write");
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("an answer in time")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("a JSON line: {line}"))
    }

    /// The answers to `n` requests, in any order, by id.
    async fn answers(&mut self, n: usize) -> Vec<Value> {
        let mut out = Vec::new();
        for _ in 0..n {
            out.push(self.next().await);
        }
        out
    }

    /// Close stdin; the exit status and everything on stderr.
    async fn close(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        // Nothing more may come on stdout but the end.
        let rest = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("stdout ends");
        assert!(matches!(rest, Ok(None)), "unexpected output: {rest:?}");
        let out = tokio::time::timeout(Duration::from_secs(30), self.child.wait_with_output())
            .await
            .expect("exits in time")
            .expect("wait");
        (
            out.status,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

fn by_id(answers: &[Value], id: u64) -> Value {
    answers
        .iter()
        .find(|a| a["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no answer with id {id} in {answers:?}"))
}

#[tokio::test]
async fn stdio_ignores_notifications_before_the_first_request() {
    let mut s = RawStdio::start();
    s.write(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"raced a restart"}}"#).await;
    s.write(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    s.write(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#).await;
    s.write(&modern(1, "tools/list", json!({})).to_string())
        .await;
    let listed = s.next().await;
    assert_eq!(
        listed["id"], 1,
        "the first answer is the request's: {listed}"
    );
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    let (status, stderr) = s.close().await;
    assert!(status.success(), "{status}: {stderr}");
}

#[tokio::test]
async fn stdio_answers_malformed_lines_and_batches_and_goes_on() {
    let mut s = RawStdio::start();
    s.write("{not json").await;
    let parse = s.next().await;
    assert_eq!(
        (&parse["id"], &parse["error"]["code"]),
        (&Value::Null, &json!(-32700)),
        "{parse}"
    );
    s.write(&json!([modern(2, "tools/list", json!({}))]).to_string())
        .await;
    let batch = s.next().await;
    assert_eq!(
        (&batch["id"], &batch["error"]["code"]),
        (&Value::Null, &json!(-32600)),
        "{batch}"
    );
    s.write(&modern(3, "tools/list", json!({})).to_string())
        .await;
    let listed = s.next().await;
    assert_eq!(listed["id"], 3, "{listed}");
    let (status, stderr) = s.close().await;
    assert!(status.success(), "{status}: {stderr}");
}

/// `server/discover` is the era probe clients SHOULD make; a client that probes and leaves
/// must not look like a crash to its host.
#[tokio::test]
async fn stdio_a_session_that_only_probed_ends_cleanly() {
    let mut s = RawStdio::start();
    s.write(&modern(1, "server/discover", json!({})).to_string())
        .await;
    let discovered = s.next().await;
    assert!(
        discovered["result"]["supportedVersions"].is_array(),
        "{discovered}"
    );
    let (status, stderr) = s.close().await;
    assert!(status.success(), "{status}: {stderr}");
    assert!(!stderr.contains("failed"), "{stderr}");
    // Nothing at all, then end of input: the same.
    let s = RawStdio::start();
    let (status, stderr) = s.close().await;
    assert!(status.success(), "{status}: {stderr}");
}

/// MCP 2026-07-28 (versioning): an `initialize` selects the 2025 lifecycle for a stdio
/// process. After a 2026 request, `initialize` is honoured and 2025-style requests (no
/// `_meta`) are served from then on; a second `initialize` is refused.
#[tokio::test]
async fn stdio_initialize_after_2026_requests_selects_the_2025_lifecycle() {
    let mut s = RawStdio::start();
    s.write(
        &modern(
            1,
            "tools/call",
            json!({"name": "server_status", "arguments": {}}),
        )
        .to_string(),
    )
    .await;
    let first = s.next().await;
    assert_eq!(first["id"], 1, "{first}");
    assert_eq!(first["result"]["resultType"], "complete", "{first}");
    s.write(&initialize(2).to_string()).await;
    let init = s.next().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    s.write(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    s.write(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}"#)
        .await;
    s.write(&initialize(4).to_string()).await;
    let answers = s.answers(2).await;
    assert!(
        by_id(&answers, 3)["result"]["tools"].is_array(),
        "a 2025-style request is served: {answers:?}"
    );
    assert_eq!(by_id(&answers, 4)["error"]["code"], -32600, "{answers:?}");
    let (status, stderr) = s.close().await;
    assert!(status.success(), "{status}: {stderr}");
}

#[tokio::test]
async fn stdio_cursors_unknown_resources_and_server_info() {
    let mut s = RawStdio::start();
    s.write(&modern(1, "tools/list", json!({"cursor": "made-up"})).to_string())
        .await;
    s.write(&modern(2, "resources/read", json!({"uri": "ui://etrade/none.html"})).to_string())
        .await;
    s.write(&modern(3, "tools/list", json!({})).to_string())
        .await;
    s.write(
        &modern(
            4,
            "tools/call",
            json!({"name": "server_status", "arguments": {}}),
        )
        .to_string(),
    )
    .await;
    let answers = s.answers(4).await;
    check_edges(&answers);
    let (status, _) = s.close().await;
    assert!(status.success());
}

/// The three answers both transports share: the cursor, the unknown resource, serverInfo.
fn check_edges(answers: &[Value]) {
    assert_eq!(by_id(answers, 1)["error"]["code"], -32602, "{answers:?}");
    let unknown = by_id(answers, 2);
    assert_eq!(
        unknown["error"]["data"]["uri"], "ui://etrade/none.html",
        "{unknown}"
    );
    for id in [3, 4] {
        let r = by_id(answers, id);
        assert_eq!(
            r["result"]["_meta"][SERVER_INFO]["name"], "etrade-mcp",
            "{r}"
        );
    }
}

// --- HTTP -------------------------------------------------------------------------------

async fn post(url: &str, body: &str, name: Option<&str>, method: &str) -> (u16, Value) {
    let response = common::modern_post_to(url, body, method, name)
        .send()
        .await
        .expect("POST");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let value = common::jsonrpc_in(&text)
        .unwrap_or_else(|| panic!("a JSON-RPC message in ({status}): {text}"));
    (status, value)
}

#[tokio::test]
async fn http_malformed_json_and_batches_are_json_rpc_errors() {
    let server = http_server(&[]).await;
    let (status, parse) = post(&server.url, "{not json", None, "tools/list").await;
    assert_eq!(status, 400, "{parse}");
    assert_eq!(
        (&parse["id"], &parse["error"]["code"]),
        (&Value::Null, &json!(-32700))
    );
    let batch = json!([modern(1, "tools/list", json!({}))]).to_string();
    let (status, refused) = post(&server.url, &batch, None, "tools/list").await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        (&refused["id"], &refused["error"]["code"]),
        (&Value::Null, &json!(-32600))
    );
}

#[tokio::test]
async fn http_resource_subscriptions_are_method_not_found() {
    let server = http_server(&[]).await;
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        let body = modern(7, method, json!({"uri": "ui://etrade/order-ticket.html"})).to_string();
        let (status, answer) = post(&server.url, &body, None, method).await;
        assert_eq!(status, 404, "{answer}");
        assert_eq!(answer["id"], 7, "{answer}");
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
}

#[tokio::test]
async fn http_cursors_unknown_resources_and_server_info() {
    let server = http_server(&[]).await;
    let mut answers = Vec::new();
    for (id, method, params, name) in [
        (1, "tools/list", json!({"cursor": "made-up"}), None),
        (
            2,
            "resources/read",
            json!({"uri": "ui://etrade/none.html"}),
            Some("ui://etrade/none.html"),
        ),
        (3, "tools/list", json!({}), None),
        (
            4,
            "tools/call",
            json!({"name": "server_status", "arguments": {}}),
            Some("server_status"),
        ),
    ] {
        let body = modern(id, method, params).to_string();
        answers.push(post(&server.url, &body, name, method).await.1);
    }
    check_edges(&answers);
}
