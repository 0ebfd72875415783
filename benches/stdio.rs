//! `cargo bench --bench stdio`: `tools/call` round trips over stdio, 2026-07-28 style (one
//! JSON-RPC line a request, no session), against the real `etrade serve` and against a bare
//! rmcp server on rmcp's own stdio transport whose one tool gives back etrade's own
//! `server_status` result (taken from etrade at the start of the run). The difference is what
//! the server adds over rmcp: the stdio framing (`runtime/src/mcp/stdio.rs`), dispatch and
//! the tool itself.
//!
//! Two loads per target: sequential calls (one in flight: latency) and pipelined calls
//! (`BENCH_IN_FLIGHT` written before their answers are read: throughput).
//!
//! Environment: `BENCH_ITERS` — calls per load (default 2000, 10..=100000);
//! `BENCH_IN_FLIGHT` — pipelined calls at once (default 32, 1..=256);
//! `BENCH_ETRADE_BIN` — the `etrade` binary to measure instead of the one Cargo built.
//!
//! The vault's hop: as root on Linux, the same calls through `etrade serve` relaying to a
//! trading vault (`etrade vault run` as a system account made for the run), against
//! `etrade serve` without one. Elsewhere that row says it was skipped.
//! The last lines are `REPORT` summary lines for `benches/run-all`.

#[path = "support/report.rs"]
mod summary;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const BASELINE_FLAG: &str = "--baseline-stdio";
const VERSIONS: [ProtocolVersion; 1] = [ProtocolVersion::V_2026_07_28];

/// The bare server: one tool answering a fixed result.
#[derive(Clone)]
struct Bare {
    tool: Tool,
    answer: Arc<CallToolResult>,
}

impl ServerHandler for Bare {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResult::clone(&self.answer).into())
    }
}

fn call(id: u64) -> String {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
    "name": "server_status", "arguments": {},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }}});
    format!("{request}\n")
}

