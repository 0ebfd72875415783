//! A real `etrade serve --environment sandbox` over stdio, pointed at an in-process fake
//! E*TRADE server, with an access token already in the kernel keyring (profile unique to
//! the test). For read-tool tests.
//!
//! Secret canaries: the consumer secret, the access token and its secret are looked for in
//! every tool output (`call`) and, when the sandbox is dropped (unless the test already
//! failed), in every file of its state folder, which holds the server's debug log
//! (`server-stderr.log`, `ETRADE_MCP_LOG=debug`), a byte-for-byte copy of its stdout — every
//! MCP message it sent (`server-stdout.log`) — and the state files (trading database, locks).

use super::canary::{Canaries, DEBUG_LOG, log_file};
use super::login::FakeLogin;
use super::*;
use fake_etrade::{FakeConfig, FakeEtrade};

pub const CONSUMER_KEY: &str = "ckCANARYreads01";
pub const CONSUMER_SECRET: &str = "CANARY-reads-secret/+=cafe";

/// The server's stderr (its debug log) and the copy of its stdout, in the state folder.
pub const STDERR_LOG: &str = "server-stderr.log";
pub const STDOUT_LOG: &str = "server-stdout.log";

/// The environment the server runs with (and [`Sandbox::command`] too).
const ENVS: [(&str, &str); 4] = [
    ("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"),
    ("ETRADE_MCP_RATE_SCALE", "1000"),
    ("ETRADE_MCP_HTTP_TIMEOUT_MS", "3000"),
    DEBUG_LOG,
];

pub struct Sandbox {
    pub fake: FakeEtrade,
    /// The config.toml profile the server runs (environment `sandbox`).
    pub profile: String,
    pub client: Client,
    pub home: tempfile::TempDir,
    pub token: String,
    pub token_secret: String,
    canaries: Canaries,
    /// The server process (killed when the sandbox is dropped).
    _server: tokio::process::Child,
    /// Deletes the keyring entry after the drop-time scan.
    _login: FakeLogin,
}

impl Sandbox {
    /// `name` makes the keyring profile unique per test.
    pub async fn start(name: &str) -> Sandbox {
        Sandbox::start_with(name, FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET)).await
    }

    pub async fn start_with(name: &str, config: FakeConfig) -> Sandbox {
        Sandbox::start_opts(name, config, &[], "").await
    }

    /// With extra `etrade serve` flags (e.g. `--allow-trading`) and extra TOML appended to
    /// the profile's table (e.g. a `[profiles.NAME.trading]` section via `{profile}`).
    pub async fn start_opts(
        name: &str,
        config: FakeConfig,
        flags: &[&str],
        extra_toml: &str,
    ) -> Sandbox {
        let fake = FakeEtrade::start(config).await;
        let home = home();
        let login = FakeLogin::new(
            home.path(),
            &fake,
            name,
            "sandbox",
            extra_toml,
            (CONSUMER_KEY, CONSUMER_SECRET),
        );
        let envs = ENVS;
        // The server's debug log and a copy of its stdout go into the state folder, which
        // the canary scan at drop reads along with every state file.
        let log = log_file(home.path(), STDERR_LOG);
        let mut args = vec!["--profile", login.profile.as_str()];
        args.extend_from_slice(flags);
        let (client, server) = stdio_client_recorded(
            &home,
            &args,
            &envs,
            Stdio::from(log),
            &home.path().join(STDOUT_LOG),
        )
        .await;
        let canaries = login.canaries();
        Sandbox {
            fake,
            profile: login.profile.clone(),
            client,
            home,
            token: login.token.clone(),
            token_secret: login.token_secret.clone(),
            canaries,
            _login: login,
            _server: server,
        }
    }

    /// The secrets this sandbox runs with.
    pub fn canaries(&self) -> &Canaries {
        &self.canaries
    }

    /// The profile the server serves (`NAME-PID`).
    pub fn profile(&self) -> &str {
        &self._login.profile
    }

    /// `etrade ARGS` as a process of its own, in the server's state folder and with its
    /// environment (not its flags: pass `--profile` where the command needs it). Scan its
    /// output with [`Canaries::assert_absent_in_output`].
    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = command(&self.home, args);
        cmd.envs(ENVS);
        cmd
    }

    /// Call a tool; returns (isError, payload), checking the payload against the tool's
    /// advertised outputSchema and that no secret reached it.
    pub async fn call(&self, tool: &str, args: Value) -> (bool, Value) {
        checked_call(&self.client, tool, args, &self.canaries).await
    }

    /// The requests the fake received matching `pattern` (fault-pattern syntax, e.g.
    /// `POST /v1/accounts/*/orders/place`), in arrival order.
    pub fn requests_on(&self, pattern: &str) -> Vec<fake_etrade::RecordedRequest> {
        let pattern = fake_etrade::EndpointPattern::parse(pattern).expect("pattern");
        self.fake
            .requests()
            .into_iter()
            .filter(|r| pattern.matches(&r.method, &r.endpoint))
            .collect()
    }
}

impl Sandbox {
    /// A second `etrade serve` on this sandbox's home and profile, with its own MCP client
    /// (`handler` answers the server's requests, e.g. elicitations). Killed when dropped.
    pub async fn serve_another<H: rmcp::ClientHandler>(
        &self,
        handler: H,
        flags: &[&str],
    ) -> (
        rmcp::service::RunningService<rmcp::RoleClient, H>,
        tokio::process::Child,
    ) {
        self.serve_another_as(
            handler,
            flags,
            rmcp::service::ClientLifecycleMode::Initialize,
        )
        .await
    }

