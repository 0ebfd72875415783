//! Order entry, cancel, change and alert delete on the fake, through signed raw HTTP.

use std::time::Duration;

use fake_etrade::{
    DEFAULT_CONSUMER_KEY as CK, DEFAULT_CONSUMER_SECRET as CS, FakeConfig, FakeEtrade, Fault,
    TokenPair, codes,
};
use runtime::emulation::json_number::to_f64;
use runtime::etrade::oauth::{self, Extra, Signer};
use serde_json::{Value, json};

const TRADING: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const ROTH: &str = "idU1aBkPvD5n46JI_7S_2A";

struct T {
    fake: FakeEtrade,
    http: reqwest::Client,
    access: TokenPair,
}

impl T {
    async fn start(config: FakeConfig) -> T {
        let fake = FakeEtrade::start(config).await;
        let access = fake.issue_access_token(CK);
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(20))
            .build()
            .expect("client");
        T { fake, http, access }
    }

    async fn new() -> T {
        T::start(FakeConfig::default()).await
    }

    /// Sends a signed request; `path` may carry a query. The body `Null` is "no body".
    async fn try_send(
        &self,
        method: &str,
        path: &str,
        body: Value,
    ) -> reqwest::Result<(u16, Value)> {
        let url = format!("{}{path}", self.fake.base_url());
        let signer = Signer {
            consumer_key: CK,
            consumer_secret: CS,
            token: Some(&self.access.token),
            token_secret: Some(&self.access.secret),
        };
        let h = signer
            .authorization_with(
                method,
                &url,
                &Extra::default(),
                &oauth::nonce().expect("nonce"),
                self.fake.now().as_second() as u64,
            )
            .expect("sign");
        let m = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = self.http.request(m, &url).header("Authorization", h);
        if !body.is_null() {
            req = req
                .header("Content-Type", "application/json")
                .body(body.to_string());
        }
        let r = req.send().await?;
        let status = r.status().as_u16();
        let text = r.text().await?;
        // Not JSON (a garbled answer) comes back as a string.
        let v = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        Ok((status, v))
    }

    async fn send(&self, method: &str, path: &str, body: Value) -> (u16, Value) {
        self.try_send(method, path, body).await.expect("response")
    }

    async fn preview(&self, key: &str, body: &Value) -> (u16, Value) {
        let path = format!("/v1/accounts/{key}/orders/preview.json");
        self.send("POST", &path, json!({ "PreviewOrderRequest": body }))
            .await
    }

    async fn preview_id(&self, key: &str, body: &Value) -> i64 {
        let (status, v) = self.preview(key, body).await;
        assert_eq!(status, 200, "{v}");
        v["PreviewOrderResponse"]["PreviewIds"][0]["previewId"]
            .as_i64()
            .expect("previewId")
    }

    async fn place(&self, key: &str, body: &Value, preview_id: i64) -> (u16, Value) {
        let path = format!("/v1/accounts/{key}/orders/place.json");
        self.send("POST", &path, place_body(body, preview_id)).await
    }

    async fn list(&self, key: &str, query: &str) -> (u16, Value) {
        self.send(
            "GET",
            &format!("/v1/accounts/{key}/orders.json?{query}"),
            Value::Null,
        )
        .await
    }
}

fn place_body(body: &Value, preview_id: i64) -> Value {
    let mut b = body.clone();
    b["PreviewIds"] = json!([{ "previewId": preview_id }]);
    json!({ "PlaceOrderRequest": b })
}

fn aapl_buy(client_order_id: &str) -> Value {
    json!({"orderType": "EQ", "clientOrderId": client_order_id,
        "Order": [{"allOrNone": false, "priceType": "LIMIT", "orderTerm": "GOOD_FOR_DAY",
            "marketSession": "REGULAR", "limitPrice": 170.00,
            "Instrument": [{"Product": {"securityType": "EQ", "symbol": "AAPL"},
                "orderAction": "BUY", "quantityType": "QUANTITY", "quantity": 10}]}]})
}

fn error_code(v: &Value) -> i64 {
    v["Error"]["code"].as_i64().unwrap_or(-1)
}

