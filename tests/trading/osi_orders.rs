//! Options named by OSI symbol: an order leg given only its OSI symbol previews the same
//! contract as one given by symbol, call_put, expiration and strike_price (the same body
//! reaches E*TRADE, the same contract comes back), and an OSI symbol beside the fields it
//! names is refused at the field.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET, Sandbox};
use fake_etrade::FakeConfig;
use serde_json::{Value, json};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";

fn by_fields() -> Value {
    json!({"order_type": "OPTN", "symbol": "AAPL", "call_put": "CALL",
        "expiration": "2027-01-15", "strike_price": "180", "order_action": "BUY_OPEN",
        "quantity": "1", "price_type": "LIMIT", "limit_price": "2.50"})
}

fn by_osi(osi: &str) -> Value {
    json!({"order_type": "OPTN", "osi": osi, "order_action": "BUY_OPEN",
        "quantity": "1", "price_type": "LIMIT", "limit_price": "2.50"})
}

/// The `Order` of the last preview body the fake received, without the client order id
/// (generated per preview).
fn last_preview_order(s: &Sandbox) -> Value {
    let body = s
        .fake
        .requests()
        .iter()
        .rev()
        .find(|r| r.path.ends_with("/orders/preview.json"))
        .and_then(|r| r.body.clone())
        .expect("a preview body");
    let sent: Value = serde_json::from_str(&body).expect("json body");
    sent["PreviewOrderRequest"]["Order"].clone()
}

async fn preview(s: &Sandbox, request: Value) -> (Value, Value) {
    let (err, pv) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": request}),
        )
        .await;
    assert!(!err, "{pv}");
    let instrument = pv["data"]["broker_preview"]["order"][0]["instrument"][0].clone();
    (last_preview_order(s), instrument)
}

#[tokio::test]
async fn an_osi_symbol_previews_the_contract_its_fields_name_against_the_fake() {
    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    let s = Sandbox::start_opts("osi-fake", config, &["--allow-trading"], "").await;
    let (sent_fields, got_fields) = preview(&s, by_fields()).await;
    assert_eq!(
        got_fields["osiKey"], "AAPL--270115C00180000",
        "{got_fields}"
    );
    for osi in ["AAPL--270115C00180000", "AAPL  270115C00180000"] {
        let (sent, got) = preview(&s, by_osi(osi)).await;
        assert_eq!(sent, sent_fields, "{osi}: the body E*TRADE receives");
        assert_eq!(got["product"], got_fields["product"], "{osi}");
        assert_eq!(got["osiKey"], got_fields["osiKey"], "{osi}");
    }
    // A spread's legs too.
    let leg = |osi: &str, action: &str| json!({"osi": osi, "security_type": "OPTN", "order_action": action, "quantity": "1"});
    let spread = json!({"order_type": "SPREADS", "price_type": "NET_DEBIT", "limit_price": "1.20",
        "legs": [leg("AAPL--270115C00180000", "BUY_OPEN"), leg("AAPL  270115C00185000", "SELL_OPEN")]});
    let (err, pv) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": spread}),
        )
        .await;
    assert!(!err, "{pv}");
    let legs = &last_preview_order(&s)[0]["Instrument"];
    assert_eq!(legs[1]["Product"]["strikePrice"], json!(185), "{legs}");
    assert_eq!(legs[1]["Product"]["symbol"], "AAPL", "{legs}");
}

