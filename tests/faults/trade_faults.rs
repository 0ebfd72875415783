//! Faults on the mutations (place, cancel, change, alert deletion), against the fake.
//!
//! * Every fault that leaves the outcome ambiguous is `uncertain_execution`, sent exactly
//!   once, journaled `uncertain`, and reconciled to what the fake's state says: `found` when
//!   the fake processed the request (the answer was lost, late or garbled), `not_found` when
//!   it did not (5xx without processing, connection dropped before processing).
//! * Definite failures are not uncertain: they are journaled `failed`.
//! * An MCP cancellation of a place in flight is journaled `uncertain` and reconciled.
//! * A partial alert deletion names what was deleted and what failed.
//!
//! Run with `--no-capture` to see the fault × tool matrix.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::{FakeConfig, Fault, OauthProblem, PlacedIdLocation, RecordedRequest};
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const PLACE: &str = "POST /v1/accounts/*/orders/place";
const CANCEL: &str = "PUT /v1/accounts/*/orders/cancel";
const CHANGE: &str = "PUT /v1/accounts/*/orders/*/change/place";
const DELETE: &str = "DELETE /v1/user/alerts/*";
/// Longer than the server's 3 s HTTP deadline (ETRADE_MCP_HTTP_TIMEOUT_MS in the sandbox).
const LATE: Duration = Duration::from_secs(6);

/// The ambiguous faults, and whether the fake applies the mutation before failing.
fn ambiguous_faults() -> [(Fault, bool); 7] {
    [
        (Fault::ResetBeforeResponse, true),
        (Fault::Timeout(LATE), true),
        (Fault::MalformedJson, true),
        (Fault::Status5xx(500), false),
        (Fault::HtmlErrorPage, false),
        (Fault::Refuse, false),
        (Fault::ResetWithoutProcessing, false),
    ]
}

async fn start(name: &str) -> Sandbox {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    let flags = ["--allow-trading", "--allow-alert-deletion"];
    Sandbox::start_opts(name, config, &flags, "").await
}

fn order(limit_price: &str) -> Value {
    json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "10",
        "price_type": "LIMIT", "limit_price": limit_price})
}

/// A fresh preview_order; its preview_id.
async fn preview(s: &Sandbox) -> String {
    let (err, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": order("170.00")}),
        )
        .await;
    assert!(!err, "preview_order: {p}");
    p["data"]["preview_id"].as_str().expect("preview_id").into()
}

/// Preview and place an order without faults; its order id (OPEN in the fake).
async fn place_fresh(s: &Sandbox) -> i64 {
    let preview_id = preview(s).await;
    let (err, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": preview_id}),
        )
        .await;
    assert!(!err, "place_order: {p}");
    let id = p["data"]["order_id"].as_i64().expect("order_id");
    assert_eq!(s.fake.order(id).expect("placed").status, "OPEN");
    id
}

/// A change preview of an open order (new limit price); its preview_id.
async fn preview_change(s: &Sandbox, order_id: i64) -> String {
    let (err, p) = s
        .call(
            "preview_change_order",
            json!({"account_id_key": KEY, "order_id": order_id, "request": order("171.00")}),
        )
        .await;
    assert!(!err, "preview_change_order: {p}");
    p["data"]["preview_id"].as_str().expect("preview_id").into()
}

/// The newest journal entry (list_order_journal reconciles what is outstanding first).
async fn newest_entry(s: &Sandbox) -> Value {
    let (err, p) = s.call("list_order_journal", json!({"limit": 1})).await;
    assert!(!err, "list_order_journal: {p}");
    p["data"]["entries"][0].clone()
}

/// Inject `fault` once on `pattern` and call the tool: (isError, payload, the requests it
/// sent to that endpoint). Asserts the fault was consumed by the tool's request.
async fn faulted_call(
    s: &Sandbox,
    pattern: &str,
    fault: Fault,
    tool: &str,
    args: Value,
) -> (bool, Value, Vec<RecordedRequest>) {
    let before = s.requests_on(pattern).len();
    s.fake.inject_fault(pattern, fault, Some(1));
    let (err, p) = s.call(tool, args).await;
    let sent = s.requests_on(pattern).split_off(before);
    assert!(
        s.fake.faults().is_empty(),
        "{tool}/{}: the fault hit a request: {p}",
        fault.name()
    );
    if let Some(first) = sent.first() {
        assert_eq!(first.fault.as_deref(), Some(fault.name()), "{tool}");
    }
    (err, p, sent)
}

