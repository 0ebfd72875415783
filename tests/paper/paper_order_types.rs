//! Trailing stops and on-open/on-close orders in paper through MCP: each previews and
//! places, then fills (or expires) as simulated time advances through sessions.

use crate::common;

use common::paper::{Paper, dec};
use rust_decimal::Decimal;
use serde_json::{Value, json};

async fn place(p: &Paper, key: &str, request: Value) -> i64 {
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": request}),
        )
        .await;
    let placed = p
        .ok(
            "place_order",
            json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
        )
        .await;
    placed["order_id"].as_i64().expect("order id")
}

async fn status(p: &Paper, key: &str, order_id: i64) -> String {
    let list = p.ok("list_orders", json!({"account_id_key": key})).await;
    list["orders"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["orderId"] == order_id)
        .and_then(|o| o["orderDetail"][0]["status"].as_str())
        .unwrap_or("missing")
        .to_string()
}

#[tokio::test]
async fn trailing_stops_and_auction_orders_fill_as_simulated_time_passes() {
    let p = Paper::start(&["--allow-trading"]).await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    let q = p.ok("get_quotes", json!({"symbols": ["AAPL"]})).await;
    let ask = dec(&q["quotes"][0]["all"]["ask"]);
    assert!(ask > Decimal::ZERO);
    let eq = |action: &str, qty: &str, price_type: &str, extra: Value| {
        let mut r = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": action,
            "quantity": qty, "price_type": price_type});
        if let (Some(r), Some(extra)) = (r.as_object_mut(), extra.as_object()) {
            r.extend(extra.clone());
        }
        r
    };
    place(&p, &key, eq("BUY", "30", "MARKET", json!({}))).await;
    let gtc = json!({"order_term": "GOOD_UNTIL_CANCEL"});
    let mut cnst = gtc.clone();
    cnst["trail_amount"] = json!("0.10");
    let mut prct = gtc.clone();
    prct["trail_percent"] = json!("0.25");
    let trail_cnst = place(&p, &key, eq("SELL", "10", "TRAILING_STOP_CNST", cnst)).await;
    let trail_prct = place(&p, &key, eq("SELL", "10", "TRAILING_STOP_PRCT", prct)).await;
    let moc = place(&p, &key, eq("SELL", "10", "MARKET_ON_CLOSE", json!({}))).await;
    let moo = place(&p, &key, eq("BUY", "2", "MARKET_ON_OPEN", json!({}))).await;
    // A limit far above any open fills at the open; one far below expires there.
    let high = (ask * Decimal::TWO).round_dp(2).to_string();
    let loo = place(
        &p,
        &key,
        eq("BUY", "1", "LIMIT_ON_OPEN", json!({"limit_price": high})),
    )
    .await;
    let loc = place(
        &p,
        &key,
        eq("BUY", "1", "LIMIT_ON_CLOSE", json!({"limit_price": "0.01"})),
    )
    .await;
    for id in [trail_cnst, trail_prct, moc, moo, loo, loc] {
        assert_eq!(status(&p, &key, id).await, "OPEN", "order {id}");
    }
    // Two simulated days: a close and an open pass, and the price path moves far more
    // than a 10-cent or quarter-percent trail.
    p.cli(&["advance", "48h"]).await;
    for id in [trail_cnst, trail_prct, moc, moo, loo] {
        assert_eq!(status(&p, &key, id).await, "EXECUTED", "order {id}");
    }
    assert_eq!(status(&p, &key, loc).await, "EXPIRED");
}
