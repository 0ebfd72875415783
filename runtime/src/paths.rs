//! Where etrade-mcp keeps its configuration and local state on disk.
//!
//! The defaults follow each platform's convention ([`platform::default_dirs`]), with one
//! escape hatch (`ETRADE_MCP_HOME`) so tests and portable installs can keep everything in
//! one folder.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::platform::{self, MissingDir, Os};

/// Environment variable that puts both configuration and data in a single folder.
pub const HOME_OVERRIDE_VAR: &str = "ETRADE_MCP_HOME";

const APP_DIR: &str = "etrade-mcp";
const CONFIG_FILE: &str = "config.toml";
/// The vault's configuration file in its state folder: whole profile tables in
/// `config.toml`'s format.
pub const VAULT_CONFIG_FILE: &str = "vault.toml";

pub use crate::platform::{INSIDE_VAULT_VAR, inside_vault};

#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    #[error("cannot locate the etrade-mcp {which} directory: set {HOME_OVERRIDE_VAR}, or {hint}")]
    Unresolved {
        which: &'static str,
        hint: &'static str,
    },
    #[error("cannot create the data directory {}: {source}", path.display())]
    CreateDataDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatePaths {
    pub config_dir: PathBuf,
    pub data_dir: PathBuf,
}

impl StatePaths {
    /// Resolves the directories from the process environment.
    pub fn from_env() -> Result<StatePaths, PathsError> {
        Self::resolve(|name| std::env::var_os(name))
    }

    /// Resolves the directories from `lookup`, so tests need not mutate the process
    /// environment (which is shared by tests running in parallel).
    pub fn resolve(lookup: impl Fn(&str) -> Option<OsString>) -> Result<StatePaths, PathsError> {
        Self::resolve_for(platform::CURRENT, lookup)
    }

    /// [`StatePaths::resolve`] with another platform's folder rules.
    pub fn resolve_for(
        os: Os,
        lookup: impl Fn(&str) -> Option<OsString>,
    ) -> Result<StatePaths, PathsError> {
        if let Some(home) = lookup(HOME_OVERRIDE_VAR).filter(|value| !value.is_empty()) {
            let dir = PathBuf::from(home);
            return Ok(StatePaths {
                config_dir: dir.clone(),
                data_dir: dir,
            });
        }
        let hint = match os {
            Os::Windows => "APPDATA to an absolute path",
            _ => "HOME to an absolute path",
        };
        let dirs = platform::default_dirs(os, APP_DIR, lookup).map_err(|missing| {
            PathsError::Unresolved {
                which: match missing {
                    MissingDir::Config => "config",
                    MissingDir::Data => "data",
                },
                hint,
            }
        })?;
        Ok(StatePaths {
            config_dir: dirs.config,
            data_dir: dirs.data,
        })
    }

    pub fn config_file(&self) -> PathBuf {
        let name = if inside_vault() {
            VAULT_CONFIG_FILE
        } else {
            CONFIG_FILE
        };
        self.config_dir.join(name)
    }

    /// Creates the data directory if needed and restricts it to the current user, because
    /// it holds account state that other local users have no business reading.
    pub fn ensure_data_dir(&self) -> Result<&Path, PathsError> {
        let dir = self.data_dir.as_path();
        platform::create_private_dir(dir).map_err(|source| PathsError::CreateDataDir {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn resolve_with(vars: &[(&str, &str)]) -> Result<StatePaths, PathsError> {
        let map: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        StatePaths::resolve_for(Os::Linux, |name| map.get(name).cloned())
    }

    #[test]
    fn windows_names_appdata_when_unresolved() {
        let err = StatePaths::resolve_for(Os::Windows, |_| None).expect_err("nothing set");
        assert!(err.to_string().contains("APPDATA"), "{err}");
    }

    #[test]
    fn override_puts_everything_in_one_folder() {
        let paths = resolve_with(&[
            ("ETRADE_MCP_HOME", "/opt/etrade"),
            ("HOME", "/home/u"),
            ("XDG_CONFIG_HOME", "/xdg/config"),
        ])
        .expect("resolves");
        assert_eq!(paths.config_dir, PathBuf::from("/opt/etrade"));
        assert_eq!(paths.data_dir, PathBuf::from("/opt/etrade"));
        assert_eq!(
            paths.config_file(),
            PathBuf::from("/opt/etrade/config.toml")
        );
    }

    #[test]
    fn empty_override_is_ignored() {
        let paths = resolve_with(&[("ETRADE_MCP_HOME", ""), ("HOME", "/home/u")]).expect("ok");
        assert_eq!(
            paths.config_dir,
            PathBuf::from("/home/u/.config/etrade-mcp")
        );
    }

    #[test]
    fn xdg_dirs_take_precedence_over_home() {
        let paths = resolve_with(&[
            ("HOME", "/home/u"),
            ("XDG_CONFIG_HOME", "/xdg/config"),
            ("XDG_DATA_HOME", "/xdg/data"),
        ])
        .expect("resolves");
        assert_eq!(paths.config_dir, PathBuf::from("/xdg/config/etrade-mcp"));
        assert_eq!(paths.data_dir, PathBuf::from("/xdg/data/etrade-mcp"));
    }

    #[test]
    fn home_fallbacks() {
        let paths = resolve_with(&[("HOME", "/home/u")]).expect("resolves");
        assert_eq!(
            paths.config_dir,
            PathBuf::from("/home/u/.config/etrade-mcp")
        );
        assert_eq!(
            paths.data_dir,
            PathBuf::from("/home/u/.local/share/etrade-mcp")
        );
    }

    #[test]
    fn relative_xdg_values_are_ignored() {
        let paths = resolve_with(&[
            ("HOME", "/home/u"),
            ("XDG_CONFIG_HOME", "relative/config"),
            ("XDG_DATA_HOME", ""),
        ])
        .expect("resolves");
        assert_eq!(
            paths.config_dir,
            PathBuf::from("/home/u/.config/etrade-mcp")
        );
        assert_eq!(
            paths.data_dir,
            PathBuf::from("/home/u/.local/share/etrade-mcp")
        );
    }

    #[test]
    fn nothing_to_resolve_is_an_error() {
        let err = resolve_with(&[]).expect_err("no HOME");
        assert!(matches!(
            err,
            PathsError::Unresolved {
                which: "config",
                ..
            }
        ));
        assert!(err.to_string().contains("ETRADE_MCP_HOME"));

        let err = resolve_with(&[("XDG_CONFIG_HOME", "/xdg/config")]).expect_err("no data dir");
        assert!(matches!(err, PathsError::Unresolved { which: "data", .. }));
    }

    #[test]
    fn ensure_data_dir_creates_nested_private_dir() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let data_dir = tmp.path().join("share").join("etrade-mcp");
        let paths = StatePaths {
            config_dir: tmp.path().join("config"),
            data_dir: data_dir.clone(),
        };
        assert_eq!(paths.ensure_data_dir().expect("created"), data_dir);
        assert!(data_dir.is_dir());
        // Calling twice is fine.
        paths.ensure_data_dir().expect("idempotent");

        if cfg!(unix) {
            assert_eq!(platform::permission_bits(&data_dir), Some(0o700));
        }
    }

    #[test]
    fn ensure_data_dir_reports_path_when_blocked() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let file = tmp.path().join("not-a-dir");
        std::fs::write(&file, b"x").expect("write");
        let paths = StatePaths {
            config_dir: tmp.path().to_path_buf(),
            data_dir: file.join("data"),
        };
        let err = paths.ensure_data_dir().expect_err("parent is a file");
        assert!(err.to_string().contains("not-a-dir"), "{err}");
    }
}