    /// [`Sandbox::serve_another`] with the client starting as `lifecycle` says (e.g.
    /// `server/discover` at MCP 2026-07-28, with no `initialize`).
    pub async fn serve_another_as<H: rmcp::ClientHandler>(
        &self,
        handler: H,
        flags: &[&str],
        lifecycle: rmcp::service::ClientLifecycleMode,
    ) -> (
        rmcp::service::RunningService<rmcp::RoleClient, H>,
        tokio::process::Child,
    ) {
        use rmcp::service::ClientServiceExt;
        let mut args = vec!["serve", "--profile", self.profile.as_str()];
        args.extend_from_slice(flags);
        let mut cmd = super::command(&self.home, &args);
        cmd.envs([
            ("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"),
            ("ETRADE_MCP_RATE_SCALE", "1000"),
            ("ETRADE_MCP_HTTP_TIMEOUT_MS", "3000"),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log_file(
            self.home.path(),
            "second-server-stderr.log",
        )));
        let mut child = cmd.spawn().expect("spawn etrade serve");
        let stdout = child.stdout.take().expect("stdout piped");
        let stdin = child.stdin.take().expect("stdin piped");
        let client = handler
            .serve_with_lifecycle((stdout, stdin), lifecycle)
            .await
            .expect("initialize over stdio");
        (client, child)
    }

    /// `etrade ARGS` on this sandbox's home and profile, with `stdin` as its input.
    pub async fn cli(&self, args: &[&str], stdin: &str) -> std::process::Output {
        use tokio::io::AsyncWriteExt;
        let mut all: Vec<&str> = args.to_vec();
        all.extend([
            "--environment",
            "sandbox",
            "--profile",
            self.profile.as_str(),
        ]);
        let mut child = super::command(&self.home, &all)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn etrade");
        if let Some(mut input) = child.stdin.take() {
            input
                .write_all(stdin.as_bytes())
                .await
                .expect("write stdin");
        }
        child.wait_with_output().await.expect("etrade output")
    }
}

impl Sandbox {
    /// The broker failures every read tool must classify: 5xx, an expired token and
    /// malformed JSON on `pattern`, each injected once.
    pub async fn expect_broker_faults(&self, pattern: &str, tool: &str, args: Value) {
        use fake_etrade::{Fault, OauthProblem};
        for (fault, code) in [
            (Fault::Status5xx(500), "service_unavailable"),
            (
                Fault::Unauthorized(OauthProblem::TokenExpired),
                "authorization_expired",
            ),
            (Fault::MalformedJson, "invalid_broker_response"),
        ] {
            self.fake.inject_fault(pattern, fault, Some(1));
            let (err, p) = self.call(tool, args.clone()).await;
            assert!(err, "{tool}: {p}");
            assert_eq!(p["error"]["code"], code, "{tool}: {p}");
        }
    }
}

impl Sandbox {
    /// Canary scan: no secret (consumer secret, access token or its secret, raw or
    /// percent-encoded) in any file of the state folder — the server's debug log and stdout
    /// copy, the trading database, the paper book, lock files.
    fn assert_no_secrets_on_disk(&self) {
        let log = std::fs::read(self.home.path().join(STDERR_LOG)).unwrap_or_default();
        assert!(!log.is_empty(), "the server's stderr is really captured");
        // Not a secret, but not for logs either: at debug level, account data (an account
        // key from the arguments, any tool result) stays out of the server's log.
        for data in ["JIdOIAcSpwR1Jva7RQBraQ", "structuredContent"] {
            assert!(
                !log.windows(data.len()).any(|w| w == data.as_bytes()),
                "account data ({data}) in the server's debug log"
            );
        }
        let out = std::fs::read(self.home.path().join(STDOUT_LOG)).unwrap_or_default();
        assert!(!out.is_empty(), "the server's stdout is really copied");
        self.canaries.assert_absent_in_dir(self.home.path());
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.assert_no_secrets_on_disk();
        }
    }
}

/// Call a tool; (isError, payload), the payload checked against the tool's advertised
/// outputSchema, for the canaries and (on success) for JSON floats.
pub async fn checked_call(
    client: &Client,
    tool: &str,
    args: Value,
    canaries: &Canaries,
) -> (bool, Value) {
    let r = call(client, tool, args).await.expect("a tool result");
    let p = payload(&r);
    let d = etrade_mcp::generated::CATALOG
        .tool(tool)
        .expect("tool in catalog");
    let schema: Value = serde_json::from_str(d.output_schema).expect("schema");
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    let problems: Vec<String> = v
        .iter_errors(&p)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "{tool} payload fits its outputSchema: {problems:?}\n{p}"
    );
    canaries.assert_absent_in_str(&format!("the output of {tool}"), &p.to_string());
    if r.is_error != Some(true) {
        assert_no_json_floats(&p["data"], tool);
    }
    (r.is_error == Some(true), p)
}

/// Money, prices and quantities are decimal strings: no JSON number with a fraction or an
/// exponent may appear in tool data (integers are counts, ids and page numbers).
pub fn assert_no_json_floats(v: &Value, tool: &str) {
    match v {
        Value::Number(n) => assert!(
            n.is_i64() || n.is_u64(),
            "{tool}: a JSON number with a fraction in data: {n}"
        ),
        Value::Array(a) => a.iter().for_each(|x| assert_no_json_floats(x, tool)),
        Value::Object(m) => m.values().for_each(|x| assert_no_json_floats(x, tool)),
        _ => {}
    }
}
