//! The cap on MCP sessions over streamable HTTP, against the real `etrade serve --transport
//! http` binary: a flood of `initialize` requests stays within the cap and a memory bound,
//! a refused session gets 503 with a JSON-RPC error, DELETE and the idle timeout free
//! slots, closed sessions give their memory back, and at the cap the longest-idle session
//! gives way while one in use does not, and pinging a session does not keep it from giving
//! way.
//!
//! Plain HTTP requests (reqwest), so a failure names the exact status and body. Nothing
//! here asserts on speed: the time limits are hang guards, and the sleeps wait out the idle
//! periods the server is configured with.

use crate::common;

use common::*;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

const PROTOCOL: &str = "2025-11-25";
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"server_status","arguments":{}}}"#;
/// The server's default `--max-sessions`.
const DEFAULT_CAP: usize = 256;
/// `initialize` attempts in the flood, most of them beyond the cap.
const ATTEMPTS: usize = 4_000;
const CONCURRENCY: usize = 32;
/// A scenario that takes longer than this has hung.
const HANG_GUARD: Duration = Duration::from_secs(300);
/// RSS bound for the server at the cap and after the flood: the debug binary the tests run
/// measured 48 MiB with 256 sessions open and after 4,000 attempts (`docs/performance.md`);
/// this is 1.5 times that. Without the cap the same flood reached 239 MiB.
#[cfg(target_os = "linux")]
const RSS_BOUND_KIB: u64 = 72 * 1024;
/// How much the server may grow over 2,000 sessions opened and deleted once it has served
/// as many before: 4 KiB a session, against about 70 KiB a session that stays open.
#[cfg(target_os = "linux")]
const CHURN_GROWTH_KIB: u64 = 8 * 1024;

fn init_body(id: &Value) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "sessions", "version": "1"}
        }
    })
    .to_string()
}

fn new_http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .tls_certs_only([])
        .timeout(Duration::from_secs(45))
        .build()
        .expect("reqwest client")
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

async fn send(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    body: Option<String>,
    session: Option<&str>,
) -> Result<Reply, String> {
    let mut r = http
        .request(method.clone(), url)
        .header("accept", "application/json, text/event-stream");
    if let Some(b) = body {
        r = r.header("content-type", "application/json").body(b);
    }
    if let Some(id) = session {
        r = r
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", PROTOCOL);
    }
    let resp = r.send().await.map_err(|e| format!("{method} send: {e}"))?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp
        .text()
        .await
        .map_err(|e| format!("{method} body ({status}): {e}"))?;
    Ok(Reply {
        status,
        headers,
        body,
    })
}

/// The JSON-RPC message with this id in an SSE (or plain JSON) body.
fn message_with_id(body: &str, id: &Value) -> Result<Value, String> {
    let candidates: Vec<&str> = if body.trim_start().starts_with('{') {
        vec![body]
    } else {
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .collect()
    };
    candidates
        .into_iter()
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find(|m| &m["id"] == id)
        .ok_or_else(|| format!("no JSON-RPC message with id {id} in {body:?}"))
}

/// What one `initialize` got: a session, or the cap's refusal.
#[derive(Debug)]
enum Init {
    Session(String),
    Refused(Reply),
}

async fn initialize(http: &reqwest::Client, url: &str, id: Value) -> Result<Init, String> {
    let r = send(http, reqwest::Method::POST, url, Some(init_body(&id)), None).await?;
    match r.status {
        200 => {
            let session = r
                .header("mcp-session-id")
                .ok_or("initialize: 200 without Mcp-Session-Id")?
                .to_string();
            let m = message_with_id(&r.body, &id)?;
            if m["result"]["protocolVersion"] != PROTOCOL {
                return Err(format!("initialize result: {m}"));
            }
            let done = send(
                http,
                reqwest::Method::POST,
                url,
                Some(INITIALIZED.into()),
                Some(&session),
            )
            .await?;
            if done.status != 202 {
                return Err(format!("initialized: {} {}", done.status, done.body));
            }
            Ok(Init::Session(session))
        }
        503 => {
            check_refusal(&r, &id)?;
            Ok(Init::Refused(r))
        }
        other => Err(format!("initialize: {other} {}", r.body)),
    }
}

