//! `GET /v1/user/alerts` → `AlertsResponse` (`totalAlerts`, `Alert[]`) and
//! `GET /v1/user/alerts/{id}` → `AlertDetailsResponse`. An empty inbox is E*TRADE's
//! HTTP 404 with code 53; the handler turns that into an empty list.

pub use super::generated::{Alert, AlertDetails, AlertList};
use crate::etrade::BrokerBody;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct AlertsResponse {
    #[serde(rename = "AlertsResponse")]
    pub response: AlertList,
}

impl AlertList {
    /// An empty inbox: no alerts, total 0.
    pub fn empty() -> AlertList {
        AlertList {
            total_alerts: Some(0),
            ..AlertList::default()
        }
    }

    /// `None` (an empty body) is an empty inbox too.
    pub fn from_wire(body: Option<impl Into<BrokerBody>>) -> Result<AlertList, serde_json::Error> {
        match body {
            None => Ok(AlertList::empty()),
            Some(v) => Ok(v.into().read::<AlertsResponse>()?.response),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct AlertDetailsResponse {
    #[serde(rename = "AlertDetailsResponse")]
    pub response: AlertDetails,
}

impl AlertDetails {
    pub fn from_wire(
        body: Option<impl Into<BrokerBody>>,
    ) -> Result<AlertDetails, serde_json::Error> {
        let v = body.ok_or_else(|| serde::de::Error::custom("empty alert details"))?;
        Ok(v.into().read::<AlertDetailsResponse>()?.response)
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
        // Sent in milliseconds: the milliseconds are kept.
        assert_eq!(
            l.alerts[1].create_time.as_deref(),
            Some("2023-11-14T22:13:20.123Z")
        );
        let out = serde_json::to_value(&l).expect("serializes");
        assert_eq!(out["alerts"][0]["id"], 1108);
        assert_eq!(out["totalAlerts"], 2);
        let one = json!({"AlertsResponse": {"totalAlerts": 1, "Alert": {"id": 5}}});
        assert_eq!(
            AlertList::from_wire(Some(one)).expect("one").alerts.len(),
            1
        );
        assert!(
            AlertList::from_wire(None::<serde_json::Value>)
                .expect("none")
                .alerts
                .is_empty()
        );

        let d = json!({"AlertDetailsResponse": {"id": 1108, "createTime": 1700000000,
            "subject": "AAPL rose above $175", "msgText": "AAPL last trade 175.02", "readTime": 0,
            "deleteTime": 0, "symbol": "AAPL",
            "next": "https://api.etrade.com/v1/user/alerts/1109", "prev": ""}});
        let d = AlertDetails::from_wire(Some(d)).expect("details");
        assert_eq!(d.read_time, None);
        assert_eq!(d.symbol.as_deref(), Some("AAPL"));
        assert_eq!(d.prev, None);
        assert!(AlertDetails::from_wire(None::<serde_json::Value>).is_err());
    }
}
