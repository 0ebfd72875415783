//! Preview binding and the trading policy over MCP: a preview places at most once, never
//! after it expired, never in another environment, profile, account or kind; policy
//! refusals name their rule and send nothing; order diagnostics follow the contract.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET, Sandbox};
use fake_etrade::FakeConfig;
use runtime::trading::store::TradingStore;
use serde_json::{Value, json};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const OTHER: &str = "idU1aBkPvD5n46JI_7S_2A";

fn order(qty: &str) -> Value {
    json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": qty,
        "price_type": "LIMIT", "limit_price": "170.00"})
}

async fn trading(name: &str, toml: &str) -> Sandbox {
    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    Sandbox::start_opts(name, config, &["--allow-trading"], toml).await
}

async fn preview(s: &Sandbox, account: &str, qty: &str) -> String {
    let (err, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": account, "request": order(qty)}),
        )
        .await;
    assert!(!err, "{p}");
    p["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string()
}

fn places(s: &Sandbox) -> usize {
    s.fake
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/orders/place.json"))
        .count()
}

/// isError, invalid_input, one diagnostic at `preview_id` with `code`.
fn refused(p: &Value, code: &str) {
    assert_eq!(p["error"]["code"], "invalid_input", "{p}");
    let d = &p["error"]["validation_errors"][0];
    assert_eq!(d["path"], json!(["preview_id"]), "{p}");
    assert_eq!(d["code"], code, "{p}");
}

#[tokio::test]
async fn a_preview_places_once_and_only_where_it_was_made() {
    let s = trading("pv-binding", "").await;
    let id = preview(&s, KEY, "1").await;

    let (err, p) = s
        .call(
            "place_order",
            json!({"account_id_key": OTHER, "preview_id": id}),
        )
        .await;
    assert!(err);
    refused(&p, "preview_other_account");
    let (_, p) = s
        .call(
            "place_change_order",
            json!({"account_id_key": KEY, "order_id": 501, "preview_id": id}),
        )
        .await;
    refused(&p, "preview_wrong_kind");
    let (_, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": "pv-nope"}),
        )
        .await;
    refused(&p, "preview_unknown");
    assert_eq!(places(&s), 0, "no refusal reached the broker");

    let (err, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": id}),
        )
        .await;
    assert!(!err, "{p}");
    let (err, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": id}),
        )
        .await;
    assert!(err);
    refused(&p, "preview_used");
    assert_eq!(places(&s), 1, "the used preview was not sent again");
    assert_eq!(s.fake.placed_orders().len(), 1);
}

#[tokio::test]
async fn expired_and_foreign_previews_are_refused() {
    let s = trading("pv-expired", "").await;
    let id = preview(&s, KEY, "1").await;
    // The server keeps the database closed between operations, so the test can edit it.
    let store = TradingStore::open(s.home.path().join("trading.redb")).expect("store");
    let mut record = store.preview(&id).expect("read").expect("stored");
    assert_eq!(record.environment, "sandbox");
    assert!(record.order_fields.contains("\"clientOrderId\""));
    assert_eq!(record.arguments_hash.len(), 64);

    let mut foreign = record.clone();
    foreign.preview_id = "pv-from-production".into();
    foreign.environment = "production".into();
    store.insert_preview(&foreign).expect("insert");
    let (_, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": "pv-from-production"}),
        )
        .await;
    refused(&p, "preview_other_environment");

    record.expires_at = jiff::Timestamp::now() - jiff::SignedDuration::from_secs(1);
    store.insert_preview(&record).expect("age it");
    let (_, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": id}),
        )
        .await;
    refused(&p, "preview_expired");
    assert_eq!(places(&s), 0);
}

#[tokio::test]
async fn policy_refusals_name_their_rule_and_send_nothing() {
    let toml = "[profiles.{profile}.trading]\nallowed_accounts = [\"JIdOIAcSpwR1Jva7RQBraQ\"]\nmax_order_quantity = 100\nmax_daily_orders = 1\n";
    let s = trading("pv-policy", toml).await;
    let disabled = |p: &Value, rule: &str| {
        assert_eq!(p["error"]["code"], "execution_disabled", "{p}");
        let m = p["error"]["message"].as_str().unwrap_or("");
        assert!(m.contains(rule), "names {rule}: {m}");
    };
    let (_, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": OTHER, "request": order("1")}),
        )
        .await;
    disabled(&p, "allowed_accounts");
    let (_, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": order("101")}),
        )
        .await;
    disabled(&p, "max_order_quantity");
    assert!(
        s.fake.requests().is_empty(),
        "refused before any broker request"
    );

    let first = preview(&s, KEY, "50").await;
    let second = preview(&s, KEY, "2").await;
    let (err, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": first}),
        )
        .await;
    assert!(!err, "{p}");
    let (_, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": second}),
        )
        .await;
    disabled(&p, "max_daily_orders");
    assert_eq!(places(&s), 1);
    // The refused preview is still unused: the refusal consumed nothing.
    let store = TradingStore::open(s.home.path().join("trading.redb")).expect("store");
    assert_eq!(
        store.preview(&second).expect("read").expect("kept").used_at,
        None
    );
}

#[tokio::test]
async fn order_diagnostics_follow_the_contract() {
    let s = trading("pv-diag", "").await;
    let call = |request: Value| {
        let s = &s;
        async move {
            let (err, p) = s
                .call(
                    "preview_order",
                    json!({"account_id_key": KEY, "request": request}),
                )
                .await;
            assert!(err, "{p}");
            assert_eq!(p["error"]["code"], "invalid_input", "{p}");
            assert_eq!(p["error"]["broker_message"], Value::Null);
            p["error"]["validation_errors"].clone()
        }
    };
    // The contract's own examples.
    let v = call(
        json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "0", "price_type": "MARKET"}),
    )
    .await;
    assert_eq!(
        v,
        json!([{"path": ["request", "quantity"], "code": "greater_than", "message": "Must be greater than 0."}])
    );
    let v = call(
        json!({"orderType": "EQ", "symbol": "AAPL", "orderAction": "BUY",
        "quantity": "10", "priceType": "LIMIT"}),
    )
    .await;
    assert_eq!(v[0]["path"], json!(["request"]));
    assert_eq!(v[0]["code"], "conditional_required");
    // Domain rules: MARKET must be GOOD_FOR_DAY; an option past its expiration; a
    // butterfly with uneven strikes; fractional contracts.
    let v = call(
        json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "10", "price_type": "MARKET", "order_term": "GOOD_UNTIL_CANCEL"}),
    )
    .await;
    assert_eq!(
        v[0],
        json!({"path": ["request"], "code": "market_term", "message": "A MARKET order must be GOOD_FOR_DAY."})
    );
    let v = call(
        json!({"order_type": "OPTN", "symbol": "AAPL", "order_action": "BUY_OPEN",
        "quantity": "1.5", "price_type": "LIMIT", "limit_price": "2.50", "call_put": "CALL",
        "expiration": "2020-01-17", "strike_price": "180"}),
    )
    .await;
    let paths: Vec<&Value> = v
        .as_array()
        .expect("list")
        .iter()
        .map(|d| &d["path"])
        .collect();
    assert!(paths.contains(&&json!(["request", "expiration"])), "{v}");
    assert!(paths.contains(&&json!(["request", "quantity"])), "{v}");
    let leg = |strike: &str, action: &str, qty: &str| {
        json!({"symbol": "AAPL", "security_type": "OPTN",
        "call_put": "CALL", "expiration": "2099-01-16", "strike_price": strike, "order_action": action, "quantity": qty})
    };
    let v = call(json!({"order_type": "BUTTERFLY", "price_type": "NET_DEBIT", "limit_price": "1.00",
        "legs": [leg("180", "BUY_OPEN", "1"), leg("185", "SELL_OPEN", "2"), leg("195", "BUY_OPEN", "1")]})).await;
    assert_eq!(v[0]["path"], json!(["request", "legs"]));
    assert_eq!(v[0]["code"], "strike_relationship");
    assert!(
        s.fake.requests().is_empty(),
        "invalid orders never reach the broker"
    );
}

