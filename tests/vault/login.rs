//! `etrade auth login` through the vault, as the person, against the fake E*TRADE: the person
//! types the consumer key, secret and verifier as today, and the login lands in the vault's
//! own store, never in anything the person can read.

use crate::fixture::{Vault, can_run, run_with_input, text};
use crate::person_paths::{account_key, call};
use fake_etrade::{FakeConfig, FakeEtrade};
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

const CONSUMER_KEY: &str = "ckCANARYvault01";
const CONSUMER_SECRET: &str = "CANARY-vault-consumer-secret/+=beef";

// Several threads: the fake E*TRADE runs on this runtime while the test reads the login
// command's output with blocking calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_lives_in_the_vault_and_nowhere_the_person_can_read() {
    if !can_run("the_login_lives_in_the_vault_and_nowhere_the_person_can_read") {
        return;
    }
    let fake = FakeEtrade::start(FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET)).await;
    let toml = format!(
        "[profiles.default]\nenvironment = \"sandbox\"\napi_base_url = \"{}\"\nauthorize_url = \"{}\"\ncredential_store = \"file\"\n",
        fake.base_url(),
        fake.authorize_url()
    );
    let v = Vault::start("lg", &toml);

    // The person logs in as today: key and secret from the environment, the verifier typed.
    let mut login = v.person_command(&v.etrade, &["auth", "login"]);
    login
        .env("ETRADE_CONSUMER_KEY", CONSUMER_KEY)
        .env("ETRADE_CONSUMER_SECRET", CONSUMER_SECRET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = login.spawn().expect("login runs");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut shown = String::new();
    let url = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("no authorize URL: {shown}"))
            .expect("read");
        shown.push_str(&line);
        shown.push('\n');
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
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(format!("{}\n", verifier.trim()).as_bytes())
        .expect("type the code");
    drop(stdin);
    for line in lines {
        shown.push_str(&line.expect("read"));
        shown.push('\n');
    }
    let done = child.wait_with_output().expect("login ends");
    shown.push_str(&String::from_utf8_lossy(&done.stderr));
    assert!(done.status.success(), "login through the vault: {shown}");

    let status = v.person(&["auth", "status"], "");
    assert!(
        status.status.success() && text(&status).contains("active"),
        "{}",
        text(&status)
    );
    let client = v.person_mcp(&[]).await;
    let key = account_key(&client).await;
    assert!(!key.is_empty());
    let (err, balance) = call(
        &client,
        "get_account_balances",
        json!({"account_id_key": key}),
    )
    .await;
    assert!(!err, "signed calls work from the vault's login: {balance}");
    let _ = client.cancel().await;

    // The control: the vault's store holds the login (its token among its secrets).
    let stored =
        std::fs::read_to_string(v.state.join("credentials.json")).expect("the vault's file store");
    assert!(
        stored.contains(CONSUMER_SECRET),
        "the vault keeps the login"
    );
    let token = access_token(&stored);
    assert!(
        token.len() >= 8,
        "the vault keeps the access token: {}",
        token.len()
    );

    // Nothing the person can read holds the token (issued at run time, so it can be searched
    // for everywhere), nor the consumer secret (outside the test binaries that hold it as a
    // constant: searched in the test's folders, the person's home, /dev/shm and /run).
    for (secret, places) in [
        (token.as_str(), "\"$1\" \"$2\" /tmp /dev/shm /run"),
        (CONSUMER_SECRET, "\"$1\" \"$2\" /dev/shm /run"),
    ] {
        let script = format!("grep -rlaF -e \"$0\" {places} 2>/dev/null; true");
        let mut search = v.person_command(Path::new("/bin/sh"), &["-c", &script]);
        search.arg(secret).arg(v.root.path()).arg(&v.person_home);
        let found = run_with_input(search, "");
        let readable: Vec<String> = String::from_utf8_lossy(&found.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect();
        assert!(
            readable.is_empty(),
            "files the person can read with the login: {readable:?}"
        );
    }
    assert!(
        !shown.contains(CONSUMER_SECRET) && !shown.contains(&token),
        "{shown}"
    );
    // The person's own etrade, without the vault, has no login.
    let mut own = v.person_command(&v.etrade, &["auth", "status", "--environment", "sandbox"]);
    own.env_remove("ETRADE_MCP_VAULT");
    let own = run_with_input(own, "");
    assert!(!text(&own).contains("state: active"), "{}", text(&own));
}

/// The access token in the vault's file store (whatever the entry is keyed by).
fn access_token(stored: &str) -> String {
    fn find(v: &serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::Object(m) => m
                .get("access_token")
                .and_then(|t| t.as_str().map(String::from))
                .or_else(|| m.values().find_map(find)),
            serde_json::Value::Array(a) => a.iter().find_map(find),
            _ => None,
        }
    }
    let parsed: serde_json::Value = serde_json::from_str(stored).expect("the store is JSON");
    find(&parsed).expect("an access token in the vault's store")
}
