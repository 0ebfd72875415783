//! A real `etrade serve` on the paper broker (the default environment), in its own state
//! folder, with simulated time moved into a regular session first so market orders fill.
//!
//! # Secret canaries
//!
//! A paper server needs no credentials, but it runs on machines that hold them, and it reads
//! them: at startup `live_quotes` (src/cli/serve.rs) loads this profile's production entry,
//! then its sandbox entry, and with an access token stored it routes every paper quote
//! through an `EtradeSession`, which loads the entry again per request and judges it. So
//! each [`Paper`] gets a profile of its own ([`PaperCredentials`]) whose keyutils entries
//! hold canaries in the states a paper user really has:
//!
//! * production: a consumer key and secret, not logged in — read at startup and skipped;
//! * sandbox: consumer secret, access token and token secret from a login two days ago,
//!   so expired — the live-quote path is set up (`server_status` says `etrade_sandbox`) and
//!   every quote request loads all three secrets, finds the token expired and falls back to
//!   the simulator without a request (the profile's `api_base_url` is a closed loopback
//!   port, so a request would fail the scenario).
//!
//! Quotes, fills and the book are therefore exactly what the simulator gives, as without
//! credentials. An entry for the paper environment itself is not stored: `etrade auth`
//! refuses to create one. The active live-quote path (E*TRADE quotes through the fake) is
//! paper_live_quotes.rs, which scans the same way.
//!
//! The server and every `etrade paper` command run with `ETRADE_MCP_LOG=debug`; the
//! server's stderr goes to `server-stderr.log` and a copy of its stdout (every MCP message)
//! to `server-stdout.log` in the state folder. Each tool output and CLI output is scanned as
//! it comes; on drop (unless the test already failed) every file of the state folder is —
//! the book, the trading database, locks and both logs.

use super::canary::{Canaries, DEBUG_LOG, KeyringEntries, log_file};
use super::*;
use runtime::config::Environment;
use runtime::credentials::{
    CredentialKey, CredentialStore, KeyringStore, Secret, StoredCredentials,
};
use rust_decimal::Decimal;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};

pub const PAPER_CONSUMER_KEY: &str = "ckCANARYpaper01";
pub const PAPER_CONSUMER_SECRET: &str = "CANARY-paper-sandbox-consumer-secret/+=f00d";
pub const PAPER_ACCESS_TOKEN: &str = "CANARY-paper-sandbox-access-token/+=0001";
pub const PAPER_TOKEN_SECRET: &str = "CANARY-paper-sandbox-token-secret/+=0002";
pub const PAPER_PRODUCTION_SECRET: &str = "CANARY-paper-production-consumer-secret/+=0003";

/// The server's stderr (its debug log) and the copy of its stdout, in the state folder.
pub const STDERR_LOG: &str = "server-stderr.log";
pub const STDOUT_LOG: &str = "server-stdout.log";

/// What the server logs when it found the sandbox entry: proof the canaries were read.
const LIVE_QUOTES_LOG: &str = "paper quotes come from E*TRADE";

/// A paper profile of its own with canary E*TRADE credentials in the kernel keyring (see
/// the module doc), removed when dropped.
pub struct PaperCredentials {
    pub profile: String,
    pub canaries: Canaries,
    _entries: KeyringEntries,
}

impl PaperCredentials {
    /// Writes the profile into `home`'s config.toml and stores its entries.
    pub fn install(home: &tempfile::TempDir) -> PaperCredentials {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let profile = format!(
            "paper{}-{}",
            NEXT.fetch_add(1, Ordering::Relaxed),
            std::process::id()
        );
        std::fs::write(
            home.path().join("config.toml"),
            format!(
                "[profiles.{profile}]\nenvironment = \"paper\"\n\
                 # Closed: a request sent with these credentials fails the scenario.\n\
                 api_base_url = \"http://127.0.0.1:9\"\n"
            ),
        )
        .expect("config");
        let store = KeyringStore::linux_keyutils().expect("keyutils");
        let sandbox = CredentialKey::new(Environment::Sandbox, profile.clone()).expect("key");
        let production = CredentialKey::new(Environment::Production, profile.clone()).expect("key");
        let entries = KeyringEntries(vec![sandbox.clone(), production.clone()]);
        let mut expired =
            StoredCredentials::new(PAPER_CONSUMER_KEY, Secret::new(PAPER_CONSUMER_SECRET));
        expired.authorize(
            Secret::new(PAPER_ACCESS_TOKEN),
            Secret::new(PAPER_TOKEN_SECRET),
            jiff::Timestamp::now() - jiff::SignedDuration::from_hours(48),
        );
        store.save(&sandbox, &expired).expect("store credentials");
        let not_logged_in =
            StoredCredentials::new(PAPER_CONSUMER_KEY, Secret::new(PAPER_PRODUCTION_SECRET));
        store
            .save(&production, &not_logged_in)
            .expect("store credentials");
        PaperCredentials {
            profile,
            canaries: Canaries::new()
                .with("sandbox consumer secret", PAPER_CONSUMER_SECRET)
                .with("sandbox access token", PAPER_ACCESS_TOKEN)
                .with("sandbox access token secret", PAPER_TOKEN_SECRET)
                .with("production consumer secret", PAPER_PRODUCTION_SECRET),
            _entries: entries,
        }
    }

