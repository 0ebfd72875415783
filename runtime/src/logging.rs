//! Logs go to stderr only: with the stdio transport, stdout carries MCP messages.

use tracing_subscriber::EnvFilter;

/// `ETRADE_MCP_LOG` takes an env-filter directive (default: info, rmcp's chatter at warn).
pub fn init() {
    use std::io::IsTerminal;
    let filter = EnvFilter::try_from_env("ETRADE_MCP_LOG")
        .unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}
