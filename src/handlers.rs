//! One handler per tool: each turns its typed input into runtime calls.

use crate::generated::{self, ToolHandlers};
use runtime::credentials::{CredentialKey, CredentialStore};
use runtime::dispatch::{CallContext, ToolResult};
use runtime::error_mapping::Operation;
use runtime::errors::{ErrorCode, ToolError};
use runtime::etrade::models::accounts::AccountList;
use runtime::etrade::{ApiRequest, EtradeSession, Method, Module};
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
}

fn data<T: serde::Serialize>(value: &T) -> ToolResult {
    serde_json::to_value(value).map_err(|_| ToolError::internal())
}

impl ToolHandlers for Handlers {
    async fn server_status(
        &self,
        ctx: &CallContext,
        _input: generated::ServerStatusInput,
    ) -> ToolResult {
        let status = runtime::status::server_status(
            &generated::CATALOG,
            ctx,
            self.credentials.as_ref(),
            &self.credential_key,
            jiff::Timestamp::now(),
        );
        data(&status)
    }

    async fn list_accounts(
        &self,
        _ctx: &CallContext,
        _input: generated::ListAccountsInput,
    ) -> ToolResult {
        let body = self
            .etrade()?
            .call(&ApiRequest {
                operation: Operation::Read,
                module: Module::Accounts,
                method: Method::GET,
                path: "/v1/accounts/list",
                query: &[],
                body: None,
            })
            .await?;
        let list = AccountList::from_wire(body)
            .map_err(|_| ToolError::new(ErrorCode::InvalidBrokerResponse))?;
        data(&list)
    }
}
