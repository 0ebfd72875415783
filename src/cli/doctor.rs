//! `etrade doctor`: check the local setup (configuration, state folder, keyring,
//! credentials, clock, permissions, paper book, trading database, approval posture) one line
//! per check, each with what was found and, when something is wrong, the command that fixes
//! it.
//!
//! Read-only where it can be: nothing is created except the state folder itself (every
//! command creates it), and the stored credentials are not touched. No secret is printed;
//! at most the first four characters of the consumer key.

use super::flags::EnvironmentArg;
use super::output::outln;
use etrade_mcp::generated::PERMISSIONS;
use runtime::config::{ConfigFile, Environment, Settings};
use runtime::contract::broker_message::KnownSecrets;
use runtime::contract::error_mapping::{BrokerFailure, Operation, to_tool_error};
use runtime::credentials::{
    CREDENTIALS_FILE_NAME, CredentialKey, CredentialState, CredentialStore, StoreChoice,
    StoreError, StoredCredentials, estimate, open_store,
};
use runtime::etrade::endpoints::Endpoints;
use runtime::etrade::{Endpoint, EtradeHttp, EtradeRequest, session};
use runtime::login::login_command;
use runtime::paths::StatePaths;
use runtime::platform;
use std::fmt;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

mod approval;
mod clock;
mod local;
mod report;
mod store;

use approval::check_approval;
use clock::{check_clock, check_clock_unsigned};
use local::{
    check_config, check_paper, check_permissions, check_settings, check_state_dir, check_trading,
};
use report::Report;
use store::{check_credentials, check_keyring};

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Environment to check; overrides the profile's `environment` in config.toml.
    #[arg(long, value_enum, env = "ETRADE_MCP_ENVIRONMENT")]
    environment: Option<EnvironmentArg>,
    /// Profile from config.toml (also names the keyring entry and the paper book).
    #[arg(long, env = "ETRADE_MCP_PROFILE")]
    profile: Option<String>,
    /// Where credentials are kept (default: the profile's `credential_store`, else auto).
    #[arg(long, value_parser = super::flags::store_choice(), env = "ETRADE_MCP_CREDENTIAL_STORE")]
    credential_store: Option<StoreChoice>,
    /// The `etrade serve` flags whose permissions to check.
    #[command(flatten)]
    grants: super::flags::GrantFlags,
    /// Make no request to E*TRADE (skips the clock check).
    #[arg(long)]
    offline: bool,
    /// The transport `etrade serve` would use: decides which clients may approve.
    #[arg(long, value_enum, default_value = "stdio")]
    transport: super::flags::TransportArg,
    /// The bearer-token file `etrade serve --transport http` would use (its length is
    /// checked, the token never printed); else `ETRADE_MCP_HTTP_TOKEN`.
    #[arg(long)]
    http_token_file: Option<std::path::PathBuf>,
}

