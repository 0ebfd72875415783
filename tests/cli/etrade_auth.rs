//! End to end against the fake E*TRADE server: `etrade auth login` with the verifier piped
//! in, then `etrade serve` over MCP makes signed calls; idle tokens are renewed once
//! transparently, expired ones give `authorization_expired`; concurrent renewals and a held
//! lock behave; canary secrets never leak. Uses the real kernel keyring (shared between the
//! processes), with a profile name of its own per test.
//!
//! Secret canaries: the consumer secret, the request token's secret (captured by a tap in
//! front of the fake: the client holds it only in memory), the verification code, and every
//! access token and token secret E*TRADE issued. Each command runs with
//! `ETRADE_MCP_LOG=debug`; its stdout and stderr, the server's debug log, a copy of the
//! server's stdout, every tool output and every state file are scanned. The request token
//! itself is not a canary: the authorize URL the user opens carries it by design.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring (and the Secret Service tests need a D-Bus desktop keyring).
#![cfg(target_os = "linux")]

use crate::common;

use common::canary::{Canaries, DEBUG_LOG, KeyringEntries, Tap, log_file};
use common::*;
use fake_etrade::{FakeConfig, FakeEtrade};
use runtime::config::Environment;
use runtime::credentials::{
    CREDENTIALS_FILE_NAME, CredentialKey, CredentialStore, FileStore, KeyringStore,
};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const CONSUMER_KEY: &str = "ckCANARYkey7731";
const CONSUMER_SECRET: &str = "CANARY-consumer-secret/+=f00d";

struct World {
    fake: FakeEtrade,
    /// Between every `etrade` process and the fake (API and OAuth endpoints).
    tap: Tap,
    home: tempfile::TempDir,
    profile: String,
    _entry: KeyringEntries,
    /// Request tokens seen in authorize URLs (shown to the user by design).
    request_tokens: std::sync::Mutex<Vec<String>>,
    /// Verification codes typed in.
    verifiers: std::sync::Mutex<Vec<String>>,
    /// `ETRADE_MCP_CREDENTIAL_STORE` for every command, and the environment it needs.
    store: &'static str,
    store_env: Vec<(String, String)>,
}

/// What `etrade auth login` printed.
struct Login {
    stdout: String,
    stderr: String,
}

impl World {
    async fn new(name: &str) -> World {
        World::with_store(name, "keyutils", Vec::new()).await
    }

    async fn with_store(
        name: &str,
        store: &'static str,
        store_env: Vec<(String, String)>,
    ) -> World {
        let mut config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
        // The tests move the fake's clock by hours; the client signs with the real clock.
        config.timestamp_window = Duration::from_secs(3 * 24 * 3600);
        let fake = FakeEtrade::start(config.start_time(midday_eastern())).await;
        let tap = Tap::start(fake.addr()).await;
        let home = home();
        let profile = format!("{name}-{}", std::process::id());
        std::fs::write(
            home.path().join("config.toml"),
            format!(
                "[profiles.{profile}]\nenvironment = \"sandbox\"\napi_base_url = \"{}\"\nauthorize_url = \"{}\"\n",
                tap.url,
                fake.authorize_url()
            ),
        )
        .expect("config");
        World {
            fake,
            tap,
            home,
            _entry: KeyringEntries::one(Environment::Sandbox, &profile),
            profile,
            request_tokens: Default::default(),
            verifiers: Default::default(),
            store,
            store_env,
        }
    }

    fn cmd(&self, args: &[&str]) -> tokio::process::Command {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--profile", &self.profile]);
        let mut c = command(&self.home, &all);
        c.env("ETRADE_MCP_CREDENTIAL_STORE", self.store)
            .envs(self.store_env.iter().map(|(k, v)| (k, v)))
            .env("ETRADE_MCP_RATE_SCALE", "100")
            .env(DEBUG_LOG.0, DEBUG_LOG.1)
            .env("ETRADE_CONSUMER_KEY", CONSUMER_KEY)
            .env("ETRADE_CONSUMER_SECRET", CONSUMER_SECRET);
        c
    }

