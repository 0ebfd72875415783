//! Where a vault lives when `vault install` and `vault run` are given no `--state` or
//! `--socket`, per operating system.

use crate::platform::Os;
use std::path::PathBuf;

pub use crate::platform::VAULT_SERVICE_NAME as SERVICE_NAME;

pub use crate::paths::VAULT_CONFIG_FILE as CONFIG_FILE;

/// Names the vault's socket for the person's side; without it, the default socket is used
/// when it exists.
pub const SOCKET_VAR: &str = "ETRADE_MCP_VAULT";

/// The vault's state folder on `os`.
pub fn state_dir(os: Os) -> PathBuf {
    match os {
        Os::MacOs => PathBuf::from("/Library/Application Support/etrade-mcp"),
        Os::Windows => {
            let program_data = std::env::var_os("ProgramData")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(r"C:\ProgramData"));
            program_data.join("etrade-mcp")
        }
        Os::Linux | Os::OtherUnix => PathBuf::from("/var/lib/etrade-mcp"),
    }
}

/// Where the vault listens on `os`: a Unix socket, or a named pipe on Windows.
pub fn socket(os: Os) -> PathBuf {
    match os {
        Os::MacOs => PathBuf::from("/var/run/etrade-mcp/vault.sock"),
        Os::Windows => PathBuf::from(r"\\.\pipe\etrade-mcp-vault"),
        Os::Linux | Os::OtherUnix => PathBuf::from("/run/etrade-mcp/vault.sock"),
    }
}
