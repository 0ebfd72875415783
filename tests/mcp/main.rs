//! The MCP surface: stdio and HTTP, both protocol eras, sessions, two servers, redaction, load.
//!
//! One test binary per area (linking one binary per file costs minutes on two cores); each
//! file is a module named as it was.

#[path = "../common/mod.rs"]
mod common;

mod apps_browser;
mod conformance;
mod http_load;
mod http_sessions;
mod mcp_http;
mod mcp_modern;
mod mcp_stdio;
mod protocol_edges;
mod redaction;
mod two_servers;