    /// `etrade ARGS` to completion, its stdout and stderr checked for canaries.
    async fn run(&self, args: &[&str]) -> std::process::Output {
        let out = self.cmd(args).output().await.expect("run etrade");
        self.canaries()
            .assert_absent_in_output(&format!("etrade {args:?}"), &out);
        out
    }

    /// A stdio server on this world's profile at debug level, its stderr appended to
    /// `server.log` and a copy of its stdout to `server-stdout.log` in the state folder.
    async fn serve(&self, envs: &[(&str, &str)]) -> (Client, tokio::process::Child) {
        let mut all = vec![
            ("ETRADE_MCP_CREDENTIAL_STORE", self.store),
            ("ETRADE_MCP_RATE_SCALE", "100"),
            DEBUG_LOG,
        ];
        all.extend(self.store_env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        all.extend_from_slice(envs);
        stdio_client_recorded(
            &self.home,
            &["--profile", &self.profile],
            &all,
            Stdio::from(log_file(self.home.path(), "server.log")),
            &self.home.path().join("server-stdout.log"),
        )
        .await
    }

    /// Whether the kernel keyring holds this world's entry.
    fn in_kernel_keyring(&self) -> bool {
        KeyringStore::linux_keyutils()
            .expect("keyutils")
            .load(&self.key())
            .expect("load")
            .is_some()
    }

    fn key(&self) -> CredentialKey {
        CredentialKey::new(Environment::Sandbox, self.profile.clone()).expect("key")
    }

    /// Every secret of this world so far: the consumer secret, the verification codes,
    /// every token secret and every access token the fake sent (through the tap).
    fn canaries(&self) -> Canaries {
        let mut c = Canaries::new().with("consumer secret", CONSUMER_SECRET);
        for v in self.verifiers.lock().expect("lock").iter() {
            c.add("verification code", v);
        }
        for s in self.tap.form_values("oauth_token_secret") {
            c.add("token secret (request or access)", &s);
        }
        let shown = self.request_tokens.lock().expect("lock").clone();
        for t in self.tap.form_values("oauth_token") {
            if !shown.contains(&t) {
                c.add("access token", &t);
            }
        }
        c
    }

    /// The scan at the end of a test: no canary in any file of the state folder (the
    /// server's debug log and stdout copy included) but the file store's own file when
    /// that is the store. Returns the canaries.
    fn assert_state_clean(&self) -> Canaries {
        let c = self.canaries();
        assert!(
            self.tap.form_values("oauth_token_secret").len() >= 2,
            "the tap saw the request token's and the access token's secrets"
        );
        let own = self.home.path().join(CREDENTIALS_FILE_NAME);
        c.assert_absent_in_dir_except(self.home.path(), &[own]);
        c
    }

    /// `etrade auth login`, answering the browser step the way a person would: open the
    /// printed URL (the fake approves and shows the code) and type the code.
    async fn login(&self) -> Login {
        let mut child = self
            .cmd(&["auth", "login"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn login");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut out = String::new();
        let url = loop {
            let line = lines.next_line().await.expect("read").expect("URL line");
            out.push_str(&line);
            out.push('\n');
            if line.starts_with("http") {
                break line;
            }
        };
        let query = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
        for (name, value) in runtime::etrade::oauth::parse_form(query) {
            if name == "token" {
                self.request_tokens.lock().expect("lock").push(value);
            }
        }
        let verifier = reqwest::get(&url)
            .await
            .expect("authorize page")
            .text()
            .await
            .expect("code");
        let verifier = verifier.trim().to_string();
        self.verifiers.lock().expect("lock").push(verifier.clone());
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(format!("{verifier}\n").as_bytes())
            .await
            .expect("type the code");
        drop(stdin);
        while let Ok(Some(line)) = lines.next_line().await {
            out.push_str(&line);
            out.push('\n');
        }
        let result = child.wait_with_output().await.expect("login ends");
        let err = String::from_utf8_lossy(&result.stderr).to_string();
        assert!(result.status.success(), "login failed: {out}{err}");
        let canaries = self.canaries();
        canaries.assert_absent_in_str("the stdout of etrade auth login", &out);
        canaries.assert_absent_in_str("the stderr of etrade auth login", &err);
        Login {
            stdout: out,
            stderr: err,
        }
    }

    async fn logout(&self) {
        let _ = self.run(&["auth", "logout"]).await;
    }
}

fn data(p: &serde_json::Value) -> &serde_json::Value {
    &p["data"]
}

#[tokio::test]
async fn login_serve_renew_expire_without_leaking() {
    let w = World::new("e2e").await;
    let login = w.login().await;
    assert!(login.stdout.contains("state: active"), "{}", login.stdout);
    assert!(
        login.stderr.contains("DEBUG"),
        "the login ran at debug level: {}",
        login.stderr
    );

    let store = KeyringStore::linux_keyutils().expect("keyutils");
    let stored = store
        .load(&w.key())
        .expect("load")
        .expect("entry written by login");
    let token = stored
        .access_token
        .as_ref()
        .expect("token")
        .expose()
        .to_string();
    let token_secret = stored
        .access_token_secret
        .as_ref()
        .expect("secret")
        .expose()
        .to_string();
    // The tap read the same tokens E*TRADE issued, so the canaries are the real ones.
    assert!(w.tap.form_values("oauth_token").contains(&token));
    assert!(
        w.tap
            .form_values("oauth_token_secret")
            .contains(&token_secret)
    );
    assert_eq!(
        w.tap.form_values("oauth_token_secret").len(),
        2,
        "one request token secret, one access token secret"
    );

    let (client, server) = w.serve(&[]).await;
    let mut outputs = Vec::new();

    let status = payload(
        &call(&client, "server_status", serde_json::json!({}))
            .await
            .expect("status"),
    );
    assert_eq!(data(&status)["credentials"]["state"], "active");
    assert_eq!(status["meta"]["environment"], "sandbox");
    outputs.push(status.to_string());

    let listed = call(&client, "list_accounts", serde_json::json!({}))
        .await
        .expect("call");
    assert_eq!(listed.is_error, Some(false), "{listed:?}");
    let p = payload(&listed);
    let accounts = data(&p)["accounts"].as_array().expect("accounts");
    assert!(accounts.len() >= 2);
    assert!(accounts[0]["accountIdKey"].is_string());
    outputs.push(p.to_string());
    let api_calls = w.fake.count("GET", "/v1/accounts/list");
    assert_eq!(api_calls, 1, "one signed call");
    let signed: Vec<_> = w
        .fake
        .requests()
        .into_iter()
        .filter(|r| r.path.starts_with("/v1/") || r.path.starts_with("/oauth/"))
        .collect();
    assert!(signed.len() >= 3, "login and the API call went to the fake");
    assert!(
        signed.iter().all(|r| r.signature_verified),
        "every request verified"
    );

    // Two idle hours on the broker's clock: E*TRADE rejects the token until it is renewed.
    w.fake.advance_clock(Duration::from_secs(2 * 3600 + 60));
    let renewed = call(&client, "list_accounts", serde_json::json!({}))
        .await
        .expect("call");
    assert_eq!(
        renewed.is_error,
        Some(false),
        "renewed transparently: {renewed:?}"
    );
    outputs.push(payload(&renewed).to_string());
    assert_eq!(
        w.fake.count("GET", "/oauth/renew_access_token"),
        1,
        "renewed exactly once"
    );

    // Past midnight US Eastern: only a new login helps.
    w.fake.advance_clock(Duration::from_secs(26 * 3600));
    let expired = call(&client, "list_accounts", serde_json::json!({}))
        .await
        .expect("call");
    assert_eq!(expired.is_error, Some(true));
    let p = payload(&expired);
    assert_eq!(p["error"]["code"], "authorization_expired");
    assert!(
        p["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("etrade auth login"),
        "{p}"
    );
    assert_eq!(p["data"], serde_json::Value::Null);
    outputs.push(p.to_string());
    stop_stdio_server(client, server).await;

    w.run(&["auth", "status"]).await;
    w.logout().await;
    assert!(
        store.load(&w.key()).expect("load").is_none(),
        "logout deleted the entry"
    );

    // Canaries: the consumer secret, the request token's secret, the verification code and
    // the access token and its secret appear nowhere (commands were scanned as they ran).
    let canaries = w.assert_state_clean();
    for (i, o) in outputs.iter().enumerate() {
        canaries.assert_absent_in_str(&format!("tool output #{i}"), o);
    }
    let server_log = std::fs::read_to_string(w.home.path().join("server.log")).unwrap_or_default();
    assert!(
        server_log.contains("access token renewed") && server_log.contains("DEBUG"),
        "the debug log is really captured"
    );
}

/// The token endpoints answer form-encoded or plain text, never JSON. The fake answers 406
/// to an `Accept` that admits neither (checked first, so this test can fail); login, the
/// renewal of an idle token and the revocation at logout all pass against it, and no
/// `/oauth/*` request the client sent carried a JSON-only `Accept`.
#[tokio::test]
async fn oauth_requests_never_ask_for_json_only() {
    let w = World::new("accept").await;
    let probe = reqwest::Client::new()
        .get(format!("{}/oauth/request_token", w.fake.base_url()))
        .header("accept", "application/json")
        .send()
        .await
        .expect("an answer");
    assert_eq!(probe.status().as_u16(), 406, "the fake is strict");

    w.login().await;
    let (client, server) = w.serve(&[]).await;
    w.fake.advance_clock(Duration::from_secs(2 * 3600 + 60));
    let listed = call(&client, "list_accounts", serde_json::json!({}))
        .await
        .expect("call");
    assert_eq!(listed.is_error, Some(false), "renewed: {listed:?}");
    stop_stdio_server(client, server).await;
    let out = w.run(&["auth", "logout"]).await;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("E*TRADE revoked the token"), "{said}");

    let requests = w.fake.requests();
    let signed_oauth: Vec<_> = requests
        .iter()
        .filter(|r| r.endpoint.starts_with("/oauth/") && r.consumer_key.is_some())
        .collect();
    for endpoint in [
        "/oauth/request_token",
        "/oauth/access_token",
        "/oauth/renew_access_token",
        "/oauth/revoke_access_token",
    ] {
        assert!(
            signed_oauth
                .iter()
                .any(|r| r.endpoint == endpoint && r.status == Some(200)),
            "{endpoint} answered 200: {signed_oauth:?}"
        );
    }
    for r in &signed_oauth {
        let accept = r.accept.as_deref().unwrap_or_default();
        let json_only = !accept.is_empty()
            && accept.split(',').all(|m| {
                m.trim()
                    .to_ascii_lowercase()
                    .starts_with("application/json")
            });
        assert!(!json_only, "{} sent Accept {accept:?}", r.endpoint);
        assert_ne!(r.status, Some(406), "{}", r.endpoint);
    }
    // The API calls still ask for JSON.
    let api = requests
        .iter()
        .find(|r| r.endpoint == "/v1/accounts/list" && r.consumer_key.is_some())
        .expect("the API call");
    assert_eq!(api.accept.as_deref(), Some("application/json"));
    w.assert_state_clean();
}

#[tokio::test]
async fn concurrent_renewals_never_corrupt_the_entry() {
    let w = World::new("race").await;
    w.login().await;
    w.fake.advance_clock(Duration::from_secs(2 * 3600 + 60));
    let (a, b) = tokio::join!(w.run(&["auth", "renew"]), w.run(&["auth", "renew"]));
    assert!(a.status.success() && b.status.success(), "{a:?} {b:?}");
    let store = KeyringStore::linux_keyutils().expect("keyutils");
    let entry = store
        .load(&w.key())
        .expect("entry decodes")
        .expect("present");
    assert!(entry.has_access_token());
    let listed = w.run(&["auth", "status", "--check"]).await;
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    w.logout().await;
    w.assert_state_clean();
}

#[tokio::test]
async fn a_held_lock_fails_within_a_bounded_time() {
    let w = World::new("lock").await;
    w.login().await;
    let coordinator = runtime::credentials::Coordinator::new(w.home.path(), Duration::from_secs(1));
    let held = coordinator.lock(&w.key()).expect("take the lock");
    let start = Instant::now();
    let out = w
        .cmd(&["auth", "renew"])
        .env("ETRADE_MCP_LOCK_TIMEOUT_MS", "400")
        .output()
        .await
        .expect("renew");
    let waited = start.elapsed();
    w.canaries()
        .assert_absent_in_output("etrade auth renew", &out);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("credential lock"), "{err}");
    assert!(waited < Duration::from_secs(10), "bounded: {waited:?}");

    // Through MCP: an idle token needs the lock to renew, so the call is refused as
    // credential_coordination_failed rather than hanging.
    w.fake.advance_clock(Duration::from_secs(2 * 3600 + 60));
    let (client, server) = w.serve(&[("ETRADE_MCP_LOCK_TIMEOUT_MS", "400")]).await;
    let r = call(&client, "list_accounts", serde_json::json!({}))
        .await
        .expect("call");
    let p = payload(&r);
    assert_eq!(p["error"]["code"], "credential_coordination_failed", "{p}");
    drop(held);
    let r = call(&client, "list_accounts", serde_json::json!({}))
        .await
        .expect("call");
    assert_eq!(r.is_error, Some(false), "works once the lock is free");
    stop_stdio_server(client, server).await;
    w.logout().await;
    w.assert_state_clean();
}

/// `server_status` on a fresh server, then one signed call the fake verifies.
async fn fresh_server_signs(w: &World, backend: &str) -> Vec<String> {
    let (client, server) = w.serve(&[]).await;
    let status = payload(
        &call(&client, "server_status", serde_json::json!({}))
            .await
            .expect("status"),
    );
    assert_eq!(data(&status)["credentials"]["state"], "active", "{status}");
    assert_eq!(data(&status)["credentials"]["backend"], backend, "{status}");
    let before = w.fake.count("GET", "/v1/accounts/list");
    let listed = call(&client, "list_accounts", serde_json::json!({}))
        .await
        .expect("call");
    assert_eq!(listed.is_error, Some(false), "{listed:?}");
    assert_eq!(w.fake.count("GET", "/v1/accounts/list"), before + 1);
    let last = w
        .fake
        .requests()
        .into_iter()
        .rfind(|r| r.path.starts_with("/v1/accounts/list"))
        .expect("the call reached the fake");
    assert!(last.signature_verified, "the fake verified the signature");
    let outputs = vec![status.to_string(), payload(&listed).to_string()];
    stop_stdio_server(client, server).await;
    outputs
}

/// The file store: the login lands in one owner-only `credentials.json`, a fresh server
/// signs with it, and the secrets are in that file and in no output, log or other file.
#[tokio::test]
async fn file_store_keeps_the_login_in_one_private_file() {
    let w = World::with_store("file", "file", Vec::new()).await;
    let login = w.login().await;
    assert!(login.stdout.contains("state: active"), "{}", login.stdout);
    assert!(
        !login.stderr.contains("etrade: credentials:"),
        "a chosen store needs no notice: {}",
        login.stderr
    );
    let path = w.home.path().join(CREDENTIALS_FILE_NAME);
    if cfg!(unix) {
        assert_eq!(runtime::platform::permission_bits(&path), Some(0o600));
    }
    let stored = FileStore::in_dir(w.home.path())
        .load(&w.key())
        .expect("load")
        .expect("login wrote the entry");
    let text = std::fs::read_to_string(&path).expect("read");
    let token = stored.access_token.as_ref().expect("token").expose();
    let token_secret = stored
        .access_token_secret
        .as_ref()
        .expect("secret")
        .expose();
    for (what, secret) in [
        ("consumer secret", CONSUMER_SECRET),
        ("access token", token),
        ("access token secret", token_secret),
    ] {
        assert!(text.contains(secret), "the file holds the {what}");
    }
    assert!(!w.in_kernel_keyring(), "nothing went to the kernel keyring");

    let outputs = fresh_server_signs(&w, "file").await;
    let canaries = w.assert_state_clean();
    for (i, o) in outputs.iter().enumerate() {
        canaries.assert_absent_in_str(&format!("tool output #{i}"), o);
    }
    w.logout().await;
    assert!(
        FileStore::in_dir(w.home.path())
            .load(&w.key())
            .expect("load")
            .is_none(),
        "logout deleted the entry"
    );
    assert!(
        !std::fs::read_to_string(&path)
            .expect("read")
            .contains(CONSUMER_SECRET)
    );
}

// The Secret Service is a freedesktop D-Bus service: Linux desktops only.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn secret_service_login_survives_a_keyring_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("secret-service");
    let Some(service) = common::secret_service::SecretService::start(&folder) else {
        return;
    };
    // Without the bus's guid, so the address stays valid for the restarted bus.
    let address = format!("unix:path={}", folder.join("bus").display());
    let w = World::with_store(
        "secret",
        "secret-service",
        vec![("DBUS_SESSION_BUS_ADDRESS".into(), address)],
    )
    .await;
    let login = w.login().await;
    assert!(login.stdout.contains("state: active"), "{}", login.stdout);
    assert!(!w.in_kernel_keyring(), "nothing went to the kernel keyring");
    assert!(!w.home.path().join(CREDENTIALS_FILE_NAME).exists());

    // The stand-in for a reboot: bus and keyring daemon gone, started again on the same
    // keyring folder, unlocked with the same password.
    let folder = service.stop();
    let canaries = w.canaries();
    assert!(
        canaries.assert_absent_in_dir(&folder.join("data").join("keyrings")) > 0,
        "the keyring on disk is encrypted"
    );
    let _service = common::secret_service::SecretService::start(&folder).expect("restart");

    let outputs = fresh_server_signs(&w, "secret-service").await;
    for (i, o) in outputs.iter().enumerate() {
        canaries.assert_absent_in_str(&format!("tool output #{i}"), o);
    }
    w.logout().await;
    let status = w.run(&["auth", "status"]).await;
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("missing"), "logout deleted the entry: {text}");
    w.assert_state_clean();
}