fn order_ids(list: &Value) -> Vec<i64> {
    list["OrdersResponse"]["Order"]
        .as_array()
        .map(|a| a.iter().filter_map(|o| o["orderId"].as_i64()).collect())
        .unwrap_or_default()
}

fn listed(list: &Value, id: i64) -> Value {
    list["OrdersResponse"]["Order"]
        .as_array()
        .and_then(|a| a.iter().find(|o| o["orderId"] == id))
        .cloned()
        .unwrap_or_else(|| panic!("order {id} in {list}"))
}

#[tokio::test]
async fn preview_place_and_list() {
    let t = T::new().await;
    let body = aapl_buy("4829173650");
    let (status, v) = t.preview(TRADING, &body).await;
    assert_eq!(status, 200, "{v}");
    let p = &v["PreviewOrderResponse"];
    assert_eq!(p["accountId"], "84010429");
    assert_eq!(p["totalOrderValue"], 1700.0);
    assert_eq!(p["Order"][0]["estimatedTotalAmount"], 1700.0);
    assert_eq!(p["PreviewIds"][0]["cashMargin"], "MARGIN");
    assert_eq!(
        p["Order"][0]["messages"]["Message"][0],
        json!({"description": codes::PREVIEW_WARNING_MESSAGE, "code": codes::PREVIEW_WARNING,
            "type": "WARNING"})
    );
    let pid = p["PreviewIds"][0]["previewId"].as_i64().expect("id");
    assert!(pid >= 266_606_056_106);
    assert_eq!(t.fake.previews_count(), 1);
    assert!(t.fake.placed_orders().is_empty());

    // Numbers as strings are the same order.
    let mut as_strings = body.clone();
    as_strings["Order"][0]["limitPrice"] = json!("170.00");
    as_strings["Order"][0]["Instrument"][0]["quantity"] = json!("10");
    let (status, v) = t.place(TRADING, &as_strings, pid).await;
    assert_eq!(status, 200, "{v}");
    let r = &v["PlaceOrderResponse"];
    let id = r["OrderIds"][0]["orderId"].as_i64().expect("orderId");
    assert_eq!(r["Order"][0]["messages"]["Message"][0]["code"], 1026);
    assert_eq!(
        r["Order"][0]["messages"]["Message"][0]["description"],
        "200|Your order was successfully entered during market hours."
    );
    assert!(r["placedTime"].as_i64().is_some());

    let placed = t.fake.placed_orders();
    assert_eq!(placed.len(), 1);
    let o = &placed[0];
    assert_eq!(
        (
            o.order_id,
            o.status.as_str(),
            o.symbol(),
            o.action(),
            to_f64(o.quantity())
        ),
        (id, "OPEN", "AAPL", "BUY", 10.0)
    );
    assert_eq!(o.client_order_id(), Some("4829173650"));
    assert_eq!(o.request.limit_price.map(to_f64), Some(170.0));
    assert_eq!(o.account_key, TRADING);
    assert_eq!(o.preview_id, Some(pid));

    // Listed newest first with the fixtures, filters apply, no clientOrderId echoed.
    let (status, list) = t.list(TRADING, "").await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(order_ids(&list).first(), Some(&id));
    let d = &listed(&list, id)["OrderDetail"][0];
    assert_eq!(d["status"], "OPEN");
    assert_eq!(d["limitPrice"], 170.0);
    assert!(d.get("clientOrderId").is_none(), "{d}");
    let (_, list) = t.list(TRADING, "status=OPEN&symbol=AAPL").await;
    assert_eq!(order_ids(&list), [id, 506]);
    let (_, list) = t.list(TRADING, "status=EXECUTED").await;
    assert!(!order_ids(&list).contains(&id));
    let (_, list) = t.list(TRADING, "count=2").await;
    assert_eq!(order_ids(&list), [id, 512]);
    let (status, _) = t.list(ROTH, "symbol=AAPL").await;
    assert_eq!(status, 204, "other accounts do not see it");

    let log = t.fake.requests();
    assert!(
        log.iter()
            .filter(|r| r.method == "POST")
            .all(|r| r.mutation)
    );
}

