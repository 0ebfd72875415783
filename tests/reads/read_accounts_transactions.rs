//! `list_transactions` and `get_transaction_details` against the fake over MCP.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::{Fault, OauthProblem};
use serde_json::{Value, json};
use std::collections::BTreeSet;

const TRADING: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const EMPTY: &str = "4Wq1Lm9ZcT7nYbRk2XsHvA";

fn items(p: &Value) -> Vec<Value> {
    p["data"]["transaction"]
        .as_array()
        .cloned()
        .expect("transaction list")
}

fn utc_day(ms: i64) -> jiff::civil::Date {
    jiff::tz::TimeZone::UTC
        .to_datetime(jiff::Timestamp::from_millisecond(ms).expect("ms"))
        .date()
}

/// Follow `marker` from the first page to the end; returns every transaction and the calls.
async fn all_pages(s: &Sandbox, base: Value) -> (Vec<Value>, usize) {
    let mut out = Vec::new();
    let mut args = base.clone();
    let mut calls = 0;
    loop {
        calls += 1;
        assert!(calls <= 20, "paging does not end");
        let (err, p) = s.call("list_transactions", args.clone()).await;
        assert!(!err, "{p}");
        let page = items(&p);
        assert_eq!(p["data"]["transactionCount"], page.len() as u64);
        out.extend(page.iter().cloned());
        match p["data"]["marker"].as_str() {
            Some(m) if !page.is_empty() => {
                assert_eq!(p["data"]["moreTransactions"], true);
                assert!(p["data"]["next"].is_string());
                args = base.clone();
                args["marker"] = json!(m);
            }
            _ => break,
        }
    }
    (out, calls)
}

#[tokio::test]
async fn transactions_first_page_shape() {
    let s = Sandbox::start("acct-txn").await;
    let (err, p) = s
        .call("list_transactions", json!({"account_id_key": TRADING}))
        .await;
    assert!(!err, "{p}");
    let d = &p["data"];
    let page = items(&p);
    assert_eq!(page.len(), 50, "E*TRADE's default count is 50");
    assert_eq!(d["totalCount"], 120);
    assert_eq!(d["moreTransactions"], true);
    assert!(d["marker"].is_string());
    // Newest first by default.
    let fixtures = s.fake.fixtures();
    let newest = fixtures.accounts[0].transactions.last().expect("some");
    let t = &page[0];
    assert_eq!(t["transactionId"], newest.transaction_id.as_str());
    assert!(t["transactionId"].is_string());
    assert!(t["amount"].is_string());
    assert!(
        t["transactionDate"]
            .as_str()
            .is_some_and(|x| x.ends_with('Z'))
    );
    assert_eq!(t["instType"], "BROKERAGE");
    assert_eq!(t["storeId"], "0");
    assert!(t["detailsURI"].is_string());
    let bought = page
        .iter()
        .find(|x| x["transactionType"] == "Bought")
        .expect("a buy");
    assert!(bought["brokerage"]["product"]["symbol"].is_string());
    assert!(bought["brokerage"]["quantity"].is_string());
    assert!(bought["brokerage"]["settlementDate"].is_string());
    let deposit = page
        .iter()
        .find(|x| x["transactionType"] == "Deposit")
        .expect("a deposit");
    assert_eq!(deposit["brokerage"]["quantity"], "0");
}

#[tokio::test]
async fn transactions_page_through_everything() {
    let s = Sandbox::start("acct-txn-pages").await;
    let want: BTreeSet<String> = s.fake.fixtures().accounts[0]
        .transactions
        .iter()
        .map(|t| t.transaction_id.clone())
        .collect();
    let (all, calls) = all_pages(&s, json!({"account_id_key": TRADING, "count": 50})).await;
    assert_eq!(calls, 3, "120 transactions in pages of 50");
    let ids: Vec<String> = all
        .iter()
        .filter_map(|t| t["transactionId"].as_str().map(str::to_string))
        .collect();
    assert_eq!(ids.len(), want.len());
    assert_eq!(ids.iter().cloned().collect::<BTreeSet<_>>(), want);
    // Ascending, small pages: the same set in the opposite order.
    let (asc, calls) = all_pages(
        &s,
        json!({"account_id_key": TRADING, "count": 25, "sort_order": "ASC"}),
    )
    .await;
    assert_eq!(calls, 5);
    let asc_ids: Vec<String> = asc
        .iter()
        .filter_map(|t| t["transactionId"].as_str().map(str::to_string))
        .collect();
    let mut rev = ids.clone();
    rev.reverse();
    assert_eq!(asc_ids, rev);
}