fn header() {
    println!(
        "{:<26} {:<20} {:<22} {:>4}  reconciliation",
        "fault", "tool", "code", "wire"
    );
}

/// The checks shared by every ambiguous row; prints the row first, returns the entry.
async fn expect_uncertain(
    s: &Sandbox,
    (fault, processed): (Fault, bool),
    tool: &str,
    (err, p, sent): (bool, Value, Vec<RecordedRequest>),
) -> Value {
    let entry = newest_entry(s).await;
    let rec = &entry["reconciliation"];
    println!(
        "{:<26} {:<20} {:<22} {:>4}  {}",
        fault.name(),
        tool,
        p["error"]["code"].as_str().unwrap_or("-"),
        sent.len(),
        rec["status"].as_str().unwrap_or("-"),
    );
    let row = format!("{tool} / {}", fault.name());
    assert!(err, "{row}: {p}");
    assert_eq!(p["error"]["code"], "uncertain_execution", "{row}: {p}");
    assert_eq!(sent.len(), 1, "{row}: sent exactly once, never retried");
    assert_eq!(entry["kind"], tool, "{row}: {entry}");
    assert_eq!(entry["outcome"]["status"], "uncertain", "{row}: {entry}");
    let want = if processed { "found" } else { "not_found" };
    assert_eq!(rec["status"], want, "{row}: {entry}");
    entry
}

#[tokio::test]
async fn place_order_ambiguous_faults_are_uncertain_and_reconciled() {
    let s = start("faults-place").await;
    header();
    for row in ambiguous_faults() {
        let (fault, processed) = row;
        let preview_id = preview(&s).await;
        let placed_before = s.fake.placed_orders().len();
        let answer = faulted_call(
            &s,
            PLACE,
            fault,
            "place_order",
            json!({"account_id_key": KEY, "preview_id": preview_id}),
        )
        .await;
        let entry = expect_uncertain(&s, row, "place_order", answer).await;
        assert_eq!(entry["preview_id"], preview_id.as_str());
        let placed = s.fake.placed_orders();
        if processed {
            assert_eq!(placed.len(), placed_before + 1, "{}", fault.name());
            let new = placed.last().expect("new order");
            assert_eq!(
                entry["reconciliation"]["order_id"],
                new.order_id,
                "{}: {entry}",
                fault.name()
            );
        } else {
            assert_eq!(placed.len(), placed_before, "{}", fault.name());
            assert_eq!(entry["reconciliation"]["order_id"], Value::Null);
        }
    }
    assert_order_list_dates_differ(&s);
}

/// Every order-list query the server sent named `toDate` after `fromDate`: the fake refuses
/// equal (and inverted) dates with a 400, so each was answered 200, and none was equal.
fn assert_order_list_dates_differ(s: &Sandbox) {
    let lists = s.requests_on("GET /v1/accounts/*/orders");
    assert!(!lists.is_empty(), "reconciliation read the order list");
    for r in lists {
        let query = r.query.clone().unwrap_or_default();
        let pairs = runtime::etrade::oauth::parse_form(&query);
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        if let (Some(from), Some(to)) = (get("fromDate"), get("toDate")) {
            assert_ne!(from, to, "{query}");
        }
        assert_eq!(r.status, Some(200), "the fake accepted {query}");
    }
}

#[tokio::test]
async fn cancel_order_ambiguous_faults_are_uncertain_and_reconciled() {
    let s = start("faults-cancel").await;
    header();
    for row in ambiguous_faults() {
        let (fault, processed) = row;
        let order_id = place_fresh(&s).await;
        let answer = faulted_call(
            &s,
            CANCEL,
            fault,
            "cancel_order",
            json!({"account_id_key": KEY, "order_id": order_id}),
        )
        .await;
        let entry = expect_uncertain(&s, row, "cancel_order", answer).await;
        assert_eq!(entry["target_order_id"], order_id);
        let status = s.fake.order(order_id).expect("order").status;
        let want = if processed { "CANCELLED" } else { "OPEN" };
        assert_eq!(status, want, "{}", fault.name());
        assert_eq!(
            entry["reconciliation"]["order_id"], order_id,
            "the reconciliation shows the order: {entry}"
        );
        assert_eq!(entry["reconciliation"]["order_status"], want, "{entry}");
    }
}

