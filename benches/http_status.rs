//! `cargo bench --bench http_status`: `tools/call` round trips over streamable HTTP against the
//! real `etrade serve` binary and against a bare rmcp server whose one tool gives back etrade's
//! own `server_status` result (taken from etrade at the start of the run), measured in the same
//! run with the same client code.
//!
//! Both servers run as separate processes on an ephemeral loopback port. The bare server is
//! this bench binary re-executed with `--baseline-server`. The main load is what an MCP host
//! does: ONE initialized session (one rmcp client) with `BENCH_CLIENTS` calls of the same tool
//! in flight at once; rmcp's HTTP client keeps no idle connection, so every call is a POST on
//! a new loopback connection. Secondary loads: `BENCH_CLIENTS` sessions with one call in
//! flight each (the shape of earlier runs), and, on request, raw HTTP POSTs on keep-alive
//! connections in one session (a load generator's shape, without an MCP client's own cost).
//! After a warm-up, every call that completes inside the measurement window counts toward
//! throughput and latency.
//!
//! Environment:
//! - `BENCH_SECONDS` — measurement window per round (default 5, 1..=300).
//! - `BENCH_WARMUP_SECONDS` — warm-up per round (default 1, 0..=60).
//! - `BENCH_ROUNDS` — rounds per target and load, alternating the order (default 2, 1..=20).
//! - `BENCH_CLIENTS` — calls in flight at once (default 32, 1..=256).
//! - `BENCH_SESSIONS_LOAD` — 1 (default) also runs the many-sessions load; 0 skips it.
//! - `BENCH_RAW_LOAD` — 1 also runs the raw keep-alive load (context lines only); default 0.
//! - `BENCH_MODERN_LOAD` — 0 skips the 2026-07-28 load (stateless POSTs, 32 in flight on
//!   keep-alive connections; REPORT rows); default 1.
//! - `BENCH_ETRADE_BIN` — path of the `etrade` binary to measure instead of the one Cargo built.
//!
//! Exits non-zero when any call failed, timed out or returned `isError: true`. The last lines
//! are `REPORT` summary lines for `benches/run-all` (see `benches/support/report.rs`).

#[path = "support/report.rs"]
mod summary;

use axum::serve::ListenerExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The line both servers print on stderr once they listen.
const LISTEN_PREFIX: &str = "etrade-mcp: listening on ";
const BASELINE_FLAG: &str = "--baseline-server";
/// A call slower than this counts as an error (and ends that client's run).
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Latencies kept per client; a client stops issuing calls once it has this many.
const MAX_CALLS_PER_CLIENT: usize = 1_000_000;
/// A client stops after this many failed calls (a dead server must not be hammered).
const MAX_ERRORS_PER_CLIENT: usize = 100;
/// Error messages kept per target (all errors are counted).
const MAX_ERROR_SAMPLES: usize = 10;

type Client = RunningService<RoleClient, ClientConfig>;

fn main() -> ExitCode {
    if std::env::args().any(|a| a == BASELINE_FLAG) {
        return baseline_main();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime for the bench client");
    rt.block_on(bench_main())
}

// ---------------------------------------------------------------------------------------------
// The load generator.

struct Settings {
    clients: usize,
    warmup: Duration,
    window: Duration,
    rounds: usize,
    /// Also run the many-sessions load (secondary rows).
    sessions_load: bool,
    /// Also run the raw keep-alive load (context only, no REPORT line).
    raw_load: bool,
    /// Also run the 2026-07-28 load (REPORT rows); default on.
    modern_load: bool,
}

fn env_u64(name: &str, default: u64, range: std::ops::RangeInclusive<u64>) -> u64 {
    match std::env::var(name) {
        Err(_) => default,
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(v) if range.contains(&v) => v,
            _ => {
                eprintln!(
                    "ignoring {name}={text:?}: expected an integer in {}..={}; using {default}",
                    range.start(),
                    range.end()
                );
                default
            }
        },
    }
}

/// One server under test.
struct Target {
    name: &'static str,
    tool: &'static str,
    url: String,
    /// Spawn → "listening" line.
    startup: Duration,
    /// Resident memory shortly after startup, before any client (KiB).
    idle_rss_kib: Option<u64>,
    /// Held so the process is killed (kill_on_drop) when the target goes away.
    child: Child,
}

struct Outcome {
    name: &'static str,
    calls: usize,
    errors: usize,
    error_samples: Vec<String>,
    window: Duration,
    /// Sorted, in nanoseconds.
    latencies: Vec<u64>,
}

