//! Streamable HTTP under load, against the real `etrade serve --transport http` binary:
//! 1,000 raw MCP sessions (initialize, server_status, DELETE) with the transport guards
//! probed in the same burst, and slow or oversized clients next to normal ones.
//!
//! Every request is a plain HTTP request (reqwest or a raw TCP socket), so a failure names
//! the exact status and body. Nothing here asserts on speed: the time limits are hang
//! guards only.

// Linux only: it reads /proc and lowers descriptor limits with prlimit.
#![cfg(target_os = "linux")]

use crate::common;

use common::*;
use serde_json::Value;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Barrier, Semaphore};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"server_status","arguments":{}}}"#;
const PROTOCOL: &str = "2025-11-25";
const TOKEN: &str = "load-test-token-0123456789";

/// A whole scenario that takes longer than this has hung.
const HANG_GUARD: Duration = Duration::from_secs(90);
/// One request that takes longer than this has hung.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(45);
const RSS_LIMIT_KIB: u64 = 400 * 1024;
const CLIENTS: usize = 1_000;
/// Room for all of them, the probes' sessions and the kept ones at once.
const MAX_SESSIONS: &str = "4096";

// ---------------------------------------------------------------------------------------------
// Raw MCP over HTTP.

/// One independent client: its own connection pool, so its own socket.
fn new_http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        // Plain http on loopback: no root store to load (~25 ms a client otherwise).
        .tls_certs_only([])
        .timeout(REQUEST_TIMEOUT)
        .build()
        .expect("reqwest client")
}