#[tokio::test]
async fn place_change_order_ambiguous_faults_are_uncertain_and_reconciled() {
    let s = start("faults-change").await;
    header();
    for row in ambiguous_faults() {
        let (fault, processed) = row;
        let order_id = place_fresh(&s).await;
        let preview_id = preview_change(&s, order_id).await;
        let answer = faulted_call(
            &s,
            CHANGE,
            fault,
            "place_change_order",
            json!({"account_id_key": KEY, "order_id": order_id, "preview_id": preview_id}),
        )
        .await;
        let entry = expect_uncertain(&s, row, "place_change_order", answer).await;
        assert_eq!(entry["target_order_id"], order_id);
        let replacement = s
            .fake
            .placed_orders()
            .into_iter()
            .find(|o| o.replaces_order_id == Some(order_id));
        let original = s.fake.order(order_id).expect("order").status;
        match replacement {
            Some(new) if processed => {
                assert_eq!(original, "CANCELLED");
                assert_eq!(
                    entry["reconciliation"]["order_id"],
                    new.order_id,
                    "{}: {entry}",
                    fault.name()
                );
            }
            None if !processed => {
                assert_eq!(original, "OPEN");
                assert_eq!(entry["reconciliation"]["order_id"], order_id);
            }
            other => panic!("{}: replacement in the fake: {other:?}", fault.name()),
        }
    }
}

#[tokio::test]
async fn delete_alerts_ambiguous_faults_are_uncertain_and_reconciled() {
    let s = start("faults-alerts").await;
    header();
    for row in ambiguous_faults() {
        let (fault, processed) = row;
        // Three faults delete their alert; the fixtures have enough for every row.
        let alert = *s.fake.alert_ids().first().expect("an alert left");
        let answer = faulted_call(
            &s,
            DELETE,
            fault,
            "delete_alerts",
            json!({"alert_ids": [alert]}),
        )
        .await;
        let entry = expect_uncertain(&s, row, "delete_alerts", answer).await;
        assert_eq!(entry["alert_ids"], json!([alert]));
        assert_eq!(
            s.fake.deleted_alert_ids().contains(&alert),
            processed,
            "{}",
            fault.name()
        );
        assert_eq!(s.fake.alert_ids().contains(&alert), !processed);
    }
}

/// In the matrix the server reuses a kept-alive connection, so `Refuse` hits the request
/// after it was read. Here the pooled connection is dropped first (a faulted read), so the
/// place opens a new connection and the fake refuses it at accept time.
#[tokio::test]
async fn place_order_refused_on_a_fresh_connection_is_uncertain_not_found() {
    let s = start("faults-refuse-fresh").await;
    header();
    let preview_id = preview(&s).await;
    s.fake
        .inject_fault("GET /v1/user/alerts", Fault::ResetBeforeResponse, Some(1));
    let (err, p) = s.call("list_alerts", json!({})).await;
    assert!(err && p["error"]["code"] == "transport_error", "{p}");
    let answer = faulted_call(
        &s,
        PLACE,
        Fault::Refuse,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": preview_id}),
    )
    .await;
    // Refused before the request was read: the fake recorded no OAuth header.
    assert_eq!(
        answer.2.first().map(|r| r.consumer_key.is_none()),
        Some(true),
        "refused at accept time, on a new connection"
    );
    let entry = expect_uncertain(&s, (Fault::Refuse, false), "place_order", answer).await;
    assert_eq!(entry["preview_id"], preview_id.as_str());
    assert!(s.fake.placed_orders().is_empty());
}