#[tokio::test]
async fn an_osi_symbol_beside_its_fields_is_refused_at_the_field() {
    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    let s = Sandbox::start_opts("osi-refused", config, &["--allow-trading"], "").await;
    let diagnostics = |p: &Value| p["error"]["validation_errors"].clone();
    // Agreeing or not, a field the OSI symbol already names is refused where it stands.
    let mut both = by_osi("AAPL--270115C00180000");
    both["strike_price"] = json!("180");
    both["symbol"] = json!("AAPL");
    let (err, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": both}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "invalid_input", "{p}");
    let paths: Vec<Value> = diagnostics(&p)
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            assert_eq!(d["code"], "not_allowed", "{p}");
            d["path"].clone()
        })
        .collect();
    assert_eq!(
        paths,
        [
            json!(["request", "symbol"]),
            json!(["request", "strike_price"])
        ],
        "{p}"
    );
    // A leg the same way, at the leg's field.
    let spread = json!({"order_type": "SPREADS", "price_type": "NET_DEBIT", "limit_price": "1.20",
        "legs": [
            {"osi": "AAPL--270115C00180000", "expiration": "2027-01-15", "security_type": "OPTN",
             "order_action": "BUY_OPEN", "quantity": "1"},
            {"symbol": "AAPL", "call_put": "CALL", "expiration": "2027-01-15", "strike_price": "185",
             "security_type": "OPTN", "order_action": "SELL_OPEN", "quantity": "1"}]});
    let (_, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": spread}),
        )
        .await;
    assert_eq!(
        diagnostics(&p),
        json!([{"path": ["request", "legs", 0, "expiration"], "code": "not_allowed",
            "message": "osi names the whole contract; give it or symbol, call_put, expiration and strike_price, not both."}]),
        "{p}"
    );
    // An OSI symbol whose YYMMDD is no date; an option named neither way.
    let (_, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": by_osi("AAPL--270231C00180000")}),
        )
        .await;
    assert_eq!(diagnostics(&p)[0]["path"], json!(["request", "osi"]), "{p}");
    assert_eq!(diagnostics(&p)[0]["code"], "invalid_date", "{p}");
    // A domain rule on the contract's terms points at the osi the caller gave.
    let (_, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": by_osi("AAPL--200117C00180000")}),
        )
        .await;
    assert_eq!(
        (&diagnostics(&p)[0]["path"], &diagnostics(&p)[0]["code"]),
        (&json!(["request", "osi"]), &json!("expired")),
        "{p}"
    );
    let mut neither = by_fields();
    neither.as_object_mut().map(|o| o.remove("strike_price"));
    let (_, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": neither}),
        )
        .await;
    assert_eq!(diagnostics(&p)[0]["path"], json!(["request"]), "{p}");
    assert_eq!(diagnostics(&p)[0]["code"], "conditional_required", "{p}");
    assert_eq!(
        s.fake
            .requests()
            .iter()
            .filter(|r| r.path.contains("/orders/"))
            .count(),
        0,
        "nothing refused reaches E*TRADE"
    );
}

#[tokio::test]
async fn quotes_and_chains_take_osi_symbols() {
    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    let s = Sandbox::start_opts("osi-market", config, &[], "").await;
    let (err, q) = s
        .call(
            "get_quotes",
            json!({"symbols": ["AAPL", "AAPL  270115C00180000"], "detail_flag": "OPTIONS"}),
        )
        .await;
    assert!(!err, "{q}");
    let sent = s
        .fake
        .requests()
        .iter()
        .rev()
        .find(|r| r.path.contains("/market/quote/"))
        .map(|r| r.path.clone())
        .expect("a quote request");
    assert!(
        sent.contains("AAPL,AAPL:2027:1:15:CALL:180.000000"),
        "the OSI symbol goes out in E*TRADE's quote form: {sent}"
    );
    let (err, c) = s
        .call(
            "get_option_chains",
            json!({"osi": "AAPL--270115C00180000", "no_of_strikes": 2}),
        )
        .await;
    assert!(!err, "{c}");
    let query = s
        .fake
        .requests()
        .iter()
        .rev()
        .find(|r| r.path.contains("/market/optionchains"))
        .and_then(|r| r.query.clone())
        .expect("a chain request");
    for part in [
        "symbol=AAPL",
        "expiryYear=2027",
        "expiryMonth=1",
        "expiryDay=15",
        "strikePriceNear=180",
    ] {
        assert!(query.contains(part), "{part} in {query}");
    }
    let (err, p) = s.call("get_option_chains", json!({})).await;
    assert!(err);
    assert_eq!(
        p["error"]["validation_errors"][0]["path"],
        json!(["symbol"]),
        "{p}"
    );
}

#[tokio::test]
async fn a_change_names_its_option_by_osi_symbol_as_by_fields() {
    let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    let s = Sandbox::start_opts("osi-change", config, &["--allow-trading"], "").await;
    let (err, pv) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": by_fields()}),
        )
        .await;
    assert!(!err, "{pv}");
    let (err, placed) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": pv["data"]["preview_id"]}),
        )
        .await;
    assert!(!err, "{placed}");
    let old = placed["data"]["order_id"].as_i64().expect("order id");
    let change_body = |s: &Sandbox| {
        let body = s
            .fake
            .requests()
            .iter()
            .rev()
            .find(|r| r.path.ends_with("/change/preview.json"))
            .and_then(|r| r.body.clone())
            .expect("a change preview body");
        let sent: Value = serde_json::from_str(&body).expect("json body");
        sent["PreviewOrderRequest"]["Order"].clone()
    };
    let mut bodies = Vec::new();
    for mut request in [by_fields(), by_osi("AAPL  270115C00180000")] {
        request["limit_price"] = json!("2.40");
        let (err, p) = s
            .call(
                "preview_change_order",
                json!({"account_id_key": KEY, "order_id": old, "request": request}),
            )
            .await;
        assert!(!err, "{p}");
        bodies.push(change_body(&s));
    }
    assert_eq!(bodies[0], bodies[1]);
    assert_eq!(bodies[1][0]["Instrument"][0]["Product"]["symbol"], "AAPL");
}
