//! `get_portfolio` on one 10,000-position page, end to end: an HTTP client reading the raw
//! bytes of the answer → `etrade serve` (release, streamable HTTP) → signed request → a
//! canned-bytes E*TRADE on loopback → client model → envelope → SSE.
//!
//! The page is rendered once by the fake E*TRADE and then served as fixed bytes by a tiny
//! server that ignores signatures, so the figures measure `etrade serve`, not the fake's
//! rendering. The timed client reads the answer's bytes without parsing them (what any client
//! pays to parse 24 MiB is its own cost); one answer is parsed outside the timing to check
//! that the whole page came back.
//!
//! Baselines in the same run: the same signed page fetched and parsed by the runtime's HTTP
//! client alone (no MCP, no model, no envelope), and CPython's stdlib json parsing that page
//! once and writing the result twice (`benches/support/cpython_json.py`; `BENCH_PYTHON`,
//! default `python3`; the row says skipped without it). Also reports the server's peak RSS,
//! and what the known-secret redaction of success bodies adds to parsing that page.
//!
//! Run: `cargo bench --bench portfolio` (`BENCH_POSITIONS`, default 10000; `BENCH_CALLS`, 5;
//! `BENCH_ETRADE_BIN`, another `etrade` build to measure).
//! The last lines are `REPORT` summary lines for `benches/run-all`.

#[path = "support/report.rs"]
mod summary;

use fake_etrade::{FakeConfig, FakeEtrade};
use runtime::config::Environment;
use runtime::credentials::{
    CredentialKey, CredentialStore, KeyringStore, Secret, StoredCredentials,
};
use runtime::etrade::endpoints::Endpoints;
use runtime::etrade::{ClientOptions, EtradeHttp, session};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};

const CK: &str = "ck-bench";
const CS: &str = "cs-bench/+=";

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
        .clamp(1, 100_000)
}

fn rss_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// CPU time (user + system) the process has used so far, from `/proc/PID/stat`.
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces; the fields after it are fixed.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // Linux reports in USER_HZ, 100 on every architecture the bench runs on.
    Some(Duration::from_millis(ticks * 10))
}

/// CPython's median (ms) for `json.loads` of `page` once and `json.dumps` of the result twice
/// (`benches/support/cpython_json.py`), or why it could not run.
fn cpython_parse_write_twice(
    dir: &std::path::Path,
    page: &[u8],
    runs: usize,
) -> Result<f64, String> {
    let file = dir.join("portfolio-page.json");
    std::fs::write(&file, page).map_err(|e| format!("cannot write the page: {e}"))?;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/support/cpython_json.py"
    );
    let python = std::env::var("BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = std::process::Command::new(&python)
        .arg(script)
        .arg(&file)
        .arg(runs.to_string())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("{python} not found ({e})"))?;
    let _ = std::fs::remove_file(&file);
    if !out.status.success() {
        return Err(format!("{python} failed ({})", out.status));
    }
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|_| format!("{python} printed no time"))
}

/// Medians of parsing a page as it is and through the known-secret redaction every success
/// body gets (`EtradeHttp::api`), interleaved so that both see the same machine, and of the
/// redaction's pre-check over the text alone. The page holds no secret, so the pre-check is
/// all the redaction does.
struct RedactionCost {
    plain: Duration,
    redacted: Duration,
    pre_check: Duration,
}

fn redaction_cost(page: &str, creds: &StoredCredentials, runs: usize) -> RedactionCost {
    let secrets = session::known_secrets(creds);
    let (mut plain, mut redacted, mut pre_check) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let value: serde_json::Value = serde_json::from_str(page).expect("the page parses");
        plain.push(t.elapsed());
        drop(value);
        let t = Instant::now();
        let (value, replaced) = secrets.parse_redacted(page).expect("the page parses");
        redacted.push(t.elapsed());
        assert_eq!(replaced, 0, "the page holds no secret");
        drop(value);
        let t = Instant::now();
        let found = secrets.may_reveal(std::hint::black_box(page));
        pre_check.push(t.elapsed());
        assert!(!found, "the page holds no secret");
    }
    RedactionCost {
        plain: summary::median(plain),
        redacted: summary::median(redacted),
        pre_check: summary::median(pre_check),
    }
}

