//! One handler per tool: each turns its typed input into runtime calls.

use crate::generated::{self, ToolHandlers};
use runtime::credentials::{CredentialKey, CredentialStore};
use runtime::dispatch::{CallContext, ToolResult};
use runtime::errors::ToolError;
use std::sync::Arc;

/// What the handlers share for the life of the server.
pub struct Handlers {
    pub credentials: Arc<dyn CredentialStore>,
    pub credential_key: CredentialKey,
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
}
