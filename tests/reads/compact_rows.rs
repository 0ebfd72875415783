//! `detail: compact` against the fake E*TRADE: a compact answer keeps everything around the
//! rows (paging, messages) and cuts each row to the keys the spec lists, without nulls; the
//! argument never reaches E*TRADE; a bad value is a typed `invalid_input` that sends nothing.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use serde_json::{Value, json};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";

fn no_nulls(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Array(a) => a.iter().all(no_nulls),
        Value::Object(o) => o.values().all(no_nulls),
        _ => true,
    }
}

#[tokio::test]
async fn compact_rows_keep_the_page_and_drop_nulls() {
    let s = Sandbox::start("compact-rows").await;

    let (err, full) = s
        .call("list_orders", json!({"account_id_key": KEY, "count": 3}))
        .await;
    assert!(!err, "{full}");
    let (err, compact) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "count": 3, "detail": "compact"}),
        )
        .await;
    assert!(!err, "{compact}");
    let (full, compact) = (&full["data"], &compact["data"]);
    assert_eq!(compact["marker"], full["marker"], "paging is kept");
    let (rows, full_rows) = (
        compact["orders"].as_array().expect("rows"),
        full["orders"].as_array().expect("orders"),
    );
    assert_eq!(rows.len(), full_rows.len());
    for (row, order) in rows.iter().zip(full_rows) {
        assert!(no_nulls(row), "{row}");
        assert_eq!(row["orderId"], order["orderId"]);
        assert_eq!(row["status"], order["orderDetail"][0]["status"]);
        let leg = &order["orderDetail"][0]["instrument"][0];
        assert_eq!(row["symbol"], leg["product"]["symbol"]);
        assert_eq!(row["quantity"], leg["orderedQuantity"]);
        assert!(row.get("orderDetail").is_none(), "{row}");
    }
    // `detail` is the server's own: E*TRADE is never sent it.
    for r in s.requests_on("GET /v1/accounts/*/orders") {
        let query = r.query.unwrap_or_default();
        assert!(!query.contains("detail"), "{query}");
    }

    // A full answer is the same with detail full as without it.
    let (_, explicit) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "count": 3, "detail": "full"}),
        )
        .await;
    assert_eq!(&explicit["data"], full);

    let (err, p) = s.call("list_alerts", json!({"detail": "compact"})).await;
    assert!(!err, "{p}");
    for row in p["data"]["alerts"].as_array().expect("alerts") {
        assert!(no_nulls(row), "{row}");
        assert!(row["id"].is_i64(), "{row}");
    }
}

#[tokio::test]
async fn list_orders_asks_for_a_page_that_fits_a_model() {
    let s = Sandbox::start("list-orders-default-count").await;
    let (err, p) = s.call("list_orders", json!({"account_id_key": KEY})).await;
    assert!(!err, "{p}");
    let sent = s.requests_on("GET /v1/accounts/*/orders");
    let query = sent
        .last()
        .and_then(|r| r.query.clone())
        .unwrap_or_default();
    assert!(query.split('&').any(|kv| kv == "count=15"), "{query}");
}

#[tokio::test]
async fn a_bad_detail_is_typed_invalid_input_and_sends_nothing() {
    let s = Sandbox::start("compact-invalid").await;
    let before = s.fake.count("*", "/v1/");
    for (tool, mut args) in [
        ("get_portfolio", json!({"account_id_key": KEY})),
        ("list_transactions", json!({"account_id_key": KEY})),
        ("list_orders", json!({"account_id_key": KEY})),
        ("get_quotes", json!({"symbols": ["AAPL"]})),
        ("get_option_chains", json!({"symbol": "IBM"})),
        ("list_alerts", json!({})),
    ] {
        for bad in [json!("short"), json!("COMPACT"), json!(true)] {
            args["detail"] = bad;
            let (err, p) = s.call(tool, args.clone()).await;
            assert!(err, "{tool}: {p}");
            assert_eq!(p["error"]["code"], "invalid_input", "{tool}: {p}");
            let diagnostic = &p["error"]["validation_errors"][0];
            assert_eq!(diagnostic["path"], json!(["detail"]), "{tool}: {p}");
            let code = diagnostic["code"].as_str().unwrap_or_default();
            assert!(
                code == "invalid_choice" || code == "wrong_type",
                "{tool}: {p}"
            );
        }
    }
    assert_eq!(s.fake.count("*", "/v1/"), before, "nothing was sent");
}