/// A refused `initialize`: no session, a Retry-After, and a JSON-RPC error answering it.
fn check_refusal(r: &Reply, id: &Value) -> Result<(), String> {
    if r.headers.contains_key("mcp-session-id") {
        return Err("a refused initialize got a session id".into());
    }
    if !r
        .header("content-type")
        .is_some_and(|c| c.starts_with("application/json"))
    {
        return Err(format!("503 content type: {:?}", r.header("content-type")));
    }
    let retry: u64 = r
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("503 Retry-After: {:?}", r.header("retry-after")))?;
    let m: Value = serde_json::from_str(&r.body).map_err(|e| format!("503 body {e}"))?;
    let ok = m["jsonrpc"] == "2.0"
        && &m["id"] == id
        && m["error"]["code"] == -32000
        && m["error"]["message"]
            .as_str()
            .is_some_and(|s| s.contains("too many MCP sessions"))
        && m["error"]["data"]["retryAfterSeconds"] == retry
        && retry >= 1;
    if !ok {
        return Err(format!("503 body: {m}"));
    }
    Ok(())
}

async fn open(http: &reqwest::Client, url: &str) -> String {
    match initialize(http, url, Value::from(1)).await {
        Ok(Init::Session(id)) => id,
        other => panic!("want a session, got {other:?}"),
    }
}

async fn refused(http: &reqwest::Client, url: &str, id: Value) -> Reply {
    match initialize(http, url, id).await {
        Ok(Init::Refused(r)) => r,
        other => panic!("want a refusal, got {other:?}"),
    }
}

/// server_status in the session: the HTTP status, and whether the result is a success.
async fn status_call(http: &reqwest::Client, url: &str, session: &str) -> (u16, bool) {
    let r = send(
        http,
        reqwest::Method::POST,
        url,
        Some(CALL.into()),
        Some(session),
    )
    .await
    .expect("tools/call");
    let ok = r.status == 200
        && message_with_id(&r.body, &Value::from(2))
            .is_ok_and(|m| m["result"].is_object() && m["result"]["isError"] != true);
    (r.status, ok)
}

async fn assert_alive(http: &reqwest::Client, url: &str, session: &str, what: &str) {
    assert_eq!(status_call(http, url, session).await, (200, true), "{what}");
}

async fn assert_gone(http: &reqwest::Client, url: &str, session: &str, what: &str) {
    assert_eq!(status_call(http, url, session).await.0, 404, "{what}");
}

async fn delete(http: &reqwest::Client, url: &str, session: &str) {
    let r = send(http, reqwest::Method::DELETE, url, None, Some(session))
        .await
        .expect("DELETE");
    assert_eq!(r.status, 202, "DELETE: {}", r.body);
}

/// `n` initialize attempts, `CONCURRENCY` at a time: the sessions opened, the refusals.
async fn flood(url: &str, n: usize, first_id: usize) -> (Vec<String>, usize) {
    let http = new_http();
    let gate = Arc::new(Semaphore::new(CONCURRENCY));
    let mut set = JoinSet::new();
    for i in 0..n {
        let (http, url, gate) = (http.clone(), url.to_string(), gate.clone());
        set.spawn(async move {
            let _permit = gate.acquire_owned().await.expect("semaphore");
            // String ids on odd attempts: the refusal must echo either kind.
            let n = first_id + i;
            let id = if n % 2 == 1 {
                Value::from(format!("init-{n}"))
            } else {
                Value::from(n)
            };
            initialize(&http, &url, id).await
        });
    }
    let (mut sessions, mut refusals, mut errors) = (Vec::new(), 0, Vec::new());
    tokio::time::timeout(HANG_GUARD, async {
        while let Some(r) = set.join_next().await {
            match r.expect("task") {
                Ok(Init::Session(id)) => sessions.push(id),
                Ok(Init::Refused(_)) => refusals += 1,
                Err(e) => errors.push(e),
            }
        }
    })
    .await
    .expect("hang guard: the flood did not finish");
    let sample: Vec<&String> = errors.iter().take(5).collect();
    assert!(
        errors.is_empty(),
        "{} errors, e.g. {sample:#?}",
        errors.len()
    );
    (sessions, refusals)
}

async fn delete_all(url: &str, sessions: Vec<String>) {
    let http = new_http();
    let gate = Arc::new(Semaphore::new(CONCURRENCY));
    let mut set = JoinSet::new();
    for id in sessions {
        let (http, url, gate) = (http.clone(), url.to_string(), gate.clone());
        set.spawn(async move {
            let _permit = gate.acquire_owned().await.expect("semaphore");
            delete(&http, &url, &id).await;
        });
    }
    while let Some(r) = set.join_next().await {
        r.expect("DELETE task");
    }
}