/// Each order type the tools added for E*TRADE's v1 API previews and places against the
/// fake E*TRADE, whose order entry reads the body with E*TRADE's grammar: trailing stops
/// send their trail as `stopPrice`, on-open and on-close orders are GOOD_FOR_DAY.
#[tokio::test]
async fn trailing_stops_and_auction_orders_preview_and_place_against_the_fake() {
    let s = trading("pv-ordertypes", "").await;
    let eq = |action: &str, price_type: &str| {
        json!({"order_type": "EQ", "symbol": "AAPL", "order_action": action,
            "quantity": "10", "price_type": price_type})
    };
    let mut cnst = eq("SELL", "TRAILING_STOP_CNST");
    cnst["trail_amount"] = json!("2.50");
    cnst["order_term"] = json!("GOOD_UNTIL_CANCEL");
    let mut prct = eq("BUY", "TRAILING_STOP_PRCT");
    prct["trail_percent"] = json!("5");
    let mut loo = eq("BUY", "LIMIT_ON_OPEN");
    loo["limit_price"] = json!("170.00");
    let mut loc = eq("SELL", "LIMIT_ON_CLOSE");
    loc["limit_price"] = json!("171.25");
    let cases = [
        (cnst, "TRAILING_STOP_CNST", None, Some("2.50")),
        (prct, "TRAILING_STOP_PRCT", None, Some("5")),
        (eq("BUY", "MARKET_ON_OPEN"), "MARKET_ON_OPEN", None, None),
        (eq("SELL", "MARKET_ON_CLOSE"), "MARKET_ON_CLOSE", None, None),
        (loo, "LIMIT_ON_OPEN", Some("170.00"), None),
        (loc, "LIMIT_ON_CLOSE", Some("171.25"), None),
    ];
    for (i, (request, price_type, limit, stop)) in cases.into_iter().enumerate() {
        let (err, pv) = s
            .call(
                "preview_order",
                json!({"account_id_key": KEY, "request": request}),
            )
            .await;
        assert!(!err, "{price_type}: {pv}");
        let body = s
            .fake
            .requests()
            .iter()
            .rev()
            .find(|r| r.path.ends_with("/orders/preview.json"))
            .and_then(|r| r.body.clone())
            .expect("a preview body");
        let sent: Value = serde_json::from_str(&body).expect("json body");
        let order = &sent["PreviewOrderRequest"]["Order"][0];
        assert_eq!(order["priceType"], price_type, "{body}");
        let number = |v: Option<&str>| {
            v.map_or(Value::Null, |t| serde_json::from_str(t).unwrap_or_default())
        };
        assert_eq!(order["limitPrice"], number(limit), "{body}");
        assert_eq!(order["stopPrice"], number(stop), "{body}");
        // The trail is E*TRADE's `stopPrice`, exactly as given; no other member carries it.
        assert!(order.get("offsetType").is_none() && order.get("trailPrice").is_none());
        if price_type.contains("_ON_") {
            assert_eq!(order["orderTerm"], "GOOD_FOR_DAY", "{body}");
        }
        let (err, placed) = s
            .call(
                "place_order",
                json!({"account_id_key": KEY, "preview_id": pv["data"]["preview_id"]}),
            )
            .await;
        assert!(!err, "{price_type}: {placed}");
        let orders = s.fake.placed_orders();
        assert_eq!(orders.len(), i + 1);
        let last = orders.last().expect("placed");
        assert_eq!(last.request.price_type.as_str(), price_type);
        assert_eq!(
            last.request.stop_price.map(|d| d.normalize().to_string()),
            stop.map(|t| t.trim_end_matches('0').trim_end_matches('.').to_string())
        );
    }
}