#[tokio::test]
async fn client_order_id_is_echoed_when_configured() {
    let t = T::start(FakeConfig::default().echo_client_order_id(true)).await;
    let body = aapl_buy("A1");
    let pid = t.preview_id(TRADING, &body).await;
    let (_, v) = t.place(TRADING, &body, pid).await;
    let id = v["PlaceOrderResponse"]["OrderIds"][0]["orderId"]
        .as_i64()
        .expect("id");
    let (_, list) = t.list(TRADING, "").await;
    assert_eq!(listed(&list, id)["OrderDetail"][0]["clientOrderId"], "A1");
}

#[tokio::test]
async fn place_twice_then_duplicate_client_order_id() {
    let t = T::new().await;
    let body = aapl_buy("77");
    let pid = t.preview_id(TRADING, &body).await;
    assert_eq!(t.place(TRADING, &body, pid).await.0, 200);
    let (status, v) = t.place(TRADING, &body, pid).await;
    assert_eq!((status, error_code(&v)), (400, 101), "{v}");
    assert_eq!(v["Error"]["message"], codes::PREVIEW_TIMED_OUT_MESSAGE);
    // A fresh preview with the same clientOrderId: place refuses the duplicate.
    let pid = t.preview_id(TRADING, &body).await;
    let (status, v) = t.place(TRADING, &body, pid).await;
    assert_eq!((status, error_code(&v)), (400, 9003), "{v}");
    assert_eq!(v["Error"]["message"], "Duplicate client order id.");
    // Another account may use it.
    let pid = t.preview_id(ROTH, &body).await;
    assert_eq!(t.place(ROTH, &body, pid).await.0, 200);
    assert_eq!(t.fake.placed_orders().len(), 2);
}

#[tokio::test]
async fn stale_changed_or_misaddressed_previews_time_out() {
    let t = T::start(FakeConfig::default().preview_ttl(Duration::from_secs(120))).await;
    let body = aapl_buy("5");

    let pid = t.preview_id(TRADING, &body).await;
    t.fake.advance_clock(Duration::from_secs(121));
    let (status, v) = t.place(TRADING, &body, pid).await;
    assert_eq!((status, error_code(&v)), (400, 101), "{v}");

    let pid = t.preview_id(TRADING, &body).await;
    let mut changed = body.clone();
    changed["Order"][0]["Instrument"][0]["quantity"] = json!(11);
    let (status, v) = t.place(TRADING, &changed, pid).await;
    assert_eq!((status, error_code(&v)), (400, 101), "{v}");
    let mut changed = body.clone();
    changed["clientOrderId"] = json!("6");
    assert_eq!(error_code(&t.place(TRADING, &changed, pid).await.1), 101);
    assert_eq!(error_code(&t.place(ROTH, &body, pid).await.1), 101);
    assert_eq!(
        error_code(&t.place(TRADING, &body, pid + 1000).await.1),
        101
    );

    // Misnamed or misshaped PreviewIds wrappers.
    let path = format!("/v1/accounts/{TRADING}/orders/place.json");
    for ids in [
        json!({"previewIds": [{"previewId": pid}]}),
        json!({"PreviewIds": {"previewId": pid}}),
        json!({"previewId": pid}),
        json!({"PreviewIds": [pid]}),
        json!({}),
    ] {
        let mut b = body.clone();
        if let (Some(b), Some(ids)) = (b.as_object_mut(), ids.as_object()) {
            b.extend(ids.clone());
        }
        let (status, v) = t
            .send("POST", &path, json!({ "PlaceOrderRequest": b }))
            .await;
        assert_eq!((status, error_code(&v)), (400, 101), "{ids} → {v}");
    }
    // None of those used the preview up.
    assert_eq!(t.place(TRADING, &body, pid).await.0, 200);
    assert_eq!(t.fake.placed_orders().len(), 1);
}

