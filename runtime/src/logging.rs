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
        // On a failed write tracing would say so with `eprintln!`, which panics when stderr
        // is closed (a host that stopped reading it); a log line is not worth the process.
        .log_internal_errors(false)
        .try_init();
}

const DEFAULT: &str = "info,rmcp=warn";

/// rmcp logs every MCP message at debug — tool arguments and results, i.e. account keys,
/// balances, positions and orders — so a directive whose global level is info or more
/// verbose gets `rmcp=warn` added, unless it sets a level for `rmcp` itself
/// (`debug,rmcp=debug` is an explicit opt-in; `rmcp::transport=debug` alone is not, and
/// EnvFilter's most specific target wins, so it still applies under the added `rmcp=warn`).
fn directives(env: Option<&str>) -> String {
    let d = env.map(str::trim).unwrap_or_default();
    if d.is_empty() {
        return DEFAULT.to_string();
    }
    let parts: Vec<&str> = d.split(',').map(str::trim).collect();
    let sets_rmcp = parts
        .iter()
        .any(|p| p.split_once('=').is_some_and(|(t, _)| t.trim() == "rmcp"));
    let verbose = parts.iter().any(|p| {
        !p.contains('=') && matches!(p.to_ascii_lowercase().as_str(), "info" | "debug" | "trace")
    });
    if sets_rmcp || !verbose {
        d.to_string()
    } else {
        format!("{d},rmcp=warn")
    }
}

#[cfg(test)]
mod tests {
    use super::directives;

    #[test]
    fn rmcp_stays_at_warn_unless_set() {
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
        // Asking for less never turns rmcp up.
        assert_eq!(directives(Some("error")), "error");
        assert_eq!(directives(Some("off")), "off");
        assert_eq!(directives(Some("warn")), "warn");
        // A sub-target is not an opt-in for the rest of rmcp.
        assert_eq!(
            directives(Some("debug,rmcp::transport=debug")),
            "debug,rmcp::transport=debug,rmcp=warn"
        );
    }
}
