//! The data of `server_status`: everything answered locally, no broker request.

use crate::config::Environment;
use crate::credentials::{CredentialEstimate, CredentialKey, CredentialStore, estimate};
use crate::mcp::catalog::Catalog;
use crate::mcp::dispatch::{CallContext, Transport};
use crate::mcp::server::{CAPABILITIES, PROTOCOL_VERSIONS, SERVER_NAME, SERVER_VERSION};
use serde::Serialize;

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
    pub credentials: CredentialEstimate,
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

pub fn server_status(
    catalog: &Catalog,
    ctx: &CallContext,
    store: &dyn CredentialStore,
    key: &CredentialKey,
    now: jiff::Timestamp,
) -> ServerStatus {
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
        credentials: estimate(store, key, now),
    }
}