#[tokio::test]
async fn preview_validation() {
    let t = T::new().await;
    let (status, v) = t.preview("nope", &aapl_buy("1")).await;
    assert_eq!((status, error_code(&v)), (400, 100), "{v}");
    assert_eq!(
        v["Error"]["message"],
        "Account key does not belong to user."
    );

    for (bad, code) in [
        (json!({"clientOrderId": "has space"}), 9002),
        (json!({"clientOrderId": "123456789012345678901"}), 9002),
        (json!({"orderType": "STOCK"}), 9001),
        (json!({"Order": []}), 9001),
    ] {
        let mut b = aapl_buy("1");
        if let (Some(b), Some(bad)) = (b.as_object_mut(), bad.as_object()) {
            b.extend(bad.clone());
        }
        let (status, v) = t.preview(TRADING, &b).await;
        assert_eq!((status, error_code(&v)), (400, code), "{b} → {v}");
    }
    let mut no_limit = aapl_buy("1");
    if let Some(o) = no_limit["Order"][0].as_object_mut() {
        o.remove("limitPrice");
    }
    assert_eq!(error_code(&t.preview(TRADING, &no_limit).await.1), 9001);
    let path = format!("/v1/accounts/{TRADING}/orders/preview.json");
    let (status, v) = t.send("POST", &path, json!({"Nope": {}})).await;
    assert_eq!((status, error_code(&v)), (400, 9001), "{v}");

    // 1000 AAPL at market: about 174,590 > 12,500.11 cash.
    let mut big = aapl_buy("1");
    big["Order"][0]["priceType"] = json!("MARKET");
    if let Some(o) = big["Order"][0].as_object_mut() {
        o.remove("limitPrice");
    }
    big["Order"][0]["Instrument"][0]["quantity"] = json!(1000);
    let (status, v) = t.preview(TRADING, &big).await;
    assert_eq!((status, error_code(&v)), (400, 1021), "{v}");
    assert_eq!(v["Error"]["message"], codes::INSUFFICIENT_FUNDS_MESSAGE);
    // Selling is fine.
    big["Order"][0]["Instrument"][0]["orderAction"] = json!("SELL");
    let (status, v) = t.preview(TRADING, &big).await;
    assert_eq!(status, 200, "{v}");
    assert!(
        v["PreviewOrderResponse"]["Order"][0]["estimatedTotalAmount"]
            .as_f64()
            .is_some_and(|x| x < 0.0)
    );
    assert_eq!(t.fake.previews_count(), 1);
}

#[tokio::test]
async fn spread_with_several_legs() {
    let t = T::new().await;
    let leg = |action: &str, strike: f64| {
        json!({"Product": {"securityType": "OPTN", "symbol": "AAPL", "callPut": "CALL",
            "expiryYear": "2027", "expiryMonth": 1, "expiryDay": 15, "strikePrice": strike},
            "orderAction": action, "quantityType": "QUANTITY", "quantity": 1})
    };
    let body = json!({"orderType": "SPREADS", "clientOrderId": "spread1",
        "Order": [{"allOrNone": false, "priceType": "NET_DEBIT", "orderTerm": "GOOD_FOR_DAY",
            "marketSession": "REGULAR", "limitPrice": "2.50",
            "Instrument": [leg("BUY_OPEN", 180.0), leg("SELL_OPEN", 190.0)]}]});
    let (status, v) = t.preview(TRADING, &body).await;
    assert_eq!(status, 200, "{v}");
    let p = &v["PreviewOrderResponse"];
    assert_eq!(p["totalOrderValue"], 250.0);
    assert_eq!(p["totalCommission"], 1.3);
    assert_eq!(
        p["Order"][0]["Instrument"].as_array().map(Vec::len),
        Some(2)
    );
    let pid = p["PreviewIds"][0]["previewId"].as_i64().expect("id");
    let (status, v) = t.place(TRADING, &body, pid).await;
    assert_eq!(status, 200, "{v}");
    let o = &t.fake.placed_orders()[0];
    assert_eq!(o.symbols(), ["AAPL", "AAPL"]);
    assert_eq!(
        o.request.legs[1].instrument.strike().map(to_f64),
        Some(190.0)
    );
    // One leg is not a spread.
    let mut one = body.clone();
    one["Order"][0]["Instrument"] = json!([leg("BUY_OPEN", 180.0)]);
    assert_eq!(error_code(&t.preview(TRADING, &one).await.1), 9001);
}