    /// The environment every command of this profile runs with.
    pub fn envs(&self) -> [(&'static str, &'static str); 2] {
        [("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"), DEBUG_LOG]
    }

    /// `etrade SUBCOMMAND --profile PROFILE REST...` in `home`.
    pub fn command(&self, home: &tempfile::TempDir, args: &[&str]) -> tokio::process::Command {
        let mut cmd = command(home, &self.args(args));
        cmd.envs(self.envs());
        cmd
    }

    fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all: Vec<&str> = args.iter().take(1).copied().collect();
        all.extend(["--profile", self.profile.as_str()]);
        all.extend(args.iter().skip(1).copied());
        all
    }

    /// `etrade paper ARGS` on this profile; returns its stdout (panics on failure or on a
    /// canary in its stdout or stderr).
    pub async fn cli(&self, home: &tempfile::TempDir, args: &[&str]) -> String {
        let mut full = vec!["paper"];
        full.extend_from_slice(args);
        let out = self
            .command(home, &full)
            .output()
            .await
            .expect("run etrade paper");
        assert!(
            out.status.success(),
            "etrade paper {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.canaries
            .assert_absent_in_output(&format!("etrade paper {args:?}"), &out);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Start `etrade serve FLAGS` on this profile, its stderr and a copy of its stdout
    /// appended to the logs in `home`.
    pub async fn serve(
        &self,
        home: &tempfile::TempDir,
        flags: &[&str],
    ) -> (Client, tokio::process::Child) {
        let mut args = vec!["--profile", self.profile.as_str()];
        args.extend_from_slice(flags);
        stdio_client_recorded(
            home,
            &args,
            &self.envs(),
            Stdio::from(log_file(home.path(), STDERR_LOG)),
            &home.path().join(STDOUT_LOG),
        )
        .await
    }

    /// [`PaperCredentials::serve`] with the client saying `info`.
    pub async fn serve_as(
        &self,
        home: &tempfile::TempDir,
        flags: &[&str],
        info: rmcp::model::ClientConfig,
    ) -> (Client, tokio::process::Child) {
        let mut args = vec!["--profile", self.profile.as_str()];
        args.extend_from_slice(flags);
        super::stdio_client_recorded_as(
            home,
            &args,
            &self.envs(),
            Stdio::from(log_file(home.path(), STDERR_LOG)),
            &home.path().join(STDOUT_LOG),
            info,
        )
        .await
    }

    /// The scan at the end: the server really read the entries and really logged, and no
    /// canary is in any file of the state folder.
    pub fn assert_clean(&self, home: &tempfile::TempDir) {
        let log = std::fs::read_to_string(home.path().join(STDERR_LOG)).unwrap_or_default();
        assert!(
            log.contains(LIVE_QUOTES_LOG),
            "the server read the canary credentials (its log says so)"
        );
        let out = std::fs::read(home.path().join(STDOUT_LOG)).unwrap_or_default();
        assert!(!out.is_empty(), "the server's stdout is really copied");
        self.canaries.assert_absent_in_dir(home.path());
    }
}

pub struct Paper {
    pub home: tempfile::TempDir,
    pub client: Option<Client>,
    pub flags: Vec<String>,
    credentials: PaperCredentials,
    server: Option<tokio::process::Child>,
}

/// Run `etrade paper ARGS` in `home` on the default profile; returns its stdout (panics on
/// failure). A [`Paper`] has its own profile: use [`Paper::cli`] for its book.
pub async fn paper_cli(home: &tempfile::TempDir, args: &[&str]) -> String {
    let mut full = vec!["paper"];
    full.extend_from_slice(args);
    let out = command(home, &full)
        .output()
        .await
        .expect("run etrade paper");
    assert!(
        out.status.success(),
        "etrade paper {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn into_session() -> i64 {
    use runtime::calendar::{
        SessionPhase, next_regular_open, phase_at, regular_hours, trading_day,
    };
    let now = jiff::Timestamp::now();
    if phase_at(now) == SessionPhase::Regular
        && let Some((_, close)) = regular_hours(trading_day(now))
        && close.duration_since(now).as_secs() > 3 * 3600
    {
        return 0;
    }
    next_regular_open(now).duration_since(now).as_secs() + 3600
}

impl Paper {
    pub async fn start(flags: &[&str]) -> Paper {
        let home = home();
        let credentials = PaperCredentials::install(&home);
        let secs = into_session();
        credentials
            .cli(&home, &["advance", &format!("{secs}s")])
            .await;
        let mut p = Paper {
            home,
            client: None,
            flags: flags.iter().map(|s| s.to_string()).collect(),
            credentials,
            server: None,
        };
        p.restart().await;
        p
    }

    /// Add `settings` (TOML lines) to the profile's `[profiles.NAME.trading]` section and
    /// restart the server on them.
    pub async fn set_trading(&mut self, settings: &str) {
        self.stop().await;
        let config = self.home.path().join("config.toml");
        let mut toml = std::fs::read_to_string(&config).expect("config");
        let profile = toml
            .lines()
            .find_map(|l| {
                l.strip_prefix("[profiles.")?
                    .strip_suffix(']')
                    .map(str::to_string)
            })
            .expect("the paper profile");
        toml.push_str(&format!("\n[profiles.{profile}.trading]\n{settings}\n"));
        std::fs::write(&config, toml).expect("config");
        self.restart().await;
    }

    /// Stop the server (if running) and start it again on the same state.
    pub async fn restart(&mut self) {
        self.stop().await;
        let flags: Vec<&str> = self.flags.iter().map(String::as_str).collect();
        let (client, server) = self.credentials.serve(&self.home, &flags).await;
        self.client = Some(client);
        self.server = Some(server);
    }

    /// Stop the server so the CLI can open the book.
    pub async fn stop(&mut self) {
        if let (Some(client), Some(server)) = (self.client.take(), self.server.take()) {
            stop_stdio_server(client, server).await;
        }
    }

    /// `etrade paper ARGS` on this paper's profile and book; it shares the book with a
    /// running server.
    pub async fn cli(&self, args: &[&str]) -> String {
        self.credentials.cli(&self.home, args).await
    }

    /// A second `etrade serve FLAGS` on this paper's state folder, profile and book, with its
    /// own MCP client; its stderr and stdout copy go to the same logs as the first server's
    /// (scanned at drop). Killed when the child is dropped, or stop it with
    /// [`stop_stdio_server`].
    pub async fn serve_another(&self, flags: &[&str]) -> (Client, tokio::process::Child) {
        self.credentials.serve(&self.home, flags).await
    }

    /// [`Paper::serve_another`] with the client saying `info`.
    pub async fn serve_another_as(
        &self,
        flags: &[&str],
        info: rmcp::model::ClientConfig,
    ) -> (Client, tokio::process::Child) {
        self.credentials.serve_as(&self.home, flags, info).await
    }

    /// The secrets this paper server's machine holds.
    pub fn canaries(&self) -> &Canaries {
        &self.credentials.canaries
    }

    /// `etrade SUBCOMMAND --profile PROFILE REST...` as a process of its own, in this
    /// paper's state folder and with the server's environment (any command, unlike
    /// [`Paper::cli`]). Scan its output with [`Canaries::assert_absent_in_output`].
    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        self.credentials.command(&self.home, args)
    }

    /// (isError, payload), checked against the tool's outputSchema and for JSON floats.
    pub async fn call(&self, tool: &str, args: Value) -> (bool, Value) {
        let client = self.client.as_ref().expect("server running");
        sandbox::checked_call(client, tool, args, &self.credentials.canaries).await
    }

    /// Like `call`, asserting success; returns `data`.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let (err, p) = self.call(tool, args).await;
        assert!(!err, "{tool}: {p}");
        p["data"].clone()
    }
}

pub fn dec(v: &Value) -> Decimal {
    Decimal::from_str(v.as_str().unwrap_or("x")).unwrap_or_else(|_| panic!("a decimal string: {v}"))
}

impl Drop for Paper {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.credentials.assert_clean(&self.home);
        }
    }
}
