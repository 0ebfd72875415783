//! The seam between the runtime's MCP server and the generated tool layer.

use crate::config::Environment;
use crate::contract::errors::ToolError;
use crate::mcp::catalog::Catalog;
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::Pin;
use tokio_util::sync::CancellationToken;

pub type JsonObject = Map<String, Value>;
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
/// A handler's outcome: the tool's `data`, or the error object.
pub type ToolResult = Result<ToolData, ToolError>;
pub use crate::contract::envelope::{ToolData, TypedData};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Stdio,
    Http,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }
}

/// What a handler knows about the call it serves.
#[derive(Clone)]
pub struct CallContext {
    pub environment: Environment,
    pub profile: String,
    pub transport: Transport,
    /// Permission names granted at startup.
    pub granted: Vec<&'static str>,
    /// Fires when the client cancels the request or the server shuts down.
    pub cancel: CancellationToken,
    /// Asks the person at the client (approvals); `None` outside an MCP session and for a
    /// client whose channels may not approve.
    pub ask: Option<std::sync::Arc<dyn crate::trading::approval::AskPerson>>,
    /// Who may be this client: whether its channels (form, link, ticket) may approve.
    pub client_trust: crate::trading::approval::ClientTrust,
    /// The server's clock when the call began (in paper, the simulated clock): the answer's
    /// `meta.observed_at`, and what a handler reports as "now".
    pub now: jiff::Timestamp,
}

impl CallContext {
    pub fn is_granted(&self, permission: &str) -> bool {
        self.granted.contains(&permission)
    }
}

/// Implemented by the generated `Tools<H>`: the catalog plus validated dispatch.
pub trait ToolDispatch: Send + Sync + 'static {
    fn catalog(&self) -> &'static Catalog;

    /// `None` when no tool has this name.
    fn call<'a>(
        &'a self,
        name: &'a str,
        args: JsonObject,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Option<ToolResult>>;
}