#[tokio::test]
async fn cancel_open_then_again() {
    let t = T::new().await;
    let body = aapl_buy("c1");
    let pid = t.preview_id(TRADING, &body).await;
    let (_, v) = t.place(TRADING, &body, pid).await;
    let id = v["PlaceOrderResponse"]["OrderIds"][0]["orderId"]
        .as_i64()
        .expect("id");
    let cancel = |id: Value| json!({"CancelOrderRequest": {"orderId": id}});
    let path = format!("/v1/accounts/{TRADING}/orders/cancel.json");
    let (status, v) = t.send("PUT", &path, cancel(json!(id))).await;
    assert_eq!(status, 200, "{v}");
    let r = &v["CancelOrderResponse"];
    assert_eq!(
        (r["orderId"].as_i64(), r["accountId"].as_str()),
        (Some(id), Some("84010429"))
    );
    assert_eq!(r["Messages"]["Message"][0]["code"], 5011);
    let o = t.fake.order(id).expect("order");
    assert_eq!(o.status.as_str(), "CANCELLED");
    assert_eq!(o.cancel_time, r["cancelTime"].as_i64());
    let (_, list) = t.list(TRADING, "status=CANCELLED").await;
    assert!(order_ids(&list).contains(&id));

    let (status, v) = t.send("PUT", &path, cancel(json!(id))).await;
    assert_eq!((status, error_code(&v)), (400, 5001), "{v}");
    assert_eq!(v["Error"]["message"], codes::NOT_CANCELLABLE_MESSAGE);

    // Fixture orders: 506 is OPEN; 602 (Roth) is marked EXECUTED first; 501 is EXECUTED.
    assert_eq!(t.send("PUT", &path, cancel(json!("506"))).await.0, 200);
    assert_eq!(
        t.fake.order(506).map(|o| o.status.as_str()),
        Some("CANCELLED")
    );
    assert!(t.fake.set_order_status(602, "EXECUTED"));
    assert!(!t.fake.set_order_status(602, "BOGUS"));
    assert!(!t.fake.set_order_status(999_999, "OPEN"));
    let roth = format!("/v1/accounts/{ROTH}/orders/cancel.json");
    let (status, v) = t.send("PUT", &roth, cancel(json!(602))).await;
    assert_eq!((status, error_code(&v)), (400, 5001), "{v}");
    assert_eq!(
        error_code(&t.send("PUT", &path, cancel(json!(501))).await.1),
        5001
    );
    // Unknown here (602 is the Roth account's), malformed.
    let (status, v) = t.send("PUT", &path, cancel(json!(602))).await;
    assert_eq!((status, error_code(&v)), (400, 9004), "{v}");
    let (status, v) = t.send("PUT", &path, json!({"orderId": 506})).await;
    assert_eq!((status, error_code(&v)), (400, 9001), "{v}");
}