impl Outcome {
    fn empty(name: &'static str) -> Outcome {
        Outcome {
            name,
            calls: 0,
            errors: 0,
            error_samples: Vec::new(),
            window: Duration::ZERO,
            latencies: Vec::new(),
        }
    }

    /// Add one client task's calls.
    fn add_client(&mut self, run: ClientRun) {
        self.errors += run.errors;
        let room = MAX_ERROR_SAMPLES.saturating_sub(self.error_samples.len());
        self.error_samples
            .extend(run.error_samples.into_iter().take(room));
        self.latencies.extend(run.latencies);
    }

    /// Add one round's figures (latencies stay unsorted until the end).
    fn merge(&mut self, round: Outcome) {
        self.window += round.window;
        self.errors += round.errors;
        let room = MAX_ERROR_SAMPLES.saturating_sub(self.error_samples.len());
        self.error_samples
            .extend(round.error_samples.into_iter().take(room));
        self.latencies.extend(round.latencies);
    }

    fn throughput(&self) -> f64 {
        self.calls as f64 / self.window.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Nearest-rank percentile in milliseconds.
    fn percentile_ms(&self, p: f64) -> f64 {
        if self.latencies.is_empty() {
            return f64::NAN;
        }
        let rank = ((p / 100.0) * self.latencies.len() as f64).ceil() as usize;
        let i = rank.clamp(1, self.latencies.len()) - 1;
        self.latencies[i] as f64 / 1e6
    }
}

async fn bench_main() -> ExitCode {
    let settings = Settings {
        clients: env_u64("BENCH_CLIENTS", 32, 1..=256) as usize,
        warmup: Duration::from_secs(env_u64("BENCH_WARMUP_SECONDS", 1, 0..=60)),
        window: Duration::from_secs(env_u64("BENCH_SECONDS", 5, 1..=300)),
        rounds: env_u64("BENCH_ROUNDS", 2, 1..=20) as usize,
        sessions_load: env_u64("BENCH_SESSIONS_LOAD", 1, 0..=1) == 1,
        raw_load: env_u64("BENCH_RAW_LOAD", 0, 0..=1) == 1,
        modern_load: env_u64("BENCH_MODERN_LOAD", 1, 0..=1) == 1,
    };
    let home = tempfile::tempdir().expect("temporary ETRADE_MCP_HOME");
    let etrade_bin = etrade_binary();
    let self_bin = std::env::current_exe().expect("path of the bench binary");

    println!(
        "http_status: {} concurrent sessions, {} round(s) per target of {} s warm-up + {} s window, loopback",
        settings.clients,
        settings.rounds,
        settings.warmup.as_secs(),
        settings.window.as_secs()
    );
    println!("etrade binary: {}", etrade_bin.display());

    let etrade_cmd = || {
        let mut cmd = Command::new(&etrade_bin);
        cmd.args([
            "serve",
            "--transport",
            "http",
            "--listen",
            "127.0.0.1:0",
            "--credential-store",
            "memory",
        ])
        .env("ETRADE_MCP_HOME", home.path())
        .env_remove("ETRADE_MCP_HTTP_TOKEN")
        .env_remove("ETRADE_MCP_ENVIRONMENT")
        .env_remove("ETRADE_MCP_PROFILE")
        .env_remove("ETRADE_MCP_LOG");
        cmd
    };
    let mut etrade = match start_target("etrade", "server_status", etrade_cmd()).await {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot start etrade serve: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The baseline answers with the very result etrade gives, so the ratio measures the tool
    // layer and not the size of the answer.
    let answer = match sample_answer(&etrade).await {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cannot take etrade's server_status answer: {e}");
            return ExitCode::FAILURE;
        }
    };
    let answer_path = home.path().join("baseline-answer.json");
    if let Err(e) = std::fs::write(&answer_path, &answer) {
        eprintln!("cannot write {}: {e}", answer_path.display());
        return ExitCode::FAILURE;
    }
    println!(
        "payload: etrade's server_status result, {} bytes, for both",
        answer.len()
    );
    let bare_cmd = || {
        let mut cmd = Command::new(&self_bin);
        cmd.arg(BASELINE_FLAG).arg(&answer_path);
        cmd
    };
    let mut bare = match start_target("bare rmcp", "ping", bare_cmd()).await {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot start the baseline server: {e}");
            return ExitCode::FAILURE;
        }
    };
    // One spawn is too few for a figure of a few milliseconds: the median of more, taken
    // alternately (etrade's on the home its first run made, as a user's would be).
    let (mut etrade_starts, mut bare_starts) = (vec![etrade.startup], vec![bare.startup]);
    for _ in 1..STARTUP_SAMPLES {
        match (
            time_to_listen(etrade_cmd()).await,
            time_to_listen(bare_cmd()).await,
        ) {
            (Ok(e), Ok(b)) => {
                etrade_starts.push(e);
                bare_starts.push(b);
            }
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("startup sample failed: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    etrade.startup = summary::median(etrade_starts);
    bare.startup = summary::median(bare_starts);

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mib = |k: Option<u64>| k.map_or(f64::NAN, |k| k as f64 / 1024.0);
    println!(
        "startup (spawn → listening): bare {:.1} ms, etrade {:.1} ms → {:.2}x",
        ms(bare.startup),
        ms(etrade.startup),
        ms(etrade.startup) / ms(bare.startup)
    );
    println!(
        "idle RSS: bare {:.1} MiB, etrade {:.1} MiB → {:.2}x",
        mib(bare.idle_rss_kib),
        mib(etrade.idle_rss_kib),
        mib(etrade.idle_rss_kib) / mib(bare.idle_rss_kib)
    );

    // The Python baseline (FastMCP), when `python3 -c 'import fastmcp'` works.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/fastmcp_baseline.py");
    let mut py_cmd =
        Command::new(std::env::var("BENCH_PYTHON").unwrap_or_else(|_| "python3".into()));
    py_cmd.arg(script);
    let fastmcp = match start_target("fastmcp (python)", "ping", py_cmd).await {
        Ok(t) => {
            println!(
                "startup: fastmcp {:.1} ms; idle RSS: fastmcp {:.1} MiB",
                ms(t.startup),
                mib(t.idle_rss_kib)
            );
            Some(t)
        }
        Err(e) => {
            println!(
                "fastmcp baseline skipped (pip install fastmcp to include it): {}",
                e.lines().next().unwrap_or("")
            );
            None
        }
    };

    // Same client code and load shape for every target, in this run. Rounds alternate the
    // order so drift in background load hits all alike. The main load is what a client
    // does; the many-sessions load (etrade and bare only) is the shape of earlier runs.
    let mut targets: Vec<&Target> = vec![&bare, &etrade];
    targets.extend(fastmcp.as_ref());
    let mut loads = vec![Load::OneSession];
    if settings.sessions_load {
        loads.push(Load::Sessions);
    }
    if settings.modern_load {
        loads.push(Load::Modern);
    }
    if settings.raw_load {
        loads.push(Load::RawKeepAlive);
    }
    let mut outcomes: Vec<Vec<Outcome>> = loads
        .iter()
        .map(|_| targets.iter().map(|t| Outcome::empty(t.name)).collect())
        .collect();
    for round in 0..settings.rounds {
        for (l, &load) in loads.iter().enumerate() {
            let count = if load == Load::OneSession {
                targets.len()
            } else {
                2
            };
            let mut order: Vec<usize> = (0..count).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for i in order {
                let target = targets[i];
                match run_load(target, &settings, load).await {
                    Ok(o) => outcomes[l][i].merge(o),
                    Err(e) => {
                        eprintln!(
                            "{} ({}): setup failed: {e}",
                            target.name,
                            load.label(settings.clients)
                        );
                        return ExitCode::FAILURE;
                    }
                }
            }
        }
    }
    for o in outcomes.iter_mut().flatten() {
        o.latencies.sort_unstable();
        o.calls = o.latencies.len();
    }
    // The other loads ran against the first two targets only.
    for o in outcomes.iter_mut().skip(1) {
        o.truncate(2);
    }
    // Local reads in the same paper server: the journal (the trading store) against the
    // account list (the paper book), one client, calls alternating.
    let reads = match journal_and_accounts(&etrade).await {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!("journal/accounts reads failed: {e}");
            None
        }
    };
    let idle_figures: Vec<Idle> = targets
        .iter()
        .map(|t| Idle {
            startup_ms: ms(t.startup),
            rss_mib: mib(t.idle_rss_kib),
        })
        .collect();
    stop(bare).await;
    stop(etrade).await;
    if let Some(t) = fastmcp {
        stop(t).await;
    }
    drop(home);

    for (load, o) in loads.iter().zip(&outcomes) {
        report(&load.label(settings.clients), o);
    }
    summarize(&settings, &outcomes[0], &idle_figures);
    for (load, o) in loads.iter().zip(&outcomes) {
        if *load == Load::Sessions || *load == Load::Modern {
            summarize_sessions(&settings, *load, o);
        }
    }
    let Some((journal, accounts)) = reads else {
        return ExitCode::FAILURE;
    };
    println!(
        "paper server, one client: list_order_journal {journal:.3} ms, list_accounts {accounts:.3} ms (medians of {READ_CALLS})"
    );
    summary::report(
        "list_order_journal (20 entries), median of one client's calls",
        journal,
        "ms",
        "list_accounts in the same paper server",
        accounts,
    );
    let failed: usize = outcomes.iter().flatten().map(|o| o.errors).sum();
    if failed > 0 {
        for o in outcomes.iter().flatten() {
            if o.errors > 0 {
                eprintln!("{}: {} failed calls, for example:", o.name, o.errors);
                for e in &o.error_samples {
                    eprintln!("  - {e}");
                }
            }
        }
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// `CARGO_BIN_EXE_etrade` (set by Cargo for benches and integration tests), unless
/// `BENCH_ETRADE_BIN` names another build; as a last resort `etrade` in the profile directory
/// above this binary (`target/release/deps/http_status-*` → `target/release/etrade`).
fn etrade_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("BENCH_ETRADE_BIN") {
        return PathBuf::from(p);
    }
    if let Some(p) = option_env!("CARGO_BIN_EXE_etrade") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("path of the bench binary");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("bench binary lives in target/<profile>/deps");
    profile_dir.join(format!("etrade{}", std::env::consts::EXE_SUFFIX))
}

/// Spawns the servers measured for startup: the first one's plus this many minus one.
const STARTUP_SAMPLES: usize = 9;

/// Spawn → listen line of one more server, which is then stopped.
async fn time_to_listen(cmd: Command) -> Result<Duration, String> {
    let target = start_target_for("startup sample", "", cmd, false).await?;
    let startup = target.startup;
    stop(target).await;
    Ok(startup)
}

async fn start_target(
    name: &'static str,
    tool: &'static str,
    cmd: Command,
) -> Result<Target, String> {
    start_target_for(name, tool, cmd, true).await
}

/// Spawn a server, wait for its listen line, then keep draining its stderr; with `idle`, also
/// read its RSS after half a second of rest.
async fn start_target_for(
    name: &'static str,
    tool: &'static str,
    mut cmd: Command,
    idle: bool,
) -> Result<Target, String> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("spawn {:?}: {e}", cmd.as_std().get_program()))?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| "stderr was not piped".to_string())?;
    let mut lines = BufReader::new(stderr).lines();
    let mut seen = String::new();
    let found = tokio::time::timeout(STARTUP_TIMEOUT, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.strip_prefix(LISTEN_PREFIX) {
                return Some(url.trim().to_string());
            }
            seen.push_str(&line);
            seen.push('\n');
        }
        None
    })
    .await
    .ok()
    .flatten();
    let Some(url) = found else {
        let _ = child.kill().await;
        return Err(format!(
            "no listen line within {STARTUP_TIMEOUT:?}; stderr:\n{seen}"
        ));
    };
    if !url.starts_with("http://127.0.0.1:") {
        return Err(format!("expected a loopback URL, got {url}"));
    }
    let startup = started.elapsed();
    // A full stderr pipe would block the server's logging, so keep reading it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let idle_rss_kib = if idle {
        tokio::time::sleep(Duration::from_millis(500)).await;
        child.id().and_then(rss_kib)
    } else {
        None
    };
    Ok(Target {
        name,
        tool,
        url,
        startup,
        idle_rss_kib,
        child,
    })
}

