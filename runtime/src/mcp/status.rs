//! The data of `server_status`: everything answered locally, no broker request.
//!
//! Most of it is fixed for the life of the server (identity, protocol versions, the enabled
//! tools and permissions), so it is built once ([`StatusCache`]) and only the parts that can
//! change between calls are added to each answer: the credential estimate here, the paper
//! clock and the halt switch in the handler.

use crate::config::Environment;
use crate::credentials::{CredentialEstimate, CredentialKey, CredentialStore, RecentReads};
use crate::mcp::catalog::Catalog;
use crate::mcp::dispatch::{CallContext, Transport};
use crate::mcp::server::{CAPABILITIES, PROTOCOL_VERSIONS, SERVER_NAME, SERVER_VERSION};
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The part of the status fixed at startup.
#[derive(Debug, Serialize)]
pub struct ServerStatus {
    pub server: ServerIdentity,
    pub protocol_versions: Vec<String>,
    pub environment: Environment,
    pub profile: String,
    pub transport: Transport,
    pub tools: Vec<EnabledTool>,
    pub permissions: Vec<PermissionGrant>,
    pub capabilities: Vec<&'static str>,
}

#[derive(Debug, Serialize)]
pub struct ServerIdentity {
    pub name: &'static str,
    pub version: &'static str,
}

#[derive(Debug, Serialize)]
pub struct EnabledTool {
    pub name: &'static str,
    pub permission: &'static str,
}

#[derive(Debug, Serialize)]
pub struct PermissionGrant {
    pub name: &'static str,
    pub granted: bool,
    pub flag: Option<&'static str>,
}

/// What `server_status` keeps between calls; one per server (its startup flags are fixed).
#[derive(Debug, Default)]
pub struct StatusCache {
    fixed: OnceLock<Map<String, Value>>,
    credentials: RecentReads,
}

impl StatusCache {
    /// The fixed part as a JSON object, built by `build` at the first call. Building it
    /// costs about as much as the rest of the call together; copying it, a fraction.
    pub fn fixed(
        &self,
        build: impl FnOnce() -> Result<Map<String, Value>, serde_json::Error>,
    ) -> Result<Map<String, Value>, serde_json::Error> {
        if let Some(fixed) = self.fixed.get() {
            return Ok(fixed.clone());
        }
        let built = build()?;
        // Two first calls may both build; they build the same object.
        Ok(self.fixed.get_or_init(|| built).clone())
    }

    /// The credential estimate as of `now`, from a store read at most
    /// [`crate::credentials::RECENT_READ_TTL`] old.
    pub fn credentials(
        &self,
        store: &dyn CredentialStore,
        key: &CredentialKey,
        now: jiff::Timestamp,
    ) -> CredentialEstimate {
        self.credentials.estimate(store, key, now)
    }
}

pub fn server_status(catalog: &Catalog, ctx: &CallContext) -> ServerStatus {
    ServerStatus {
        server: ServerIdentity {
            name: SERVER_NAME,
            version: SERVER_VERSION,
        },
        protocol_versions: PROTOCOL_VERSIONS.iter().map(|v| v.to_string()).collect(),
        environment: ctx.environment,
        profile: ctx.profile.clone(),
        transport: ctx.transport,
        tools: catalog
            .tools
            .iter()
            .filter(|t| ctx.is_granted(t.permission))
            .map(|t| EnabledTool {
                name: t.name,
                permission: t.permission,
            })
            .collect(),
        permissions: catalog
            .permissions
            .iter()
            .map(|p| PermissionGrant {
                name: p.name,
                granted: ctx.is_granted(p.name),
                flag: p.flag,
            })
            .collect(),
        capabilities: CAPABILITIES.to_vec(),
    }
}
