//! `etrade doctor`: one line per check (ok / warn / FAIL / skip), a summary, exit 1 on FAIL.
//! With a stored login (secret canaries: consumer secret, access token and token secret,
//! then a stale pair), each run at debug level is scanned — stdout, stderr — and at the end
//! every file of the state folder.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::canary::{Canaries, DEBUG_LOG};
use common::login::FakeLogin;
use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET};
use common::*;
use fake_etrade::{FakeConfig, FakeEtrade};
use runtime::credentials::{CredentialStore, KeyringStore, Secret, StoredCredentials};

struct Run {
    success: bool,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Secret canaries: none in stdout or stderr.
    fn assert_no_canaries(&self, canaries: &Canaries) {
        canaries.assert_absent_in_str("the stdout of etrade doctor", &self.stdout);
        canaries.assert_absent_in_str("the stderr of etrade doctor", &self.stderr);
    }

    /// The line of check `name`, e.g. `clock`.
    fn line(&self, name: &str) -> &str {
        let tag = format!(" {name}: ");
        self.stdout
            .lines()
            .find(|l| l.get(4..).is_some_and(|rest| rest.starts_with(&tag)))
            .unwrap_or_else(|| panic!("no {name} line in:\n{}", self.stdout))
    }
}

async fn doctor(home: &tempfile::TempDir, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut all = vec!["doctor"];
    all.extend_from_slice(args);
    let mut cmd = command(home, &all);
    // An empty value removes the variable.
    for (name, value) in envs {
        if value.is_empty() {
            cmd.env_remove(name);
        } else {
            cmd.env(name, value);
        }
    }
    let out = cmd.output().await.expect("run etrade doctor");
    Run {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[tokio::test]
async fn fresh_paper_home_is_all_ok() {
    let home = home();
    // A state folder that does not exist yet, as on a fresh install.
    let state = home.path().join("state");
    let state_str = state.to_str().expect("utf-8 path").to_string();
    let envs = [("ETRADE_MCP_HOME", state_str.as_str())];
    let run = doctor(&home, &[], &envs).await;
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let (summary, checks) = lines.split_last().expect("output");
    assert!(summary.starts_with("summary: "), "{summary}");
    assert!(summary.contains("0 warn, 0 FAIL"), "{}", run.stdout);
    assert!(run.line("keyring").contains("mock"), "{}", run.stdout);
    assert!(checks.len() >= 7, "{}", run.stdout);
    for line in checks.iter().filter(|l| !l.starts_with("info ")) {
        assert!(line.starts_with("ok   "), "not ok: {line}");
    }
    for name in [
        "config",
        "settings",
        "state dir",
        "keyring",
        "credentials",
        "permissions",
        "paper",
        "trading db",
    ] {
        run.line(name);
    }
    assert!(run.line("config").contains("not found; using the defaults"));
    assert!(run.line("settings").contains("environment paper"));
    assert!(
        run.line("state dir")
            .contains("(created) is writable, mode 0700"),
        "{}",
        run.stdout
    );
    // Read-only apart from the state folder itself.
    let made: Vec<_> = std::fs::read_dir(&state)
        .expect("state folder")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(made.is_empty(), "{made:?}");

    // An existing book reports its simulated time.
    let status = command(&home, &["paper", "status"])
        .env("ETRADE_MCP_HOME", &state)
        .output()
        .await
        .expect("paper status");
    assert!(status.status.success());
    let run = doctor(&home, &[], &envs).await;
    assert!(run.success, "{}", run.stdout);
    assert!(
        run.line("paper").contains("opens; simulated time 2"),
        "{}",
        run.stdout
    );
}

#[tokio::test]
async fn loose_state_folder_permissions_warn() {
    use std::os::unix::fs::PermissionsExt;
    let home = home();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let run = doctor(&home, &[], &[]).await;
    assert!(run.success, "a warning is not a failure: {}", run.stdout);
    let line = run.line("state dir");
    assert!(
        line.starts_with("warn") && line.contains("mode 0755"),
        "{line}"
    );
    assert!(line.contains("Next: chmod 700"), "{line}");
}

/// A server holds the paper book only during an operation and a moment after, so doctor
/// opens it beside a running server.
#[tokio::test]
async fn a_running_server_shares_the_paper_book_with_doctor() {
    let home = home();
    let client = stdio_client(&home, &[]).await;
    let run = doctor(&home, &[], &[]).await;
    assert!(run.success, "{}", run.stdout);
    let line = run.line("paper");
    assert!(line.starts_with("ok"), "{line}");
    assert!(line.contains("opens; simulated time"), "{line}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn broken_config_fails_with_file_line_and_column() {
    let home = home();
    std::fs::write(
        home.path().join("config.toml"),
        "[profiles.default]\nenvironment = \"papr\"\n",
    )
    .expect("write config");
    let run = doctor(&home, &[], &[]).await;
    assert!(!run.success, "{}", run.stdout);
    let line = run.line("config");
    assert!(line.starts_with("FAIL"), "{line}");
    assert!(line.contains("config.toml:2:15"), "{line}");
    assert!(line.contains("profiles.default.environment"), "{line}");
    assert!(line.contains("Next: edit"), "{line}");
    let summary = run.stdout.lines().last().expect("summary");
    assert!(summary.contains("1 FAIL"), "{summary}");
}

#[tokio::test]
async fn sandbox_without_credentials_says_to_log_in() {
    let fake = FakeEtrade::start(FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET)).await;
    let home = home();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[profiles.default]\napi_base_url = \"{}\"\n",
            fake.base_url()
        ),
    )
    .expect("config");
    let run = doctor(&home, &["--environment", "sandbox"], &[]).await;
    assert!(!run.success, "{}", run.stdout);
    let line = run.line("credentials");
    assert!(line.starts_with("FAIL"), "{line}");
    assert!(
        line.contains("Next: etrade auth login --environment sandbox --profile default"),
        "{line}"
    );
    // No login yet, but the clock is still checked: E*TRADE's Date on an unsigned request.
    let line = run.line("clock");
    assert!(line.starts_with("ok"), "{line}");
    assert!(line.contains("unsigned request"), "{line}");
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].consumer_key, None, "nothing signed");

    // E*TRADE's clock ten minutes ahead of ours: a failure, with the fix.
    fake.advance_clock(std::time::Duration::from_secs(600));
    let run = doctor(&home, &["--environment", "sandbox"], &[]).await;
    let line = run.line("clock");
    assert!(line.starts_with("FAIL"), "{line}");
    assert!(line.contains("Next: fix the system clock"), "{line}");
    let skew: i64 = line
        .split("skew ")
        .nth(1)
        .and_then(|s| s.split('s').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no skew in {line}"));
    assert!((598..=602).contains(&skew), "{line}");

    // Offline: not checked, and nothing sent.
    fake.clear_requests();
    let run = doctor(&home, &["--environment", "sandbox", "--offline"], &[]).await;
    assert!(run.line("clock").starts_with("skip"), "{}", run.stdout);
    assert!(fake.requests().is_empty());
}