/// Calls of each tool in the journal/accounts comparison.
const READ_CALLS: usize = 200;

/// Median latencies (ms) of `list_order_journal` and `list_accounts` on etrade, one client,
/// calls alternating, after 20 previews gave the journal 20 entries.
async fn journal_and_accounts(etrade: &Target) -> Result<(f64, f64), String> {
    let client = connect(&etrade.url).await?;
    let first = |r: &CallToolResult| -> Option<String> {
        let accounts = r.structured_content.as_ref()?["data"]["accounts"]
            .as_array()?
            .clone();
        Some(accounts.first()?["accountIdKey"].as_str()?.to_string())
    };
    let accounts = call_with(&client, "list_accounts", json!({})).await?;
    let key = first(&accounts).ok_or("list_accounts named no account")?;
    for _ in 0..20 {
        let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
            "quantity": "1", "price_type": "LIMIT", "limit_price": "100.00"});
        call_with(
            &client,
            "preview_order",
            json!({"account_id_key": key, "request": order}),
        )
        .await?;
    }
    let (mut journal, mut list) = (Vec::new(), Vec::new());
    for _ in 0..READ_CALLS {
        let t = Instant::now();
        let page = call_with(&client, "list_order_journal", json!({"limit": 20})).await?;
        journal.push(t.elapsed());
        let t = Instant::now();
        call_with(&client, "list_accounts", json!({})).await?;
        list.push(t.elapsed());
        let entries = page
            .structured_content
            .as_ref()
            .and_then(|v| v["data"]["entries"].as_array().map(Vec::len));
        if entries != Some(20) {
            return Err(format!("the journal page had {entries:?} entries, not 20"));
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(5), client.cancel()).await;
    let ms = |v: Vec<Duration>| summary::median(v).as_secs_f64() * 1000.0;
    Ok((ms(journal), ms(list)))
}

