//! The whole order life cycle over MCP against the fake, in one screen:
//! preview → place → list_orders shows it → cancel → the journal shows all three.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::FakeConfig;
use serde_json::json;

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";

#[tokio::test]
async fn preview_place_list_cancel_journal() {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    let s = Sandbox::start_opts("scenario", config, &["--allow-trading"], "").await;
    let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "10", "price_type": "LIMIT", "limit_price": "170.00"});

    // 1. Preview: E*TRADE's estimate and warnings come back unchanged, plus our preview_id.
    let (err, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": order}),
        )
        .await;
    assert!(!err, "{p}");
    let preview = &p["data"];
    let preview_id = preview["preview_id"].as_str().expect("preview_id");
    let warning = &preview["broker_preview"]["order"][0]["messages"][0];
    assert_eq!(
        warning["code"],
        fake_etrade::codes::PREVIEW_WARNING.to_string()
    );
    assert_eq!(
        warning["description"],
        fake_etrade::codes::PREVIEW_WARNING_MESSAGE
    );

    // 2. Place it by preview_id: the body on the wire is the previewed one plus PreviewIds.
    let (err, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": preview_id}),
        )
        .await;
    assert!(!err, "{p}");
    let order_id = p["data"]["order_id"].as_i64().expect("order_id");
    let wire = s.fake.requests();
    let body = |suffix: &str| {
        wire.iter()
            .find(|r| r.path.ends_with(suffix))
            .and_then(|r| r.body.clone())
            .expect("body")
    };
    let previewed = body("/orders/preview.json");
    let placed = body("/orders/place.json");
    let members = previewed
        .trim_start_matches("{\"PreviewOrderRequest\":{")
        .trim_end_matches("}}");
    assert!(
        placed.ends_with(&format!("{members}}}}}")),
        "placed byte for byte:\n{previewed}\n{placed}"
    );
    assert!(placed.contains("\"PreviewIds\":[{\"previewId\":"));

    // 3. list_orders shows it, OPEN.
    let (_, p) = s
        .call(
            "list_orders",
            json!({"account_id_key": KEY, "status": "OPEN"}),
        )
        .await;
    let listed = p["data"]["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .find(|o| o["orderId"] == order_id)
        .cloned()
        .expect("the new order is listed");
    assert_eq!(listed["orderDetail"][0]["limitPrice"], "170");

    // 4. Cancel it.
    let (err, p) = s
        .call(
            "cancel_order",
            json!({"account_id_key": KEY, "order_id": order_id}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(s.fake.order(order_id).expect("order").status, "CANCELLED");

    // 5. The journal tells the story, newest first, each step succeeded.
    let (_, p) = s.call("list_order_journal", json!({})).await;
    let entries = p["data"]["entries"].as_array().expect("entries");
    let kinds: Vec<&str> = entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["cancel_order", "place_order", "preview_order"]);
    assert!(
        entries
            .iter()
            .all(|e| e["outcome"]["status"] == "succeeded"),
        "{p}"
    );
    assert_eq!(entries[0]["target_order_id"], order_id);
    assert_eq!(entries[1]["outcome"]["order_id"], order_id);
    assert_eq!(entries[1]["preview_id"], preview_id);
    assert_eq!(entries[2]["order"]["legs"][0]["quantity"], "10");
    let sent: Vec<String> = s
        .fake
        .requests()
        .iter()
        .filter(|r| r.mutation)
        .map(|r| r.endpoint.clone())
        .collect();
    assert_eq!(
        sent.len(),
        3,
        "preview, place and cancel, once each: {sent:?}"
    );
}

#[tokio::test]
async fn change_is_cancel_and_replace_with_a_new_order_id() {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    let s = Sandbox::start_opts("scenario-change", config, &["--allow-trading"], "").await;
    let order = |price: &str| {
        json!({"order_type": "EQ", "symbol": "MSFT", "order_action": "BUY",
        "quantity": "5", "price_type": "LIMIT", "limit_price": price})
    };
    let (_, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": order("300.00")}),
        )
        .await;
    let id = p["data"]["preview_id"].clone();
    let (_, p) = s
        .call(
            "place_order",
            json!({"account_id_key": KEY, "preview_id": id}),
        )
        .await;
    let old = p["data"]["order_id"].as_i64().expect("order id");

    let (err, p) = s
        .call(
            "preview_change_order",
            json!({"account_id_key": KEY, "order_id": old, "request": order("295.50")}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["order_id"], old);
    let change = p["data"]["preview_id"].clone();
    let (err, p) = s
        .call(
            "place_change_order",
            json!({"account_id_key": KEY, "order_id": old, "preview_id": change}),
        )
        .await;
    assert!(!err, "{p}");
    let new = p["data"]["order_id"].as_i64().expect("new id");
    assert_ne!(new, old);
    assert_eq!(p["data"]["replaced_order_id"], old);
    let replaced = s.fake.order(old).expect("old order");
    assert_eq!(
        (replaced.status.as_str(), replaced.replaced_by_order_id),
        ("CANCELLED", Some(new))
    );
    assert_eq!(
        s.fake
            .order(new)
            .expect("new order")
            .request
            .limit_price
            .map(|p| p.to_string())
            .as_deref(),
        Some("295.5")
    );

    let (_, p) = s.call("list_order_journal", json!({"limit": 2})).await;
    let kinds: Vec<&str> = p["data"]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["place_change_order", "preview_change_order"]);
    assert_eq!(p["data"]["entries"][0]["target_order_id"], old);
    assert!(
        p["data"]["next_before"].is_i64(),
        "older entries are on the next page: {p}"
    );
}