#[tokio::test]
async fn definite_failures_are_failed_not_uncertain() {
    let s = start("faults-definite").await;
    header();
    // The expired token last: afterwards the server knows the token is gone.
    for (fault, code, status) in [
        (Fault::Http429, "rate_limited", 429),
        (Fault::RateLimitPage, "rate_limited", 400),
        (
            Fault::Unauthorized(OauthProblem::TokenExpired),
            "authorization_expired",
            401,
        ),
    ] {
        let preview_id = preview(&s).await;
        let placed_before = s.fake.placed_orders().len();
        let (err, p, sent) = faulted_call(
            &s,
            PLACE,
            fault,
            "place_order",
            json!({"account_id_key": KEY, "preview_id": preview_id}),
        )
        .await;
        let entry = newest_entry(&s).await;
        println!(
            "{:<26} {:<20} {:<22} {:>4}  outcome {}",
            fault.name(),
            "place_order",
            p["error"]["code"].as_str().unwrap_or("-"),
            sent.len(),
            entry["outcome"]["status"].as_str().unwrap_or("-"),
        );
        assert!(err, "{p}");
        assert_eq!(p["error"]["code"], code, "{p}");
        assert_eq!(p["error"]["status_code"], status, "{p}");
        assert_eq!(sent.len(), 1, "{}: never retried", fault.name());
        assert_eq!(entry["kind"], "place_order");
        assert_eq!(entry["preview_id"], preview_id.as_str());
        assert_eq!(entry["outcome"]["status"], "failed", "{entry}");
        assert_eq!(entry["outcome"]["code"], code, "{entry}");
        assert_eq!(entry["reconciliation"], Value::Null, "{entry}");
        assert_eq!(s.fake.placed_orders().len(), placed_before);
    }
}

/// A placement answer that names the new order only under `Order[].orderId` or a top-level
/// `orderId` is a success with that id; one naming it nowhere is uncertain, and the
/// reconciliation finds the order.
#[tokio::test]
async fn the_placed_order_id_is_read_wherever_the_answer_puts_it() {
    let s = start("faults-order-id").await;
    for at in [PlacedIdLocation::OrderOnly, PlacedIdLocation::TopLevel] {
        s.fake.set_placed_id_location(at);
        let preview_id = preview(&s).await;
        let (err, p) = s
            .call(
                "place_order",
                json!({"account_id_key": KEY, "preview_id": preview_id}),
            )
            .await;
        assert!(!err, "{at:?}: {p}");
        let new = s.fake.placed_orders().last().expect("placed").order_id;
        assert_eq!(p["data"]["order_id"], new, "{at:?}: {p}");
        // The broker's answer is passed on as it came: no OrderIds made up.
        assert_eq!(p["data"]["broker_response"]["orderIds"], json!([]), "{p}");
        let entry = newest_entry(&s).await;
        assert_eq!(entry["outcome"]["status"], "succeeded", "{at:?}: {entry}");
        assert_eq!(entry["outcome"]["order_id"], new, "{at:?}: {entry}");
        assert_eq!(
            s.requests_on(PLACE).last().map(|r| r.status),
            Some(Some(200))
        );
    }

    s.fake.set_placed_id_location(PlacedIdLocation::Nowhere);
    let preview_id = preview(&s).await;
    let before = s.requests_on(PLACE).len();
    let (err, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": preview_id}),
        )
        .await;
    assert!(err, "{p}");
    assert_eq!(p["error"]["code"], "uncertain_execution", "{p}");
    assert_eq!(s.requests_on(PLACE).len(), before + 1, "sent once");
    let new = s.fake.placed_orders().last().expect("placed").order_id;
    let entry = newest_entry(&s).await;
    assert_eq!(entry["outcome"]["status"], "uncertain", "{entry}");
    assert_eq!(entry["reconciliation"]["status"], "found", "{entry}");
    assert_eq!(entry["reconciliation"]["order_id"], new, "{entry}");
    assert_order_list_dates_differ(&s);
}

#[tokio::test]
async fn cancelling_an_executed_order_is_a_broker_rejection() {
    let s = start("faults-executed").await;
    let order_id = place_fresh(&s).await;
    assert!(s.fake.set_order_status(order_id, "EXECUTED"));
    let before = s.requests_on(CANCEL).len();
    let (err, p) = s
        .call(
            "cancel_order",
            json!({"account_id_key": KEY, "order_id": order_id}),
        )
        .await;
    assert!(err, "{p}");
    assert_eq!(p["error"]["code"], "broker_rejection", "{p}");
    assert_eq!(p["error"]["broker_code"], "5001", "{p}");
    assert_eq!(p["error"]["status_code"], 400, "{p}");
    assert_eq!(s.requests_on(CANCEL).len(), before + 1);
    let entry = newest_entry(&s).await;
    assert_eq!(entry["kind"], "cancel_order");
    assert_eq!(entry["target_order_id"], order_id);
    assert_eq!(entry["outcome"]["status"], "failed", "{entry}");
    assert_eq!(entry["outcome"]["code"], "broker_rejection", "{entry}");
    assert_eq!(entry["reconciliation"], Value::Null);
    assert_eq!(s.fake.order(order_id).expect("order").status, "EXECUTED");
}