async fn call_with(
    client: &Client,
    tool: &'static str,
    args: Value,
) -> Result<CallToolResult, String> {
    let Value::Object(args) = args else {
        return Err("arguments must be an object".into());
    };
    let params = CallToolRequestParams::new(tool).with_arguments(args);
    let result = tokio::time::timeout(CALL_TIMEOUT, client.call_tool(params))
        .await
        .map_err(|_| format!("{tool} timed out after {CALL_TIMEOUT:?}"))?
        .map_err(|e| format!("{tool} failed: {e}"))?;
    if result.is_error == Some(true) {
        let text: Vec<&str> = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
            .collect();
        return Err(format!("{tool} returned isError: {}", text.join(" ")));
    }
    Ok(result)
}

/// One `server_status` result from etrade, as JSON: the baseline's answer.
async fn sample_answer(etrade: &Target) -> Result<Vec<u8>, String> {
    let client = connect(&etrade.url).await?;
    let result = call_once(&client, etrade.tool).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), client.cancel()).await;
    serde_json::to_vec(&result?).map_err(|e| format!("serialize the result: {e}"))
}

/// VmRSS of a process from /proc (Linux), in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

async fn stop(mut target: Target) {
    // Closing stdin asks the baseline to exit; kill covers both servers.
    drop(target.child.stdin.take());
    let _ = target.child.kill().await;
}

