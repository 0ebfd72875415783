//! Fuzzing E*TRADE response parsing: realistic answers (from the paper book and the market
//! simulator, which speak E*TRADE's JSON) mutated at random — values swapped for junk, keys
//! dropped, objects and arrays interchanged, deep nesting — fed to every client model.
//! Properties: no parser panics; a body a model accepts serializes with no JSON float (money
//! stays decimal strings); the error-body sniffer takes any text.
//!
//! Short run by default; a long run: `ETRADE_FUZZ_CASES=100000 cargo test -p etrade-runtime
//! --release --test fuzz_wire`.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use runtime::etrade::models::{
    accounts::AccountList,
    alerts::AlertDetails,
    alerts::AlertList,
    balances::Balance,
    lookup::LookupList,
    options::ExpirationDates,
    options::OptionChain,
    order_entry::{AlertDeletion, BrokerCancellation, BrokerPlacement, BrokerPreview},
    orders::OrderList,
    portfolio::PortfolioPage,
    portfolio::PositionLots,
    quotes::QuoteList,
    transactions::TransactionDetails,
    transactions::TransactionPage,
};
use runtime::etrade::{Endpoint, EtradeRequest};
use runtime::paper::book::{PaperBook, PaperConfig};
use runtime::paper::market::{OptionChainQuery, SimulatedMarket};
use serde_json::{Value, json};
use std::sync::Arc;

fn cases() -> u32 {
    std::env::var("ETRADE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// Real answers in E*TRADE's shape.
fn seeds() -> Vec<Value> {
    let dir = tempfile::tempdir().expect("dir");
    let at: jiff::Timestamp = "2026-11-17T15:00:00Z".parse().expect("ts");
    let market = Arc::new(SimulatedMarket::new(7));
    let book = PaperBook::open_with_clock(
        &dir.path().join("p.redb"),
        PaperConfig::default(),
        market.clone(),
        Arc::new(move || at),
    )
    .expect("book");
    let accounts = book.accounts_list().expect("accounts");
    let key = accounts["AccountListResponse"]["Accounts"]["Account"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    let members = json!({"orderType": "EQ", "clientOrderId": "F1", "Order": [{"allOrNone": false,
        "priceType": "MARKET", "orderTerm": "GOOD_FOR_DAY", "marketSession": "REGULAR",
        "Instrument": [{"Product": {"securityType": "EQ", "symbol": "AAPL"}, "orderAction": "BUY",
        "quantityType": "QUANTITY", "quantity": 3}]}]});
    let preview = book
        .preview(&key, &json!({"PreviewOrderRequest": members.clone()}), None)
        .expect("preview");
    let mut placed = members;
    placed["PreviewIds"] =
        json!([{"previewId": preview["PreviewOrderResponse"]["PreviewIds"][0]["previewId"]}]);
    let place = book
        .place(&key, &json!({"PlaceOrderRequest": placed}), None)
        .expect("place");
    let mut out = vec![
        accounts,
        book.balance(&key).expect("balance"),
        book.portfolio(
            &key,
            &EtradeRequest::read(Endpoint::Portfolio)
                .with("view", "COMPLETE")
                .with("lotsRequired", true),
        )
        .expect("portfolio"),
        book.transactions(&key, &EtradeRequest::read(Endpoint::Transactions))
            .expect("transactions"),
        book.orders(&key, &EtradeRequest::read(Endpoint::Orders))
            .expect("orders"),
        preview,
        place,
        market.quote_response(&["AAPL".into(), "ZZZZ".into()], None, at),
        market.lookup_response("apple"),
        json!({"CancelOrderResponse": {"accountId": "1", "orderId": 5, "cancelTime": 1700000000000_i64,
            "Messages": {"Message": [{"description": "200|ok", "code": 5011, "type": "WARNING"}]}}}),
        json!({"AlertsResponse": {"result": "ERROR", "failedAlerts": {"alertId": [1, 2]}}}),
        json!({"AlertsResponse": {"totalAlerts": 1, "Alert": [{"id": 1, "createTime": 1700000000, "subject": "s", "status": "UNREAD"}]}}),
        json!({"AlertDetailsResponse": {"id": 1, "createTime": 1700000000, "subject": "s", "msgText": "t", "readTime": 0, "deleteTime": 0}}),
    ];
    out.extend(market.option_expire_dates_response("AAPL", at));
    out.extend(market.option_chains_response(
        &OptionChainQuery {
            symbol: "AAPL".into(),
            no_of_strikes: Some(4),
            ..OptionChainQuery::default()
        },
        at,
    ));
    out
}

/// Nested arrays `depth` deep (serde_json's recursion limit is 128 when parsing text; a
/// Value built in memory can be deeper).
fn deep(depth: usize) -> Value {
    (0..depth).fold(json!(1), |v, _| json!([v]))
}

fn junk() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|u| json!(u)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[ -~]{0,12}".prop_map(Value::String),
        Just(json!("")),
        Just(json!("1e400")),
        Just(json!("-0.000000000000000000000000001")),
        Just(json!([])),
        Just(json!({})),
        Just(deep(200)),
    ]
    .boxed()
}

/// Walk to the n-th node (pre-order) and apply an edit there.
fn edit(v: &mut Value, target: &mut usize, op: u8, with: &Value) -> bool {
    if *target == 0 {
        match op % 4 {
            0 => *v = with.clone(),
            1 => {
                // Arrays and objects interchanged: E*TRADE's one-or-many habit, and worse.
                *v = match v.take() {
                    Value::Array(a) => a.into_iter().next().unwrap_or(Value::Null),
                    Value::Object(o) => Value::Array(vec![Value::Object(o)]),
                    other => json!([other]),
                }
            }
            2 => {
                if let Value::Object(o) = v
                    && let Some(k) = o.keys().next().cloned()
                {
                    o.remove(&k);
                }
            }
            _ => *v = Value::String(v.to_string()),
        }
        return true;
    }
    *target -= 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|x| edit(x, target, op, with)),
        Value::Object(o) => o.values_mut().any(|x| edit(x, target, op, with)),
        _ => false,
    }
}

