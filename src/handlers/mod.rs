//! The hand-written side of the tool layer: what the handlers share ([`Handlers`]) and, one
//! module per group, the tools with logic of their own. Tools that only read through the
//! broker have their whole handler generated from `spec/tools.yaml`.

mod accounts;
mod alerts;
mod app_ticket;
mod journal_view;
mod market;
pub mod order_ticket;
mod orders;
mod status;

use crate::generated::ToolHandlers;
use runtime::broker::Broker;
use runtime::credentials::{CredentialKey, CredentialStore};
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
    /// What `server_status` keeps between calls.
    pub status: runtime::mcp::status::StatusCache,
}

impl ToolHandlers for Handlers {
    fn broker(&self) -> &dyn Broker {
        self.broker.as_ref()
    }
}