async fn connect(url: &str) -> Result<Client, String> {
    let transport = StreamableHttpClientTransport::from_uri(url.to_string());
    // 2025-11-25 is the newest version etrade-mcp accepts: stateful sessions on both targets.
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("etrade-mcp-bench", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(ProtocolVersion::V_2025_11_25);
    tokio::time::timeout(STARTUP_TIMEOUT, info.serve(transport))
        .await
        .map_err(|_| format!("initialize timed out after {STARTUP_TIMEOUT:?}"))?
        .map_err(|e| format!("initialize failed: {e}"))
}

/// One `tools/call` with `{}`; `Err` for transport/protocol errors, timeouts and
/// `isError: true`.
async fn call_once(client: &Client, tool: &'static str) -> Result<CallToolResult, String> {
    call_with(client, tool, json!({})).await
}

struct ClientRun {
    latencies: Vec<u64>,
    errors: usize,
    error_samples: Vec<String>,
}

/// How the calls reach a server: what a client does, or many clients at once.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Load {
    /// One initialized session, `clients` calls in flight in it at once (an MCP host with
    /// one server connection and a model calling tools in parallel). rmcp's HTTP client
    /// keeps no idle connections, so each call is a POST on a new loopback connection.
    OneSession,
    /// `clients` sessions, each with one call in flight (many hosts at once).
    Sessions,
    /// One session, `clients` keep-alive connections each with one call in flight, sent as
    /// raw HTTP (a load generator's shape: no MCP client, no new connection per call). Not
    /// what an rmcp host does; it shows the servers' cost without the client's.
    RawKeepAlive,
    /// 2026-07-28: no session, each POST self-contained (its protocol version and client
    /// in `_meta`, the SEP-2243 headers), `clients` in flight on keep-alive connections.
    Modern,
}

impl Load {
    fn label(self, clients: usize) -> String {
        match self {
            Load::OneSession => format!("1 session, {clients} calls in flight"),
            Load::Sessions => format!("{clients} sessions, 1 call in flight each"),
            Load::RawKeepAlive => format!("raw HTTP, 1 session, {clients} keep-alive connections"),
            Load::Modern => format!("2026-07-28, no session, {clients} calls in flight"),
        }
    }
}

