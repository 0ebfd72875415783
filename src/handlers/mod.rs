//! One handler per tool: each turns its typed input into runtime calls. The trait impl
//! here only delegates; each group's handlers live in their own module.

mod accounts;
mod alerts;
mod market;
mod orders;
mod status;
pub mod trading;

use crate::generated::{self, ToolHandlers};
use runtime::broker::Broker;
use runtime::contract::error_mapping::Operation;
use runtime::contract::errors::{ErrorCode, ToolError};
use runtime::credentials::{CredentialKey, CredentialStore};
use runtime::etrade::{ApiRequest, Method, Module};
use runtime::mcp::dispatch::{CallContext, ToolResult};
use serde_json::Value;
use std::sync::Arc;

/// What the handlers share for the life of the server.
pub struct Handlers {
    pub credentials: Arc<dyn CredentialStore>,
    pub credential_key: CredentialKey,
    /// The brokerage: the E*TRADE session, or the paper broker.
    pub broker: Arc<dyn Broker>,
    /// The paper book when the paper broker serves (for server_status).
    pub paper: Option<Arc<runtime::paper::book::PaperBook>>,
    /// Where paper quotes come from while credentials are active ("etrade" or
    /// "etrade_sandbox"); None: always the simulator.
    pub live_quotes: Option<&'static str>,
    /// Order entry and the journal.
    pub desk: Arc<runtime::trading::desk::OrderDesk>,
}

impl Handlers {
    /// One signed GET for a read tool; `Ok(None)` is E*TRADE's empty answer.
    async fn read(
        &self,
        module: Module,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Option<Value>, ToolError> {
        self.broker
            .call(&ApiRequest {
                operation: Operation::Read,
                module,
                method: Method::GET,
                path,
                query,
                body: None,
            })
            .await
    }
}

/// Serialize a client model as the tool's `data`.
fn data<T: serde::Serialize>(value: &T) -> ToolResult {
    serde_json::to_value(value).map_err(|_| ToolError::internal())
}

/// A broker answer that does not fit the client model.
fn unreadable<E>(_: E) -> ToolError {
    ToolError::new(ErrorCode::InvalidBrokerResponse)
}

impl ToolHandlers for Handlers {
    async fn server_status(
        &self,
        ctx: &CallContext,
        input: generated::ServerStatusInput,
    ) -> ToolResult {
        status::server_status(self, ctx, input)
    }

    async fn list_accounts(
        &self,
        _ctx: &CallContext,
        _input: generated::ListAccountsInput,
    ) -> ToolResult {
        accounts::list_accounts(self).await
    }

    // --- accounts read tools ---
    async fn get_account_balances(
        &self,
        _ctx: &CallContext,
        input: generated::GetAccountBalancesInput,
    ) -> ToolResult {
        accounts::get_account_balances(self, input).await
    }

    async fn get_portfolio(
        &self,
        _ctx: &CallContext,
        input: generated::GetPortfolioInput,
    ) -> ToolResult {
        accounts::get_portfolio(self, input).await
    }

    async fn get_position_lots(
        &self,
        _ctx: &CallContext,
        input: generated::GetPositionLotsInput,
    ) -> ToolResult {
        accounts::get_position_lots(self, input).await
    }

    async fn list_transactions(
        &self,
        _ctx: &CallContext,
        input: generated::ListTransactionsInput,
    ) -> ToolResult {
        accounts::list_transactions(self, input).await
    }

    async fn get_transaction_details(
        &self,
        _ctx: &CallContext,
        input: generated::GetTransactionDetailsInput,
    ) -> ToolResult {
        accounts::get_transaction_details(self, input).await
    }

    // --- market read tools ---

    async fn get_quotes(&self, _ctx: &CallContext, input: generated::GetQuotesInput) -> ToolResult {
        market::get_quotes(self, input).await
    }

    async fn lookup_product(
        &self,
        _ctx: &CallContext,
        input: generated::LookupProductInput,
    ) -> ToolResult {
        market::lookup_product(self, input).await
    }

    async fn get_option_chains(
        &self,
        _ctx: &CallContext,
        input: generated::GetOptionChainsInput,
    ) -> ToolResult {
        market::get_option_chains(self, input).await
    }

    async fn get_option_expire_dates(
        &self,
        _ctx: &CallContext,
        input: generated::GetOptionExpireDatesInput,
    ) -> ToolResult {
        market::get_option_expire_dates(self, input).await
    }

    // --- orders and alerts read tools ---

    async fn list_orders(
        &self,
        _ctx: &CallContext,
        input: generated::ListOrdersInput,
    ) -> ToolResult {
        orders::list_orders(self, input).await
    }

    async fn list_alerts(
        &self,
        _ctx: &CallContext,
        input: generated::ListAlertsInput,
    ) -> ToolResult {
        alerts::list_alerts(self, input).await
    }

    async fn get_alert_details(
        &self,
        _ctx: &CallContext,
        input: generated::GetAlertDetailsInput,
    ) -> ToolResult {
        alerts::get_alert_details(self, input).await
    }

    // --- order entry and alert deletion ---

    async fn preview_order(
        &self,
        _ctx: &CallContext,
        input: generated::PreviewOrderInput,
    ) -> ToolResult {
        trading::preview_order(self, input).await
    }

    async fn place_order(
        &self,
        _ctx: &CallContext,
        input: generated::PlaceOrderInput,
    ) -> ToolResult {
        trading::place_order(self, input).await
    }

    async fn cancel_order(
        &self,
        _ctx: &CallContext,
        input: generated::CancelOrderInput,
    ) -> ToolResult {
        trading::cancel_order(self, input).await
    }

    async fn preview_change_order(
        &self,
        _ctx: &CallContext,
        input: generated::PreviewChangeOrderInput,
    ) -> ToolResult {
        trading::preview_change_order(self, input).await
    }

    async fn place_change_order(
        &self,
        _ctx: &CallContext,
        input: generated::PlaceChangeOrderInput,
    ) -> ToolResult {
        trading::place_change_order(self, input).await
    }

    async fn delete_alerts(
        &self,
        _ctx: &CallContext,
        input: generated::DeleteAlertsInput,
    ) -> ToolResult {
        trading::delete_alerts(self, input).await
    }

    async fn list_order_journal(
        &self,
        _ctx: &CallContext,
        input: generated::ListOrderJournalInput,
    ) -> ToolResult {
        trading::list_order_journal(self, input).await
    }
}