#[tokio::test]
async fn production_trading_needs_confirmation() {
    let home = home();
    let run = doctor(
        &home,
        &[
            "--environment",
            "production",
            "--allow-trading",
            "--offline",
        ],
        &[],
    )
    .await;
    assert!(!run.success);
    let line = run.line("permissions");
    assert!(line.starts_with("FAIL"), "{line}");
    assert!(line.contains("--confirm-production"), "{line}");

    let run = doctor(
        &home,
        &[
            "--environment",
            "production",
            "--allow-trading",
            "--confirm-production",
            "--offline",
        ],
        &[],
    )
    .await;
    let line = run.line("permissions");
    assert!(line.starts_with("ok"), "{line}");
    assert!(line.contains("trade"), "{line}");
    assert!(run.line("clock").contains("--offline"), "{}", run.stdout);
}

#[tokio::test]
async fn sandbox_with_an_active_login_checks_the_clock_without_leaking_secrets() {
    let fake = FakeEtrade::start(FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET)).await;
    let home = home();
    let login = FakeLogin::new(
        home.path(),
        &fake,
        "doctor",
        "sandbox",
        "",
        (CONSUMER_KEY, CONSUMER_SECRET),
    );
    let (profile, key) = (login.profile.clone(), login.key.clone());
    let store = KeyringStore::linux_keyutils().expect("keyutils");
    let mut canaries = login.canaries();

    let envs = [
        ("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"),
        ("ETRADE_MCP_HTTP_TIMEOUT_MS", "3000"),
        DEBUG_LOG,
    ];
    let run = doctor(&home, &["--profile", &profile], &envs).await;
    assert!(run.stderr.contains("DEBUG"), "doctor ran at debug level");
    run.assert_no_canaries(&canaries);
    assert!(run.success, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.line("settings")
            .contains("environment sandbox (from config.toml)"),
        "{}",
        run.stdout
    );
    let line = run.line("keyring");
    assert!(
        line.starts_with("warn") && line.contains("linux-keyutils"),
        "{line}"
    );
    assert!(line.contains("gone after a reboot"), "{line}");
    let stores = run.line("stores");
    for name in ["secret-service:", "keyutils:", "file:"] {
        assert!(stores.contains(name), "{stores}");
    }
    assert!(
        !stores.contains("keychain:"),
        "only this system's stores: {stores}"
    );
    let line = run.line("credentials");
    assert!(line.starts_with("ok"), "{line}");
    assert!(line.contains("active until"), "{line}");
    let line = run.line("clock");
    assert!(line.starts_with("ok"), "{line}");
    let skew: i64 = line
        .split("skew ")
        .nth(1)
        .and_then(|s| s.split('s').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no skew in {line}"));
    assert!(skew.abs() <= 2, "{line}");
    assert!(
        fake.count("GET", "/v1/accounts/list") >= 1,
        "one signed request reached the fake"
    );
    // The stored entry is left as it was (doctor records no use).
    let after = store.load(&key).expect("load").expect("entry");
    assert_eq!(after.last_used_at, None);

    // At most four characters of the consumer key.
    for output in [&run.stdout, &run.stderr] {
        assert!(
            !output.contains(&CONSUMER_KEY[..5]),
            "the consumer key reached the output"
        );
    }

    // Offline: the clock is not checked and nothing is sent.
    fake.clear_requests();
    let run = doctor(&home, &["--profile", &profile, "--offline"], &envs).await;
    run.assert_no_canaries(&canaries);
    assert!(run.success, "{}", run.stdout);
    assert!(run.line("clock").starts_with("skip"), "{}", run.stdout);
    assert_eq!(fake.count("GET", "/v1/accounts/list"), 0);

    // A server clock ten minutes ahead: E*TRADE refuses the timestamp and names the range
    // it accepts, which measures the skew.
    fake.advance_clock(std::time::Duration::from_secs(600));
    let run = doctor(&home, &["--profile", &profile], &envs).await;
    run.assert_no_canaries(&canaries);
    assert!(!run.success, "{}", run.stdout);
    let line = run.line("clock");
    assert!(line.starts_with("FAIL"), "{line}");
    assert!(
        line.contains("refused the request's OAuth timestamp"),
        "{line}"
    );
    assert!(line.contains("Next: fix the system clock"), "{line}");
    let skew: i64 = line
        .split("skew ")
        .nth(1)
        .and_then(|s| s.split('s').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no skew in {line}"));
    assert!((598..=602).contains(&skew), "{line}");
    fake.set_time(jiff::Timestamp::now());

    // A token the fake no longer accepts: the clock is still measured from the Date header,
    // and the failure is reported by its sanitized code.
    store.delete(&key).expect("delete");
    let mut stale = StoredCredentials::new(CONSUMER_KEY, Secret::new(CONSUMER_SECRET));
    stale.authorize(
        Secret::new("CANARYnotAtoken"),
        Secret::new("CANARYnotAsecret"),
        jiff::Timestamp::now(),
    );
    store.save(&key, &stale).expect("store");
    canaries.add("stale access token", "CANARYnotAtoken");
    canaries.add("stale access token secret", "CANARYnotAsecret");
    let run = doctor(&home, &["--profile", &profile], &envs).await;
    run.assert_no_canaries(&canaries);
    let line = run.line("clock");
    assert!(line.starts_with("warn"), "{line}");
    assert!(line.contains("skew "), "{line}");
    assert!(line.contains("HTTP 401"), "{line}");
    assert!(
        !run.stdout.contains("CANARYnotA") && !run.stderr.contains("CANARYnotA"),
        "not even a prefix of the stale pair"
    );
    canaries.assert_absent_in_dir(home.path());
}

/// The file store: doctor says where it is and plainly what it protects against, and FAILs
/// a file that others can read. The profile's `credential_store` chooses it.
#[tokio::test]
async fn file_store_is_explained_and_its_mode_checked() {
    use std::os::unix::fs::PermissionsExt;
    let home = home();
    std::fs::write(
        home.path().join("config.toml"),
        "[profiles.default]\nenvironment = \"sandbox\"\ncredential_store = \"file\"\n",
    )
    .expect("config");
    let envs = [("ETRADE_MCP_CREDENTIAL_STORE", "")];
    let run = doctor(&home, &["--offline"], &envs).await;
    let line = run.line("keyring");
    assert!(line.starts_with("ok") && line.contains("file"), "{line}");
    assert!(
        line.contains("not programs running as you") && line.contains("not encrypted"),
        "{line}"
    );
    let path = home.path().join("credentials.json");
    std::fs::write(&path, "{\"format\":1,\"entries\":{}}").expect("file");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let run = doctor(&home, &["--offline"], &envs).await;
    let line = run.line("keyring");
    assert!(line.starts_with("FAIL") && line.contains("0644"), "{line}");
    assert!(line.contains("chmod 600"), "{line}");
    assert!(!run.success);
}
