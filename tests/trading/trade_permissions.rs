//! Mutations need their startup flag: without it the tool is not listed, a call anyway is
//! `execution_disabled`, and nothing reaches the broker.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET, Sandbox};
use fake_etrade::FakeConfig;
use serde_json::{Value, json};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const TRADE: [&str; 4] = [
    "place_order",
    "cancel_order",
    "preview_change_order",
    "place_change_order",
];

fn order() -> Value {
    json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "1",
        "price_type": "LIMIT", "limit_price": "170.00"})
}

fn args(tool: &str) -> Value {
    match tool {
        "place_order" => json!({"account_id_key": KEY, "preview_id": "pv-0123456789abcdef"}),
        "cancel_order" => json!({"account_id_key": KEY, "order_id": 501}),
        "preview_change_order" => {
            json!({"account_id_key": KEY, "order_id": 501, "request": order()})
        }
        "place_change_order" => {
            json!({"account_id_key": KEY, "order_id": 501, "preview_id": "pv-0123456789abcdef"})
        }
        _ => json!({"alert_ids": [1101]}),
    }
}

async fn listed(s: &Sandbox) -> Vec<String> {
    let tools = s.client.list_all_tools().await.expect("tools/list");
    tools.iter().map(|t| t.name.to_string()).collect()
}

async fn assert_disabled(s: &Sandbox, tool: &str, flag: &str) {
    let (err, p) = s.call(tool, args(tool)).await;
    assert!(err, "{tool}: {p}");
    assert_eq!(p["error"]["code"], "execution_disabled", "{tool}: {p}");
    let message = p["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains(flag), "{tool} names its flag: {message}");
}

#[tokio::test]
async fn without_flags_no_mutation_is_listed_or_sent() {
    let s = Sandbox::start("perm-none").await;
    let names = listed(&s).await;
    for tool in TRADE.iter().chain(&["delete_alerts"]) {
        assert!(!names.iter().any(|n| n == tool), "{tool} is not listed");
    }
    for tool in ["preview_order", "list_order_journal", "list_orders"] {
        assert!(
            names.iter().any(|n| n == tool),
            "{tool} is listed (always granted)"
        );
    }
    for tool in TRADE {
        assert_disabled(&s, tool, "--allow-trading").await;
    }
    assert_disabled(&s, "delete_alerts", "--allow-alert-deletion").await;
    assert_eq!(
        s.fake.requests().iter().filter(|r| r.mutation).count(),
        0,
        "no mutation request reached the fake"
    );
    assert!(s.fake.requests().is_empty(), "nothing at all was sent");
    // The journal exists and is empty: nothing was attempted.
    let (err, p) = s.call("list_order_journal", json!({})).await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["entries"], json!([]));
    // server_status says what was granted.
    let (_, p) = s.call("server_status", json!({})).await;
    let permissions = p["data"]["permissions"].to_string();
    assert!(permissions.contains("trade"), "{permissions}");
}

#[tokio::test]
async fn each_flag_grants_only_its_permission() {
    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    let s = Sandbox::start_opts("perm-trade", config, &["--allow-trading"], "").await;
    let names = listed(&s).await;
    for tool in TRADE {
        assert!(
            names.iter().any(|n| n == tool),
            "{tool} is listed with --allow-trading"
        );
    }
    assert!(!names.iter().any(|n| n == "delete_alerts"));
    assert_disabled(&s, "delete_alerts", "--allow-alert-deletion").await;

    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    let a = Sandbox::start_opts("perm-alerts", config, &["--allow-alert-deletion"], "").await;
    let names = listed(&a).await;
    assert!(names.iter().any(|n| n == "delete_alerts"));
    for tool in TRADE {
        assert!(
            !names.iter().any(|n| n == tool),
            "{tool} needs --allow-trading"
        );
        assert_disabled(&a, tool, "--allow-trading").await;
    }
    assert_eq!(s.fake.requests().iter().filter(|r| r.mutation).count(), 0);
    assert_eq!(a.fake.requests().iter().filter(|r| r.mutation).count(), 0);
}
