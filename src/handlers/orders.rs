//! Order reads: list orders, one broker page per call (paged by E*TRADE's `marker`).

use super::{Handlers, data, unreadable};
use crate::generated;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::models::orders::OrderList;
use runtime::etrade::{Module, query_date};
use runtime::mcp::dispatch::ToolResult;

fn problem(field: &'static str, reason: ClientReason) -> ClientProblem {
    ClientProblem {
        path: vec![PathSegment::Key(field)],
        reason,
    }
}

pub async fn list_orders(h: &Handlers, input: generated::ListOrdersInput) -> ToolResult {
    // E*TRADE needs both dates or neither, and `toDate` after `fromDate` (pyetrade documents
    // "toDate should be greater than fromDate"). Equal dates are refused here rather than
    // widened and filtered: whether E*TRADE counts `toDate` in, and in which zone, is not
    // known, so a local filter could hide an order the caller asked for.
    let mut problems = Vec::new();
    match (input.from_date, input.to_date) {
        (Some(_), None) => problems.push(problem("to_date", ClientReason::Missing)),
        (None, Some(_)) => problems.push(problem("from_date", ClientReason::Missing)),
        (Some(from), Some(to)) if to <= from => problems.push(problem(
            "to_date",
            ClientReason::Rule {
                code: "not_after_from_date",
                message: "Must be a later day than from_date: E*TRADE wants toDate after \
                          fromDate. Widen the range; for one day's orders, set to_date to \
                          the next day.",
            },
        )),
        _ => {}
    }
    if !problems.is_empty() {
        return Err(client_validation_error(problems));
    }
    let mut query = Vec::new();
    if let Some(m) = &input.marker {
        query.push(("marker", m.clone()));
    }
    if let Some(c) = input.count {
        query.push(("count", c.to_string()));
    }
    if let Some(s) = input.status {
        query.push(("status", s.as_str().to_string()));
    }
    if let Some(d) = input.from_date {
        query.push(("fromDate", query_date(d)));
    }
    if let Some(d) = input.to_date {
        query.push(("toDate", query_date(d)));
    }
    if let Some(symbols) = &input.symbol {
        query.push(("symbol", symbols.join(",")));
    }
    if let Some(t) = input.security_type {
        query.push(("securityType", t.as_str().to_string()));
    }
    if let Some(t) = input.transaction_type {
        query.push(("transactionType", t.as_str().to_string()));
    }
    if let Some(m) = input.market_session {
        query.push(("marketSession", m.as_str().to_string()));
    }
    let path = format!("/v1/accounts/{}/orders", input.account_id_key);
    let body = h.read(Module::Orders, &path, &query).await?;
    data(&OrderList::from_wire(body).map_err(unreadable)?)
}