#[tokio::test]
async fn change_replaces_the_order() {
    let t = T::new().await;
    // Fixture 504: IBM SELL 15 LIMIT 205, EXTENDED, GOOD_UNTIL_CANCEL, OPEN.
    let body = json!({"orderType": "EQ", "clientOrderId": "chg1",
        "Order": [{"priceType": "LIMIT", "orderTerm": "GOOD_UNTIL_CANCEL",
            "marketSession": "EXTENDED", "limitPrice": 210,
            "Instrument": [{"Product": {"securityType": "EQ", "symbol": "IBM"},
                "orderAction": "SELL", "quantityType": "QUANTITY", "quantity": 15}]}]});
    let preview = format!("/v1/accounts/{TRADING}/orders/504/change/preview.json");
    let place = format!("/v1/accounts/{TRADING}/orders/504/change/place.json");
    let (status, v) = t
        .send("PUT", &preview, json!({"PreviewOrderRequest": body}))
        .await;
    assert_eq!(status, 200, "{v}");
    let pid = v["PreviewOrderResponse"]["PreviewIds"][0]["previewId"]
        .as_i64()
        .expect("id");
    // A change preview does not place a new order, nor change another one.
    assert_eq!(error_code(&t.place(TRADING, &body, pid).await.1), 101);
    let other = format!("/v1/accounts/{TRADING}/orders/506/change/place.json");
    assert_eq!(
        error_code(&t.send("PUT", &other, place_body(&body, pid)).await.1),
        101
    );

    let (status, v) = t.send("PUT", &place, place_body(&body, pid)).await;
    assert_eq!(status, 200, "{v}");
    let new_id = v["PlaceOrderResponse"]["OrderIds"][0]["orderId"]
        .as_i64()
        .expect("id");
    assert_ne!(new_id, 504);
    let old = t.fake.order(504).expect("old");
    assert_eq!(
        (old.status.as_str(), old.replaced_by_order_id),
        ("CANCELLED", Some(new_id))
    );
    let new = t.fake.order(new_id).expect("new");
    assert_eq!(
        (
            new.status.as_str(),
            new.replaces_order_id,
            new.request.limit_price.map(to_f64)
        ),
        ("OPEN", Some(504), Some(210.0))
    );
    let (_, list) = t.list(TRADING, "").await;
    assert_eq!(
        listed(&list, 504)["OrderDetail"][0]["replacedByOrderId"],
        new_id
    );
    assert_eq!(
        listed(&list, new_id)["OrderDetail"][0]["replacesOrderId"],
        504
    );

    // The replaced order cannot be changed again; the new one can, keeping its clientOrderId.
    let (status, v) = t
        .send("PUT", &preview, json!({"PreviewOrderRequest": body}))
        .await;
    assert_eq!((status, error_code(&v)), (400, 9005), "{v}");
    let again = format!("/v1/accounts/{TRADING}/orders/{new_id}/change/preview.json");
    let mut cheaper = body.clone();
    cheaper["Order"][0]["limitPrice"] = json!(208);
    let (status, v) = t
        .send("PUT", &again, json!({"PreviewOrderRequest": cheaper}))
        .await;
    assert_eq!(status, 200, "{v}");
    // Changing the symbol or an executed order is refused.
    let mut msft = body.clone();
    msft["Order"][0]["Instrument"][0]["Product"]["symbol"] = json!("MSFT");
    let (status, v) = t
        .send("PUT", &again, json!({"PreviewOrderRequest": msft}))
        .await;
    assert_eq!((status, error_code(&v)), (400, 9006), "{v}");
    let executed = format!("/v1/accounts/{TRADING}/orders/501/change/preview.json");
    let (status, v) = t
        .send(
            "PUT",
            &executed,
            json!({"PreviewOrderRequest": aapl_buy("x")}),
        )
        .await;
    assert_eq!((status, error_code(&v)), (400, 9005), "{v}");
}

#[tokio::test]
async fn alert_delete_all_and_partial() {
    let t = T::new().await;
    let (status, v) = t
        .send("DELETE", "/v1/user/alerts/1101,1102", Value::Null)
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v, json!({"AlertsResponse": {"result": "SUCCESS"}}));
    assert_eq!(t.fake.alert_ids(), [1103, 1104, 1105]);
    assert_eq!(t.fake.deleted_alert_ids(), [1101, 1102]);
    let (_, list) = t.send("GET", "/v1/user/alerts.json", Value::Null).await;
    assert_eq!(list["AlertsResponse"]["totalAlerts"], 3);
    let (_, list) = t
        .send("GET", "/v1/user/alerts.json?status=DELETED", Value::Null)
        .await;
    assert_eq!(list["AlertsResponse"]["totalAlerts"], 2, "{list}");
    let (status, v) = t
        .send("GET", "/v1/user/alerts/1101.json", Value::Null)
        .await;
    assert_eq!((status, error_code(&v)), (404, 53), "{v}");

    let (status, v) = t
        .send("DELETE", "/v1/user/alerts/1103,1101,9999.json", Value::Null)
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v,
        json!({"AlertsResponse": {"result": "ERROR", "failedAlerts": {"alertId": [1101, 9999]}}})
    );
    assert_eq!(t.fake.alert_ids(), [1104, 1105]);

    for bad in ["abc", "1104,", "0", "1104,-5"] {
        let (status, v) = t
            .send("DELETE", &format!("/v1/user/alerts/{bad}"), Value::Null)
            .await;
        assert_eq!((status, error_code(&v)), (400, 499), "{bad} → {v}");
    }
    assert_eq!(t.fake.alert_ids(), [1104, 1105]);
    assert!(
        t.fake
            .requests()
            .iter()
            .filter(|r| r.method == "DELETE")
            .all(|r| r.mutation)
    );
}