/// Polls `f` until it yields a value; panics after a generous bound (a hang, not a timing
/// assertion).
async fn eventually<T, F, Fut>(what: &str, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "gave up waiting: {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_mcp_cancelled_place_is_uncertain_and_reconciled() {
    let s = start("faults-mcp-cancel").await;
    let preview_id = preview(&s).await;
    s.fake.inject_fault(PLACE, Fault::Timeout(LATE), Some(1));
    let args = json!({"account_id_key": KEY, "preview_id": preview_id});
    let params = CallToolRequestParams::new("place_order")
        .with_arguments(args.as_object().cloned().expect("object"));
    let handle = s
        .client
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("tools/call sent");
    // Cancel while the fake holds its answer: it has processed the place (a status is
    // recorded) and the server's own 3 s deadline has not fired yet.
    eventually("the fake processed the place", || async {
        s.requests_on(PLACE)
            .first()
            .and_then(|r| r.status)
            .map(|_| ())
    })
    .await;
    handle
        .cancel(Some("test".into()))
        .await
        .expect("notifications/cancelled sent");
    let placed = s.fake.placed_orders();
    assert_eq!(placed.len(), 1, "the fake stored the order");
    let order_id = placed[0].order_id;

    let entry = eventually("the journal reconciled the place", || async {
        let e = newest_entry(&s).await;
        (e["reconciliation"] != Value::Null).then_some(e)
    })
    .await;
    assert_eq!(entry["kind"], "place_order", "{entry}");
    assert_eq!(entry["preview_id"], preview_id.as_str());
    assert_eq!(entry["outcome"]["status"], "uncertain", "{entry}");
    let reason = entry["outcome"]["reason"].as_str().expect("reason");
    assert!(
        reason.contains("cancelled"),
        "journaled as cancelled, not as the server's own timeout: {reason}"
    );
    assert_eq!(entry["reconciliation"]["status"], "found", "{entry}");
    assert_eq!(entry["reconciliation"]["order_id"], order_id);
    assert_eq!(s.requests_on(PLACE).len(), 1, "sent once");
    println!(
        "{:<26} {:<20} {:<22} {:>4}  {}",
        "mcp_cancel(timeout)",
        "place_order",
        "-",
        1,
        entry["reconciliation"]["status"].as_str().unwrap_or("-"),
    );
}

#[tokio::test]
async fn partial_alert_deletion_names_deleted_and_failed() {
    let s = start("faults-alerts-partial").await;
    let ids = s.fake.alert_ids();
    assert!(ids.len() >= 3, "fixture alerts: {ids:?}");
    let existing = ids[0];

    let before = s.requests_on(DELETE).len();
    let (err, p) = s
        .call("delete_alerts", json!({"alert_ids": [existing, 999999]}))
        .await;
    assert!(err, "{p}");
    assert_eq!(p["error"]["code"], "broker_rejection", "{p}");
    assert_eq!(
        p["error"]["alert_deletion_result"],
        json!({"deleted": [existing], "failed": [999999]}),
        "{p}"
    );
    assert_eq!(s.requests_on(DELETE).len(), before + 1);
    let entry = newest_entry(&s).await;
    assert_eq!(entry["kind"], "delete_alerts");
    assert_eq!(entry["alert_ids"], json!([existing, 999999]));
    assert_eq!(entry["outcome"]["status"], "failed", "{entry}");
    assert_eq!(entry["outcome"]["code"], "broker_rejection", "{entry}");
    assert_eq!(entry["outcome"]["deleted_alert_ids"], json!([existing]));
    assert_eq!(entry["outcome"]["failed_alert_ids"], json!([999999]));
    assert_eq!(s.fake.deleted_alert_ids(), vec![existing]);

    // Both exist: both are deleted, and the fake no longer lists them.
    let two = [ids[1], ids[2]];
    let (err, p) = s.call("delete_alerts", json!({"alert_ids": two})).await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["deleted"], json!(two), "{p}");
    let left = s.fake.alert_ids();
    assert!(two.iter().all(|id| !left.contains(id)), "{left:?}");
    assert_eq!(s.fake.deleted_alert_ids(), vec![existing, two[0], two[1]]);
    let entry = newest_entry(&s).await;
    assert_eq!(entry["outcome"]["status"], "succeeded", "{entry}");
    assert_eq!(entry["outcome"]["deleted_alert_ids"], json!(two));
}
