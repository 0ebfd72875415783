//! Account tools: list accounts, balances, portfolio (paged), position lots, transactions
//! (paged by marker) and transaction details. Each makes one broker request.

use super::{Handlers, data, unreadable};
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::models::accounts::AccountList;
use runtime::etrade::models::balances::Balance;
use runtime::etrade::models::portfolio::{PortfolioPage, PositionLots};
use runtime::etrade::models::transactions::{TransactionDetails, TransactionPage};
use runtime::etrade::{Module, query_date};
use runtime::mcp::dispatch::ToolResult;

pub async fn list_accounts(h: &Handlers) -> ToolResult {
    let body = h.read(Module::Accounts, "/v1/accounts/list", &[]).await?;
    data(&AccountList::from_wire(body).map_err(unreadable)?)
}

/// A value that goes into the request path must keep to E*TRADE's alphabet for it (the
/// schema cannot say so without anchored patterns), or nothing is sent.
fn path_value(value: &str, field: &'static str, ok: fn(char) -> bool) -> Result<(), ToolError> {
    if !value.is_empty() && value.chars().all(ok) {
        return Ok(());
    }
    Err(client_validation_error([ClientProblem {
        path: vec![PathSegment::Key(field)],
        reason: ClientReason::InvalidFormat,
    }]))
}

/// `accountIdKey`: opaque, URL-safe.
fn account_key(value: &str) -> Result<&str, ToolError> {
    path_value(value, "account_id_key", |c| {
        c.is_ascii_alphanumeric() || c == '_' || c == '-'
    })?;
    Ok(value)
}

pub async fn get_account_balances(
    h: &Handlers,
    input: generated::GetAccountBalancesInput,
) -> ToolResult {
    // E*TRADE requires instType; BROKERAGE is its only value.
    let inst_type = input.inst_type.map_or("BROKERAGE", |t| t.as_str());
    let mut query = vec![("instType", inst_type.to_string())];
    if let Some(b) = input.real_time_nav {
        query.push(("realTimeNAV", b.to_string()));
    }
    if let Some(t) = input.account_type {
        query.push(("accountType", t.as_str().to_string()));
    }
    let path = format!(
        "/v1/accounts/{}/balance",
        account_key(&input.account_id_key)?
    );
    let body = h.read(Module::Accounts, &path, &query).await?;
    data(&Balance::from_wire(body).map_err(unreadable)?)
}

pub async fn get_portfolio(h: &Handlers, input: generated::GetPortfolioInput) -> ToolResult {
    let mut query = Vec::new();
    if let Some(n) = input.count {
        query.push(("count", n.to_string()));
    }
    if let Some(s) = input.sort_by {
        query.push(("sortBy", s.as_str().to_string()));
    }
    if let Some(o) = input.sort_order {
        query.push(("sortOrder", o.as_str().to_string()));
    }
    if let Some(p) = input.page_number {
        query.push(("pageNumber", p.to_string()));
    }
    if let Some(m) = input.market_session {
        query.push(("marketSession", m.as_str().to_string()));
    }
    if let Some(b) = input.totals_required {
        query.push(("totalsRequired", b.to_string()));
    }
    if let Some(b) = input.lots_required {
        query.push(("lotsRequired", b.to_string()));
    }
    if let Some(v) = input.view {
        query.push(("view", v.as_str().to_string()));
    }
    let path = format!(
        "/v1/accounts/{}/portfolio",
        account_key(&input.account_id_key)?
    );
    let body = h.read(Module::Accounts, &path, &query).await?;
    let page = input.page_number.unwrap_or(1);
    data(&PortfolioPage::from_wire(body, page).map_err(unreadable)?)
}

pub async fn get_position_lots(h: &Handlers, input: generated::GetPositionLotsInput) -> ToolResult {
    let path = format!(
        "/v1/accounts/{}/portfolio/{}",
        account_key(&input.account_id_key)?,
        input.position_id
    );
    let body = h.read(Module::Accounts, &path, &[]).await?;
    data(&PositionLots::from_wire(body).map_err(unreadable)?)
}

pub async fn list_transactions(
    h: &Handlers,
    input: generated::ListTransactionsInput,
) -> ToolResult {
    let key = account_key(&input.account_id_key)?;
    if let (Some(start), Some(end)) = (input.start_date, input.end_date)
        && start > end
    {
        return Err(client_validation_error([ClientProblem {
            path: vec![PathSegment::Key("end_date")],
            reason: ClientReason::OutOfRange,
        }]));
    }
    let mut query = Vec::new();
    if let Some(d) = input.start_date {
        query.push(("startDate", query_date(d)));
    }
    if let Some(d) = input.end_date {
        query.push(("endDate", query_date(d)));
    }
    if let Some(o) = input.sort_order {
        query.push(("sortOrder", o.as_str().to_string()));
    }
    if let Some(m) = input.marker {
        query.push(("marker", m));
    }
    if let Some(n) = input.count {
        query.push(("count", n.to_string()));
    }
    let path = format!("/v1/accounts/{key}/transactions");
    let body = h.read(Module::Accounts, &path, &query).await?;
    data(&TransactionPage::from_wire(body).map_err(unreadable)?)
}

pub async fn get_transaction_details(
    h: &Handlers,
    input: generated::GetTransactionDetailsInput,
) -> ToolResult {
    path_value(&input.transaction_id, "transaction_id", |c| {
        c.is_ascii_digit()
    })?;
    let mut query = Vec::new();
    if let Some(s) = input.store_id {
        query.push(("storeId", s.to_string()));
    }
    let path = format!(
        "/v1/accounts/{}/transactions/{}",
        account_key(&input.account_id_key)?,
        input.transaction_id
    );
    let body = h.read(Module::Accounts, &path, &query).await?;
    data(&TransactionDetails::from_wire(body).map_err(unreadable)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_go_out_as_mmddyyyy() {
        let d = jiff::civil::date(2024, 3, 7);
        assert_eq!(super::query_date(d), "03072024");
    }

    #[test]
    fn path_values_keep_to_their_alphabet() {
        assert!(super::account_key("idU1aBkPvD5n46JI_7S_2A").is_ok());
        for bad in ["", "a/b", "../list", "a b", "k?x=1", "é"] {
            let e = super::account_key(bad).expect_err(bad);
            assert_eq!(e.code.as_str(), "invalid_input");
            assert_eq!(e.validation_errors[0].code, "invalid_format");
        }
        assert!(super::path_value("123", "transaction_id", |c| c.is_ascii_digit()).is_ok());
        assert!(super::path_value("12ab", "transaction_id", |c| c.is_ascii_digit()).is_err());
    }
}