async fn run_load(target: &Target, settings: &Settings, load: Load) -> Result<Outcome, String> {
    if load == Load::RawKeepAlive || load == Load::Modern {
        return run_raw_load(target, settings, load == Load::Modern).await;
    }
    // Open every session before the clock starts.
    let sessions = match load {
        Load::OneSession | Load::RawKeepAlive | Load::Modern => 1,
        Load::Sessions => settings.clients,
    };
    let mut connects = tokio::task::JoinSet::new();
    for _ in 0..sessions {
        let url = target.url.clone();
        connects.spawn(async move { connect(&url).await });
    }
    let mut clients = Vec::with_capacity(sessions);
    while let Some(joined) = connects.join_next().await {
        clients.push(Arc::new(joined.map_err(|e| format!("connect task: {e}"))??));
    }
    // The tool answers and its result is structured, before any load.
    let first = call_once(&clients[0], target.tool).await?;
    if first.structured_content.is_none() {
        return Err(format!("{} returned no structuredContent", target.tool));
    }

    let start = Instant::now() + Duration::from_millis(50);
    let measure_from = start + settings.warmup;
    let measure_until = measure_from + settings.window;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..settings.clients {
        let client = clients[i % clients.len()].clone();
        let tool = target.tool;
        tasks.spawn(async move {
            tokio::time::sleep_until(start).await;
            let mut run = ClientRun {
                latencies: Vec::new(),
                errors: 0,
                error_samples: Vec::new(),
            };
            while Instant::now() < measure_until && run.latencies.len() < MAX_CALLS_PER_CLIENT {
                let t0 = Instant::now();
                let result = call_once(&client, tool).await;
                let done = Instant::now();
                let counted = done >= measure_from && done < measure_until;
                match result {
                    Ok(_) if counted => run.latencies.push((done - t0).as_nanos() as u64),
                    Ok(_) => {}
                    Err(e) => {
                        // Errors count whenever they happen, warm-up included.
                        run.errors += 1;
                        if run.error_samples.len() < MAX_ERROR_SAMPLES {
                            run.error_samples.push(e);
                        }
                        if done - t0 >= CALL_TIMEOUT || run.errors >= MAX_ERRORS_PER_CLIENT {
                            break;
                        }
                    }
                }
            }
            run
        });
    }

    let mut outcome = Outcome::empty(target.name);
    outcome.window = settings.window;
    while let Some(joined) = tasks.join_next().await {
        outcome.add_client(joined.map_err(|e| format!("client task: {e}"))?);
    }
    // End the sessions (DELETE), bounded so a stuck server cannot hang the bench. Every task
    // has finished, so each client has one owner again.
    for client in clients {
        if let Ok(client) = Arc::try_unwrap(client) {
            let _ = tokio::time::timeout(Duration::from_secs(5), client.cancel()).await;
        }
    }
    outcome.calls = outcome.latencies.len();
    Ok(outcome)
}

/// One raw `tools/call` POST in `session`; the answer must be a result, not an error. `id`
/// must be unique among the session's requests in flight: rmcp routes each answer by it.
async fn raw_call(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    tool: &str,
    id: u64,
) -> Result<(), String> {
    let request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    let request = match session {
        Some(session) => request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
            )),
        None => request
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", tool)
            .body(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"etrade-mcp-bench-raw","version":"0"}}}}}}}}"#
            )),
    };
    let response = request.send().await.map_err(|e| format!("POST: {e}"))?;
    let status = response.status();
    let text = response.text().await.map_err(|e| format!("body: {e}"))?;
    if !status.is_success() || !text.contains("\"result\"") || text.contains("\"isError\":true") {
        return Err(format!(
            "HTTP {status}: {}",
            text.chars().take(200).collect::<String>()
        ));
    }
    Ok(())
}

/// Open a session by hand: `initialize`, then `notifications/initialized`.
async fn raw_session(http: &reqwest::Client, url: &str) -> Result<String, String> {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "etrade-mcp-bench-raw", "version": "0"}}});
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .map_err(|e| format!("initialize: {e}"))?;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .ok_or("initialize answered without Mcp-Session-Id")?
        .to_string();
    response
        .text()
        .await
        .map_err(|e| format!("initialize body: {e}"))?;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(note.to_string())
        .send()
        .await
        .map_err(|e| format!("initialized: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("initialized: HTTP {}", response.status()));
    }
    Ok(session)
}

