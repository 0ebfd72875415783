//! Where etrade-mcp keeps its configuration and local state on disk.
//!
//! Resolution follows the XDG base-directory convention, with one escape hatch
//! (`ETRADE_MCP_HOME`) so tests and portable installs can keep everything in one folder.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Environment variable that puts both configuration and data in a single folder.
pub const HOME_OVERRIDE_VAR: &str = "ETRADE_MCP_HOME";

const APP_DIR: &str = "etrade-mcp";
const CONFIG_FILE: &str = "config.toml";

#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    #[error(
        "cannot locate the etrade-mcp {which} directory: set {HOME_OVERRIDE_VAR}, or HOME to an absolute path"
    )]
    Unresolved { which: &'static str },
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
        let var = |name: &str| lookup(name).filter(|value| !value.is_empty());

        if let Some(home) = var(HOME_OVERRIDE_VAR) {
            let dir = PathBuf::from(home);
            return Ok(StatePaths {
                config_dir: dir.clone(),
                data_dir: dir,
            });
        }

        // A relative HOME or XDG value would scatter state relative to whatever the
        // working directory happens to be; the XDG spec says to ignore relative values.
        let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
        let home = absolute("HOME");

        let config_dir = absolute("XDG_CONFIG_HOME")
            .or_else(|| home.as_ref().map(|h| h.join(".config")))
            .map(|base| base.join(APP_DIR))
            .ok_or(PathsError::Unresolved { which: "config" })?;
        let data_dir = absolute("XDG_DATA_HOME")
            .or_else(|| home.as_ref().map(|h| h.join(".local").join("share")))
            .map(|base| base.join(APP_DIR))
            .ok_or(PathsError::Unresolved { which: "data" })?;

        Ok(StatePaths {
            config_dir,
            data_dir,
        })
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join(CONFIG_FILE)
    }

    /// Creates the data directory if needed and restricts it to the current user, because
    /// it holds account state that other local users have no business reading.
    pub fn ensure_data_dir(&self) -> Result<&Path, PathsError> {
        let dir = self.data_dir.as_path();
        let failed = |source| PathsError::CreateDataDir {
            path: dir.to_path_buf(),
            source,
        };
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(failed)?;
        }
        create_private_dir(dir).map_err(failed)?;
        Ok(dir)
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};

    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
        Err(err) => return Err(err),
    }
    // An existing directory may predate this code or have been created under a loose
    // umask, so the mode is enforced rather than only requested at creation.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
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
        StatePaths::resolve(|name| map.get(name).cloned())
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
        assert!(matches!(err, PathsError::Unresolved { which: "config" }));
        assert!(err.to_string().contains("ETRADE_MCP_HOME"));

        let err = resolve_with(&[("XDG_CONFIG_HOME", "/xdg/config")]).expect_err("no data dir");
        assert!(matches!(err, PathsError::Unresolved { which: "data" }));
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

        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&data_dir)
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700);
        }
    }

    #[cfg(unix)]
    #[test]
    fn ensure_data_dir_tightens_existing_dir() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().expect("tempdir");
        let data_dir = tmp.path().join("data");
        std::fs::create_dir(&data_dir).expect("mkdir");
        std::fs::set_permissions(&data_dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let paths = StatePaths {
            config_dir: tmp.path().to_path_buf(),
            data_dir: data_dir.clone(),
        };
        paths.ensure_data_dir().expect("ok");
        let mode = std::fs::metadata(&data_dir)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
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
