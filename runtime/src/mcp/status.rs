//! The data of `server_status`: everything answered locally, no broker request.
//!
//! Most of it is fixed for the life of the server (identity, protocol versions, the enabled
//! tools and permissions), so it is built once ([`StatusCache`]) and only the parts that can
//! change between calls are added to each answer: the credential estimate here, the paper
//! clock and the halt switch in the handler.

use crate::config::Environment;
use crate::credentials::{self, CredentialKey, CredentialState, CredentialStore, RecentReads};
use crate::mcp::catalog::Catalog;
use crate::mcp::dispatch::{CallContext, Transport};
use crate::mcp::server::{CAPABILITIES, PROTOCOL_VERSIONS, SERVER_NAME, SERVER_VERSION};
use crate::outputs::{
    CredentialEstimate, CredentialEstimateEnvironment, CredentialEstimateState, ServerStatusOutput,
    ServerStatusOutputEnvironment, ServerStatusOutputMarketData, ServerStatusOutputPermissionsItem,
    ServerStatusOutputServer, ServerStatusOutputToolsItem, ServerStatusOutputTradingPolicy,
    ServerStatusOutputTransport,
};
use std::sync::OnceLock;

/// What `server_status` keeps between calls; one per server (its startup flags are fixed).
#[derive(Debug, Default)]
pub struct StatusCache {
    fixed: OnceLock<ServerStatusOutput>,
    credentials: RecentReads,
}

impl StatusCache {
    /// The status as built by `build` at the first call; later calls copy it and replace
    /// the parts that change. Building it costs about as much as the rest of the call
    /// together; copying it, a fraction.
    pub fn fixed(&self, build: impl FnOnce() -> ServerStatusOutput) -> ServerStatusOutput {
        // Two first calls may both build; they build the same status.
        self.fixed.get_or_init(build).clone()
    }

    /// The credential estimate as of `now`, from a store read at most
    /// [`crate::credentials::RECENT_READ_TTL`] old.
    pub fn credentials(
        &self,
        store: &dyn CredentialStore,
        key: &CredentialKey,
        now: jiff::Timestamp,
    ) -> CredentialEstimate {
        estimate_output(self.credentials.estimate(store, key, now))
    }
}

/// The status from the catalog, the call's context and the parts the server's owner holds.
pub fn server_status(
    catalog: &Catalog,
    ctx: &CallContext,
    credentials: CredentialEstimate,
    market_data: ServerStatusOutputMarketData,
    trading_policy: Option<ServerStatusOutputTradingPolicy>,
) -> ServerStatusOutput {
    ServerStatusOutput {
        server: ServerStatusOutputServer {
            name: SERVER_NAME.to_string(),
            version: SERVER_VERSION.to_string(),
        },
        protocol_versions: PROTOCOL_VERSIONS.iter().map(|v| v.to_string()).collect(),
        environment: match ctx.environment {
            Environment::Paper => ServerStatusOutputEnvironment::Paper,
            Environment::Sandbox => ServerStatusOutputEnvironment::Sandbox,
            Environment::Production => ServerStatusOutputEnvironment::Production,
        },
        profile: ctx.profile.clone(),
        transport: match ctx.transport {
            Transport::Stdio => ServerStatusOutputTransport::Stdio,
            Transport::Http => ServerStatusOutputTransport::Http,
        },
        tools: catalog
            .tools
            .iter()
            .filter(|t| ctx.is_granted(t.permission))
            .map(|t| ServerStatusOutputToolsItem {
                name: t.name.to_string(),
                permission: t.permission.to_string(),
            })
            .collect(),
        permissions: catalog
            .permissions
            .iter()
            .map(|p| ServerStatusOutputPermissionsItem {
                name: p.name.to_string(),
                granted: ctx.is_granted(p.name),
                flag: p.flag.map(str::to_string),
            })
            .collect(),
        capabilities: CAPABILITIES.iter().map(|c| c.to_string()).collect(),
        credentials,
        market_data,
        trading_policy,
    }
}

/// The credentials module's estimate as `server_status` shows it.
fn estimate_output(e: credentials::CredentialEstimate) -> CredentialEstimate {
    CredentialEstimate {
        state: match e.state {
            CredentialState::Missing => CredentialEstimateState::Missing,
            CredentialState::Present => CredentialEstimateState::Present,
            CredentialState::Active => CredentialEstimateState::Active,
            CredentialState::Inactive => CredentialEstimateState::Inactive,
            CredentialState::Expired => CredentialEstimateState::Expired,
            CredentialState::Unavailable => CredentialEstimateState::Unavailable,
        },
        required: e.required,
        environment: match e.environment {
            Environment::Paper => CredentialEstimateEnvironment::Paper,
            Environment::Sandbox => CredentialEstimateEnvironment::Sandbox,
            Environment::Production => CredentialEstimateEnvironment::Production,
        },
        profile: e.profile,
        backend: e.backend.to_string(),
        authorized_at: e.authorized_at,
        last_used_at: e.last_used_at,
        expires_at: e.expires_at,
        detail: e.detail,
    }
}