async fn run_raw_load(
    target: &Target,
    settings: &Settings,
    modern: bool,
) -> Result<Outcome, String> {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(settings.clients)
        .tcp_nodelay(true)
        .build()
        .map_err(|e| format!("reqwest client: {e}"))?;
    let session = match modern {
        true => None,
        false => Some(raw_session(&http, &target.url).await?),
    };
    let session = Arc::new(session);
    let tool = target.tool;
    raw_call(&http, &target.url, session.as_deref(), tool, 1).await?;
    let start = Instant::now() + Duration::from_millis(50);
    let measure_from = start + settings.warmup;
    let measure_until = measure_from + settings.window;
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..settings.clients as u64 {
        let (http, url, session) = (http.clone(), target.url.clone(), session.clone());
        tasks.spawn(async move {
            tokio::time::sleep_until(start).await;
            let mut run = ClientRun {
                latencies: Vec::new(),
                errors: 0,
                error_samples: Vec::new(),
            };
            let mut id = (task + 1) << 32;
            while Instant::now() < measure_until && run.latencies.len() < MAX_CALLS_PER_CLIENT {
                id += 1;
                let t0 = Instant::now();
                let call = raw_call(&http, &url, session.as_deref(), tool, id);
                let result = tokio::time::timeout(CALL_TIMEOUT, call).await;
                let done = Instant::now();
                let counted = done >= measure_from && done < measure_until;
                match result {
                    Ok(Ok(())) if counted => run.latencies.push((done - t0).as_nanos() as u64),
                    Ok(Ok(())) => {}
                    other => {
                        run.errors += 1;
                        if run.error_samples.len() < MAX_ERROR_SAMPLES {
                            run.error_samples.push(match other {
                                Ok(Err(e)) => e,
                                _ => format!("timed out after {CALL_TIMEOUT:?}"),
                            });
                        }
                        if run.errors >= MAX_ERRORS_PER_CLIENT {
                            break;
                        }
                    }
                }
            }
            run
        });
    }
    let mut outcome = Outcome::empty(target.name);
    outcome.window = settings.window;
    while let Some(joined) = tasks.join_next().await {
        outcome.add_client(joined.map_err(|e| format!("client task: {e}"))?);
    }
    if let Some(session) = session.as_deref() {
        let _ = http
            .delete(&target.url)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
            .await;
    }
    outcome.calls = outcome.latencies.len();
    Ok(outcome)
}

fn report(load: &str, outcomes: &[Outcome]) {
    println!();
    println!("load: {load}");
    println!("| target | calls | calls/s | p50 ms | p99 ms | errors |");
    println!("|---|---:|---:|---:|---:|---:|");
    for o in outcomes {
        println!(
            "| {} | {} | {:.0} | {:.2} | {:.2} | {} |",
            o.name,
            o.calls,
            o.throughput(),
            o.percentile_ms(50.0),
            o.percentile_ms(99.0),
            o.errors
        );
    }
    if let [bare, etrade, rest @ ..] = outcomes {
        println!();
        println!(
            "etrade/bare: throughput {:.2}x, p50 {:.2}x, p99 {:.2}x",
            etrade.throughput() / bare.throughput(),
            etrade.percentile_ms(50.0) / bare.percentile_ms(50.0),
            etrade.percentile_ms(99.0) / bare.percentile_ms(99.0)
        );
        if let [py] = rest {
            println!(
                "etrade/fastmcp: throughput {:.2}x, p50 {:.2}x, p99 {:.2}x",
                etrade.throughput() / py.throughput(),
                etrade.percentile_ms(50.0) / py.percentile_ms(50.0),
                etrade.percentile_ms(99.0) / py.percentile_ms(99.0)
            );
        }
    }
}

/// Startup and idle memory of one target.
struct Idle {
    startup_ms: f64,
    rss_mib: f64,
}

