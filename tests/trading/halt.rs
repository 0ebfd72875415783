//! The halt switch, as a person uses it: a server runs with `--allow-trading`, someone runs
//! `etrade halt` in another terminal (a process of its own, same state folder), and the very
//! next order or alert change is refused (`execution_disabled`, saying who halted, when, why
//! and how to resume) before anything is sent or journaled; previews still work and
//! `server_status` shows the halt. `etrade resume` lets the next placement through.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::canary::Canaries;
use common::paper::Paper;
use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET, STDERR_LOG, Sandbox};
use fake_etrade::FakeConfig;
use serde_json::{Value, json};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const PLACE: &str = "POST /v1/accounts/*/orders/place";
/// Who the halting person is: `USER` of the `etrade halt` process.
const PERSON: &str = "halt-tester";
const REASON: &str = "agent placed orders in a loop";

fn order() -> Value {
    json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "1",
        "price_type": "LIMIT", "limit_price": "170.00"})
}

/// Runs `cmd` as the halting person; (success, stdout, stderr), scanned for `canaries`.
async fn run(
    mut cmd: tokio::process::Command,
    what: &str,
    canaries: &Canaries,
) -> (bool, String, String) {
    let out = cmd
        .env("USER", PERSON)
        .env_remove("USERNAME")
        .output()
        .await
        .expect("run etrade");
    canaries.assert_absent_in_output(what, &out);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts `p` is the halt refusal and returns its message.
fn refused(p: &Value, what: &str) -> String {
    assert_eq!(p["error"]["code"], "execution_disabled", "{what}: {p}");
    assert_eq!(p["data"], Value::Null, "{what}: {p}");
    p["error"]["message"].as_str().unwrap_or("").to_string()
}

async fn sandbox(name: &str) -> Sandbox {
    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    let flags = ["--allow-trading", "--allow-alert-deletion"];
    Sandbox::start_opts(name, config, &flags, "").await
}

async fn preview(s: &Sandbox) -> String {
    let (err, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": order()}),
        )
        .await;
    assert!(!err, "preview_order: {p}");
    p["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string()
}

async fn halted(s: &Sandbox) -> Value {
    let (err, p) = s.call("server_status", json!({})).await;
    assert!(!err, "{p}");
    p["data"]["trading_policy"]["halted"].clone()
}

#[tokio::test]
async fn halt_refuses_every_mutation_until_resume() {
    let s = sandbox("halt").await;
    let profile = s.profile().to_string();
    let preview_id = preview(&s).await;
    assert_eq!(halted(&s).await, Value::Null, "not halted yet");

    // Another terminal: `etrade halt` with the profile, as the server was started.
    let cmd = s.command(&["halt", "--profile", &profile, "--reason", REASON]);
    let (ok, out, err) = run(cmd, "etrade halt", s.canaries()).await;
    assert!(ok, "etrade halt: {err}");
    assert!(
        out.contains(REASON) && out.contains("etrade resume"),
        "{out}"
    );
    let record = s.home.path().join(format!("halt-sandbox-{profile}.json"));
    let mode = std::fs::metadata(&record)
        .expect("the halt record")
        .permissions();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(mode.mode() & 0o777, 0o600, "the record is owner-only");

    let sent_before = s.fake.requests().len();
    let resume = format!("etrade resume --environment sandbox --profile {profile}");
    for (tool, args) in [
        (
            "place_order",
            json!({"account_id_key": KEY, "preview_id": preview_id}),
        ),
        (
            "place_change_order",
            json!({"account_id_key": KEY, "order_id": 501, "preview_id": preview_id}),
        ),
        (
            "cancel_order",
            json!({"account_id_key": KEY, "order_id": 501}),
        ),
        ("delete_alerts", json!({"alert_ids": [1101]})),
    ] {
        let (err, p) = s.call(tool, args).await;
        assert!(err, "{tool}: {p}");
        let message = refused(&p, tool);
        for part in [REASON, PERSON, resume.as_str(), "previews still work"] {
            assert!(message.contains(part), "{tool}: {part:?} in {message}");
        }
    }
    assert_eq!(
        s.fake.requests().len(),
        sent_before,
        "nothing at all reached E*TRADE while halted"
    );
    assert!(s.requests_on(PLACE).is_empty());
    // Nothing was journaled either: the journal holds the preview only.
    let (_, p) = s.call("list_order_journal", json!({})).await;
    let kinds: Vec<&str> = p["data"]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["preview_order"], "{p}");

    // server_status says who, when, why and the scope.
    let h = halted(&s).await;
    assert_eq!(h["by"], PERSON, "{h}");
    assert_eq!(h["reason"], REASON, "{h}");
    assert_eq!(h["scope"], "profile", "{h}");
    let at: jiff::Timestamp = h["at"].as_str().unwrap_or("").parse().expect("RFC 3339");
    let age = jiff::Timestamp::now().duration_since(at);
    assert!(age.as_secs() >= 0 && age.as_secs() < 300, "recent: {at}");

    // A preview is not a mutation: it still works while halted.
    let second = preview(&s).await;
    assert_ne!(second, preview_id);

    let (ok, out, err) = run(
        s.command(&["resume", "--profile", &profile]),
        "etrade resume",
        s.canaries(),
    )
    .await;
    assert!(ok, "etrade resume: {err}");
    assert!(out.contains(REASON), "says what it lifted: {out}");
    assert!(!record.exists(), "the record is gone");
    assert_eq!(halted(&s).await, Value::Null);

    // The next placement goes through, once.
    let (err, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": preview_id}),
        )
        .await;
    assert!(!err, "placed after resume: {p}");
    assert!(p["data"]["order_id"].as_i64().is_some(), "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
}

#[tokio::test]
async fn halt_all_stops_every_profile_and_environment() {
    let s = sandbox("halt-all").await;
    let profile = s.profile().to_string();
    let preview_id = preview(&s).await;
    // A second server in the same state folder: another profile, on the paper broker.
    let (paper, paper_child) = common::stdio_client_recorded(
        &s.home,
        &["--profile", "other", "--allow-trading"],
        &[],
        std::process::Stdio::from(common::canary::log_file(s.home.path(), STDERR_LOG)),
        &s.home.path().join("other-stdout.log"),
    )
    .await;

    let (ok, _, err) = run(s.command(&["halt", "--all"]), "halt --all", s.canaries()).await;
    assert!(ok, "etrade halt --all: {err}");

    let place = json!({"account_id_key": KEY, "preview_id": preview_id});
    let (err, p) = s.call("place_order", place.clone()).await;
    assert!(err, "{p}");
    let message = refused(&p, "place_order");
    assert!(
        message.contains("every profile and environment"),
        "{message}"
    );
    assert!(message.contains("`etrade resume --all`"), "{message}");
    assert!(message.contains(PERSON), "{message}");
    let (err, p) = common::sandbox::checked_call(
        &paper,
        "cancel_order",
        json!({"account_id_key": KEY, "order_id": 1}),
        s.canaries(),
    )
    .await;
    assert!(err, "{p}");
    assert!(refused(&p, "paper cancel_order").contains("`etrade resume --all`"));
    let h = halted(&s).await;
    assert_eq!(h["scope"], "all", "{h}");
    assert_eq!(h["reason"], Value::Null, "no --reason: {h}");
    assert!(s.requests_on(PLACE).is_empty());

    // Resuming one profile does not lift --all: it says so and fails.
    let (ok, _, err) = run(
        s.command(&["resume", "--profile", &profile]),
        "resume one",
        s.canaries(),
    )
    .await;
    assert!(!ok, "trading did not resume");
    assert!(
        err.contains("still halted") && err.contains("etrade resume --all"),
        "{err}"
    );
    let (err, p) = s.call("place_order", place.clone()).await;
    assert!(err, "{p}");
    refused(&p, "place_order after resuming one profile");

    let (ok, out, err) = run(
        s.command(&["resume", "--all"]),
        "resume --all",
        s.canaries(),
    )
    .await;
    assert!(ok, "etrade resume --all: {err}");
    assert!(out.contains("every profile and environment"), "{out}");
    assert_eq!(halted(&s).await, Value::Null);
    let (err, p) = s.call("place_order", place).await;
    assert!(!err, "placed after resume --all: {p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
    common::stop_stdio_server(paper, paper_child).await;
}

#[tokio::test]
async fn halt_in_paper() {
    let p = Paper::start(&["--allow-trading"]).await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": order()}),
        )
        .await;
    let place = json!({"account_id_key": key, "preview_id": pv["preview_id"]});

    // The paper harness puts `--profile` after the subcommand; the environment is the
    // profile's (paper), as for `etrade serve`.
    let (ok, out, err) = run(
        p.command(&["halt", "--reason", REASON]),
        "etrade halt",
        p.canaries(),
    )
    .await;
    assert!(ok, "etrade halt: {err}");
    assert!(out.contains("paper environment"), "{out}");

    let (err, r) = p.call("place_order", place.clone()).await;
    assert!(err, "{r}");
    let message = refused(&r, "place_order");
    for part in [
        REASON,
        PERSON,
        "etrade resume --environment paper --profile",
    ] {
        assert!(message.contains(part), "{part:?} in {message}");
    }
    let status = p.ok("server_status", json!({})).await;
    assert_eq!(status["trading_policy"]["halted"]["by"], PERSON);
    let open = p
        .ok(
            "list_orders",
            json!({"account_id_key": key, "status": "OPEN"}),
        )
        .await;
    assert!(
        open["orders"].as_array().is_none_or(Vec::is_empty),
        "no paper order: {open}"
    );
    // Previews still work.
    p.ok(
        "preview_order",
        json!({"account_id_key": key, "request": order()}),
    )
    .await;

    let (ok, _, err) = run(p.command(&["resume"]), "etrade resume", p.canaries()).await;
    assert!(ok, "etrade resume: {err}");
    let status = p.ok("server_status", json!({})).await;
    assert_eq!(status["trading_policy"]["halted"], Value::Null);
    let placed = p.ok("place_order", place).await;
    assert!(placed["order_id"].as_i64().is_some(), "{placed}");
}