#[tokio::test]
async fn transactions_filter_by_date_in_mmddyyyy() {
    let s = Sandbox::start("acct-txn-dates").await;
    let (start, end) = (
        jiff::civil::date(2023, 3, 1),
        jiff::civil::date(2023, 6, 30),
    );
    let want = s.fake.fixtures().accounts[0]
        .transactions
        .iter()
        .filter(|t| {
            let d = utc_day(t.transaction_date);
            d >= start && d <= end
        })
        .count();
    assert!(want > 0 && want < 120);
    let (all, _) = all_pages(
        &s,
        json!({"account_id_key": TRADING, "startDate": "2023-03-01", "end_date": "2023-06-30", "count": 10}),
    )
    .await;
    assert_eq!(all.len(), want);
    let q = s
        .fake
        .requests()
        .iter()
        .filter(|r| r.endpoint.ends_with("/transactions"))
        .filter_map(|r| r.query.clone())
        .next()
        .expect("a transactions request");
    assert!(q.contains("startDate=03012023"), "{q}");
    assert!(q.contains("endDate=06302023"), "{q}");
    // A range without transactions is E*TRADE's 204: an empty page, not an error.
    let (err, p) = s
        .call(
            "list_transactions",
            json!({"account_id_key": TRADING, "start_date": "2020-01-01", "end_date": "2020-01-31"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["transaction"], json!([]));
    assert!(p["data"]["marker"].is_null());
    let (err, p) = s
        .call("list_transactions", json!({"account_id_key": EMPTY}))
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["transaction"], json!([]));
}

#[tokio::test]
async fn transactions_invalid_input_sends_nothing() {
    let s = Sandbox::start("acct-txn-invalid").await;
    for (args, path) in [
        (
            json!({"account_id_key": TRADING, "count": 51}),
            json!(["count"]),
        ),
        (
            json!({"account_id_key": TRADING, "count": 0}),
            json!(["count"]),
        ),
        (
            json!({"account_id_key": TRADING, "start_date": "2024-02-30"}),
            json!(["start_date"]),
        ),
        (
            json!({"account_id_key": TRADING, "endDate": "03/31/2024"}),
            json!(["end_date"]),
        ),
        (
            json!({"account_id_key": TRADING, "start_date": "2024-04-01", "end_date": "2024-03-01"}),
            json!(["end_date"]),
        ),
        (
            json!({"account_id_key": TRADING, "sort_order": "NEWEST"}),
            json!(["sort_order"]),
        ),
        (json!({"account_id_key": TRADING, "page": 2}), json!([])),
        (json!({"account_id_key": "a/b"}), json!(["account_id_key"])),
    ] {
        let (err, p) = s.call("list_transactions", args.clone()).await;
        assert!(err, "{args}");
        assert_eq!(p["error"]["code"], "invalid_input", "{args}");
        assert_eq!(p["error"]["validation_errors"][0]["path"], path, "{args}");
    }
    for args in [
        json!({"account_id_key": TRADING}),
        json!({"account_id_key": TRADING, "transaction_id": 123}),
        json!({"account_id_key": TRADING, "transaction_id": "12ab"}),
        json!({"account_id_key": TRADING, "transaction_id": "1", "store_id": -1}),
    ] {
        let (err, p) = s.call("get_transaction_details", args.clone()).await;
        assert!(err, "{args}");
        assert_eq!(p["error"]["code"], "invalid_input", "{args}");
    }
    assert_eq!(s.fake.count("GET", "/v1/accounts/"), 0);
}

#[tokio::test]
async fn transactions_broker_errors() {
    let s = Sandbox::start("acct-txn-errors").await;
    let (err, p) = s
        .call(
            "list_transactions",
            json!({"account_id_key": "NoSuchAccountKey00000"}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection");
    assert_eq!(p["error"]["broker_code"], "100");
    assert_eq!(
        p["error"]["broker_message"],
        "Account key does not belong to user."
    );
    // A marker E*TRADE does not know is its rejection, with its explanation.
    let (err, p) = s
        .call(
            "list_transactions",
            json!({"account_id_key": TRADING, "marker": "1_1"}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection");
    assert!(p["error"]["broker_message"].is_string());
    s.expect_broker_faults(
        "GET /v1/accounts/*/transactions",
        "list_transactions",
        json!({"account_id_key": TRADING}),
    )
    .await;
}

#[tokio::test]
async fn transaction_details_success_and_errors() {
    let s = Sandbox::start("acct-txn-details").await;
    let fixtures = s.fake.fixtures();
    let buy = fixtures.accounts[0]
        .transactions
        .iter()
        .find(|t| t.transaction_type == "Bought")
        .expect("a buy");
    let (err, p) = s
        .call(
            "get_transaction_details",
            json!({"accountIdKey": TRADING, "transactionId": buy.transaction_id, "storeId": 0}),
        )
        .await;
    assert!(!err, "{p}");
    let d = &p["data"];
    assert_eq!(d["transactionId"], buy.transaction_id.as_str());
    assert_eq!(d["accountId"], "84010429");
    assert_eq!(d["category"]["categoryName"], "Trades");
    assert_eq!(d["category"]["categoryId"], "4");
    let b = &d["brokerage"];
    assert_eq!(b["transactionType"], "Bought");
    assert_eq!(
        b["product"]["symbol"],
        buy.symbol.as_deref().expect("symbol")
    );
    assert!(b["quantity"].is_string() && b["price"].is_string() && b["fee"].is_string());
    assert_eq!(b["orderNo"], buy.order_no.to_string());
    // Unknown transaction: E*TRADE's 404.
    let (err, p) = s
        .call(
            "get_transaction_details",
            json!({"account_id_key": TRADING, "transaction_id": "999"}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "not_found", "{p}");
    let (err, p) = s
        .call(
            "get_transaction_details",
            json!({"account_id_key": "NoSuchAccountKey00000", "transaction_id": "999"}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection");
    assert_eq!(p["error"]["broker_code"], "100");
    for (fault, code) in [
        (Fault::Status5xx(502), "service_unavailable"),
        (
            Fault::Unauthorized(OauthProblem::TokenExpired),
            "authorization_expired",
        ),
        (Fault::MalformedJson, "invalid_broker_response"),
    ] {
        s.fake
            .inject_fault("GET /v1/accounts/*/transactions/*", fault, Some(1));
        let (err, p) = s
            .call(
                "get_transaction_details",
                json!({"account_id_key": TRADING, "transaction_id": buy.transaction_id}),
            )
            .await;
        assert!(err);
        assert_eq!(p["error"]["code"], code, "{p}");
    }
}