fn has_float(v: &Value) -> bool {
    match v {
        Value::Number(n) => !(n.is_i64() || n.is_u64()),
        Value::Array(a) => a.iter().any(has_float),
        Value::Object(o) => o.values().any(has_float),
        _ => false,
    }
}

/// Every model on one body: Ok answers must serialize float-free.
fn parse_all(body: &Value) -> Result<(), String> {
    macro_rules! check {
        ($($t:ty),*) => {$(
            if let Ok(m) = <$t>::from_wire(Some(body.clone())) {
                let out = serde_json::to_value(&m).map_err(|e| e.to_string())?;
                if has_float(&out) {
                    return Err(format!("{}: a float in {out}", stringify!($t)));
                }
            }
        )*};
    }
    if let Ok(m) = PortfolioPage::from_wire(Some(body.clone()), 1) {
        let out = serde_json::to_value(&m).map_err(|e| e.to_string())?;
        if has_float(&out) {
            return Err(format!("PortfolioPage: a float in {out}"));
        }
    }
    check!(
        AccountList,
        Balance,
        PositionLots,
        TransactionPage,
        TransactionDetails,
        OrderList,
        QuoteList,
        LookupList,
        OptionChain,
        ExpirationDates,
        AlertList,
        AlertDetails,
        BrokerPreview,
        BrokerCancellation
    );
    if let Ok(p) = BrokerPlacement::from_wire(Some(body.clone())) {
        let out = serde_json::to_value(&p.answer).map_err(|e| e.to_string())?;
        if has_float(&out) {
            return Err(format!("BrokerPlacement: a float in {out}"));
        }
    }
    let _ = AlertDeletion::from_wire(Some(body.clone()));
    Ok(())
}

#[test]
fn mutated_answers_never_panic_and_stay_float_free() {
    let seeds = seeds();
    for s in &seeds {
        parse_all(s).expect("seeds parse cleanly");
    }
    let n = seeds.len();
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        0..n,
        prop::collection::vec((0usize..400, any::<u8>(), junk()), 1..8),
    );
    runner
        .run(&strategy, |(i, edits)| {
            let mut body = seeds[i].clone();
            for (at, op, with) in edits {
                let mut target = at;
                edit(&mut body, &mut target, op, &with);
            }
            parse_all(&body).map_err(TestCaseError::fail)?;
            Ok(())
        })
        .expect("property holds");
    println!(
        "fuzz_wire: {} mutated answers from {n} seeds, 0 panics",
        cases()
    );
}

#[test]
fn the_error_body_sniffer_takes_any_text() {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let text = prop_oneof![
        ".{0,300}",
        "<Error><code>[0-9a-z]{0,6}</code><message>.{0,80}</message></Error>",
        r#"\{"Error":\{"code":.{0,8},"message":.{0,40}\}\}"#,
        "oauth_problem=[a-z_]{0,30}&.{0,40}",
        "<html>.{0,200}",
    ];
    runner
        .run(&text, |t| {
            let _ = runtime::etrade::error_body(&t);
            Ok(())
        })
        .expect("no panic");
}