#[tokio::test]
async fn faults_on_place() {
    let t = T::new().await;
    let body = aapl_buy("f1");
    let pid = t.preview_id(TRADING, &body).await;

    // Refused: nothing applied, the preview is still good.
    t.fake
        .inject_fault("POST /v1/accounts/*/orders/place", Fault::Refuse, Some(1));
    assert!(
        t.try_send(
            "POST",
            &format!("/v1/accounts/{TRADING}/orders/place.json"),
            place_body(&body, pid)
        )
        .await
        .is_err()
    );
    assert!(t.fake.placed_orders().is_empty());
    t.fake.inject_fault(
        "POST /v1/accounts/*/orders/place",
        Fault::ResetWithoutProcessing,
        Some(1),
    );
    assert!(
        t.try_send(
            "POST",
            &format!("/v1/accounts/{TRADING}/orders/place.json"),
            place_body(&body, pid)
        )
        .await
        .is_err()
    );
    assert!(t.fake.placed_orders().is_empty());

    // Reset after processing: the order exists although the client got no answer.
    t.fake.inject_fault(
        "POST /v1/accounts/*/orders/place",
        Fault::ResetBeforeResponse,
        Some(1),
    );
    assert!(
        t.try_send(
            "POST",
            &format!("/v1/accounts/{TRADING}/orders/place.json"),
            place_body(&body, pid)
        )
        .await
        .is_err()
    );
    let placed = t.fake.placed_orders();
    assert_eq!(placed.len(), 1);
    let (_, list) = t.list(TRADING, "status=OPEN&symbol=AAPL").await;
    assert_eq!(order_ids(&list).first(), Some(&placed[0].order_id));
    // Retrying the same preview: 101, no second order.
    assert_eq!(error_code(&t.place(TRADING, &body, pid).await.1), 101);
    assert_eq!(t.fake.placed_orders().len(), 1);
    let log = t.fake.requests();
    let places: Vec<_> = log
        .iter()
        .filter(|r| r.endpoint.ends_with("/orders/place"))
        .collect();
    assert_eq!(places.len(), 4);
    assert!(places.iter().all(|r| r.mutation));
    assert_eq!(
        places
            .iter()
            .map(|r| r.fault.as_deref())
            .collect::<Vec<_>>(),
        [
            Some("refuse"),
            Some("reset_without_processing"),
            Some("reset_before_response"),
            None
        ]
    );
}

#[tokio::test]
async fn faults_on_cancel_change_and_delete() {
    let t = T::new().await;
    // Garbled answer: the cancel happened.
    t.fake.inject_fault(
        "PUT /v1/accounts/*/orders/cancel",
        Fault::MalformedJson,
        Some(1),
    );
    let url = format!("/v1/accounts/{TRADING}/orders/cancel.json");
    let (status, v) = t
        .send("PUT", &url, json!({"CancelOrderRequest": {"orderId": 506}}))
        .await;
    assert_eq!(status, 200);
    assert!(
        v.as_str()
            .is_some_and(|b| b.starts_with("{\"CancelOrderResponse")),
        "{v}"
    );
    assert_eq!(
        t.fake.order(506).map(|o| o.status.as_str()),
        Some("CANCELLED")
    );

    // A 5xx short-circuits: nothing deleted. A timeout holds the answer after deleting.
    t.fake
        .inject_fault("DELETE /v1/user/alerts/*", Fault::Status5xx(503), Some(1));
    assert_eq!(
        t.send("DELETE", "/v1/user/alerts/1101", Value::Null)
            .await
            .0,
        503
    );
    assert_eq!(t.fake.alert_ids().len(), 5);
    t.fake.inject_fault(
        "DELETE /v1/user/alerts/*",
        Fault::Timeout(Duration::from_millis(300)),
        Some(1),
    );
    let (status, v) = t.send("DELETE", "/v1/user/alerts/1101", Value::Null).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(t.fake.deleted_alert_ids(), [1101]);

    // Change place: ** patterns reach it.
    let body = json!({"orderType": "EQ", "clientOrderId": "c9",
        "Order": [{"priceType": "LIMIT", "orderTerm": "GOOD_UNTIL_CANCEL",
            "marketSession": "EXTENDED", "limitPrice": 206,
            "Instrument": [{"Product": {"securityType": "EQ", "symbol": "IBM"},
                "orderAction": "SELL", "quantityType": "QUANTITY", "quantity": 15}]}]});
    let (_, v) = t
        .send(
            "PUT",
            &format!("/v1/accounts/{TRADING}/orders/504/change/preview"),
            json!({"PreviewOrderRequest": body}),
        )
        .await;
    let pid = v["PreviewOrderResponse"]["PreviewIds"][0]["previewId"]
        .as_i64()
        .expect("id");
    t.fake.inject_fault(
        "PUT /v1/accounts/*/orders/**/place",
        Fault::ResetBeforeResponse,
        Some(1),
    );
    let r = t
        .try_send(
            "PUT",
            &format!("/v1/accounts/{TRADING}/orders/504/change/place.json"),
            place_body(&body, pid),
        )
        .await;
    assert!(r.is_err());
    let old = t.fake.order(504).expect("504");
    assert_eq!(old.status.as_str(), "CANCELLED");
    assert!(old.replaced_by_order_id.is_some());
    assert!(t.fake.faults().is_empty());
}

