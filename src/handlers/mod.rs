//! One handler per tool: each turns its typed input into runtime calls. The trait impl
//! here only delegates; each group's handlers live in their own module.

mod accounts;
mod status;

use crate::generated::{self, ToolHandlers};
use runtime::credentials::{CredentialKey, CredentialStore};
use runtime::dispatch::{CallContext, ToolResult};
use runtime::error_mapping::Operation;
use runtime::errors::{ErrorCode, ToolError};
use runtime::etrade::{ApiRequest, EtradeSession, Method, Module};
use serde_json::Value;
use std::sync::Arc;

/// What the handlers share for the life of the server.
pub struct Handlers {
    pub credentials: Arc<dyn CredentialStore>,
    pub credential_key: CredentialKey,
    /// The E*TRADE session; `None` in the paper environment.
    pub etrade: Option<Arc<EtradeSession>>,
}

impl Handlers {
    fn etrade(&self) -> Result<&EtradeSession, ToolError> {
        self.etrade.as_deref().ok_or_else(|| ToolError {
            message: format!(
                "{} The paper broker does not serve it yet; use --environment sandbox or production.",
                ErrorCode::ToolNotAvailable.summary()
            ),
            ..ToolError::new(ErrorCode::ToolNotAvailable)
        })
    }

    /// One signed GET for a read tool; `Ok(None)` is E*TRADE's empty answer.
    async fn read(
        &self,
        module: Module,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Option<Value>, ToolError> {
        self.etrade()?
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

    // --- accounts read tools (issue 5) ---

    // --- market read tools (issue 5) ---

    // --- orders and alerts read tools (issue 5) ---
}