/// A loopback server that answers every `GET …/portfolio…` with `page` and anything else with
/// 404, ignoring signatures: E*TRADE's side of the bench at the cost of copying bytes.
async fn serve_canned(page: String) -> String {
    use axum::http::{StatusCode, Uri, header};
    use axum::response::IntoResponse;
    let page = axum::body::Bytes::from(page);
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let page = page.clone();
        async move {
            if uri.path().contains("/portfolio") {
                ([(header::CONTENT_TYPE, "application/json")], page).into_response()
            } else {
                StatusCode::NOT_FOUND.into_response()
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind canned server");
    let addr = listener.local_addr().expect("canned address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

/// A streamable HTTP MCP session driven with plain requests, so that timing a call covers
/// the server's work and the transfer of its bytes, not a client's parsing of them.
struct RawSession {
    http: reqwest::Client,
    url: String,
    session: String,
    next_id: u64,
}

const PROTOCOL: &str = "2025-11-25";

impl RawSession {
    async fn open(url: String) -> RawSession {
        let http = reqwest::Client::new();
        let init = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}});
        let answer = http
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .json(&init)
            .send()
            .await
            .expect("initialize");
        assert!(
            answer.status().is_success(),
            "initialize: {}",
            answer.status()
        );
        let session = answer
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_string();
        let _ = answer.bytes().await.expect("initialize answer");
        let raw = RawSession {
            http,
            url,
            session,
            next_id: 1,
        };
        let initialized =
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = raw.post(&initialized).await;
        assert!(
            answer.status().is_success(),
            "initialized: {}",
            answer.status()
        );
        raw
    }

    async fn post(&self, message: &serde_json::Value) -> reqwest::Response {
        self.http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.session)
            .header("mcp-protocol-version", PROTOCOL)
            .json(message)
            .send()
            .await
            .expect("request")
    }

    /// The raw answer to one `tools/call`, every byte read.
    async fn call(&mut self, name: &str, arguments: &serde_json::Value) -> axum::body::Bytes {
        let id = self.next_id;
        self.next_id += 1;
        let call = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        let answer = self.post(&call).await;
        assert!(
            answer.status().is_success(),
            "tools/call: {}",
            answer.status()
        );
        answer.bytes().await.expect("answer body")
    }
}

/// The call succeeded and its page holds every position.
fn assert_whole_page(result: &serde_json::Value, positions: usize, detail: &str) {
    assert_eq!(result["isError"], false, "get_portfolio ({detail}) failed");
    let n = result["structuredContent"]["data"]["accountPortfolio"][0]["position"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0);
    assert_eq!(n, positions, "the whole page came back ({detail})");
}

/// The `CallToolResult` in a `tools/call` answer: an SSE stream or a plain JSON body.
fn call_result(raw: &[u8]) -> serde_json::Value {
    let text = std::str::from_utf8(raw).expect("UTF-8 answer");
    let message = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim_start)
        .find(|d| d.starts_with('{'))
        .unwrap_or(text);
    let mut v: serde_json::Value = serde_json::from_str(message).expect("a JSON-RPC answer");
    v["result"].take()
}

