//! `get_account_balances` against the fake over MCP.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use serde_json::json;

const TRADING: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const IRA: &str = "idU1aBkPvD5n46JI_7S_2A";

#[tokio::test]
async fn balances_success_defaults_and_real_time_values() {
    let s = Sandbox::start("acct-balances").await;
    let (err, p) = s
        .call("get_account_balances", json!({"account_id_key": TRADING}))
        .await;
    assert!(!err, "{p}");
    let d = &p["data"];
    assert_eq!(d["accountId"], "84010429");
    assert_eq!(d["accountMode"], "MARGIN");
    assert_eq!(d["optionLevel"], "LEVEL_2");
    assert_eq!(d["computed"]["cashBalance"], "12500.11");
    assert_eq!(d["cash"]["moneyMktBalance"], "0");
    assert!(d["margin"].is_object(), "a margin account has Margin");
    assert!(d["computed"]["realTimeValues"].is_null());
    assert!(d["asOfDate"].as_str().is_some_and(|t| t.ends_with('Z')));
    // instType is defaulted to BROKERAGE; realTimeNAV is only sent when asked.
    let r = s.fake.requests();
    let q = r
        .iter()
        .rev()
        .find(|r| r.endpoint.ends_with("/balance"))
        .and_then(|r| r.query.clone())
        .expect("balance request");
    assert_eq!(q, "instType=BROKERAGE");

    let (err, p) = s
        .call(
            "get_account_balances",
            json!({"accountIdKey": IRA, "real_time_nav": true, "inst_type": "BROKERAGE"}),
        )
        .await;
    assert!(!err, "{p}");
    let d = &p["data"];
    assert_eq!(d["accountType"], "ROTHIRA");
    assert!(d["margin"].is_null());
    let rtv = &d["computed"]["realTimeValues"];
    assert!(rtv["totalAccountValue"].is_string(), "{rtv}");
    assert!(rtv["netMvLong"].is_string());
}

#[tokio::test]
async fn balances_invalid_input_sends_nothing() {
    let s = Sandbox::start("acct-balances-invalid").await;
    for args in [
        json!({}),
        json!({"account_id_key": TRADING, "inst_type": "BANK"}),
        json!({"account_id_key": TRADING, "real_time_nav": "yes"}),
        json!({"account_id_key": "../list"}),
        json!({"account_id_key": TRADING, "extra": 1}),
        json!({"account_id_key": TRADING, "account_type": "NOPE"}),
    ] {
        let (err, p) = s.call("get_account_balances", args.clone()).await;
        assert!(err, "{args}");
        assert_eq!(p["error"]["code"], "invalid_input", "{args}");
        assert!(
            !p["error"]["validation_errors"]
                .as_array()
                .expect("list")
                .is_empty()
        );
    }
    assert_eq!(s.fake.count("GET", "/v1/accounts/"), 0);
}

#[tokio::test]
async fn balances_broker_errors() {
    let s = Sandbox::start("acct-balances-errors").await;
    let (err, p) = s
        .call(
            "get_account_balances",
            json!({"account_id_key": "NoSuchAccountKey00000"}),
        )
        .await;
    assert!(err);
    let e = &p["error"];
    assert_eq!(e["code"], "broker_rejection");
    assert_eq!(e["broker_code"], "100");
    assert_eq!(e["broker_message"], "Account key does not belong to user.");
    assert_eq!(e["status_code"], 400);
    s.expect_broker_faults(
        "GET /v1/accounts/*/balance",
        "get_account_balances",
        json!({"account_id_key": TRADING}),
    )
    .await;
}