/// The `REPORT` lines: etrade against the bare rmcp server and against FastMCP (or `skipped`).
/// `outcomes` and `idle` are in target order: bare, etrade, then FastMCP when it ran.
fn summarize(settings: &Settings, outcomes: &[Outcome], idle: &[Idle]) {
    let (Some(bare), Some(etrade)) = (outcomes.first(), outcomes.get(1)) else {
        return;
    };
    let fastmcp = outcomes.get(2).zip(idle.get(2));
    let load = Load::OneSession.label(settings.clients);
    type Figure = fn(&Outcome, &Idle) -> f64;
    let figures: [(String, &str, Figure); 5] = [
        (
            format!("tools/call throughput, {load}"),
            "calls/s",
            |o, _| o.throughput(),
        ),
        (format!("tools/call p50 latency, {load}"), "ms", |o, _| {
            o.percentile_ms(50.0)
        }),
        (format!("tools/call p99 latency, {load}"), "ms", |o, _| {
            o.percentile_ms(99.0)
        }),
        ("startup (spawn to listening)".into(), "ms", |_, i| {
            i.startup_ms
        }),
        ("idle RSS".into(), "MiB", |_, i| i.rss_mib),
    ];
    for (measure, unit, figure) in &figures {
        let ours = figure(etrade, &idle[1]);
        summary::report(
            measure,
            ours,
            unit,
            "bare rmcp server, same answer",
            figure(bare, &idle[0]),
        );
        match fastmcp {
            Some((o, i)) => summary::report(
                measure,
                ours,
                unit,
                "Python FastMCP server, ping",
                figure(o, i),
            ),
            None => summary::report_skipped(measure, ours, unit, "Python FastMCP server, ping"),
        }
    }
}

/// The secondary rows (the many-sessions load, the 2026-07-28 load) against the bare server only.
fn summarize_sessions(settings: &Settings, load: Load, outcomes: &[Outcome]) {
    let [bare, etrade] = outcomes else {
        return;
    };
    let load = load.label(settings.clients);
    summary::report(
        &format!("tools/call throughput, {load}"),
        etrade.throughput(),
        "calls/s",
        "bare rmcp server, same answer",
        bare.throughput(),
    );
    summary::report(
        &format!("tools/call p99 latency, {load}"),
        etrade.percentile_ms(99.0),
        "ms",
        "bare rmcp server, same answer",
        bare.percentile_ms(99.0),
    );
}

// ---------------------------------------------------------------------------------------------
// The baseline: a bare rmcp server with one trivial tool, served like `etrade serve`.

#[derive(Clone)]
struct Bare {
    tool: Arc<Tool>,
    /// etrade's `server_status` result, given back for every call.
    answer: Arc<CallToolResult>,
}

impl Bare {
    fn new(answer: CallToolResult) -> Bare {
        let object = |v: Value| match v {
            Value::Object(m) => Arc::new(m),
            _ => Arc::new(Map::new()),
        };
        let input = object(json!({
            "type": "object",
            "properties": {},
            "additionalProperties": false
        }));
        let output = object(json!({"type": "object"}));
        let tool = Tool::new("ping", "Answers with a fixed result.", input)
            .with_title("Ping")
            .with_raw_output_schema(output)
            .with_annotations(
                ToolAnnotations::new()
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
            );
        Bare {
            tool: Arc::new(tool),
            answer: Arc::new(answer),
        }
    }
}

impl ServerHandler for Bare {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("bare-rmcp-baseline", "0.0.0"))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        // Same versions as etrade-mcp, so both targets negotiate the same session mode.
        Cow::Borrowed(&runtime::mcp::server::PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![(*self.tool).clone()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == self.tool.name).then(|| (*self.tool).clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != self.tool.name {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        Ok((*self.answer).clone().into())
    }
}

fn baseline_main() -> ExitCode {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime for the baseline server");
    let answer = std::env::args()
        .skip_while(|a| a != BASELINE_FLAG)
        .nth(1)
        .ok_or_else(|| "no answer file after --baseline-server".to_string())
        .and_then(|path| std::fs::read(&path).map_err(|e| format!("read {path}: {e}")))
        .and_then(|bytes| {
            serde_json::from_slice::<CallToolResult>(&bytes).map_err(|e| format!("parse: {e}"))
        });
    let answer = match answer {
        Ok(a) => a,
        Err(e) => {
            eprintln!("baseline server: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(serve_baseline(answer)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("baseline server: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve_baseline(answer: CallToolResult) -> std::io::Result<()> {
    let shutdown = CancellationToken::new();
    // The bench holds our stdin; EOF (the bench closed it or died) means stop.
    let on_eof = shutdown.clone();
    tokio::spawn(async move {
        let mut stdin = tokio::io::stdin();
        let mut buf = [0u8; 64];
        while let Ok(n) = stdin.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
        on_eof.cancel();
    });

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let addr = listener.local_addr()?;
    let server = Bare::new(answer);
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(shutdown.child_token());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    eprintln!("{LISTEN_PREFIX}http://{addr}/mcp");
    // As in etrade serve: without TCP_NODELAY each SSE answer stalls on delayed ACKs.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
}