struct Target {
    child: Child,
    stdin: ChildStdin,
    lines: tokio::io::Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Target {
    fn start(mut cmd: Command) -> Target {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Target {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    /// Write `n` calls, then read their `n` answers; every answer must be a success.
    async fn round(&mut self, n: usize) -> Value {
        let mut batch = String::new();
        for _ in 0..n {
            batch.push_str(&call(self.next_id));
            self.next_id += 1;
        }
        self.stdin
            .write_all(batch.as_bytes())
            .await
            .expect("write calls");
        let mut last = Value::Null;
        for _ in 0..n {
            let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
                .await
                .expect("an answer in time")
                .expect("read")
                .expect("a line");
            last = serde_json::from_str(&line).expect("JSON-RPC");
            assert!(
                last["result"]["isError"] != true && last.get("error").is_none(),
                "a failed call: {last}"
            );
        }
        last
    }

    async fn stop(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

/// (median latency of sequential calls, calls per second pipelined).
async fn measure(target: &mut Target, iters: usize, in_flight: usize) -> (Duration, f64) {
    target.round(50).await;
    let mut latencies = Vec::with_capacity(iters);
    for _ in 0..iters {
        let t = Instant::now();
        target.round(1).await;
        latencies.push(t.elapsed());
    }
    let t = Instant::now();
    let mut done = 0;
    while done < iters {
        let n = in_flight.min(iters - done);
        target.round(n).await;
        done += n;
    }
    let throughput = iters as f64 / t.elapsed().as_secs_f64();
    (summary::median(latencies), throughput)
}

fn env_usize(name: &str, default: usize, range: std::ops::RangeInclusive<usize>) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|v| range.contains(v))
        .unwrap_or(default)
}

async fn baseline_server(answer_path: &str) {
    let text = std::fs::read_to_string(answer_path).expect("the sampled answer");
    let answer: CallToolResult = serde_json::from_str(&text).expect("a CallToolResult");
    let tool = Tool::new(
        "server_status",
        "etrade's answer, served bare",
        Arc::new(Map::new()),
    );
    let bare = Bare {
        tool,
        answer: Arc::new(answer),
    };
    let running = bare
        .serve(rmcp::transport::stdio())
        .await
        .expect("serve stdio");
    let _ = running.waiting().await;
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == BASELINE_FLAG) {
        baseline_server(&args[at + 1]).await;
        return;
    }
    let iters = env_usize("BENCH_ITERS", 2000, 10..=100_000);
    let in_flight = env_usize("BENCH_IN_FLIGHT", 32, 1..=256);
    let home = tempfile::tempdir().expect("temporary ETRADE_MCP_HOME");
    // `option_env!`: a cross-target `cargo check` (.ci/check-targets) does not define it.
    let bin = match (
        std::env::var("BENCH_ETRADE_BIN"),
        option_env!("CARGO_BIN_EXE_etrade"),
    ) {
        (Ok(bin), _) => bin,
        (Err(_), Some(bin)) => bin.to_string(),
        (Err(_), None) => {
            eprintln!("CARGO_BIN_EXE_etrade is unset: run the bench with cargo bench");
            std::process::exit(2);
        }
    };
    let mut etrade_cmd = Command::new(&bin);
    etrade_cmd
        .args(["serve", "--credential-store", "memory"])
        .env("ETRADE_MCP_HOME", home.path())
        .env_remove("ETRADE_MCP_ENVIRONMENT")
        .env_remove("ETRADE_MCP_PROFILE")
        .env_remove("ETRADE_MCP_LOG");
    let mut etrade = Target::start(etrade_cmd);
    let sample = etrade.round(1).await;
    let answer_path = home.path().join("answer.json");
    std::fs::write(&answer_path, sample["result"].to_string()).expect("write the answer");
    let mut bare = Target::start({
        let mut cmd = Command::new(std::env::current_exe().expect("this bench"));
        cmd.arg(BASELINE_FLAG).arg(&answer_path);
        cmd
    });
    println!(
        "stdio: {iters} calls per load, {in_flight} in flight when pipelined; etrade binary: {bin}"
    );
    let (e_lat, e_tput) = measure(&mut etrade, iters, in_flight).await;
    let (b_lat, b_tput) = measure(&mut bare, iters, in_flight).await;
    println!("etrade serve: median {e_lat:?} a call, {e_tput:.0} calls/s pipelined");
    println!("bare rmcp:    median {b_lat:?} a call, {b_tput:.0} calls/s pipelined");
    etrade.stop().await;
    bare.stop().await;
    let through_vault = match vault::Vault::start(&bin) {
        Ok(vault) => {
            let mut relay = Target::start(vault.relay_command());
            let measured = measure(&mut relay, iters, in_flight).await;
            relay.stop().await;
            println!(
                "through the vault: median {:?} a call, {:.0} calls/s pipelined",
                measured.0, measured.1
            );
            Some(measured)
        }
        Err(why) => {
            println!("through the vault: skipped: {why}");
            None
        }
    };
    summary::report(
        "stdio tools/call, pipelined (server_status)",
        e_tput,
        "calls/s",
        "bare rmcp stdio, same bytes",
        b_tput,
    );
    summary::report(
        "stdio tools/call, median latency (server_status)",
        e_lat.as_secs_f64() * 1e6,
        "µs",
        "bare rmcp stdio, same bytes",
        b_lat.as_secs_f64() * 1e6,
    );
    let without = "etrade serve without a vault";
    // Skipped (said above, with the reason): run-all then has no row for it.
    if let Some((v_lat, v_tput)) = through_vault {
        summary::report(
            "stdio tools/call through the vault, pipelined",
            v_tput,
            "calls/s",
            without,
            e_tput,
        );
        summary::report(
            "stdio tools/call through the vault, median latency",
            v_lat.as_secs_f64() * 1e6,
            "µs",
            without,
            e_lat.as_secs_f64() * 1e6,
        );
    }
}

/// A trading vault for the run: a system account, `vault install --no-service`, `vault run`
/// as that account (root, Linux only: the vault refuses to run as root).
mod vault {
    use std::path::PathBuf;
    use std::process::Command;

    const ACCOUNT: &str = "etrade-bench-vault";

    pub struct Vault {
        _root: tempfile::TempDir,
        etrade: PathBuf,
        socket: PathBuf,
        running: std::process::Child,
    }

    impl Vault {
        pub fn start(bin: &str) -> Result<Vault, String> {
            if !cfg!(target_os = "linux") {
                return Err("the vault's account needs Linux here".into());
            }
            let uid = Command::new("id")
                .arg("-u")
                .output()
                .map_err(|e| e.to_string())?;
            if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
                return Err("making the vault's account needs root".into());
            }
            let root = tempfile::tempdir().map_err(|e| e.to_string())?;
            let open = |path: &std::path::Path| {
                Command::new("chmod")
                    .arg("755")
                    .arg(path)
                    .status()
                    .map(|_| ())
            };
            open(root.path()).map_err(|e| e.to_string())?;
            let etrade = root.path().join("etrade");
            std::fs::copy(bin, &etrade).map_err(|e| e.to_string())?;
            open(&etrade).map_err(|e| e.to_string())?;
            let state = root.path().join("state");
            let socket = root.path().join("run/vault.sock");
            let _ = Command::new("userdel").arg(ACCOUNT).output();
            let installed = Command::new(&etrade)
                .args([
                    "vault",
                    "install",
                    "--account",
                    ACCOUNT,
                    "--no-service",
                    "--state",
                ])
                .arg(&state)
                .arg("--socket")
                .arg(&socket)
                .output()
                .map_err(|e| e.to_string())?;
            if !installed.status.success() {
                return Err(String::from_utf8_lossy(&installed.stderr).into_owned());
            }
            // Paper, no approval asked: the hop alone, not a person.
            std::fs::write(
                state.join("vault.toml"),
                "[profiles.default]\nenvironment = \"paper\"\ncredential_store = \"file\"\n",
            )
            .map_err(|e| e.to_string())?;
            let running = Command::new("setpriv")
                .arg(format!("--reuid={ACCOUNT}"))
                .arg(format!("--regid={ACCOUNT}"))
                .arg("--clear-groups")
                .arg(&etrade)
                .args(["vault", "run", "--state"])
                .arg(&state)
                .arg("--socket")
                .arg(&socket)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .map_err(|e| e.to_string())?;
            for _ in 0..200 {
                if socket.exists() {
                    return Ok(Vault {
                        _root: root,
                        etrade,
                        socket,
                        running,
                    });
                }
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
            Err("the vault did not listen".into())
        }

        /// `etrade serve` relaying to this vault.
        pub fn relay_command(&self) -> tokio::process::Command {
            let mut cmd = tokio::process::Command::new(&self.etrade);
            cmd.arg("serve")
                .env("ETRADE_MCP_VAULT", &self.socket)
                .env_remove("ETRADE_MCP_HOME")
                .env_remove("ETRADE_MCP_PROFILE");
            cmd
        }
    }

    impl Drop for Vault {
        fn drop(&mut self) {
            let _ = self.running.kill();
            let _ = self.running.wait();
            let _ = Command::new("pkill")
                .args(["-KILL", "-u", ACCOUNT])
                .status();
            std::thread::sleep(std::time::Duration::from_millis(100));
            let _ = Command::new("userdel").arg(ACCOUNT).output();
        }
    }
}
