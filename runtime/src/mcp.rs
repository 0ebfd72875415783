//! The MCP surface: the server and its transports (stdio, streamable HTTP), tool dispatch,
//! the catalog that `tools/list` shows, and `server_status`.

pub mod approval_page;
pub mod apps;
pub mod ask;
pub mod catalog;
pub mod compact;
pub mod dispatch;
pub mod held_results;
pub mod http;
pub mod http_sessions;
pub mod input_required;
pub mod reads;
pub mod request_state;
pub mod server;
pub mod status;
pub mod stdio;
pub mod wire_fixes;