#[tokio::test]
async fn control_api_for_orders_and_alerts() {
    let t = T::new().await;
    let base = t.fake.base_url();
    let orders: Value = t
        .http
        .get(format!("{base}/__fake/orders"))
        .send()
        .await
        .expect("orders")
        .json()
        .await
        .expect("json");
    assert!(orders.as_array().is_some_and(|a| {
        a.iter()
            .any(|o| o["order_id"] == 504 && o["status"] == "OPEN")
    }));
    let r = t
        .http
        .post(format!("{base}/__fake/order_status"))
        .body(r#"{"order_id":504,"status":"EXECUTED"}"#)
        .send()
        .await
        .expect("status");
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(
        t.fake.order(504).map(|o| o.status.as_str()),
        Some("EXECUTED")
    );
    let r = t
        .http
        .post(format!("{base}/__fake/order_status"))
        .body(r#"{"order_id":1,"status":"EXECUTED"}"#)
        .send()
        .await
        .expect("status");
    assert_eq!(r.status().as_u16(), 404);
    let alerts: Value = t
        .http
        .get(format!("{base}/__fake/alerts"))
        .send()
        .await
        .expect("alerts")
        .json()
        .await
        .expect("json");
    assert_eq!(alerts["alert_ids"], json!([1101, 1102, 1103, 1104, 1105]));
    assert_eq!(
        t.fake.requests().len(),
        0,
        "control requests are not recorded"
    );
}

/// The stricter reading of the order list's dates: `toDate` must be a later day than
/// `fromDate` (equal dates are refused, like an inverted range).
#[tokio::test]
async fn list_orders_needs_to_date_after_from_date() {
    let t = T::new().await;
    let (status, v) = t.list(TRADING, "fromDate=10012026&toDate=10012026").await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(
        v["Error"]["message"],
        "Invalid value for the parameter toDate."
    );
    let (status, v) = t.list(TRADING, "fromDate=10052026&toDate=10012026").await;
    assert_eq!(status, 400, "{v}");
    let (status, v) = t.list(TRADING, "fromDate=10012026&toDate=10022026").await;
    assert!(status == 200 || status == 204, "{status} {v}");
}

/// A placement answer can name the new order where independent clients have seen it.
#[tokio::test]
async fn placed_id_location_is_configurable() {
    use fake_etrade::PlacedIdLocation as At;
    let t = T::new().await;
    for (i, at) in [At::OrderIds, At::OrderOnly, At::TopLevel, At::Nowhere]
        .into_iter()
        .enumerate()
    {
        t.fake.set_placed_id_location(at);
        let body = aapl_buy(&format!("70000000{i}"));
        let pid = t.preview_id(TRADING, &body).await;
        let (status, v) = t.place(TRADING, &body, pid).await;
        assert_eq!(status, 200, "{v}");
        let r = &v["PlaceOrderResponse"];
        let id = t.fake.placed_orders().last().expect("placed").order_id;
        let seen = (
            r["OrderIds"][0]["orderId"].as_i64(),
            r["Order"][0]["orderId"].as_i64(),
            r["orderId"].as_i64(),
        );
        let want = match at {
            At::OrderIds => (Some(id), None, None),
            At::OrderOnly => (None, Some(id), None),
            At::TopLevel => (None, None, Some(id)),
            At::Nowhere => (None, None, None),
        };
        assert_eq!(seen, want, "{at:?}: {v}");
    }
}