/// A world with no D-Bus session bus in sight (none named, none at the standard socket).
#[cfg(target_os = "linux")]
async fn world_without_a_bus(name: &str, store: &'static str) -> (World, tempfile::TempDir) {
    let runtime_dir = tempfile::tempdir().expect("tempdir");
    let w = World::with_store(
        name,
        store,
        vec![
            ("DBUS_SESSION_BUS_ADDRESS".into(), String::new()),
            (
                "XDG_RUNTIME_DIR".into(),
                runtime_dir.path().display().to_string(),
            ),
        ],
    )
    .await;
    (w, runtime_dir)
}

/// Lines an `etrade` command printed about its credential store choice.
fn notices(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.starts_with("etrade: credentials:"))
        .map(str::to_string)
        .collect()
}

// The fallback order (Secret Service, then the kernel keyring) is Linux's.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn auto_without_a_session_bus_falls_back_to_the_kernel_keyring_and_says_so() {
    let (w, _runtime_dir) = world_without_a_bus("auto", "auto").await;
    let login = w.login().await;
    let said: Vec<_> = login
        .stderr
        .lines()
        .filter(|l| l.starts_with("etrade: credentials:"))
        .collect();
    assert_eq!(said.len(), 1, "one line: {}", login.stderr);
    assert!(
        said[0].contains("no D-Bus session bus")
            && said[0].contains("Linux kernel keyring")
            && said[0].contains("reboot"),
        "{}",
        said[0]
    );
    assert!(
        w.in_kernel_keyring(),
        "auto stored the login in the kernel keyring"
    );
    let status = w.run(&["auth", "status"]).await;
    assert_eq!(notices(&status.stderr).len(), 1);
    fresh_server_signs(&w, "linux-keyutils").await;
    w.logout().await;
    w.assert_state_clean();
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn secret_service_without_a_bus_is_a_clear_error_naming_the_other_stores() {
    let (w, _runtime_dir) = world_without_a_bus("nobus", "secret-service").await;
    let out = w.run(&["auth", "status"]).await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("etrade: the secret-service credential store"))
        .unwrap_or_else(|| panic!("no clear error: {err}"));
    assert!(line.contains("no D-Bus session bus"), "{line}");
    assert!(line.contains("keyutils") && line.contains("file"), "{line}");
    assert!(notices(&out.stderr).is_empty());
    let out = w
        .run(&["auth", "status", "--credential-store", "keychain"])
        .await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not exist on this system; use one of: secret-service, keyutils, file"),
        "{err}"
    );
}

