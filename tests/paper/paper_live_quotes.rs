//! Paper quotes from E*TRADE while the profile's (sandbox) credentials are active: quotes
//! are marked `etrade_sandbox` and a market order fills at E*TRADE's quoted ask; without
//! credentials the simulator serves again and nothing is sent to E*TRADE. Secret canaries:
//! the consumer secret, access token and token secret appear in no tool output, CLI output,
//! debug log, copy of the server's stdout or state file.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::canary::{Canaries, DEBUG_LOG, log_file};
use common::login::FakeLogin;
use common::paper::{STDERR_LOG, STDOUT_LOG, dec, into_session};
use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET};
use common::{call, command, payload, stdio_client_recorded};
use fake_etrade::{FakeConfig, FakeEtrade};
use runtime::credentials::{CredentialStore, KeyringStore};
use serde_json::{Value, json};
use std::process::Stdio;

async fn checked_data(
    client: &common::Client,
    canaries: &Canaries,
    tool: &str,
    args: Value,
) -> Value {
    let r = call(client, tool, args).await.expect("result");
    let p = payload(&r);
    assert_ne!(r.is_error, Some(true), "{tool}: {p}");
    canaries.assert_absent_in_str(tool, &p.to_string());
    p["data"].clone()
}

#[tokio::test]
async fn paper_uses_etrade_quotes_while_credentials_are_active() {
    let fake = FakeEtrade::start(FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET)).await;
    let home = common::home();
    let login = FakeLogin::new(
        home.path(),
        &fake,
        "paperlive",
        "paper",
        "",
        (CONSUMER_KEY, CONSUMER_SECRET),
    );
    let (profile, key) = (login.profile.clone(), login.key.clone());
    let canaries = login.canaries();
    let store = KeyringStore::linux_keyutils().expect("keyutils");

    let envs = [
        ("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"),
        ("ETRADE_MCP_RATE_SCALE", "1000"),
        DEBUG_LOG,
    ];
    let advance = command(
        &home,
        &[
            "paper",
            "--profile",
            &profile,
            "advance",
            &format!("{}s", into_session()),
        ],
    )
    .envs(envs)
    .output()
    .await
    .expect("etrade paper advance");
    assert!(advance.status.success(), "{advance:?}");
    canaries.assert_absent_in_output("etrade paper advance", &advance);
    let (client, _server) = stdio_client_recorded(
        &home,
        &["--profile", &profile, "--allow-trading"],
        &envs,
        Stdio::from(log_file(home.path(), STDERR_LOG)),
        &home.path().join(STDOUT_LOG),
    )
    .await;
    let data = |tool: &'static str, args: Value| checked_data(&client, &canaries, tool, args);

    let status = data("server_status", json!({})).await;
    assert_eq!(status["market_data"]["live_quotes"], "etrade_sandbox");
    let q = data("get_quotes", json!({"symbols": ["AAPL"]})).await;
    assert_eq!(q["quotes"][0]["source"], "etrade_sandbox", "{q}");
    let ask = dec(&q["quotes"][0]["all"]["ask"]);
    assert!(
        fake.count("GET", "/v1/market/quote") >= 1,
        "the quote came from E*TRADE"
    );

    let accounts = data("list_accounts", json!({})).await;
    let account = accounts["accounts"][0]["accountIdKey"].clone();
    let buy = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "10", "price_type": "MARKET"});
    let pv = data(
        "preview_order",
        json!({"account_id_key": account, "request": buy}),
    )
    .await;
    data(
        "place_order",
        json!({"account_id_key": account, "preview_id": pv["preview_id"]}),
    )
    .await;
    let t = data("list_transactions", json!({"account_id_key": account})).await;
    let bought = t["transaction"]
        .as_array()
        .expect("list")
        .iter()
        .find(|t| t["brokerage"]["transactionType"] == "Bought")
        .cloned()
        .expect("a buy");
    assert_eq!(
        dec(&bought["brokerage"]["price"]),
        ask,
        "filled at E*TRADE's quoted ask"
    );
    assert_eq!(
        fake.requests().iter().filter(|r| r.mutation).count(),
        0,
        "no order ever reaches E*TRADE from paper"
    );

    // Credentials gone: the simulator serves, and nothing is sent.
    store.delete(&key).expect("delete");
    let before = fake.count("GET", "/v1/market/quote");
    let q = data("get_quotes", json!({"symbols": ["AAPL"]})).await;
    assert_eq!(q["quotes"][0]["source"], "simulated");
    assert_eq!(fake.count("GET", "/v1/market/quote"), before);

    let log = std::fs::read_to_string(home.path().join(STDERR_LOG)).expect("log");
    assert!(
        log.contains("paper quotes come from E*TRADE"),
        "the debug log is really captured"
    );
    let scanned = canaries.assert_absent_in_dir(home.path());
    assert!(scanned >= 4, "the book, the logs and the config: {scanned}");
}