pub fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let mut r = Report::default();

    // 1. Configuration file.
    let paths = match StatePaths::from_env() {
        Ok(p) => p,
        Err(e) => {
            r.fail(
                "config",
                &format!("{e}."),
                "export ETRADE_MCP_HOME=/path/to/a/folder (or set HOME)",
            );
            return Ok(r.finish());
        }
    };
    if !runtime::paths::inside_vault() {
        r.info(
            "vault",
            &format!(
                "none: this command and `etrade serve` use your own state folder ({} is not set and {} does not exist).",
                runtime::vault::defaults::SOCKET_VAR,
                runtime::vault::defaults::socket(runtime::platform::CURRENT).display()
            ),
        );
    }
    let config_path = paths.config_file();
    let (file, config_ok) = check_config(&mut r, &config_path);

    // 2. Environment and profile.
    let flag_env: Option<Environment> = args.environment.map(Into::into);
    let settings = match Settings::resolve(&file, flag_env, args.profile.clone()) {
        Ok(s) => s,
        Err(e) => {
            r.fail(
                "settings",
                &format!("{e}."),
                "pass --profile NAME with letters, digits, `_` or `-` only",
            );
            return Ok(r.finish());
        }
    };
    check_settings(&mut r, &args, &file, &settings, config_ok);
    let key = match CredentialKey::from_settings(&settings) {
        Ok(k) => k,
        Err(e) => {
            r.fail("settings", &format!("{e}."), "pass another --profile");
            return Ok(r.finish());
        }
    };
    let endpoints = if settings.environment == Environment::Paper {
        None
    } else {
        match Endpoints::resolve(&file, &settings) {
            Ok(e) => {
                r.ok(
                    "endpoints",
                    &format!("api {}, oauth {}.", e.api_base, e.oauth_base),
                );
                Some(e)
            }
            Err(e) => {
                r.fail(
                    "endpoints",
                    &format!("{e}."),
                    &format!("fix the URL in {}", config_path.display()),
                );
                None
            }
        }
    };

    // 3. State folder.
    let state_ok = check_state_dir(&mut r, &paths.data_dir);

    // 4. Keyring backend, 5. credentials.
    let choice = StoreChoice::resolve(args.credential_store, &file, &settings.profile);
    let store = check_keyring(
        &mut r,
        choice,
        &paths.data_dir,
        &key,
        settings.environment == Environment::Paper,
    );
    let stored = match &store {
        Some(s) => check_credentials(&mut r, s.as_ref(), &key, &settings),
        None => {
            r.skip(
                "credentials",
                "not checked: the credential store cannot be opened.",
            );
            None
        }
    };

    // 6. Clock skew, against E*TRADE's Date header.
    if settings.environment != Environment::Paper {
        match (&endpoints, &stored) {
            _ if args.offline => r.skip("clock", "not checked against E*TRADE (--offline)."),
            (None, _) => r.skip("clock", "not checked: no usable E*TRADE endpoints."),
            (Some(e), None) => check_clock_unsigned(&mut r, e),
            (Some(e), Some(c)) => check_clock(&mut r, e, c, &key),
        }
    }

    // 7. Permissions, and the MCP revisions `etrade serve` speaks.
    check_permissions(&mut r, &args, settings.environment);
    r.ok("mcp", &mcp_revisions());

    // 8. Paper book, 9. trading database.
    if state_ok {
        if settings.environment == Environment::Paper {
            check_paper(&mut r, &paths.data_dir, &settings.profile);
        }
        check_trading(&mut r, &paths.data_dir, &settings);
        let token = http_token(&args);
        let transport = approval::ServeTransport {
            http: args.transport == super::flags::TransportArg::Http,
            token: token.as_deref(),
            allow_trading: args.grants.allow_trading,
        };
        check_approval(&mut r, &paths.data_dir, &file, &settings, &transport);
    } else {
        if settings.environment == Environment::Paper {
            r.skip("paper", "not checked: the state folder is unusable.");
        }
        r.skip("trading db", "not checked: the state folder is unusable.");
        r.skip("approval", "not checked: the state folder is unusable.");
    }

    Ok(r.finish())
}

/// The person's side of a doctor run through the vault: which vault answers. The checks
/// that follow are the vault's, of its own state.
pub fn say_vault(socket: &std::path::Path) {
    super::output::outln!(
        "ok vault: the trading vault at {} runs the checks below, on its own state and account.",
        socket.display()
    );
}

/// The token `etrade serve` would read, as it reads it (an unreadable file counts as none:
/// `etrade serve` then refuses to start and says why).
fn http_token(args: &DoctorArgs) -> Option<String> {
    let token = match &args.http_token_file {
        Some(path) => std::fs::read_to_string(path).ok(),
        None => std::env::var("ETRADE_MCP_HTTP_TOKEN").ok(),
    };
    token
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// The MCP revisions this build serves, newest first, as a host's settings name them.
fn mcp_revisions() -> String {
    let newest_first: Vec<String> = runtime::mcp::server::PROTOCOL_VERSIONS
        .iter()
        .rev()
        .map(|v| {
            if v.has_initialize() {
                v.to_string()
            } else {
                format!("{v} (no initialize, no session)")
            }
        })
        .collect();
    format!(
        "`etrade serve` speaks MCP {} over stdio and HTTP.",
        newest_first.join(", ")
    )
}
