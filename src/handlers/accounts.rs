//! The `accounts` tools with logic of their own: the transaction list and summary refuse a
//! range that ends before it starts, and the overview and summary read every page. (The
//! other account tools are generated reads.)

use super::Handlers;
use crate::generated;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::answers::TransactionPage;
use runtime::mcp::dispatch::{CallContext, ToolResult};
use runtime::mcp::reads::read;
use runtime::summaries::overview::{OverviewLimits, overview};
use runtime::summaries::transactions::{GroupBy, summarize};

/// `end_date` before `start_date`.
fn range_backwards() -> runtime::contract::errors::ToolError {
    client_validation_error([ClientProblem {
        path: vec![PathSegment::Key("end_date")],
        reason: ClientReason::OutOfRange,
    }])
}

impl generated::AccountsHandlers for Handlers {
    async fn list_transactions(
        &self,
        _ctx: &CallContext,
        input: generated::ListTransactionsInput,
    ) -> ToolResult {
        if let (Some(start), Some(end)) = (input.start_date, input.end_date)
            && start > end
        {
            return Err(range_backwards());
        }
        read::<TransactionPage>(self.broker.as_ref(), &input.broker_request()).await
    }

    async fn get_account_overview(
        &self,
        _ctx: &CallContext,
        input: generated::GetAccountOverviewInput,
    ) -> ToolResult {
        let limits = OverviewLimits {
            page_size: generated::GetAccountOverviewInput::PAGE_SIZE,
            max_pages: generated::GetAccountOverviewInput::PORTFOLIO_PAGES,
        };
        let answer = overview(
            self.broker.as_ref(),
            input.account_id_key.as_deref(),
            limits,
        )
        .await?;
        super::data(&answer)
    }

    async fn summarize_transactions(
        &self,
        _ctx: &CallContext,
        input: generated::SummarizeTransactionsInput,
    ) -> ToolResult {
        if input.start_date > input.end_date {
            return Err(range_backwards());
        }
        let group_by = match input.group_by {
            Some(generated::SummarizeTransactionsInputGroupBy::Symbol) => GroupBy::Symbol,
            Some(generated::SummarizeTransactionsInputGroupBy::TransactionType) | None => {
                GroupBy::TransactionType
            }
        };
        let answer = summarize(
            self.broker.as_ref(),
            &input.account_id_key,
            input.start_date,
            input.end_date,
            group_by,
            generated::SummarizeTransactionsInput::TRANSACTION_PAGES,
        )
        .await?;
        super::data(&answer)
    }
}