/// `n` sessions opened, used and deleted, `at_once` at a time.
async fn churn(http: &reqwest::Client, url: &str, at_once: usize, n: usize) {
    let gate = Arc::new(Semaphore::new(at_once));
    let mut set = JoinSet::new();
    for _ in 0..n {
        let (http, url, gate) = (http.clone(), url.to_string(), gate.clone());
        set.spawn(async move {
            let _permit = gate.acquire_owned().await.expect("semaphore");
            let id = open(&http, &url).await;
            assert_alive(&http, &url, &id, "a fresh session").await;
            delete(&http, &url, &id).await;
        });
    }
    tokio::time::timeout(HANG_GUARD, async {
        while let Some(r) = set.join_next().await {
            r.expect("session task");
        }
    })
    .await
    .expect("hang guard: open/DELETE rounds");
}

#[cfg(target_os = "linux")]
fn rss_kib(server: &HttpServer) -> u64 {
    let pid = server.child.id().expect("server running");
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    text.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("VmRSS")
}

#[cfg(target_os = "linux")]
fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_thousand_initializes_stay_within_the_cap_and_the_memory_bound() {
    let server = http_server(&[]).await;
    let url = server.url.clone();
    #[cfg(target_os = "linux")]
    let rss_idle = rss_kib(&server);

    let (mut sessions, refusals) = flood(&url, DEFAULT_CAP, 0).await;
    assert_eq!(
        (sessions.len(), refusals),
        (DEFAULT_CAP, 0),
        "up to the cap"
    );
    #[cfg(target_os = "linux")]
    let rss_at_cap = rss_kib(&server);

    let (more, refusals) = flood(&url, ATTEMPTS - DEFAULT_CAP, DEFAULT_CAP).await;
    // Printed before the counts are checked, so a run with the cap lifted
    // (ETRADE_MCP_MAX_SESSIONS=100000) still shows what the flood costs without it.
    #[cfg(target_os = "linux")]
    let rss_after = rss_kib(&server);
    #[cfg(target_os = "linux")]
    println!(
        "http_sessions: RSS idle {} / {DEFAULT_CAP} sessions {} / after {ATTEMPTS} initialize attempts {} ({} sessions open; bound {})",
        mib(rss_idle),
        mib(rss_at_cap),
        mib(rss_after),
        sessions.len() + more.len(),
        mib(RSS_BOUND_KIB)
    );
    assert_eq!(
        (more.len(), refusals),
        (0, ATTEMPTS - DEFAULT_CAP),
        "every attempt beyond the cap is refused"
    );
    #[cfg(target_os = "linux")]
    {
        assert!(
            rss_at_cap < RSS_BOUND_KIB && rss_after < RSS_BOUND_KIB,
            "RSS at the cap {} / after the flood {} exceeds {}",
            mib(rss_at_cap),
            mib(rss_after),
            mib(RSS_BOUND_KIB)
        );
    }

    // The sessions opened first still answer: the flood ended none of them.
    let http = new_http();
    for id in sessions.iter().step_by(51) {
        assert_alive(&http, &url, id, "a session opened before the flood").await;
    }
    // A real client is refused while the cap holds, and gets in once one session ends.
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
    let at_cap = rmcp::ServiceExt::serve(
        client_info(rmcp::model::ProtocolVersion::V_2025_11_25),
        transport,
    )
    .await;
    assert!(at_cap.is_err(), "a client got in past the cap");
    if let Some(id) = sessions.pop() {
        delete(&http, &url, &id).await;
    }
    let client = http_client(&url).await;
    let (failed, status) = call_payload(&client, "server_status", serde_json::json!({})).await;
    assert!(!failed, "server_status: {status}");
    client.cancel().await.expect("client closes");
    delete_all(&url, sessions).await;
    let (again, _) = flood(&url, DEFAULT_CAP, 0).await;
    assert_eq!(again.len(), DEFAULT_CAP, "every slot is free again");
}

