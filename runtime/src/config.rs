//! The `config.toml` file and the settings resolved from it and command-line flags.
//!
//! Every table denies unknown fields: a misspelt key in a brokerage configuration should
//! stop the server rather than silently fall back to a default.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub mod store_choice;
pub mod trading;

pub use store_choice::StoreChoice;
pub use trading::TradingConfig;

/// Profile used when no `--profile` flag is given.
pub const DEFAULT_PROFILE: &str = "default";
const PROFILE_NAME_MAX: usize = 64;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    /// The local paper broker; the safe default because it cannot touch a real account.
    #[default]
    Paper,
    Sandbox,
    Production,
}

impl Environment {
    pub const ALL: [Environment; 3] = [
        Environment::Paper,
        Environment::Sandbox,
        Environment::Production,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Paper => "paper",
            Environment::Sandbox => "sandbox",
            Environment::Production => "production",
        }
    }

    /// Whether this environment talks to E*TRADE and therefore needs stored credentials.
    pub fn required(self) -> bool {
        !matches!(self, Environment::Paper)
    }
}

impl fmt::Display for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown environment `{0}`, expected one of `paper`, `sandbox`, `production`")]
pub struct UnknownEnvironment(pub String);

impl FromStr for Environment {
    type Err = UnknownEnvironment;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Environment::ALL
            .into_iter()
            .find(|env| env.as_str() == s)
            .ok_or_else(|| UnknownEnvironment(s.to_owned()))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileNameError {
    #[error("profile name must not be empty")]
    Empty,
    #[error("profile name must be at most {PROFILE_NAME_MAX} characters")]
    TooLong,
    #[error("profile name `{0}` may only contain ASCII letters, digits, `_` and `-`")]
    InvalidCharacters(String),
}

/// Checks a profile name against `[A-Za-z0-9_-]{1,64}`.
///
/// The name becomes part of keyring entry names and command lines, so it is kept to
/// characters that need no quoting anywhere.
pub fn validate_profile_name(name: &str) -> Result<(), ProfileNameError> {
    if name.is_empty() {
        return Err(ProfileNameError::Empty);
    }
    if name.len() > PROFILE_NAME_MAX {
        return Err(ProfileNameError::TooLong);
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !name.chars().all(allowed) {
        return Err(ProfileNameError::InvalidCharacters(name.to_owned()));
    }
    Ok(())
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of settings")]
pub struct ConfigFile {
    #[serde(default)]
    pub profiles: BTreeMap<String, ProfileConfig>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a profile table")]
pub struct ProfileConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
    /// E*TRADE API host for this profile (default: the real sandbox or production host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_base_url: Option<String>,
    /// Host of the OAuth token endpoints (default: `api_base_url` when that is set, else
    /// the production API host, which E*TRADE uses for sandbox keys too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth_base_url: Option<String>,
    /// The browser page where the user approves access (default: E*TRADE's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorize_url: Option<String>,
    /// Where this profile's E*TRADE credentials are kept (default `auto`); the
    /// `--credential-store` flag and `ETRADE_MCP_CREDENTIAL_STORE` override it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential_store: Option<StoreChoice>,
    /// `[profiles.NAME.trading]`: the trading policy's limits (default: none, with the
    /// session guard on in production only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trading: Option<TradingConfig>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", display_parse_error(path, *position, key.as_deref(), message))]
    Parse {
        path: PathBuf,
        /// One-based line and column (in characters) of the offending text, when known.
        position: Option<(usize, usize)>,
        /// Dotted key path, when the parser knows which key is at fault.
        key: Option<String>,
        message: String,
    },
    #[error("{}: profiles.{name}: {source}", path.display())]
    InvalidProfileName {
        path: PathBuf,
        name: String,
        #[source]
        source: ProfileNameError,
    },
}

fn display_parse_error(
    path: &Path,
    position: Option<(usize, usize)>,
    key: Option<&str>,
    message: &str,
) -> String {
    let mut out = path.display().to_string();
    if let Some((line, column)) = position {
        out.push_str(&format!(":{line}:{column}"));
    }
    if let Some(key) = key {
        out.push_str(": ");
        out.push_str(key);
    }
    out.push_str(": ");
    out.push_str(message);
    out
}

impl ConfigFile {
    /// Loads `path`; a missing file is an empty configuration so a fresh install works
    /// without any setup.
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(path, &text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
            Err(source) => Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Parses `text`; `path` is used only to label errors.
    pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
        let file: ConfigFile = toml::from_str(text).map_err(|err| ConfigError::Parse {
            path: path.to_path_buf(),
            position: err.span().map(|span| line_column(text, span)),
            key: error_key_path(&err),
            message: one_line(err.message()),
        })?;
        for name in file.profiles.keys() {
            validate_profile_name(name).map_err(|source| ConfigError::InvalidProfileName {
                path: path.to_path_buf(),
                name: name.clone(),
                source,
            })?;
        }
        Ok(file)
    }

    pub fn profile(&self, name: &str) -> Option<&ProfileConfig> {
        self.profiles.get(name)
    }
}

/// One-based line and character column of the start of `span` in `text`.
fn line_column(text: &str, span: Range<usize>) -> (usize, usize) {
    let mut start = span.start.min(text.len());
    // Spans are byte offsets; step back to a character boundary so slicing cannot panic.
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |nl| nl + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// The dotted key path the `toml` crate attached to `err`, if any.
///
/// The crate keeps the path private and prints it (as a trailing "in `a.b`" line) only
/// when the error carries no source text, so the path is recovered from that rendering.
fn error_key_path(err: &toml::de::Error) -> Option<String> {
    let mut bare = err.clone();
    bare.set_input(None);
    let rendered = bare.to_string();
    rendered
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("in `")?.strip_suffix('`'))
        .filter(|keys| !keys.is_empty())
        .map(str::to_owned)
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("invalid --profile: {0}")]
    InvalidProfile(#[from] ProfileNameError),
}

/// The effective environment and profile after combining flags with the config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub environment: Environment,
    pub profile: String,
}

impl Settings {
    /// Flags win over the file, which wins over the built-in defaults.
    pub fn resolve(
        file: &ConfigFile,
        flag_environment: Option<Environment>,
        flag_profile: Option<String>,
    ) -> Result<Settings, SettingsError> {
        let profile = flag_profile.unwrap_or_else(|| DEFAULT_PROFILE.to_owned());
        validate_profile_name(&profile)?;
        let environment = flag_environment
            .or_else(|| file.profile(&profile).and_then(|p| p.environment))
            .unwrap_or_default();
        Ok(Settings {
            environment,
            profile,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ConfigFile, ConfigError> {
        ConfigFile::parse(Path::new("config.toml"), text)
    }

    #[test]
    fn environment_round_trips_through_strings() {
        for env in Environment::ALL {
            assert_eq!(env.to_string(), env.as_str());
            assert_eq!(env.as_str().parse::<Environment>(), Ok(env));
        }
        assert_eq!(Environment::default(), Environment::Paper);
        assert!("Paper".parse::<Environment>().is_err());
        assert!(!Environment::Paper.required());
        assert!(Environment::Sandbox.required());
        assert!(Environment::Production.required());
    }

    #[test]
    fn parses_profiles() {
        let file = parse(
            "[profiles.default]\nenvironment = \"sandbox\"\n\n[profiles.live]\nenvironment = \"production\"\n\n[profiles.empty]\n",
        )
        .expect("valid");
        assert_eq!(
            file.profile("default").and_then(|p| p.environment),
            Some(Environment::Sandbox)
        );
        assert_eq!(
            file.profile("live").and_then(|p| p.environment),
            Some(Environment::Production)
        );
        assert_eq!(file.profile("empty"), Some(&ProfileConfig::default()));
        assert_eq!(parse("").expect("empty"), ConfigFile::default());
    }

    #[test]
    fn parses_profile_trading_table() {
        let file = parse(
            "[profiles.default]\nenvironment = \"production\"\n\n[profiles.default.trading]\nmax_daily_orders = 10\nmax_order_notional = \"2500.50\"\n",
        )
        .expect("valid");
        let trading = file
            .profile("default")
            .and_then(|p| p.trading.as_ref())
            .expect("trading table");
        assert_eq!(trading.max_daily_orders, Some(10));
        assert_eq!(
            trading.max_order_notional,
            Some(rust_decimal::Decimal::new(250050, 2))
        );
        assert_eq!(
            file.profile("default").and_then(|p| p.environment),
            Some(Environment::Production)
        );

        // A bad value inside the table is reported like any other config error.
        let err =
            parse("[profiles.default.trading]\nmax_daily_notional = 1000.5\n").expect_err("float");
        let text = err.to_string();
        assert!(
            text.starts_with(
                "config.toml:2:22: profiles.default.trading.max_daily_notional: a float"
            ),
            "{text}"
        );
    }

    #[test]
    fn bad_enum_names_line_column_and_key() {
        let err = parse("# settings\n[profiles.default]\nenvironment = \"papr\"\n")
            .expect_err("bad variant");
        assert_eq!(
            err.to_string(),
            "config.toml:3:15: profiles.default.environment: unknown variant `papr`, expected one of `paper`, `sandbox`, `production`"
        );
    }

    #[test]
    fn unknown_key_is_rejected_with_position() {
        let err = parse("[profiles.default]\nenvironment = \"paper\"\nenviroment = \"sandbox\"\n")
            .expect_err("unknown key");
        assert_eq!(
            err.to_string(),
            "config.toml:3:1: profiles.default: unknown field `enviroment`, expected one of `environment`, `api_base_url`, `oauth_base_url`, `authorize_url`, `credential_store`, `trading`"
        );

        let err = parse("[brokers]\n").expect_err("unknown top-level table");
        assert_eq!(
            err.to_string(),
            "config.toml:1:2: unknown field `brokers`, expected `profiles`"
        );

        let err = parse("[profiles]\ndefault = 3\n").expect_err("profile must be a table");
        assert_eq!(
            err.to_string(),
            "config.toml:2:11: profiles.default: invalid type: integer `3`, expected a profile table"
        );
    }

    #[test]
    fn syntax_error_has_position_and_single_line() {
        let err = parse("[profiles.default]\nenvironment = \n").expect_err("syntax");
        let ConfigError::Parse { position, .. } = &err else {
            panic!("expected a parse error, got {err:?}");
        };
        assert_eq!(position.map(|(line, _)| line), Some(2));
        let text = err.to_string();
        assert!(text.starts_with("config.toml:2:"), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }

    #[test]
    fn invalid_profile_name_in_file() {
        let err = parse("[profiles.\"bad name\"]\n").expect_err("bad name");
        assert!(matches!(err, ConfigError::InvalidProfileName { .. }));
        assert!(err.to_string().contains("profiles.bad name"), "{err}");
    }

    #[test]
    fn missing_file_is_empty_config() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let file = ConfigFile::load(&tmp.path().join("config.toml")).expect("missing is ok");
        assert_eq!(file, ConfigFile::default());
    }

    #[test]
    fn load_reads_file_and_labels_errors_with_path() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("config.toml");
        std::fs::write(&path, "[profiles.default]\nenvironment = \"sandbox\"\n").expect("write");
        let file = ConfigFile::load(&path).expect("loads");
        assert_eq!(
            file.profile("default").and_then(|p| p.environment),
            Some(Environment::Sandbox)
        );

        std::fs::write(&path, "profiles = 3\n").expect("write");
        let err = ConfigFile::load(&path).expect_err("wrong type");
        assert!(
            err.to_string()
                .starts_with(&format!("{}:1:", path.display())),
            "{err}"
        );
    }

    #[test]
    fn unreadable_file_is_an_error() {
        let tmp = tempfile::tempdir().expect("tempdir");
        // A directory where the file should be cannot be read as text.
        let err = ConfigFile::load(tmp.path()).expect_err("directory");
        assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
        assert!(err.to_string().contains("cannot read"), "{err}");
    }

    #[test]
    fn line_column_counts_characters() {
        let text = "a = 1\né = \"x\"\n";
        let span_of_x = text.find("\"x\"").expect("present");
        assert_eq!(line_column(text, span_of_x..span_of_x + 3), (2, 5));
        assert_eq!(line_column(text, 0..1), (1, 1));
        // Out-of-range spans clamp instead of panicking.
        assert_eq!(line_column(text, 999..1000).0, 3);
    }

    #[test]
    fn profile_name_rules() {
        assert_eq!(validate_profile_name("default"), Ok(()));
        assert_eq!(validate_profile_name("A-z_09"), Ok(()));
        assert_eq!(validate_profile_name(&"a".repeat(64)), Ok(()));
        assert_eq!(
            validate_profile_name(&"a".repeat(65)),
            Err(ProfileNameError::TooLong)
        );
        assert_eq!(validate_profile_name(""), Err(ProfileNameError::Empty));
        for bad in ["a b", "a:b", "é", "a.b", "a/b"] {
            assert!(
                matches!(
                    validate_profile_name(bad),
                    Err(ProfileNameError::InvalidCharacters(_))
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn settings_precedence() {
        let file = parse(
            "[profiles.default]\nenvironment = \"sandbox\"\n[profiles.live]\nenvironment = \"production\"\n[profiles.bare]\n",
        )
        .expect("valid");

        let s = Settings::resolve(&file, None, None).expect("ok");
        assert_eq!(
            s,
            Settings {
                environment: Environment::Sandbox,
                profile: "default".into()
            }
        );

        let s = Settings::resolve(&file, None, Some("live".into())).expect("ok");
        assert_eq!(s.environment, Environment::Production);

        let s =
            Settings::resolve(&file, Some(Environment::Paper), Some("live".into())).expect("ok");
        assert_eq!(s.environment, Environment::Paper, "flag overrides file");

        let s = Settings::resolve(&file, None, Some("bare".into())).expect("ok");
        assert_eq!(
            s.environment,
            Environment::Paper,
            "unset falls back to paper"
        );

        let s = Settings::resolve(&file, None, Some("unlisted".into())).expect("ok");
        assert_eq!(s.environment, Environment::Paper);
        assert_eq!(s.profile, "unlisted");

        let s = Settings::resolve(&ConfigFile::default(), None, None).expect("ok");
        assert_eq!(s.environment, Environment::Paper);
    }

    #[test]
    fn settings_reject_invalid_profile_flag() {
        let err = Settings::resolve(&ConfigFile::default(), None, Some("no spaces".into()))
            .expect_err("invalid");
        assert!(err.to_string().starts_with("invalid --profile:"), "{err}");
    }
}
