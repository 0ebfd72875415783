//! Alert reads: the inbox (an empty inbox, E*TRADE's HTTP 404 with code 53, is an empty
//! list) and one alert's details.

use super::{Handlers, data, unreadable};
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::etrade::Module;
use runtime::etrade::models::alerts::{AlertDetails, AlertList};
use runtime::mcp::dispatch::ToolResult;

/// E*TRADE's "There are currently no alerts in your inbox."
fn is_empty_inbox(e: &ToolError) -> bool {
    e.status_code == Some(404) && e.broker_code.as_deref() == Some("53")
}

pub async fn list_alerts(h: &Handlers, input: generated::ListAlertsInput) -> ToolResult {
    let mut query = Vec::new();
    if let Some(c) = input.count {
        query.push(("count", c.to_string()));
    }
    if let Some(c) = input.category {
        query.push(("category", c.as_str().to_string()));
    }
    if let Some(s) = input.status {
        query.push(("status", s.as_str().to_string()));
    }
    if let Some(d) = input.direction {
        query.push(("direction", d.as_str().to_string()));
    }
    if let Some(s) = &input.search {
        query.push(("search", s.clone()));
    }
    match h.read(Module::Alerts, "/v1/user/alerts", &query).await {
        Ok(body) => data(&AlertList::from_wire(body).map_err(unreadable)?),
        Err(e) if is_empty_inbox(&e) => data(&AlertList::empty()),
        Err(e) => Err(e),
    }
}

pub async fn get_alert_details(h: &Handlers, input: generated::GetAlertDetailsInput) -> ToolResult {
    let mut query = Vec::new();
    if let Some(b) = input.html_tags {
        query.push(("htmlTags", b.to_string()));
    }
    let path = format!("/v1/user/alerts/{}", input.alert_id);
    let body = h.read(Module::Alerts, &path, &query).await?;
    data(&AlertDetails::from_wire(body).map_err(unreadable)?)
}
