//! Where a profile talks to E*TRADE: the API host, the OAuth token host and the browser
//! authorization page. Defaults are E*TRADE's; config.toml may point a profile elsewhere
//! (tests, staging), but never over plain HTTP to anything but loopback.

use crate::config::{ConfigFile, Environment, Settings};

pub const PRODUCTION_API: &str = "https://api.etrade.com";
pub const SANDBOX_API: &str = "https://apisb.etrade.com";
pub const AUTHORIZE_PAGE: &str = "https://us.etrade.com/e/t/etws/authorize";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    /// No trailing slash; resource paths start with `/v1/`.
    pub api_base: String,
    /// No trailing slash; token paths start with `/oauth/`.
    pub oauth_base: String,
    /// Takes `?key=CONSUMER_KEY&token=REQUEST_TOKEN`.
    pub authorize: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("the paper environment has no E*TRADE endpoints")]
    Paper,
    #[error(
        "profiles.{profile}.{key} must be an https:// URL (http:// only for 127.0.0.1, ::1 or localhost)"
    )]
    Insecure { profile: String, key: &'static str },
}

impl Endpoints {
    pub fn resolve(file: &ConfigFile, settings: &Settings) -> Result<Endpoints, EndpointError> {
        let default_api = match settings.environment {
            Environment::Paper => return Err(EndpointError::Paper),
            Environment::Sandbox => SANDBOX_API,
            Environment::Production => PRODUCTION_API,
        };
        let profile = file.profile(&settings.profile);
        let pick = |value: Option<&String>, key: &'static str, default: &str| {
            let url = value.map_or(default, String::as_str).trim_end_matches('/');
            if is_acceptable(url) {
                Ok(url.to_string())
            } else {
                Err(EndpointError::Insecure {
                    profile: settings.profile.clone(),
                    key,
                })
            }
        };
        let api_override = profile.and_then(|p| p.api_base_url.as_ref());
        let api_base = pick(api_override, "api_base_url", default_api)?;
        let oauth_default = if api_override.is_some() {
            api_base.as_str()
        } else {
            PRODUCTION_API
        };
        let oauth_base = pick(
            profile.and_then(|p| p.oauth_base_url.as_ref()),
            "oauth_base_url",
            oauth_default,
        )?;
        let authorize = pick(
            profile.and_then(|p| p.authorize_url.as_ref()),
            "authorize_url",
            AUTHORIZE_PAGE,
        )?;
        Ok(Endpoints {
            api_base,
            oauth_base,
            authorize,
        })
    }
}

/// Secrets travel in signed headers; plain HTTP is only acceptable on this machine.
fn is_acceptable(url: &str) -> bool {
    if url.starts_with("https://") {
        return url.len() > "https://".len();
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split('/').next().unwrap_or_default();
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    matches!(host, "127.0.0.1" | "::1" | "localhost")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ProfileConfig;

    fn settings(env: Environment) -> Settings {
        Settings {
            environment: env,
            profile: "default".into(),
        }
    }

    fn file(profile: ProfileConfig) -> ConfigFile {
        let mut f = ConfigFile::default();
        f.profiles.insert("default".into(), profile);
        f
    }

    #[test]
    fn defaults_follow_the_environment() {
        let f = ConfigFile::default();
        let s = Endpoints::resolve(&f, &settings(Environment::Sandbox)).expect("ok");
        assert_eq!(s.api_base, SANDBOX_API);
        assert_eq!(s.oauth_base, PRODUCTION_API);
        assert_eq!(s.authorize, AUTHORIZE_PAGE);
        let p = Endpoints::resolve(&f, &settings(Environment::Production)).expect("ok");
        assert_eq!(p.api_base, PRODUCTION_API);
        assert_eq!(
            Endpoints::resolve(&f, &settings(Environment::Paper)),
            Err(EndpointError::Paper)
        );
    }

    #[test]
    fn overrides_apply_and_oauth_follows_the_api_host() {
        let f = file(ProfileConfig {
            api_base_url: Some("http://127.0.0.1:9999/".into()),
            authorize_url: Some("http://127.0.0.1:9999/e/t/etws/authorize".into()),
            ..ProfileConfig::default()
        });
        let e = Endpoints::resolve(&f, &settings(Environment::Sandbox)).expect("ok");
        assert_eq!(e.api_base, "http://127.0.0.1:9999");
        assert_eq!(e.oauth_base, "http://127.0.0.1:9999");
        assert_eq!(e.authorize, "http://127.0.0.1:9999/e/t/etws/authorize");
    }

    #[test]
    fn plain_http_only_on_loopback() {
        for (url, ok) in [
            ("http://localhost:1", true),
            ("http://[::1]:8080", true),
            ("https://staging.example", true),
            ("http://staging.example", false),
            ("http://127.0.0.1.evil.example", false),
            ("ftp://127.0.0.1", false),
            ("https://", false),
        ] {
            let f = file(ProfileConfig {
                api_base_url: Some(url.into()),
                ..ProfileConfig::default()
            });
            let r = Endpoints::resolve(&f, &settings(Environment::Production));
            assert_eq!(r.is_ok(), ok, "{url}");
        }
    }
}