#[tokio::main]
async fn main() {
    let positions = env_num("BENCH_POSITIONS", 10_000);
    let calls = env_num("BENCH_CALLS", 5);
    let mut config = FakeConfig::new(CK, CS);
    config.timestamp_window = Duration::from_secs(3600);
    let fake = FakeEtrade::start(config).await;
    let mut fixtures = fake.fixtures();
    let account = fixtures.accounts[0].clone();
    let template = account.positions[0].clone();
    fixtures.accounts[0].positions = (0..positions)
        .map(|i| {
            let mut p = template.clone();
            p.position_id = 50_000_000_000 + i as i64;
            p.symbol = format!("S{i:05}");
            p.quantity = 1.0 + (i % 97) as f64;
            p.price_paid = 10.0 + (i % 1000) as f64 / 100.0;
            p
        })
        .collect();
    fake.set_fixtures(fixtures);
    let key_str = account.account_id_key.clone();

    let pair = fake.issue_access_token(CK);
    let mut creds = StoredCredentials::new(CK, Secret::new(CS));
    creds.authorize(
        Secret::new(pair.token.clone()),
        Secret::new(pair.secret.clone()),
        jiff::Timestamp::now(),
    );
    let endpoints = |base: &str| Endpoints {
        api_base: base.to_string(),
        oauth_base: base.to_string(),
        authorize: fake.authorize_url().to_string(),
    };
    let options = ClientOptions {
        rate_scale: 1000,
        ..ClientOptions::default()
    };
    let request = runtime::etrade::EtradeRequest::read(runtime::etrade::Endpoint::Portfolio)
        .at("accountIdKey", key_str.clone())
        .with("count", i64::try_from(positions).expect("count"));
    // The page exactly as the fake renders it, once; from here on it is served canned.
    let rendered = EtradeHttp::new(endpoints(&fake.base_url()), &options)
        .expect("client")
        .api_answer(&session::signer(&creds), &request)
        .await
        .expect("the fake's page");
    assert!(rendered.is_success(), "the fake refused the page");
    let body = rendered.body;
    let canned = serve_canned(body.clone()).await;

    let home = tempfile::tempdir().expect("home");
    let profile = format!("bench-{}", std::process::id());
    std::fs::write(
        home.path().join("config.toml"),
        format!("[profiles.{profile}]\nenvironment = \"sandbox\"\napi_base_url = \"{canned}\"\n"),
    )
    .expect("config");
    let key = CredentialKey::new(Environment::Sandbox, profile.clone()).expect("key");
    let store = KeyringStore::linux_keyutils().expect("keyutils");
    store.save(&key, &creds).expect("store");

    // Baseline: the runtime's signed client fetching the same page and parsing it.
    let http = EtradeHttp::new(endpoints(&canned), &options).expect("client");
    let mut raw = Vec::new();
    let mut fetch_only = Vec::new();
    for _ in 0..calls {
        let t = Instant::now();
        let answer = http
            .api_answer(&session::signer(&creds), &request)
            .await
            .expect("raw answer");
        assert!(answer.is_success(), "the canned server refused the page");
        let page: serde_json::Value = serde_json::from_str(&answer.body).expect("the page parses");
        raw.push(t.elapsed());
        drop(page);
        // Context: the transfer alone (the canned server's and the client's share).
        let t = Instant::now();
        let answer = http
            .api_answer(&session::signer(&creds), &request)
            .await
            .expect("raw answer");
        fetch_only.push(t.elapsed());
        assert_eq!(answer.body.len(), body.len());
    }
    let python = cpython_parse_write_twice(home.path(), body.as_bytes(), calls);
    let redaction = redaction_cost(&body, &creds, calls);

    // Streamable HTTP: a 10,000-position result (structuredContent plus its identical text)
    // is larger than the 16 MiB line limit of rmcp's stdio codec (see docs/performance.md).
    // `option_env!`: a cross-target `cargo check` (.ci/check-targets) does not define it.
    // `BENCH_ETRADE_BIN` runs another build (an earlier one, to compare).
    let bin = match std::env::var("BENCH_ETRADE_BIN") {
        Ok(bin) => bin,
        Err(_) => match option_env!("CARGO_BIN_EXE_etrade") {
            Some(bin) => bin.to_string(),
            None => panic!("CARGO_BIN_EXE_etrade is unset: run the bench with cargo bench"),
        },
    };
    let mut cmd = tokio::process::Command::new(&bin);
    cmd.args([
        "serve",
        "--profile",
        &profile,
        "--transport",
        "http",
        "--listen",
        "127.0.0.1:0",
    ])
    .env("ETRADE_MCP_HOME", home.path())
    .env("ETRADE_MCP_CREDENTIAL_STORE", "keyutils")
    .env("ETRADE_MCP_RATE_SCALE", "1000")
    .stderr(std::process::Stdio::piped())
    .kill_on_drop(true);
    let mut child = cmd.spawn().expect("spawn etrade serve");
    let pid = child.id().expect("server pid");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let url = loop {
        let line = lines
            .next_line()
            .await
            .expect("stderr")
            .expect("listening line");
        if let Some(u) = line.strip_prefix("etrade-mcp: listening on ") {
            break u.trim().to_string();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let mut client = RawSession::open(url).await;
    let idle_rss = rss_kib(pid, "VmRSS:").unwrap_or(0);
    let args = serde_json::json!({"account_id_key": key_str, "count": positions});
    let mut e2e = Vec::new();
    let mut answer_bytes = 0;
    let mut tree_mib = None;
    let server_cpu_before = cpu_time(pid);
    for call in 0..calls {
        let t = Instant::now();
        let answer = client.call("get_portfolio", &args).await;
        e2e.push(t.elapsed());
        answer_bytes = answer.len();
        if call == 0 {
            let before = rss_kib(std::process::id(), "VmRSS:");
            let r = call_result(&answer);
            // Context for the server's peak: what one answer weighs parsed as a `Value`
            // (the structuredContent tree plus the text string): a client's cost; the
            // server writes the answer without building it.
            tree_mib = rss_kib(std::process::id(), "VmRSS:")
                .zip(before)
                .map(|(after, before)| after.saturating_sub(before) as f64 / 1024.0);
            assert_whole_page(&r, positions, "full");
        }
    }
    let server_cpu = cpu_time(pid)
        .zip(server_cpu_before)
        .map(|(after, before)| after.saturating_sub(before) / calls as u32);
    let peak_rss = rss_kib(pid, "VmHWM:").unwrap_or(0);
    // The same page with `detail: "compact"`: what a row costs a model, in bytes and time.
    let compact_args =
        serde_json::json!({"account_id_key": key_str, "count": positions, "detail": "compact"});
    let mut compact = Vec::new();
    let mut compact_bytes = 0;
    for call in 0..calls {
        let t = Instant::now();
        let answer = client.call("get_portfolio", &compact_args).await;
        compact.push(t.elapsed());
        compact_bytes = answer.len();
        if call == 0 {
            assert_whole_page(&call_result(&answer), positions, "compact");
        }
    }
    let _ = child.kill().await;
    let _ = store.delete(&key);

    let (raw_m, e2e_m, fetch_m, compact_m) = (
        summary::median(raw),
        summary::median(e2e),
        summary::median(fetch_only),
        summary::median(compact),
    );
    println!("| path | median per call ({calls} calls, {positions} positions) |");
    println!("|---|---|");
    println!("| runtime signed fetch, body unparsed (the transfer's share) | {fetch_m:?} |");
    println!("| runtime signed fetch + JSON parse (baseline) | {raw_m:?} |");
    match &python {
        Ok(ms) => println!("| CPython json: parse the page once, write it twice | {ms:.1} ms |"),
        Err(why) => {
            println!("| CPython json: parse the page once, write it twice | skipped: {why} |")
        }
    }
    println!("| get_portfolio over MCP (streamable HTTP), end to end | {e2e_m:?} |");
    println!("| the same, `detail: \"compact\"` | {compact_m:?} |");
    println!(
        "| JSON parse of the page, in process | {:?} |",
        redaction.plain
    );
    println!(
        "| JSON parse with known-secret redaction (EtradeHttp::api) | {:?} |",
        redaction.redacted
    );
    println!(
        "| of which the pre-check over the text | {:?} |",
        redaction.pre_check
    );
    println!(
        "page from E*TRADE: {:.1} MiB; etrade serve CPU per call (mean, user + system): {}",
        body.len() as f64 / 1_048_576.0,
        server_cpu.map_or("unknown".into(), |d| format!("{d:?}"))
    );
    println!(
        "one answer as a Value (structuredContent tree + text, RSS growth of this process): {}",
        tree_mib.map_or("unknown".into(), |m| format!("{m:.1} MiB"))
    );
    println!(
        "ratio end-to-end/baseline: {:.2}; answer on the wire {:.1} MiB; server RSS idle {:.1} MiB, peak {:.1} MiB",
        e2e_m.as_secs_f64() / raw_m.as_secs_f64(),
        answer_bytes as f64 / 1_048_576.0,
        idle_rss as f64 / 1024.0,
        peak_rss as f64 / 1024.0
    );
    let measure = format!("get_portfolio, one {positions}-position page, end to end");
    summary::report(
        &measure,
        e2e_m.as_secs_f64() * 1000.0,
        "ms",
        "signed fetch + JSON parse",
        raw_m.as_secs_f64() * 1000.0,
    );
    let baseline = "CPython json: parse the page once, write it twice";
    match python {
        Ok(ms) => summary::report(&measure, e2e_m.as_secs_f64() * 1000.0, "ms", baseline, ms),
        Err(_) => summary::report_skipped(&measure, e2e_m.as_secs_f64() * 1000.0, "ms", baseline),
    }
    let per_row = positions as f64;
    summary::report(
        "get_portfolio detail=compact, bytes per position on the wire",
        compact_bytes as f64 / per_row,
        "B",
        "detail=full",
        answer_bytes as f64 / per_row,
    );
    summary::report(
        "get_portfolio detail=compact, time per position end to end",
        compact_m.as_secs_f64() * 1e6 / per_row,
        "us",
        "detail=full",
        e2e_m.as_secs_f64() * 1e6 / per_row,
    );
    summary::report(
        &format!("JSON parse of one {positions}-position page with known-secret redaction"),
        redaction.redacted.as_secs_f64() * 1000.0,
        "ms",
        "the same parse without",
        redaction.plain.as_secs_f64() * 1000.0,
    );
    summary::report(
        &format!("etrade serve peak RSS over {calls} such calls"),
        peak_rss as f64 / 1024.0,
        "MiB",
        "same server idle",
        idle_rss as f64 / 1024.0,
    );
}