/// The scans can fail: a canary planted raw, percent-encoded (either hex case) or in a
/// nested file is found and named without its value, and the tap reads token responses.
#[tokio::test]
async fn canary_scans_find_what_is_planted() {
    const PLANT: &str = "CANARY-plant/+=0x1";
    let c = Canaries::new().with("planted secret", PLANT);
    let fails = |f: &dyn Fn()| -> String {
        let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .expect_err("the scan must fail");
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "?".into());
        assert!(!msg.contains(PLANT), "the message never shows the value");
        msg
    };
    c.assert_absent_in_str("clean text", "nothing to see: CANARY-plant/+=0x");
    for planted in [
        format!("at the end {PLANT}"),
        "Authorization: OAuth oauth_token=\"CANARY-plant%2F%2B%3D0x1\"".to_string(),
        "base string &CANARY-plant%2f%2b%3d0x1&".to_string(),
    ] {
        let msg = fails(&|| c.assert_absent_in_str("a haystack", &planted));
        assert!(msg.contains("planted secret"), "{msg}");
    }
    let dir = tempfile::tempdir().expect("dir");
    std::fs::create_dir_all(dir.path().join("a/b")).expect("mkdir");
    std::fs::write(dir.path().join("clean.log"), "ok").expect("write");
    assert_eq!(c.assert_absent_in_dir(dir.path()), 1);
    std::fs::write(dir.path().join("a/b/book.redb"), format!("\0\0{PLANT}\0")).expect("write");
    let msg = fails(&|| {
        c.assert_absent_in_dir(dir.path());
    });
    assert!(msg.contains("book.redb"), "{msg}");

    // The tap passes bytes through and keeps the responses.
    let upstream = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = upstream.local_addr().expect("addr");
    tokio::spawn(async move {
        use tokio::io::AsyncReadExt;
        if let Ok((mut s, _)) = upstream.accept().await {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf).await;
            let body = "oauth_token=a%2Fb%2B&oauth_token_secret=CANARY%2Bs%3D";
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(reply.as_bytes()).await;
        }
    });
    let tap = Tap::start(addr).await;
    let got = reqwest::get(format!("{}/oauth/request_token", tap.url))
        .await
        .expect("through the tap")
        .text()
        .await
        .expect("body");
    assert!(got.starts_with("oauth_token="), "{got}");
    assert_eq!(tap.form_values("oauth_token"), ["a/b+"]);
    assert_eq!(tap.form_values("oauth_token_secret"), ["CANARY+s="]);
}
