//! `list_orders` against the fake over MCP: paging by marker to the end, filters, empty
//! accounts, invalid input and broker errors.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::{Fault, OauthProblem};
use serde_json::{Value, json};
use std::collections::BTreeSet;

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";

fn ids(p: &Value) -> Vec<i64> {
    p["data"]["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .filter_map(|o| o["orderId"].as_i64())
        .collect()
}

#[tokio::test]
async fn list_orders_pages_to_the_end() {
    let s = Sandbox::start("list-orders-paging").await;
    let mut seen = Vec::new();
    let mut marker: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = json!({"account_id_key": KEY, "count": 5});
        if let Some(m) = &marker {
            args["marker"] = json!(m);
        }
        let (err, p) = s.call("list_orders", args).await;
        assert!(!err, "{p}");
        pages += 1;
        let page = ids(&p);
        assert!(page.len() <= 5);
        seen.extend(page);
        match p["data"]["marker"].as_str() {
            Some(m) => {
                assert!(p["data"]["next"].as_str().is_some_and(|n| n.contains(m)));
                marker = Some(m.to_string());
            }
            None => {
                assert!(p["data"]["next"].is_null());
                break;
            }
        }
        assert!(pages < 10, "paging does not end");
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 12);
    assert_eq!(
        seen.iter().collect::<BTreeSet<_>>().len(),
        12,
        "no order twice"
    );
    assert_eq!(seen.first(), Some(&512), "newest first");
    assert_eq!(
        s.fake.count("GET", &format!("/v1/accounts/{KEY}/orders")),
        3
    );

    // The default page holds everything; an executed order has its fill.
    let (err, p) = s.call("list_orders", json!({"accountIdKey": KEY})).await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p).len(), 12);
    assert!(p["data"]["marker"].is_null());
    let executed = p["data"]["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .find(|o| o["orderId"] == 501)
        .expect("order 501")
        .clone();
    let d = &executed["orderDetail"][0];
    assert_eq!(d["status"], "EXECUTED");
    assert!(d["executedTime"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert_eq!(d["instrument"][0]["averageExecutionPrice"], "170.105");
    assert_eq!(d["instrument"][0]["filledQuantity"], "10");
    assert_eq!(d["instrument"][0]["product"]["symbol"], "AAPL");
    assert_eq!(executed["events"][1]["name"], "ORDER_EXECUTED");
    let option = p["data"]["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .find(|o| o["orderId"] == 505)
        .expect("order 505")
        .clone();
    assert_eq!(
        option["orderDetail"][0]["instrument"][0]["product"]["callPut"],
        "CALL"
    );
    assert_eq!(
        option["orderDetail"][0]["instrument"][0]["osiKey"],
        "IBM---270115C00200000"
    );
    let mf = p["data"]["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .find(|o| o["orderId"] == 510)
        .expect("order 510")
        .clone();
    assert_eq!(
        mf["orderDetail"][0]["instrument"][0]["orderedQuantity"],
        "12.345"
    );
}

#[tokio::test]
async fn list_orders_filters_empty_invalid_and_errors() {
    let s = Sandbox::start("list-orders").await;
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "status": "EXECUTED"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p), [508, 505, 502, 501]);
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "from_date": "2026-10-01", "to_date": "2026-10-05"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p), [503, 502, 501]);
    let query = s
        .fake
        .requests()
        .last()
        .map(|r| format!("{r:?}"))
        .unwrap_or_default();
    assert!(
        query.contains("10012026") && query.contains("10052026"),
        "{query}"
    );
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "symbol": ["AAPL"], "transactionType": "BUY"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p), [509, 501]);
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "security_type": "OPTN", "market_session": "REGULAR"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p), [505]);

    // No orders at all (E*TRADE's 204) is an empty last page.
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": "4Wq1Lm9ZcT7nYbRk2XsHvA"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["orders"], json!([]));
    assert!(p["data"]["marker"].is_null());
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "status": "EXPIRED", "symbol": ["MSFT"]}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["orders"], json!([]));

    // Invalid input never reaches the broker.
    let before = s.fake.count("GET", "/v1/accounts");
    for (args, path) in [
        (
            json!({"account_id_key": KEY, "count": 101}),
            Some(json!(["count"])),
        ),
        (
            json!({"account_id_key": KEY, "count": 0}),
            Some(json!(["count"])),
        ),
        (
            json!({"account_id_key": KEY, "from_date": "2026-02-30", "to_date": "2026-03-01"}),
            Some(json!(["from_date"])),
        ),
        (
            json!({"account_id_key": KEY, "from_date": "10/01/2026", "to_date": "2026-10-05"}),
            Some(json!(["from_date"])),
        ),
        (
            json!({"account_id_key": KEY, "from_date": "2026-10-01"}),
            Some(json!(["to_date"])),
        ),
        (
            json!({"account_id_key": KEY, "from_date": "2026-10-05", "to_date": "2026-10-01"}),
            Some(json!(["to_date"])),
        ),
        (
            json!({"account_id_key": KEY, "status": "FILLED"}),
            Some(json!(["status"])),
        ),
        (json!({"account_id_key": KEY, "page": 2}), Some(json!([]))),
        (
            json!({"account_id_key": "../x"}),
            Some(json!(["account_id_key"])),
        ),
        (json!({}), None),
    ] {
        let (err, p) = s.call("list_orders", args).await;
        assert!(err);
        assert_eq!(p["error"]["code"], "invalid_input", "{p}");
        if let Some(path) = path {
            assert_eq!(p["error"]["validation_errors"][0]["path"], path, "{p}");
        }
    }
    assert_eq!(s.fake.count("GET", "/v1/accounts"), before);

    // Equal dates: E*TRADE wants toDate after fromDate, so the range is refused here, with
    // what to do instead, and nothing is sent.
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "from_date": "2026-10-01", "to_date": "2026-10-01"}),
        )
        .await;
    assert!(err, "{p}");
    assert_eq!(p["error"]["code"], "invalid_input", "{p}");
    let problem = &p["error"]["validation_errors"][0];
    assert_eq!(problem["path"], json!(["to_date"]), "{p}");
    assert_eq!(problem["code"], "not_after_from_date", "{p}");
    let message = problem["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Widen the range") && message.contains("next day"),
        "{p}"
    );
    assert_eq!(s.fake.count("GET", "/v1/accounts"), before);
    // One day's orders: the next day as to_date.
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "from_date": "2026-10-01", "to_date": "2026-10-02"}),
        )
        .await;
    assert!(!err, "{p}");

    // E*TRADE's refusal of a key that is not the user's.
    let (err, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": "NotMyAccountKey0000000"}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection", "{p}");
    assert_eq!(p["error"]["status_code"], 400);
    assert_eq!(p["error"]["broker_code"], "100");
    assert_eq!(
        p["error"]["broker_message"],
        "Account key does not belong to user."
    );

    for (fault, code) in [
        (Fault::Status5xx(503), "service_unavailable"),
        (
            Fault::Unauthorized(OauthProblem::TokenExpired),
            "authorization_expired",
        ),
        (Fault::MalformedJson, "invalid_broker_response"),
    ] {
        s.fake
            .inject_fault("GET /v1/accounts/*/orders", fault, Some(1));
        let (err, p) = s.call("list_orders", json!({"account_id_key": KEY})).await;
        assert!(err);
        assert_eq!(p["error"]["code"], code, "{p}");
    }
}