#[tokio::test]
async fn at_the_cap_initialize_gets_503_with_a_json_rpc_error() {
    let server = http_server(&["--max-sessions", "4"]).await;
    let http = new_http();
    let mut sessions = Vec::new();
    for _ in 0..4 {
        sessions.push(open(&http, &server.url).await);
    }
    for id in [Value::from(7), Value::from("seven"), Value::Null] {
        let r = refused(&http, &server.url, id.clone()).await;
        // Nobody has been idle for a minute (a fifth of the default 300 s idle timeout).
        let retry: u64 = r
            .header("retry-after")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        assert!((50..=60).contains(&retry), "Retry-After {retry}");
    }
    // No id to echo: still refused, with a null id.
    let body = r#"{"jsonrpc":"2.0","method":"initialize"}"#;
    let r = send(
        &http,
        reqwest::Method::POST,
        &server.url,
        Some(body.into()),
        None,
    )
    .await
    .expect("send");
    assert_eq!(r.status, 503, "{body}: {}", r.body);
    check_refusal(&r, &Value::Null).expect("refusal");
    // No JSON at all opens no session: a Parse error, cap or not.
    let r = send(
        &http,
        reqwest::Method::POST,
        &server.url,
        Some("not json".into()),
        None,
    )
    .await
    .expect("send");
    assert_eq!(r.status, 400, "{}", r.body);
    let parsed: Value = serde_json::from_str(&r.body).expect("a JSON-RPC error");
    assert_eq!(
        (&parsed["id"], &parsed["error"]["code"]),
        (&Value::Null, &Value::from(-32700))
    );
    for id in &sessions {
        assert_alive(&http, &server.url, id, "a session at the cap").await;
    }
    let env = [("ETRADE_MCP_MAX_SESSIONS", "1")];
    let server = try_http_server_with(&[], &env).await.expect("server");
    open(&http, &server.url).await;
    refused(&http, &server.url, Value::from(1)).await;
}

