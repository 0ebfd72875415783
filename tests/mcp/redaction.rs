//! Broker text that echoes credentials into a success, through the real server and the fake
//! E*TRADE: the fake's `EchoAuthorization` fault appends the request's `Authorization` header
//! (consumer key and access token, percent-encoded) to the free-text fields of an answer.
//! Whatever the answer reaches — the tool's output, the order journal, the approval summary
//! `etrade approve --list` prints, `trading.redb` — shows `[redacted]` instead, and no
//! credential, the consumer key included.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::canary::Canaries;
use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET, Sandbox};
use fake_etrade::{FakeConfig, Fault};
use serde_json::{Value, json};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const MARKER: &str = runtime::contract::broker_message::REDACTED;
const PREVIEW: &str = "POST /v1/accounts/*/orders/preview";
const ACCOUNT_LIST: &str = "GET /v1/accounts/list";
const REQUIRED: &str = "[profiles.{profile}.trading]\napproval = \"required\"\n";

/// The harness's canaries (consumer secret, access token and its secret) and the consumer
/// key: not a secret the harness guards, but the echoed header carries it and nothing that
/// reaches a person may.
fn canaries(s: &Sandbox) -> Canaries {
    s.canaries().clone().with("consumer key", CONSUMER_KEY)
}

/// Proves the echo happened: the fake answered `pattern` successfully with the fault, and the
/// header it echoed carried both the consumer key and the access token.
fn assert_echoed(s: &Sandbox, pattern: &str) {
    let hit: Vec<_> = s
        .requests_on(pattern)
        .into_iter()
        .filter(|r| r.fault.as_deref() == Some("echo_authorization"))
        .collect();
    assert_eq!(hit.len(), 1, "one echoed answer on {pattern}");
    assert_eq!(hit[0].status, Some(200));
    assert_eq!(hit[0].consumer_key.as_deref(), Some(CONSUMER_KEY));
    assert_eq!(hit[0].oauth_token.as_deref(), Some(s.token.as_str()));
}

async fn call(s: &Sandbox, canaries: &Canaries, tool: &str, args: Value) -> Value {
    let (err, p) = s.call(tool, args).await;
    assert!(!err, "{tool}: {p}");
    canaries.assert_absent_in_str(&format!("the output of {tool}"), &p.to_string());
    p["data"].clone()
}

#[tokio::test]
async fn an_echoing_preview_is_redacted_in_output_journal_approval_and_state() {
    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    let s = Sandbox::start_opts("redact-preview", config, &["--allow-trading"], REQUIRED).await;
    let canaries = canaries(&s);
    s.fake
        .inject_fault(PREVIEW, Fault::EchoAuthorization, Some(1));
    // The account name a person approving sees comes from the account list.
    s.fake
        .inject_fault(ACCOUNT_LIST, Fault::EchoAuthorization, Some(1));

    let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "7", "price_type": "LIMIT", "limit_price": "170.00"});
    let preview = call(
        &s,
        &canaries,
        "preview_order",
        json!({"account_id_key": KEY, "request": order}),
    )
    .await;
    assert_echoed(&s, PREVIEW);
    assert_echoed(&s, ACCOUNT_LIST);
    let warning = &preview["broker_preview"]["order"][0]["messages"][0];
    assert_eq!(
        warning["code"],
        fake_etrade::codes::PREVIEW_WARNING.to_string()
    );
    assert_eq!(warning["description"], MARKER, "{preview}");
    assert_eq!(
        preview["broker_preview"]["order"][0]["instrument"][0]["product"]["symbol"], "AAPL",
        "only the echoing strings go: {preview}"
    );
    let id = preview["preview_id"].as_str().expect("preview_id");

    let journal = call(&s, &canaries, "list_order_journal", json!({"limit": 10})).await;
    assert!(journal.to_string().contains(id), "{journal}");

    let listed = s.cli(&["approve", "--list"], "").await;
    let shown = common::output_text(&listed);
    assert!(listed.status.success(), "{shown}");
    canaries.assert_absent_in_output("etrade approve --list", &listed);
    assert!(shown.contains(id), "{shown}");
    assert!(
        shown.contains(&format!("E*TRADE says: {MARKER}")),
        "{shown}"
    );
    assert!(shown.contains(&format!("Account: {MARKER} (…")), "{shown}");

    // trading.redb, the server's debug log and its stdout copy (the harness scans them
    // again at drop, without the consumer key).
    let files = canaries.assert_absent_in_dir(s.home.path());
    assert!(
        common::canary::files_under(s.home.path())
            .iter()
            .any(|p| p.ends_with("trading.redb")),
        "the trading database was written ({files} files)"
    );
}

#[tokio::test]
async fn an_echoing_read_is_redacted() {
    let s = Sandbox::start("redact-read").await;
    let canaries = canaries(&s);
    s.fake
        .inject_fault(ACCOUNT_LIST, Fault::EchoAuthorization, Some(1));
    let listed = call(&s, &canaries, "list_accounts", json!({})).await;
    assert_echoed(&s, ACCOUNT_LIST);
    let first = &listed["accounts"][0];
    assert_eq!(first["accountIdKey"], KEY, "{listed}");
    assert_eq!(first["accountDesc"], MARKER, "{listed}");
    assert_eq!(first["accountName"], MARKER, "{listed}");

    s.fake
        .inject_fault("GET /v1/market/quote/*", Fault::EchoAuthorization, Some(1));
    let quotes = call(&s, &canaries, "get_quotes", json!({"symbols": ["AAPL"]})).await;
    assert_echoed(&s, "GET /v1/market/quote/*");
    assert!(quotes.to_string().contains(MARKER), "{quotes}");
    assert!(quotes.to_string().contains("AAPL"), "{quotes}");
    canaries.assert_absent_in_dir(s.home.path());
}
