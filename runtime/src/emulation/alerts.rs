//! E*TRADE's alert inbox (`GET /v1/user/alerts`, `GET /v1/user/alerts/{id}`,
//! `DELETE /v1/user/alerts/{ids}`): the list's filters and limits, details with their
//! neighbours' links, and deletion. A deleted alert is listed only with `status=DELETED`;
//! its details are the empty inbox's 404 code 53.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::codes;

/// One alert of the inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub id: i64,
    /// Epoch seconds.
    pub create_time: i64,
    /// STOCK | ACCOUNT
    pub category: String,
    /// READ | UNREAD
    pub status: String,
    pub subject: String,
    /// Empty for an account alert.
    pub symbol: String,
    pub text: String,
}

/// Why the inbox refuses a request, as E*TRADE words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AlertRefusal {
    #[error("{}", codes::invalid_parameter(.0))]
    InvalidParam(&'static str),
    /// A `count` above [`MAX_COUNT`].
    #[error("Service unrecoverable error.")]
    CountTooLarge,
    #[error("There are currently no alerts in your inbox.")]
    NoAlerts,
    #[error("Alert Id should be greater than 0.")]
    BadId,
}

impl AlertRefusal {
    pub fn status(&self) -> u16 {
        match self {
            AlertRefusal::CountTooLarge => 500,
            AlertRefusal::NoAlerts => 404,
            AlertRefusal::InvalidParam(_) | AlertRefusal::BadId => 400,
        }
    }

    pub fn code(&self) -> i64 {
        match self {
            AlertRefusal::InvalidParam(_) => codes::INVALID_PARAMETER,
            AlertRefusal::CountTooLarge => 25,
            AlertRefusal::NoAlerts => 53,
            AlertRefusal::BadId => codes::BAD_ALERT_ID,
        }
    }
}

/// The most alerts one list answer may ask for.
pub const MAX_COUNT: usize = 300;

/// The list query, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertQuery {
    pub count: usize,
    pub category: Option<String>,
    pub status: Option<String>,
    pub ascending: bool,
    /// Lower case; matched within subjects.
    pub search: Option<String>,
}

impl AlertQuery {
    /// From the request's query parameters (`param` gives one by name).
    pub fn parse<'a>(param: impl Fn(&str) -> Option<&'a str>) -> Result<AlertQuery, AlertRefusal> {
        let count = match param("count") {
            None => 25,
            Some(v) => match v.parse::<usize>() {
                Ok(0) | Err(_) => return Err(AlertRefusal::InvalidParam("count")),
                Ok(n) if n > MAX_COUNT => return Err(AlertRefusal::CountTooLarge),
                Ok(n) => n,
            },
        };
        let category = param("category");
        if category.is_some_and(|c| !["STOCK", "ACCOUNT"].contains(&c)) {
            return Err(AlertRefusal::InvalidParam("category"));
        }
        let status = param("status");
        if status.is_some_and(|c| !["READ", "UNREAD", "DELETED"].contains(&c)) {
            return Err(AlertRefusal::InvalidParam("status"));
        }
        let ascending = match param("direction") {
            None | Some("DESC") => false,
            Some("ASC") => true,
            Some(_) => return Err(AlertRefusal::InvalidParam("direction")),
        };
        Ok(AlertQuery {
            count,
            category: category.map(str::to_string),
            status: status.map(str::to_string),
            ascending,
            search: param("search").map(str::to_ascii_lowercase),
        })
    }
}

/// An alert id of a path: a positive integer.
pub fn alert_id(text: &str) -> Result<i64, AlertRefusal> {
    match text.trim().parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(AlertRefusal::BadId),
    }
}

/// The inbox and what was deleted from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlertInbox {
    alerts: Vec<Alert>,
    /// Deleted alert id → when (epoch seconds).
    deleted: BTreeMap<i64, i64>,
}

impl AlertInbox {
    pub fn new(alerts: Vec<Alert>) -> AlertInbox {
        AlertInbox {
            alerts,
            deleted: BTreeMap::new(),
        }
    }

    fn status_of<'a>(&self, a: &'a Alert) -> &'a str {
        if self.deleted.contains_key(&a.id) {
            "DELETED"
        } else {
            &a.status
        }
    }

    /// The ids deleted (or not), ascending.
    pub fn ids(&self, deleted: bool) -> Vec<i64> {
        let mut ids: Vec<i64> = self
            .alerts
            .iter()
            .map(|a| a.id)
            .filter(|id| self.deleted.contains_key(id) == deleted)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// `AlertsResponse`: the newest (or oldest) `count` alerts that match.
    pub fn list(&self, q: &AlertQuery) -> Result<Value, AlertRefusal> {
        let mut hits: Vec<&Alert> = self
            .alerts
            .iter()
            .filter(|a| q.category.as_ref().is_none_or(|c| a.category == *c))
            .filter(|a| match &q.status {
                None => self.status_of(a) != "DELETED",
                Some(st) => self.status_of(a) == st,
            })
            .filter(|a| {
                q.search
                    .as_ref()
                    .is_none_or(|w| a.subject.to_ascii_lowercase().contains(w))
            })
            .collect();
        if hits.is_empty() {
            return Err(AlertRefusal::NoAlerts);
        }
        hits.sort_by_key(|a| a.create_time);
        if !q.ascending {
            hits.reverse();
        }
        let page: Vec<Value> = hits
            .iter()
            .take(q.count)
            .map(|a| json!({"id": a.id, "createTime": a.create_time, "subject": a.subject, "status": self.status_of(a)}))
            .collect();
        Ok(json!({"AlertsResponse": {"totalAlerts": hits.len(), "Alert": page}}))
    }

    /// `AlertDetailsResponse`, linking the neighbours among the alerts not deleted.
    pub fn details(&self, id: i64, html: bool, base_url: &str) -> Result<Value, AlertRefusal> {
        let visible: Vec<&Alert> = self
            .alerts
            .iter()
            .filter(|a| !self.deleted.contains_key(&a.id))
            .collect();
        let pos = visible
            .iter()
            .position(|a| a.id == id)
            .ok_or(AlertRefusal::NoAlerts)?;
        let a = visible[pos];
        let link = |i: Option<&&Alert>| {
            i.map(|x| format!("{base_url}/v1/user/alerts/{}", x.id))
                .unwrap_or_default()
        };
        let text = if html {
            format!("<html><body><p>{}</p></body></html>", a.text)
        } else {
            a.text.clone()
        };
        Ok(
            json!({"AlertDetailsResponse": {"id": a.id, "createTime": a.create_time,
            "subject": a.subject, "msgText": text,
            "readTime": if a.status == "READ" { a.create_time + 600 } else { 0 },
            "deleteTime": 0, "symbol": a.symbol,
            "next": link(visible.get(pos + 1)),
            "prev": link(pos.checked_sub(1).and_then(|p| visible.get(p)))}}),
        )
    }

    /// Deletes each id that exists and is not deleted yet (at `now_s`); the others are the
    /// answer's `failedAlerts`.
    pub fn delete(&mut self, ids: &[i64], now_s: i64) -> Value {
        let mut failed = Vec::new();
        for &id in ids {
            if self.alerts.iter().any(|a| a.id == id) && !self.deleted.contains_key(&id) {
                self.deleted.insert(id, now_s);
            } else {
                failed.push(id);
            }
        }
        if failed.is_empty() {
            json!({"AlertsResponse": {"result": "SUCCESS"}})
        } else {
            json!({"AlertsResponse": {"result": "ERROR", "failedAlerts": {"alertId": failed}}})
        }
    }
}
