//! `GET /v1/user/alerts` → `AlertsResponse` (`totalAlerts`, `Alert[]`) and
//! `GET /v1/user/alerts/{id}` → `AlertDetailsResponse`. An empty inbox is E*TRADE's
//! HTTP 404 with code 53; the handler turns that into an empty list.

use super::epoch_auto_opt;
use super::scalars::{int_opt, text_opt};
use crate::etrade::one_or_many;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
pub struct AlertsResponse {
    #[serde(rename = "AlertsResponse")]
    pub response: AlertList,
}

/// The `list_alerts` data object.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertList {
    #[serde(default, deserialize_with = "int_opt")]
    pub total_alerts: Option<i64>,
    #[serde(rename = "alerts", alias = "Alert", deserialize_with = "one_or_many")]
    pub alerts: Vec<Alert>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    #[serde(deserialize_with = "super::scalars::int")]
    pub id: i64,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub create_time: Option<String>,
    #[serde(default)]
    pub subject: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

impl AlertList {
    /// An empty inbox: no alerts, total 0.
    pub fn empty() -> AlertList {
        AlertList {
            total_alerts: Some(0),
            alerts: Vec::new(),
        }
    }

    /// `None` (an empty body) is an empty inbox too.
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<AlertList, serde_json::Error> {
        match body {
            None => Ok(AlertList::empty()),
            Some(v) => Ok(serde_json::from_value::<AlertsResponse>(v)?.response),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct AlertDetailsResponse {
    #[serde(rename = "AlertDetailsResponse")]
    pub response: AlertDetails,
}

/// The `get_alert_details` data object.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertDetails {
    #[serde(deserialize_with = "super::scalars::int")]
    pub id: i64,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub create_time: Option<String>,
    #[serde(default)]
    pub subject: Option<String>,
    #[serde(default)]
    pub msg_text: Option<String>,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub read_time: Option<String>,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub delete_time: Option<String>,
    #[serde(default, deserialize_with = "text_opt")]
    pub symbol: Option<String>,
    #[serde(default, deserialize_with = "text_opt")]
    pub next: Option<String>,
    #[serde(default, deserialize_with = "text_opt")]
    pub prev: Option<String>,
}

impl AlertDetails {
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<AlertDetails, serde_json::Error> {
        let v = body.ok_or_else(|| serde::de::Error::custom("empty alert details"))?;
        Ok(serde_json::from_value::<AlertDetailsResponse>(v)?.response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn list_and_details_from_the_wire() {
        let wire = json!({"AlertsResponse": {"totalAlerts": 2, "Alert": [
            {"id": 1108, "createTime": 1700000000, "subject": "AAPL rose above $175", "status": "UNREAD"},
            {"id": 1109, "createTime": 1700000000123_i64, "subject": "Order executed", "status": "READ"}]}});
        let l = AlertList::from_wire(Some(wire)).expect("parses");
        assert_eq!(l.total_alerts, Some(2));
        assert_eq!(
            l.alerts[0].create_time.as_deref(),
            Some("2023-11-14T22:13:20Z")
        );
        assert_eq!(
            l.alerts[1].create_time.as_deref(),
            Some("2023-11-14T22:13:20Z")
        );
        let out = serde_json::to_value(&l).expect("serializes");
        assert_eq!(out["alerts"][0]["id"], 1108);
        assert_eq!(out["totalAlerts"], 2);
        let one = json!({"AlertsResponse": {"totalAlerts": 1, "Alert": {"id": 5}}});
        assert_eq!(
            AlertList::from_wire(Some(one)).expect("one").alerts.len(),
            1
        );
        assert!(AlertList::from_wire(None).expect("none").alerts.is_empty());

        let d = json!({"AlertDetailsResponse": {"id": 1108, "createTime": 1700000000,
            "subject": "AAPL rose above $175", "msgText": "AAPL last trade 175.02", "readTime": 0,
            "deleteTime": 0, "symbol": "AAPL",
            "next": "https://api.etrade.com/v1/user/alerts/1109", "prev": ""}});
        let d = AlertDetails::from_wire(Some(d)).expect("details");
        assert_eq!(d.read_time, None);
        assert_eq!(d.symbol.as_deref(), Some("AAPL"));
        assert_eq!(d.prev, None);
        assert!(AlertDetails::from_wire(None).is_err());
    }
}
