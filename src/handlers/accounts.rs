//! The `accounts` tools with logic of their own: the overview and the transaction summary
//! read every page. (The other account tools are generated reads.)

use super::Handlers;
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::mcp::dispatch::CallContext;
use runtime::outputs::{GetAccountOverviewOutput, SummarizeTransactionsOutput};
use runtime::summaries::overview::{OverviewLimits, overview};
use runtime::summaries::transactions::{GroupBy, summarize};

impl generated::AccountsHandlers for Handlers {
    async fn get_account_overview(
        &self,
        _ctx: &CallContext,
        input: generated::GetAccountOverviewInput,
    ) -> Result<GetAccountOverviewOutput, ToolError> {
        let limits = OverviewLimits {
            page_size: generated::GetAccountOverviewInput::PAGE_SIZE,
            max_pages: generated::GetAccountOverviewInput::PORTFOLIO_PAGES,
        };
        overview(
            self.broker.as_ref(),
            input.account_id_key.as_deref(),
            limits,
        )
        .await
    }

    async fn summarize_transactions(
        &self,
        _ctx: &CallContext,
        input: generated::SummarizeTransactionsInput,
    ) -> Result<SummarizeTransactionsOutput, ToolError> {
        let group_by = match input.group_by {
            Some(generated::SummarizeTransactionsInputGroupBy::Symbol) => GroupBy::Symbol,
            Some(generated::SummarizeTransactionsInputGroupBy::TransactionType) | None => {
                GroupBy::TransactionType
            }
        };
        summarize(
            self.broker.as_ref(),
            &input.account_id_key,
            input.start_date,
            input.end_date,
            group_by,
            generated::SummarizeTransactionsInput::TRANSACTION_PAGES,
        )
        .await
    }
}