#[tokio::test]
async fn delete_frees_a_slot() {
    let server = http_server(&["--max-sessions", "4"]).await;
    let url = server.url.as_str();
    let http = new_http();
    let mut sessions = Vec::new();
    for _ in 0..4 {
        sessions.push(open(&http, url).await);
    }
    refused(&http, url, Value::from(1)).await;
    // Many rounds at the cap: each DELETE makes room for exactly one session.
    for round in 0..50 {
        let gone = sessions.remove(round % sessions.len());
        delete(&http, url, &gone).await;
        assert_gone(&http, url, &gone, "a deleted session").await;
        sessions.push(open(&http, url).await);
        refused(&http, url, Value::from(round)).await;
    }
    for id in &sessions {
        assert_alive(&http, url, id, "a session opened after a DELETE").await;
    }
    // A DELETE of an unknown or already-deleted session frees nothing: 404.
    let gone = sessions.pop().expect("a session");
    delete(&http, url, &gone).await;
    for unknown in [gone.as_str(), "no-such-session"] {
        let r = send(&http, reqwest::Method::DELETE, url, None, Some(unknown))
            .await
            .expect("DELETE");
        assert_eq!(r.status, 404, "DELETE {unknown}: {}", r.body);
    }
    open(&http, url).await;
    refused(&http, url, Value::from(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_sessions_give_their_memory_back() {
    const CAP: usize = 16;
    let cap = CAP.to_string();
    let server = http_server(&["--max-sessions", &cap]).await;
    let url = server.url.clone();
    // Open, use and DELETE 2,000 sessions, 16 at a time, twice: the first round warms the
    // allocator up; over the second, a leak of a few KiB a session would show as MiB.
    let http = new_http();
    churn(&http, &url, CAP, ATTEMPTS / 2).await;
    #[cfg(target_os = "linux")]
    let rss_warm = rss_kib(&server);
    churn(&http, &url, CAP, ATTEMPTS / 2).await;
    #[cfg(target_os = "linux")]
    {
        let rss = rss_kib(&server);
        println!(
            "http_sessions: RSS after {} / {ATTEMPTS} sessions opened and deleted: {} / {}",
            ATTEMPTS / 2,
            mib(rss_warm),
            mib(rss)
        );
        assert!(
            rss < RSS_BOUND_KIB,
            "RSS {} exceeds {}",
            mib(rss),
            mib(RSS_BOUND_KIB)
        );
        assert!(
            rss.saturating_sub(rss_warm) < CHURN_GROWTH_KIB,
            "RSS grew from {} to {} over {} closed sessions",
            mib(rss_warm),
            mib(rss),
            ATTEMPTS / 2
        );
    }
    // Every slot came back.
    let (sessions, refusals) = flood(&url, CAP + 8, 0).await;
    assert_eq!((sessions.len(), refusals), (CAP, 8));
}

#[tokio::test]
async fn idle_sessions_expire_and_free_their_slots() {
    let mut server = http_server(&["--max-sessions", "2", "--session-idle-timeout", "2"]).await;
    let url = server.url.clone();
    let http = new_http();
    let old = [open(&http, &url).await, open(&http, &url).await];
    // No request in either for longer than the idle timeout.
    tokio::time::sleep(Duration::from_secs(4)).await;
    for id in &old {
        assert_gone(&http, &url, id, "a session idle past the timeout").await;
    }
    let new = [open(&http, &url).await, open(&http, &url).await];
    for id in &new {
        assert_alive(&http, &url, id, "a session opened after the expiry").await;
    }
    // The expired sessions had left the count: nobody had to give way.
    let stderr = server.stop_for_stderr().await;
    assert!(!stderr.contains(EVICTED), "{stderr}");
}

/// The server's log line when a session gives way to a new one.
const EVICTED: &str = "ending the longest-idle session";

#[tokio::test]
async fn the_longest_idle_session_gives_way_but_not_one_in_use() {
    // Idle timeout 30 s: a session may give way after 6 s without a request.
    let mut server = http_server(&["--max-sessions", "3", "--session-idle-timeout", "30"]).await;
    let url = server.url.clone();
    let url = url.as_str();
    let http = new_http();
    // The session idle longest keeps a GET stream open (a client waiting for
    // notifications), so it must not give way.
    let streaming = open(&http, url).await;
    let stream = http
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &streaming)
        .header("mcp-protocol-version", PROTOCOL)
        .send()
        .await
        .expect("GET stream");
    assert_eq!(stream.status().as_u16(), 200, "GET stream");
    let recent = open(&http, url).await;
    let idle = open(&http, url).await;
    refused(&http, url, Value::from(1)).await;

    tokio::time::sleep(Duration::from_millis(6_500)).await;
    assert_alive(&http, url, &recent, "a session in use").await;
    let newcomer = open(&http, url).await;
    assert_gone(&http, url, &idle, "the longest-idle session gave way").await;
    assert_alive(&http, url, &streaming, "a session with an open stream").await;
    assert_alive(&http, url, &recent, "a recently used session").await;
    assert_alive(&http, url, &newcomer, "the newcomer").await;
    // Nobody left who may give way.
    refused(&http, url, Value::from(2)).await;
    drop(stream);
    let stderr = server.stop_for_stderr().await;
    assert_eq!(stderr.matches(EVICTED).count(), 1, "{stderr}");
}

/// The flood of the attack pass: a client fills the other slots and pings them without
/// end, which used to count as activity and so kept every slot busy. Pings are not work:
/// at the cap the pinged session gives way, and the person's session, which did work but
/// has been idle as long, stays.
#[tokio::test]
async fn pinging_every_slot_holds_none_of_them() {
    // Idle timeout 10 s: a session may give way after 2 s without work.
    let server = http_server(&["--max-sessions", "2", "--session-idle-timeout", "10"]).await;
    let url = server.url.clone();
    let http = new_http();
    let person = open(&http, &url).await;
    assert_alive(&http, &url, &person, "the person's session works").await;
    let flood = open(&http, &url).await;
    let pinger = {
        let (http, url, flood) = (http.clone(), url.clone(), flood.clone());
        tokio::spawn(async move {
            // Bounded: 40 pings over 4 s, then it stops by itself.
            for n in 0..40 {
                let ping = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#, 100 + n);
                let r = send(&http, reqwest::Method::POST, &url, Some(ping), Some(&flood)).await;
                if r.map(|r| r.status != 200).unwrap_or(true) {
                    return n;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            40
        })
    };
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let newcomer = open(&http, &url).await;
    let pings = pinger.await.expect("pinger");
    assert!(
        pings < 40,
        "the pinged session was ended ({pings} pings answered)"
    );
    assert_gone(&http, &url, &flood, "the pinged session gave way").await;
    assert_alive(&http, &url, &person, "the person's session stays").await;
    assert_alive(&http, &url, &newcomer, "the newcomer").await;
}
