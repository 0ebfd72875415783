//! The `accounts` tool with logic of its own: the transaction list refuses a range that ends
//! before it starts. (The other account tools are generated reads.)

use super::Handlers;
use crate::generated;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::answers::TransactionPage;
use runtime::mcp::dispatch::{CallContext, ToolResult};
use runtime::mcp::reads::read;

impl generated::AccountsHandlers for Handlers {
    async fn list_transactions(
        &self,
        _ctx: &CallContext,
        input: generated::ListTransactionsInput,
    ) -> ToolResult {
        if let (Some(start), Some(end)) = (input.start_date, input.end_date)
            && start > end
        {
            return Err(client_validation_error([ClientProblem {
                path: vec![PathSegment::Key("end_date")],
                reason: ClientReason::OutOfRange,
            }]));
        }
        read::<TransactionPage>(self.broker.as_ref(), &input.broker_request()).await
    }
}
