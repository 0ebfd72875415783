//! `list_alerts` and `get_alert_details` against the fake over MCP: filters, the empty inbox
//! (E*TRADE's 404 code 53) as an empty list, invalid input and broker errors.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::{Fault, OauthProblem};
use serde_json::{Value, json};

fn ids(p: &Value) -> Vec<i64> {
    p["data"]["alerts"]
        .as_array()
        .expect("alerts")
        .iter()
        .filter_map(|a| a["id"].as_i64())
        .collect()
}

#[tokio::test]
async fn list_alerts_filters_and_the_empty_inbox() {
    let s = Sandbox::start("list-alerts").await;
    let (err, p) = s.call("list_alerts", json!({})).await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p), [1105, 1104, 1103, 1102, 1101]);
    assert_eq!(p["data"]["totalAlerts"], 5);
    assert_eq!(p["data"]["alerts"][0]["createTime"], "2026-10-04T14:30:00Z");
    let (err, p) = s
        .call(
            "list_alerts",
            json!({"status": "UNREAD", "direction": "ASC"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p), [1102, 1103, 1105]);
    let (err, p) = s.call("list_alerts", json!({"count": 2})).await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p), [1105, 1104]);
    assert_eq!(p["data"]["totalAlerts"], 5, "the total shows more exist");
    let (err, p) = s
        .call(
            "list_alerts",
            json!({"category": "STOCK", "search": "msft"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(ids(&p), [1103]);

    // Nothing in the inbox for these filters: E*TRADE's 404 code 53 is an empty list.
    for args in [
        json!({"status": "DELETED"}),
        json!({"search": "no such subject"}),
    ] {
        let (err, p) = s.call("list_alerts", args).await;
        assert!(!err, "{p}");
        assert_eq!(p["data"]["alerts"], json!([]));
        assert_eq!(p["data"]["totalAlerts"], 0);
    }

    let before = s.fake.count("GET", "/v1/user/alerts");
    for args in [
        json!({"count": 301}),
        json!({"count": 0}),
        json!({"category": "BOND"}),
        json!({"unread": true}),
    ] {
        let (err, p) = s.call("list_alerts", args).await;
        assert!(err);
        assert_eq!(p["error"]["code"], "invalid_input", "{p}");
    }
    assert_eq!(s.fake.count("GET", "/v1/user/alerts"), before);

    s.expect_broker_faults("GET /v1/user/alerts", "list_alerts", json!({}))
        .await;
}

#[tokio::test]
async fn get_alert_details_text_html_and_errors() {
    let s = Sandbox::start("alert-details").await;
    let (err, p) = s.call("get_alert_details", json!({"alert_id": 1101})).await;
    assert!(!err, "{p}");
    let d = &p["data"];
    assert_eq!(d["id"], 1101);
    assert_eq!(d["symbol"], "AAPL");
    assert_eq!(d["readTime"], "2026-10-01T14:40:00Z");
    assert!(d["deleteTime"].is_null());
    assert!(d["prev"].is_null());
    assert!(
        d["next"]
            .as_str()
            .is_some_and(|n| n.ends_with("/v1/user/alerts/1102"))
    );
    assert!(d["msgText"].as_str().is_some_and(|t| !t.contains('<')));
    let (err, p) = s
        .call(
            "get_alert_details",
            json!({"alertId": 1102, "htmlTags": true}),
        )
        .await;
    assert!(!err, "{p}");
    assert!(
        p["data"]["msgText"]
            .as_str()
            .is_some_and(|t| t.contains("<p>"))
    );
    assert!(p["data"]["readTime"].is_null());

    // An alert that is not there.
    let (err, p) = s.call("get_alert_details", json!({"alert_id": 9999})).await;
    assert!(err);
    assert_eq!(p["error"]["code"], "not_found", "{p}");
    assert_eq!(p["error"]["broker_code"], "53");

    for args in [
        json!({}),
        json!({"alert_id": 0}),
        json!({"alert_id": "1101"}),
        json!({"alert_id": 1101, "format": "html"}),
    ] {
        let (err, p) = s.call("get_alert_details", args).await;
        assert!(err);
        assert_eq!(p["error"]["code"], "invalid_input", "{p}");
    }
    for (fault, code) in [
        (Fault::Status5xx(502), "service_unavailable"),
        (
            Fault::Unauthorized(OauthProblem::TokenExpired),
            "authorization_expired",
        ),
        (Fault::MalformedJson, "invalid_broker_response"),
    ] {
        s.fake.inject_fault("GET /v1/user/alerts/*", fault, Some(1));
        let (err, p) = s.call("get_alert_details", json!({"alert_id": 1101})).await;
        assert!(err);
        assert_eq!(p["error"]["code"], code, "{p}");
    }
}
