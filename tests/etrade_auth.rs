//! End to end against the fake E*TRADE server: `etrade auth login` with the verifier piped
//! in, then `etrade serve` over MCP makes signed calls; idle tokens are renewed once
//! transparently, expired ones give `authorization_expired`; concurrent renewals and a held
//! lock behave; canary secrets never leak. Uses the real kernel keyring (shared between the
//! processes), with a profile name of its own per test.

mod common;

use common::*;
use fake_etrade::{FakeConfig, FakeEtrade};
use runtime::config::Environment;
use runtime::credentials::{CredentialKey, CredentialStore, KeyringStore};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const CONSUMER_KEY: &str = "ckCANARYkey7731";
const CONSUMER_SECRET: &str = "CANARY-consumer-secret/+=f00d";

struct World {
    fake: FakeEtrade,
    home: tempfile::TempDir,
    profile: String,
}

impl World {
    async fn new(name: &str) -> World {
        let mut config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
        // The tests move the fake's clock by hours; the client signs with the real clock.
        config.timestamp_window = Duration::from_secs(3 * 24 * 3600);
        let fake = FakeEtrade::start(config).await;
        let home = home();
        let profile = format!("{name}-{}", std::process::id());
        std::fs::write(
            home.path().join("config.toml"),
            format!(
                "[profiles.{profile}]\nenvironment = \"sandbox\"\napi_base_url = \"{}\"\nauthorize_url = \"{}\"\n",
                fake.base_url(),
                fake.authorize_url()
            ),
        )
        .expect("config");
        World {
            fake,
            home,
            profile,
        }
    }

    fn cmd(&self, args: &[&str]) -> tokio::process::Command {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--profile", &self.profile]);
        let mut c = command(&self.home, &all);
        c.env("ETRADE_MCP_CREDENTIAL_STORE", "keyutils")
            .env("ETRADE_MCP_RATE_SCALE", "100")
            .env("ETRADE_CONSUMER_KEY", CONSUMER_KEY)
            .env("ETRADE_CONSUMER_SECRET", CONSUMER_SECRET);
        c
    }

    fn key(&self) -> CredentialKey {
        CredentialKey::new(Environment::Sandbox, self.profile.clone()).expect("key")
    }

    /// `etrade auth login`, answering the browser step the way a person would: open the
    /// printed URL (the fake approves and shows the code) and type the code.
    async fn login(&self) -> (String, String, String) {
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
        let verifier = reqwest::get(&url)
            .await
            .expect("authorize page")
            .text()
            .await
            .expect("code");
        let verifier = verifier.trim().to_string();
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
        (out, err, verifier)
    }

    async fn logout(&self) {
        let _ = self.cmd(&["auth", "logout"]).output().await;
    }
}

fn data(p: &serde_json::Value) -> &serde_json::Value {
    &p["data"]
}

#[tokio::test]
async fn login_serve_renew_expire_without_leaking() {
    let w = World::new("e2e").await;
    let (login_out, login_err, verifier) = w.login().await;
    assert!(login_out.contains("state: active"), "{login_out}");

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

    let log = w.home.path().join("server.log");
    let log_file = std::fs::File::create(&log).expect("log file");
    let envs = [
        ("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"),
        ("ETRADE_MCP_RATE_SCALE", "100"),
        ("ETRADE_MCP_LOG", "debug"),
    ];
    let client = stdio_client_with(
        &w.home,
        &["--profile", &w.profile],
        &envs,
        Stdio::from(log_file),
    )
    .await;
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
    client.cancel().await.expect("close");

    let status_out = w.cmd(&["auth", "status"]).output().await.expect("status");
    w.logout().await;
    assert!(
        store.load(&w.key()).expect("load").is_none(),
        "logout deleted the entry"
    );

    // Canaries: the consumer secret, the tokens and the verifier appear nowhere.
    let mut haystacks = outputs;
    haystacks.push(login_out);
    haystacks.push(login_err);
    haystacks.push(String::from_utf8_lossy(&status_out.stdout).to_string());
    haystacks.push(String::from_utf8_lossy(&status_out.stderr).to_string());
    haystacks.push(std::fs::read_to_string(&log).unwrap_or_default());
    for entry in walk(w.home.path()) {
        haystacks
            .push(String::from_utf8_lossy(&std::fs::read(&entry).unwrap_or_default()).to_string());
    }
    let server_log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        server_log.contains("access token renewed"),
        "the log is really captured"
    );
    for secret in [
        CONSUMER_SECRET,
        token_secret.as_str(),
        token.as_str(),
        verifier.as_str(),
    ] {
        for (i, h) in haystacks.iter().enumerate() {
            assert!(!h.contains(secret), "secret leaked into output #{i}");
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[tokio::test]
async fn concurrent_renewals_never_corrupt_the_entry() {
    let w = World::new("race").await;
    w.login().await;
    w.fake.advance_clock(Duration::from_secs(2 * 3600 + 60));
    let (a, b) = tokio::join!(
        w.cmd(&["auth", "renew"]).output(),
        w.cmd(&["auth", "renew"]).output()
    );
    let (a, b) = (a.expect("a"), b.expect("b"));
    assert!(a.status.success() && b.status.success(), "{a:?} {b:?}");
    let store = KeyringStore::linux_keyutils().expect("keyutils");
    let entry = store
        .load(&w.key())
        .expect("entry decodes")
        .expect("present");
    assert!(entry.has_access_token());
    let listed = w
        .cmd(&["auth", "status", "--check"])
        .output()
        .await
        .expect("check");
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    w.logout().await;
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
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("credential lock"), "{err}");
    assert!(waited < Duration::from_secs(10), "bounded: {waited:?}");

    // Through MCP: an idle token needs the lock to renew, so the call is refused as
    // credential_coordination_failed rather than hanging.
    w.fake.advance_clock(Duration::from_secs(2 * 3600 + 60));
    let envs = [
        ("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"),
        ("ETRADE_MCP_LOCK_TIMEOUT_MS", "400"),
        ("ETRADE_MCP_RATE_SCALE", "100"),
    ];
    let client = stdio_client_with(&w.home, &["--profile", &w.profile], &envs, Stdio::null()).await;
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
    client.cancel().await.expect("close");
    w.logout().await;
}