struct Reply {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

async fn send(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> Result<Reply, String> {
    let mut r = http
        .request(method.clone(), url)
        .header("accept", "application/json, text/event-stream");
    if let Some(b) = body {
        r = r
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    for (k, v) in headers {
        r = r.header(*k, *v);
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

/// The JSON-RPC message with this id in an SSE (or plain JSON) response body.
fn message_with_id(body: &str, id: u64) -> Result<Value, String> {
    let candidates: Vec<&str> = if body.trim_start().starts_with('{') {
        vec![body]
    } else {
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .collect()
    };
    candidates
        .into_iter()
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find(|m| m["id"] == id)
        .ok_or_else(|| format!("no JSON-RPC message with id {id} in {body:?}"))
}

fn auth_header(auth: Option<&str>) -> Vec<(&str, &str)> {
    auth.map(|a| vec![("authorization", a)]).unwrap_or_default()
}

struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
    auth: Option<String>,
}

/// initialize + notifications/initialized; the session id the server handed out.
async fn open_session(url: &str, auth: Option<&str>) -> Result<Session, String> {
    let http = new_http();
    let headers = auth_header(auth);
    let init = send(&http, reqwest::Method::POST, url, Some(INIT), &headers).await?;
    if init.status != 200 {
        return Err(format!("initialize: {} {}", init.status, init.body));
    }
    let id = init
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .ok_or("initialize: no Mcp-Session-Id")?
        .to_string();
    let m = message_with_id(&init.body, 1)?;
    if m["result"]["protocolVersion"] != PROTOCOL {
        return Err(format!("initialize result: {m}"));
    }
    let session = Session {
        http,
        url: url.to_string(),
        id,
        auth: auth.map(str::to_string),
    };
    let r = session
        .request(reqwest::Method::POST, Some(INITIALIZED), &[])
        .await?;
    if r.status != 202 {
        return Err(format!(
            "notifications/initialized: {} {}",
            r.status, r.body
        ));
    }
    Ok(session)
}

impl Session {
    /// A request in this session: its id, the protocol version, its token, then `extra`
    /// (a later header of the same name replaces an earlier one).
    async fn request(
        &self,
        method: reqwest::Method,
        body: Option<&str>,
        extra: &[(&str, &str)],
    ) -> Result<Reply, String> {
        let mut headers = vec![
            ("mcp-session-id", self.id.as_str()),
            ("mcp-protocol-version", PROTOCOL),
        ];
        headers.extend(auth_header(self.auth.as_deref()));
        // reqwest's `header` appends; keep the last value of each name only.
        for (k, v) in extra {
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case(k));
            headers.push((k, v));
        }
        send(&self.http, method, &self.url, body, &headers).await
    }

    /// tools/call server_status: 200 with a result whose isError is not true.
    async fn call_status(&self) -> Result<(), String> {
        let r = self.request(reqwest::Method::POST, Some(CALL), &[]).await?;
        if r.status != 200 {
            return Err(format!("tools/call: {} {}", r.status, r.body));
        }
        let m = message_with_id(&r.body, 2)?;
        let result = &m["result"];
        if !result.is_object() || result["isError"] == true {
            return Err(format!("tools/call result: {m}"));
        }
        if result["structuredContent"]["data"]["transport"] != "http" {
            return Err(format!("tools/call payload: {m}"));
        }
        Ok(())
    }

    /// DELETE the session: 202, and the id is unknown afterwards.
    async fn close(self, verify: bool) -> Result<(), String> {
        let r = self.request(reqwest::Method::DELETE, None, &[]).await?;
        if r.status != 202 {
            return Err(format!("DELETE: {} {}", r.status, r.body));
        }
        if verify {
            let r = self.request(reqwest::Method::POST, Some(CALL), &[]).await?;
            if r.status != 404 {
                return Err(format!("call after DELETE: {} {}", r.status, r.body));
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Process and machine figures.

fn proc_status_kib(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc status");
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.trim_start_matches(':').split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{key} in /proc/{pid}/status"))
}

fn rss_kib(server: &HttpServer) -> u64 {
    proc_status_kib(server.child.id().expect("server running"), "VmRSS")
}

fn hwm_kib(server: &HttpServer) -> u64 {
    proc_status_kib(server.child.id().expect("server running"), "VmHWM")
}

fn table(rows: &[(&str, String)]) {
    println!("| {:<32} | value", "figure");
    println!("|{}|------", "-".repeat(34));
    for (name, value) in rows {
        println!("| {name:<32} | {value}");
    }
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// The soft RLIMIT_NOFILE of this process (the server inherits it), if readable.
fn open_files_soft_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// How many clients may hold a socket at once: all of them when the file limit allows,
/// else a quarter of the limit (at most 250), leaving room for everything else.
fn concurrency_cap(wanted: usize) -> (usize, String) {
    match open_files_soft_limit() {
        Some(soft) if soft as usize >= wanted + 512 => {
            (wanted, format!("ulimit -n {soft}: all {wanted} at once"))
        }
        Some(soft) => {
            let cap = (soft as usize / 4).clamp(8, 250);
            (cap, format!("ulimit -n {soft}: capped at {cap} at once"))
        }
        None => (250, "ulimit -n unknown: capped at 250 at once".to_string()),
    }
}

fn addr_of(url: &str) -> String {
    url.strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .expect("http://host:port/mcp")
        .to_string()
}

fn token_file() -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("token file");
    writeln!(file, "{TOKEN}").expect("write token");
    file
}

// ---------------------------------------------------------------------------------------------
// 1 + 2: a thousand sessions with guard probes interleaved.

#[derive(Default, Debug)]
struct Tally {
    sessions: usize,
    calls_ok: usize,
    deletes: usize,
    refused_403: usize,
    refused_401: usize,
    errors: Vec<String>,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.sessions += other.sessions;
        self.calls_ok += other.calls_ok;
        self.deletes += other.deletes;
        self.refused_403 += other.refused_403;
        self.refused_401 += other.refused_401;
        self.errors.extend(other.errors);
    }

    fn check(&mut self, what: &str, r: Result<(), String>) -> bool {
        match r {
            Ok(()) => true,
            Err(e) => {
                self.errors.push(format!("{what}: {e}"));
                false
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Job {
    /// initialize, server_status, DELETE.
    Normal { token: bool, verify_delete: bool },
    /// A foreign Origin on initialize, and (odd n) on a call in a live session.
    ForeignOrigin(usize),
    /// A Host that is not loopback, on initialize and (odd n) in a live session.
    WrongHost(usize),
    /// Token server: no token, or a wrong one, on initialize and (odd n) in a session.
    BadToken(usize),
}

const FOREIGN_ORIGINS: [&str; 5] = [
    "http://evil.example",
    "null",
    "http://localhost.evil.example:80",
    "https://127.0.0.1.nip.io",
    "http://[::2]:8080",
];
const WRONG_HOSTS: [&str; 4] = [
    "evil.example",
    "evil.example:80",
    "localhost.evil.example",
    "127.0.0.1.nip.io",
];
const BAD_AUTH: [Option<&str>; 5] = [
    None,
    Some("Bearer wrong"),
    Some("Bearer load-test-token-012345678"),
    Some("load-test-token-0123456789"),
    Some("Basic bG9hZDp0b2tlbg=="),
];

/// A refused request: the expected status and no session handed out.
fn refused(r: Result<Reply, String>, want: u16) -> Result<(), String> {
    let r = r?;
    if r.status != want {
        return Err(format!("want {want}, got {} {}", r.status, r.body));
    }
    if r.headers.contains_key("mcp-session-id") {
        return Err(format!("a refused {want} request got a session id"));
    }
    if want == 401 && r.headers.get("www-authenticate").map(|v| v.as_bytes()) != Some(b"Bearer") {
        return Err("401 without WWW-Authenticate: Bearer".to_string());
    }
    if r.body.contains(TOKEN) {
        return Err("the token was echoed".to_string());
    }
    Ok(())
}

/// One refused initialize, then (if `in_session`) one refused call in a live session, after
/// which the same session still works.
async fn probe(
    url: &str,
    auth: Option<&str>,
    bad: (&str, Option<&str>),
    want: u16,
    in_session: bool,
) -> Tally {
    let mut t = Tally::default();
    let http = new_http();
    let mut headers = auth_header(auth);
    headers.retain(|(k, _)| !k.eq_ignore_ascii_case(bad.0));
    if let Some(v) = bad.1 {
        headers.push((bad.0, v));
    }
    let r = send(&http, reqwest::Method::POST, url, Some(INIT), &headers).await;
    if t.check("refused initialize", refused(r, want)) {
        t.add_refusal(want);
    }
    if !in_session {
        return t;
    }
    let session = match open_session(url, auth).await {
        Ok(s) => s,
        Err(e) => {
            t.errors.push(format!("probe session: {e}"));
            return t;
        }
    };
    t.sessions += 1;
    let bad_headers: Vec<(&str, &str)> = match bad.1 {
        Some(v) => vec![(bad.0, v)],
        None => vec![],
    };
    let r = if bad.1.is_none() {
        // No Authorization at all: a session id alone must not be enough.
        let mut headers = vec![
            ("mcp-session-id", session.id.as_str()),
            ("mcp-protocol-version", PROTOCOL),
        ];
        headers.retain(|(k, _)| !k.eq_ignore_ascii_case(bad.0));
        send(
            &session.http,
            reqwest::Method::POST,
            url,
            Some(CALL),
            &headers,
        )
        .await
    } else {
        session
            .request(reqwest::Method::POST, Some(CALL), &bad_headers)
            .await
    };
    if t.check("refused call in a session", refused(r, want)) {
        t.add_refusal(want);
    }
    if t.check("call after refusal", session.call_status().await) {
        t.calls_ok += 1;
    }
    if t.check("DELETE after refusal", session.close(false).await) {
        t.deletes += 1;
    }
    t
}

impl Tally {
    fn add_refusal(&mut self, status: u16) {
        match status {
            403 => self.refused_403 += 1,
            401 => self.refused_401 += 1,
            _ => unreachable!(),
        }
    }
}

/// A token server: an unauthenticated request that sends headers and then stalls its body
/// is refused at once, without the server waiting for the body.
async fn unauthenticated_stalled_body(addr: &str) -> Result<(), String> {
    let mut tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        INIT.len()
    );
    tcp.write_all(head.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let status = read_status(&mut tcp, REQUEST_TIMEOUT).await?;
    if status != 401 {
        return Err(format!("stalled unauthenticated body: {status}, want 401"));
    }
    Ok(())
}

async fn run_job(job: Job, open: &str, guarded: &str, barrier: Option<Arc<Barrier>>) -> Tally {
    let bearer = format!("Bearer {TOKEN}");
    match job {
        Job::Normal {
            token,
            verify_delete,
        } => {
            let (url, auth) = if token {
                (guarded, Some(bearer.as_str()))
            } else {
                (open, None)
            };
            let mut t = Tally::default();
            let session = open_session(url, auth).await;
            if let Some(b) = barrier {
                // Every client holds its session here, so all are open at the same time.
                b.wait().await;
            }
            let session = match session {
                Ok(s) => s,
                Err(e) => {
                    t.errors.push(e);
                    return t;
                }
            };
            t.sessions += 1;
            if t.check("server_status", session.call_status().await) {
                t.calls_ok += 1;
            }
            if t.check("DELETE", session.close(verify_delete).await) {
                t.deletes += 1;
            }
            t
        }
        Job::ForeignOrigin(n) => {
            let origin = FOREIGN_ORIGINS[n % FOREIGN_ORIGINS.len()];
            // Half on the open server, half on the token server with a valid token:
            // the Origin check does not depend on authentication.
            let (url, auth) = if n % 4 < 2 {
                (open, None)
            } else {
                (guarded, Some(bearer.as_str()))
            };
            probe(url, auth, ("origin", Some(origin)), 403, n % 2 == 1).await
        }
        Job::WrongHost(n) => {
            let host = WRONG_HOSTS[n % WRONG_HOSTS.len()];
            probe(open, None, ("host", Some(host)), 403, n % 2 == 1).await
        }
        Job::BadToken(n) => {
            if n % 10 == 9 {
                let mut t = Tally::default();
                if t.check(
                    "stalled unauthenticated body",
                    unauthenticated_stalled_body(&addr_of(guarded)).await,
                ) {
                    t.refused_401 += 1;
                }
                return t;
            }
            let bad = BAD_AUTH[n % BAD_AUTH.len()];
            probe(
                guarded,
                Some(bearer.as_str()),
                ("authorization", bad),
                401,
                n % 2 == 1,
            )
            .await
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousand_sessions_with_guards_interleaved() {
    // Every client holds its session at the same time, above the default cap of 256 (the
    // cap itself is `tests/mcp/http_sessions.rs`).
    let open = http_server(&["--max-sessions", MAX_SESSIONS]).await;
    let file = token_file();
    let path = file.path().to_string_lossy().to_string();
    let guarded = http_server(&["--http-token-file", &path, "--max-sessions", MAX_SESSIONS]).await;
    let rss_before = rss_kib(&open);
    let rss_before_guarded = rss_kib(&guarded);

    // Normal clients on the open server, every tenth slot followed by a guard probe; the
    // token server gets its own share of sessions and refused requests in the same burst.
    let mut jobs = Vec::new();
    let (mut origin_n, mut host_n, mut token_n) = (0, 0, 0);
    for i in 0..CLIENTS {
        jobs.push(Job::Normal {
            token: false,
            verify_delete: i % 50 == 0,
        });
        match i % 10 {
            3 => {
                jobs.push(Job::ForeignOrigin(origin_n));
                origin_n += 1;
            }
            5 => {
                jobs.push(Job::WrongHost(host_n));
                host_n += 1;
            }
            7 => {
                jobs.push(Job::BadToken(token_n));
                token_n += 1;
                jobs.push(Job::Normal {
                    token: true,
                    verify_delete: i % 100 == 7,
                });
            }
            9 => jobs.push(Job::Normal {
                token: true,
                verify_delete: false,
            }),
            _ => {}
        }
    }
    // What the plan must produce, counted from the plan itself.
    let mut want = Tally::default();
    let mut normal_open = 0;
    for job in &jobs {
        match *job {
            Job::Normal { token, .. } => {
                want.sessions += 1;
                want.calls_ok += 1;
                want.deletes += 1;
                normal_open += usize::from(!token);
            }
            Job::ForeignOrigin(n) | Job::WrongHost(n) => {
                want.refused_403 += 1 + n % 2;
                want.sessions += n % 2;
                want.calls_ok += n % 2;
                want.deletes += n % 2;
            }
            Job::BadToken(n) if n % 10 == 9 => want.refused_401 += 1,
            Job::BadToken(n) => {
                want.refused_401 += 1 + n % 2;
                want.sessions += n % 2;
                want.calls_ok += n % 2;
                want.deletes += n % 2;
            }
        }
    }
    assert_eq!(normal_open, CLIENTS);

    let (cap, cap_note) = concurrency_cap(jobs.len());
    // All sessions of the open server are held open together when nothing is capped.
    let barrier = (cap >= jobs.len()).then(|| Arc::new(Barrier::new(normal_open)));
    let semaphore = Arc::new(Semaphore::new(cap));
    let peak = Arc::new(AtomicUsize::new(0));
    let active = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut set = JoinSet::new();
    for job in jobs.iter().copied() {
        let (open_url, guarded_url) = (open.url.clone(), guarded.url.clone());
        let barrier = match job {
            Job::Normal { token: false, .. } => barrier.clone(),
            _ => None,
        };
        let (semaphore, peak, active) = (semaphore.clone(), peak.clone(), active.clone());
        set.spawn(async move {
            let _permit = semaphore.acquire_owned().await.expect("semaphore");
            let now = active.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            let t = run_job(job, &open_url, &guarded_url, barrier).await;
            active.fetch_sub(1, Ordering::SeqCst);
            t
        });
    }
    let mut got = Tally::default();
    let joined = tokio::time::timeout(HANG_GUARD, async {
        while let Some(t) = set.join_next().await {
            got.add(t.expect("client task"));
        }
    })
    .await;
    let elapsed = started.elapsed();
    assert!(
        joined.is_ok(),
        "hang guard: the burst did not finish within {HANG_GUARD:?} ({} of {} tasks left)",
        set.len(),
        jobs.len()
    );
    let rss_after = rss_kib(&open);
    let hwm = hwm_kib(&open);
    let rss_after_guarded = rss_kib(&guarded);

    // Sessions the clients never DELETE: what each one costs while the server keeps it.
    const KEPT: usize = 200;
    let mut kept = Vec::new();
    let mut kept_errors = Vec::new();
    let mut set = JoinSet::new();
    for _ in 0..KEPT {
        let url = open.url.clone();
        set.spawn(async move {
            let s = open_session(&url, None).await?;
            s.call_status().await?;
            Ok::<_, String>(s)
        });
    }
    tokio::time::timeout(HANG_GUARD, async {
        while let Some(r) = set.join_next().await {
            match r.expect("task") {
                Ok(s) => kept.push(s),
                Err(e) => kept_errors.push(e),
            }
        }
    })
    .await
    .expect("hang guard: kept sessions");
    let rss_kept = rss_kib(&open);
    let per_session = rss_kept.saturating_sub(rss_after) as f64 / KEPT as f64;
    // The kept sessions still answer: the server did not drop them.
    for s in kept.iter().step_by(40) {
        s.call_status().await.expect("a kept session still answers");
    }

    println!(
        "http_load: concurrency {cap_note}; peak {} in flight",
        peak.load(Ordering::SeqCst)
    );
    table(&[
        ("tasks (clients + probes)", jobs.len().to_string()),
        (
            "sessions opened / want",
            format!("{} / {}", got.sessions, want.sessions),
        ),
        (
            "server_status 200 / want",
            format!("{} / {}", got.calls_ok, want.calls_ok),
        ),
        (
            "DELETE 202 / want",
            format!("{} / {}", got.deletes, want.deletes),
        ),
        (
            "403 Origin + Host / want",
            format!("{} / {}", got.refused_403, want.refused_403),
        ),
        (
            "401 token / want",
            format!("{} / {}", got.refused_401, want.refused_401),
        ),
        ("errors", got.errors.len().to_string()),
        ("burst wall time", format!("{elapsed:.2?}")),
        (
            "open server RSS before / after",
            format!("{} / {}", mib(rss_before), mib(rss_after)),
        ),
        ("open server peak RSS (VmHWM)", mib(hwm)),
        (
            "token server RSS before / after",
            format!("{} / {}", mib(rss_before_guarded), mib(rss_after_guarded)),
        ),
        (
            "RSS with 200 undeleted sessions",
            format!("{} ({per_session:.1} KiB a session)", mib(rss_kept)),
        ),
    ]);

    let sample: Vec<&String> = got.errors.iter().take(10).collect();
    assert!(
        got.errors.is_empty(),
        "{} errors, e.g. {sample:#?}",
        got.errors.len()
    );
    assert!(kept_errors.is_empty(), "kept sessions: {kept_errors:?}");
    assert_eq!(got.sessions, want.sessions, "sessions");
    assert_eq!(got.calls_ok, want.calls_ok, "successful calls");
    assert_eq!(got.deletes, want.deletes, "deletes");
    assert_eq!(
        got.refused_403, want.refused_403,
        "403s: none slipped through"
    );
    assert_eq!(
        got.refused_401, want.refused_401,
        "401s: none slipped through"
    );
    assert!(
        rss_after < RSS_LIMIT_KIB && rss_kept < RSS_LIMIT_KIB,
        "server RSS after the burst {} / with kept sessions {} exceeds {}",
        mib(rss_after),
        mib(rss_kept),
        mib(RSS_LIMIT_KIB)
    );
    for s in kept {
        s.close(false).await.expect("DELETE a kept session");
    }
}

// ---------------------------------------------------------------------------------------------
// 3: slow and oversized clients next to normal ones.

const MAX_BODY: usize = 64 * 1024;

/// Read an HTTP/1.1 status line; Err on timeout, EOF or garbage.
async fn read_status(tcp: &mut TcpStream, within: Duration) -> Result<u16, String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(end) = buf.iter().position(|b| *b == b'\n') {
            let line = String::from_utf8_lossy(&buf[..end]);
            return line
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("status line {line:?}"));
        }
        match tokio::time::timeout_at(deadline, tcp.read(&mut chunk)).await {
            Err(_) => return Err(format!("no response within {within:?}")),
            Ok(Ok(0)) => return Err("connection closed without a response".to_string()),
            Ok(Ok(n)) => buf.extend_from_slice(&chunk[..n]),
            Ok(Err(e)) => return Err(e.to_string()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Slow {
    /// Headers, then the body one byte per 100 ms until released.
    Trickle,
    /// Headers and half the body, then nothing.
    StalledBody,
    /// Part of the request head, then nothing.
    StalledHead,
}

/// What became of a slow connection once the normal clients were done.
#[derive(Debug, PartialEq)]
enum SlowEnd {
    /// Still open, no answer: the server is still waiting for it.
    Held,
    /// The server answered or closed it.
    Answered(Result<u16, String>),
}

async fn slow_client(
    addr: String,
    kind: Slow,
    ready: Arc<Barrier>,
    release: CancellationToken,
) -> Result<(Slow, SlowEnd), String> {
    let w = |e: std::io::Error| format!("write: {e}");
    let body = INIT.as_bytes();
    let setup = async {
        let mut tcp = TcpStream::connect(&addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
            INIT.len()
        );
        let mut sent = 0;
        match kind {
            Slow::Trickle => tcp.write_all(head.as_bytes()).await.map_err(w)?,
            Slow::StalledBody => {
                tcp.write_all(head.as_bytes()).await.map_err(w)?;
                sent = body.len() / 2;
                tcp.write_all(&body[..sent]).await.map_err(w)?;
            }
            Slow::StalledHead => tcp.write_all(&head.as_bytes()[..40]).await.map_err(w)?,
        }
        Ok::<_, String>((tcp, sent, Instant::now()))
    }
    .await;
    // Everyone reaches the barrier, even a client that failed to set up.
    ready.wait().await;
    let (mut tcp, mut sent, head_sent) = setup?;
    if kind == Slow::Trickle {
        // Never finish before release: at most all but the last byte.
        while sent + 1 < body.len() {
            tokio::select! {
                _ = release.cancelled() => break,
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
            if release.is_cancelled() {
                break;
            }
            tcp.write_all(&body[sent..=sent]).await.map_err(w)?;
            sent += 1;
        }
    } else {
        release.cancelled().await;
    }
    // Is the server still waiting on this connection?
    let mut probe = [0u8; 1];
    let end = match tokio::time::timeout(Duration::from_millis(300), tcp.peek(&mut probe)).await {
        Err(_) => SlowEnd::Held,
        Ok(_) => SlowEnd::Answered(read_status(&mut tcp, Duration::from_secs(1)).await),
    };
    if kind == Slow::Trickle && end == SlowEnd::Held {
        // A slow body is still a valid request: finish it and it is served.
        tcp.write_all(&body[sent..]).await.map_err(w)?;
        let status = read_status(&mut tcp, REQUEST_TIMEOUT).await?;
        // On a machine so loaded that the normal clients took longer than the body
        // deadline, the deadline answering is the server doing its job.
        let late = head_sent.elapsed() >= runtime::mcp::http::BODY_READ_TIMEOUT;
        if status != 200 && !(status == 408 && late) {
            return Err(format!("trickled initialize finally got {status}"));
        }
    }
    Ok((kind, end))
}

/// Oversized bodies: sent whole (reqwest), or a huge Content-Length / chunked body that
/// stalls just past the limit: each gets 413 without the server reading the rest.
async fn oversized_client(url: String, n: usize) -> Result<Duration, String> {
    let started = Instant::now();
    let filler = "x".repeat(MAX_BODY + 1024);
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"{filler}","version":"1"}}}}}}"#
    );
    let status = match n % 3 {
        0 => {
            send(&new_http(), reqwest::Method::POST, &url, Some(&big), &[])
                .await?
                .status
        }
        kind => {
            let addr = addr_of(&url);
            let mut tcp = TcpStream::connect(&addr)
                .await
                .map_err(|e| format!("connect: {e}"))?;
            let framing = if kind == 1 {
                "Content-Length: 104857600".to_string()
            } else {
                "Transfer-Encoding: chunked".to_string()
            };
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{framing}\r\n\r\n"
            );
            tcp.write_all(head.as_bytes())
                .await
                .map_err(|e| e.to_string())?;
            let part = &big.as_bytes()[..MAX_BODY + 512];
            if kind == 2 {
                tcp.write_all(format!("{:x}\r\n", part.len()).as_bytes())
                    .await
                    .map_err(|e| e.to_string())?;
            }
            tcp.write_all(part).await.map_err(|e| e.to_string())?;
            // ...and nothing more: the rest of the body never comes.
            read_status(&mut tcp, REQUEST_TIMEOUT).await?
        }
    };
    if status != 413 {
        return Err(format!("oversized body #{n}: {status}, want 413"));
    }
    Ok(started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_oversized_clients_do_not_starve_others() {
    const SLOW: usize = 50;
    const OVERSIZED: usize = 30;
    const NORMAL: usize = 100;
    let max_body = MAX_BODY.to_string();
    let server = http_server(&["--max-body-bytes", &max_body]).await;
    let addr = addr_of(&server.url);
    let rss_before = rss_kib(&server);

    // The slow connections are all in place before anyone else starts.
    let ready = Arc::new(Barrier::new(SLOW + 1));
    let release = CancellationToken::new();
    let mut slow = JoinSet::new();
    for i in 0..SLOW {
        let kind = match i % 5 {
            0 | 1 => Slow::Trickle,
            2 | 3 => Slow::StalledBody,
            _ => Slow::StalledHead,
        };
        slow.spawn(slow_client(
            addr.clone(),
            kind,
            ready.clone(),
            release.clone(),
        ));
    }
    tokio::time::timeout(HANG_GUARD, ready.wait())
        .await
        .expect("hang guard: slow clients connect");

    let started = Instant::now();
    let mut oversized = JoinSet::new();
    for n in 0..OVERSIZED {
        oversized.spawn(oversized_client(server.url.clone(), n));
    }
    let mut normal = JoinSet::new();
    for _ in 0..NORMAL {
        let url = server.url.clone();
        normal.spawn(async move {
            let s = open_session(&url, None).await?;
            s.call_status().await?;
            s.close(false).await
        });
    }
    let mut errors = Vec::new();
    let mut normal_ok = 0;
    let mut too_large = 0;
    let mut slowest_413 = Duration::ZERO;
    let finished = tokio::time::timeout(HANG_GUARD, async {
        while let Some(r) = normal.join_next().await {
            match r.expect("normal task") {
                Ok(()) => normal_ok += 1,
                Err(e) => errors.push(format!("normal: {e}")),
            }
        }
        let normal_done = started.elapsed();
        while let Some(r) = oversized.join_next().await {
            match r.expect("oversized task") {
                Ok(t) => {
                    too_large += 1;
                    slowest_413 = slowest_413.max(t);
                }
                Err(e) => errors.push(format!("oversized: {e}")),
            }
        }
        normal_done
    })
    .await;
    let normal_done = match finished {
        Ok(t) => t,
        Err(_) => panic!(
            "hang guard: normal clients starved ({normal_ok} of {NORMAL} done, {} left)",
            normal.len()
        ),
    };

    // Let the slow ones be slow for a while (trickling ~20 bytes) before looking at them.
    tokio::time::sleep_until((started + Duration::from_secs(2)).into()).await;
    release.cancel();
    let mut held = [0usize; 3];
    let mut answered = Vec::new();
    tokio::time::timeout(HANG_GUARD, async {
        while let Some(r) = slow.join_next().await {
            match r.expect("slow task") {
                Ok((kind, SlowEnd::Held)) => held[kind as usize] += 1,
                Ok((kind, SlowEnd::Answered(s))) => answered.push(format!("{kind:?}: {s:?}")),
                Err(e) => errors.push(format!("slow: {e}")),
            }
        }
    })
    .await
    .expect("hang guard: slow clients finish");
    let rss_after = rss_kib(&server);

    let per_kind = SLOW / 5;
    table(&[
        (
            "normal clients ok",
            format!("{normal_ok} / {NORMAL} in {normal_done:.2?}"),
        ),
        (
            "oversized bodies -> 413",
            format!("{too_large} / {OVERSIZED}, slowest {slowest_413:.2?}"),
        ),
        (
            "trickled bodies held, then 200",
            format!("{} / {}", held[0], 2 * per_kind),
        ),
        (
            "stalled bodies still held",
            format!("{} / {}", held[1], 2 * per_kind),
        ),
        (
            "stalled heads still held",
            format!("{} / {}", held[2], per_kind),
        ),
        ("slow ones the server ended", format!("{answered:?}")),
        ("errors", errors.len().to_string()),
        (
            "server RSS before / after",
            format!("{} / {}", mib(rss_before), mib(rss_after)),
        ),
    ]);

    assert!(errors.is_empty(), "errors: {errors:#?}");
    assert_eq!(normal_ok, NORMAL);
    assert_eq!(too_large, OVERSIZED);
    assert!(rss_after < RSS_LIMIT_KIB, "RSS {}", mib(rss_after));
}

/// The server's descriptors for the stalled-connection tests.
const SERVER_NOFILE: usize = 256;

/// An open server whose RLIMIT_NOFILE is lowered to [`SERVER_NOFILE`] with `prlimit`, so
/// the tests can exhaust it without exhausting their own; `None` (skipped) where `prlimit`
/// is unavailable.
async fn descriptor_limited_server() -> Option<HttpServer> {
    let server = http_server(&[]).await;
    let pid = server.child.id().expect("server running").to_string();
    let limit = format!("--nofile={SERVER_NOFILE}:{SERVER_NOFILE}");
    match std::process::Command::new("prlimit")
        .args(["--pid", &pid, &limit])
        .status()
    {
        Ok(s) if s.success() => Some(server),
        other => {
            println!("skipped: prlimit unavailable or refused ({other:?})");
            None
        }
    }
}

/// A normal client's whole session (open, call, close), or `Err` after `bound`.
async fn served_within(
    server: &HttpServer,
    bound: Duration,
) -> Result<Result<(), String>, tokio::time::error::Elapsed> {
    tokio::time::timeout(bound, async {
        let s = open_session(&server.url, None).await?;
        s.call_status().await?;
        s.close(false).await
    })
    .await
}

/// Slowloris: connections that never finish their request head must not hold the server's
/// file descriptors forever (before the fix they did, and once they used them all nobody
/// was served — for a token-protected bind without any token, since the head never reaches
/// the token check). The server now closes a connection whose head is not complete within
/// `runtime::mcp::http::HEADER_READ_TIMEOUT`. The server's RLIMIT_NOFILE is lowered with
/// `prlimit` to show it without exhausting the test's own descriptors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_heads_do_not_exhaust_the_server() {
    let Some(server) = descriptor_limited_server().await else {
        return;
    };
    let addr = addr_of(&server.url);
    let mut stalled = Vec::new();
    for _ in 0..SERVER_NOFILE + 44 {
        let mut tcp = TcpStream::connect(&addr).await.expect("connect");
        tcp.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1")
            .await
            .expect("write");
        stalled.push(tcp);
    }
    // Generous (below REQUEST_TIMEOUT): hyper's default 30 s header read timeout would pass.
    let served = served_within(&server, Duration::from_secs(40)).await;
    drop(stalled);
    match served {
        Ok(r) => r.expect("a normal client is served"),
        Err(_) => panic!(
            "a normal client was starved for 40 s by {} stalled request heads",
            SERVER_NOFILE + 44
        ),
    }
}

/// The same for connections that send a complete head and then stall in the body: the
/// server reads a request body within `runtime::mcp::http::BODY_READ_TIMEOUT` or answers 408 and
/// closes, so stalled bodies cannot hold every descriptor either (before the fix they were
/// held for as long as the client kept the socket open).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_bodies_do_not_exhaust_the_server() {
    let Some(server) = descriptor_limited_server().await else {
        return;
    };
    let addr = addr_of(&server.url);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        INIT.len()
    );
    let mut stalled = Vec::new();
    for _ in 0..SERVER_NOFILE + 44 {
        let mut tcp = TcpStream::connect(&addr).await.expect("connect");
        tcp.write_all(head.as_bytes()).await.expect("write head");
        tcp.write_all(&INIT.as_bytes()[..10]).await.expect("write");
        stalled.push(tcp);
    }
    let served = served_within(&server, Duration::from_secs(40)).await;
    // The stalled ones were answered 408 (those the server had accepted before it ran out).
    let mut timed_out = 0;
    for tcp in stalled.iter_mut().take(20) {
        if read_status(tcp, Duration::from_secs(1)).await == Ok(408) {
            timed_out += 1;
        }
    }
    drop(stalled);
    match served {
        Ok(r) => r.expect("a normal client is served"),
        Err(_) => panic!(
            "a normal client was starved for 40 s by {} stalled request bodies",
            SERVER_NOFILE + 44
        ),
    }
    assert!(timed_out > 0, "no stalled body was answered 408");
}
