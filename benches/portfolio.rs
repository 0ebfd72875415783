//! `get_portfolio` on one 10,000-position page, end to end: rmcp client → `etrade serve`
//! (release, streamable HTTP) → signed request → fake E*TRADE on loopback → client model → envelope.
//! Baselines in the same run: the same signed page fetched and parsed by the runtime's HTTP
//! client alone (no MCP, no model, no envelope), and CPython's stdlib json parsing that page
//! once and writing the result twice (`benches/support/cpython_json.py`; `BENCH_PYTHON`,
//! default `python3`; the row says skipped without it). Also reports the server's peak RSS,
//! and what the known-secret redaction of success bodies adds to parsing that page.
//!
//! Run: `cargo bench --bench portfolio` (`BENCH_POSITIONS`, default 10000; `BENCH_CALLS`, 5).
//! The last lines are `REPORT` summary lines for `benches/run-all`.

#[path = "support/report.rs"]
mod summary;

use fake_etrade::{FakeConfig, FakeEtrade};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
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

    let home = tempfile::tempdir().expect("home");
    let profile = format!("bench-{}", std::process::id());
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[profiles.{profile}]\nenvironment = \"sandbox\"\napi_base_url = \"{}\"\n",
            fake.base_url()
        ),
    )
    .expect("config");
    let pair = fake.issue_access_token(CK);
    let key = CredentialKey::new(Environment::Sandbox, profile.clone()).expect("key");
    let store = KeyringStore::linux_keyutils().expect("keyutils");
    let mut creds = StoredCredentials::new(CK, Secret::new(CS));
    creds.authorize(
        Secret::new(pair.token.clone()),
        Secret::new(pair.secret.clone()),
        jiff::Timestamp::now(),
    );
    store.save(&key, &creds).expect("store");

    // Baseline: the runtime's signed client fetching and parsing the same page.
    let http = EtradeHttp::new(
        Endpoints {
            api_base: fake.base_url().to_string(),
            oauth_base: fake.base_url().to_string(),
            authorize: fake.authorize_url().to_string(),
        },
        &ClientOptions {
            rate_scale: 1000,
            ..ClientOptions::default()
        },
    )
    .expect("client");
    let request = runtime::etrade::EtradeRequest::read(runtime::etrade::Endpoint::Portfolio)
        .at("accountIdKey", key_str.clone())
        .with("count", i64::try_from(positions).expect("count"));
    let mut raw = Vec::new();
    let mut fetch_only = Vec::new();
    let mut body = String::new();
    for _ in 0..calls {
        let t = Instant::now();
        let page = http
            .api(&session::signer(&creds), &request)
            .await
            .expect("raw page");
        raw.push(t.elapsed());
        assert!(page.is_some());
        // Context for the profile: the fake's share of every figure (it renders the page
        // anew for each request).
        let t = Instant::now();
        let answer = http
            .api_answer(&session::signer(&creds), &request)
            .await
            .expect("raw answer");
        fetch_only.push(t.elapsed());
        body = answer.body;
    }
    let python = cpython_parse_write_twice(home.path(), body.as_bytes(), calls);
    let redaction = redaction_cost(&body, &creds, calls);

    // Streamable HTTP: a 10,000-position result (structuredContent plus its identical text)
    // is larger than the 16 MiB line limit of rmcp's stdio codec, so the bench raises the
    // client's SSE event limit instead (see docs/performance.md).
    // `option_env!`: a cross-target `cargo check` (.ci/check-targets) does not define it.
    let Some(bin) = option_env!("CARGO_BIN_EXE_etrade") else {
        panic!("CARGO_BIN_EXE_etrade is unset: run the bench with cargo bench");
    };
    let mut cmd = tokio::process::Command::new(bin);
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
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).max_sse_event_size(512 * 1024 * 1024),
    );
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bench", "1"),
    )
    .with_protocol_version(ProtocolVersion::V_2025_11_25)
    .serve(transport)
    .await
    .expect("initialize");
    let idle_rss = rss_kib(pid, "VmRSS:").unwrap_or(0);
    let mut args = serde_json::Map::new();
    args.insert("account_id_key".into(), key_str.clone().into());
    args.insert("count".into(), positions.into());
    let mut e2e = Vec::new();
    let mut bytes = 0;
    let server_cpu_before = cpu_time(pid);
    for _ in 0..calls {
        let t = Instant::now();
        let r = client
            .call_tool(CallToolRequestParams::new("get_portfolio").with_arguments(args.clone()))
            .await
            .expect("get_portfolio");
        e2e.push(t.elapsed());
        assert_eq!(r.is_error, Some(false), "get_portfolio failed");
        let data = r.structured_content.as_ref().expect("structured");
        let n = data["data"]["accountPortfolio"][0]["position"]
            .as_array()
            .map(Vec::len)
            .unwrap_or(0);
        assert_eq!(n, positions, "the whole page came back");
        bytes = data.to_string().len();
    }
    let server_cpu = cpu_time(pid)
        .zip(server_cpu_before)
        .map(|(after, before)| after.saturating_sub(before) / calls as u32);
    let peak_rss = rss_kib(pid, "VmHWM:").unwrap_or(0);
    let _ = client.cancel().await;
    let _ = child.kill().await;
    let _ = store.delete(&key);

    let (raw_m, e2e_m, fetch_m) = (
        summary::median(raw),
        summary::median(e2e),
        summary::median(fetch_only),
    );
    println!("| path | median per call ({calls} calls, {positions} positions) |");
    println!("|---|---|");
    println!("| runtime signed fetch, body unparsed (the fake's share) | {fetch_m:?} |");
    println!("| runtime signed fetch + JSON parse (baseline) | {raw_m:?} |");
    match &python {
        Ok(ms) => println!("| CPython json: parse the page once, write it twice | {ms:.1} ms |"),
        Err(why) => {
            println!("| CPython json: parse the page once, write it twice | skipped: {why} |")
        }
    }
    println!("| get_portfolio over MCP (streamable HTTP), end to end | {e2e_m:?} |");
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
        "page from the fake: {:.1} MiB; etrade serve CPU per call (mean, user + system): {}",
        body.len() as f64 / 1_048_576.0,
        server_cpu.map_or("unknown".into(), |d| format!("{d:?}"))
    );
    println!(
        "ratio end-to-end/baseline: {:.2}; structuredContent {:.1} MiB; server RSS idle {:.1} MiB, peak {:.1} MiB",
        e2e_m.as_secs_f64() / raw_m.as_secs_f64(),
        bytes as f64 / 1_048_576.0,
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
