//! Logs go to stderr only: with the stdio transport, stdout carries MCP messages.

use tracing_subscriber::EnvFilter;

/// `ETRADE_MCP_LOG` takes an env-filter directive (default: info, rmcp's chatter at warn).
pub fn init() {
    use std::io::IsTerminal;
    let directives = directives(std::env::var("ETRADE_MCP_LOG").ok().as_deref());
    let filter = EnvFilter::try_new(&directives).unwrap_or_else(|_| EnvFilter::new(DEFAULT));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}

const DEFAULT: &str = "info,rmcp=warn";

/// rmcp logs every MCP message at debug — tool arguments and results, i.e. account keys,
/// balances, positions and orders — so `ETRADE_MCP_LOG=debug` keeps rmcp at warn unless the
/// directive names rmcp itself (`debug,rmcp=debug` is an explicit opt-in).
fn directives(env: Option<&str>) -> String {
    match env.map(str::trim) {
        None | Some("") => DEFAULT.to_string(),
        Some(d) if d.split(',').any(|part| part.trim().starts_with("rmcp")) => d.to_string(),
        Some(d) => format!("{d},rmcp=warn"),
    }
}

#[cfg(test)]
mod tests {
    use super::directives;

    #[test]
    fn rmcp_stays_at_warn_unless_named() {
        assert_eq!(directives(None), "info,rmcp=warn");
        assert_eq!(directives(Some(" ")), "info,rmcp=warn");
        assert_eq!(directives(Some("debug")), "debug,rmcp=warn");
        assert_eq!(
            directives(Some("trace,runtime=debug")),
            "trace,runtime=debug,rmcp=warn"
        );
        assert_eq!(directives(Some("debug,rmcp=debug")), "debug,rmcp=debug");
        assert_eq!(
            directives(Some("rmcp::service=trace")),
            "rmcp::service=trace"
        );
    }
}
