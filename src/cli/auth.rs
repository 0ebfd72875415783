//! `etrade auth login|status|renew|logout`: the daily E*TRADE OAuth login and its upkeep.

use super::flags::{EnvironmentArg, store_choice};
use super::output::outln;
use super::setup::Setup;
use anyhow::Context;
use clap::Subcommand;
use runtime::config::Environment;
use runtime::credentials::StoreChoice;
use runtime::credentials::{CredentialEstimate, CredentialState, Secret};
use runtime::etrade::EtradeHttp;
use runtime::etrade::endpoints::Endpoints;
use runtime::login::{AuthContext, Consumer};
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct AuthArgs {
    #[command(subcommand)]
    command: AuthCommand,
}

#[derive(Debug, Subcommand)]
enum AuthCommand {
    /// Log in: prints the E*TRADE authorization URL, then reads the verification code from
    /// standard input. Consumer key and secret come from ETRADE_CONSUMER_KEY /
    /// ETRADE_CONSUMER_SECRET, the stored entry, or a prompt.
    Login(AuthTarget),
    /// Show the local credential estimate (no broker request unless --check).
    Status {
        #[command(flatten)]
        target: AuthTarget,
        /// Also make one cheap signed request to see whether E*TRADE accepts the token.
        #[arg(long)]
        check: bool,
    },
    /// Reactivate a token that went inactive after two idle hours.
    Renew(AuthTarget),
    /// Revoke the token at E*TRADE and delete the stored entry.
    Logout(AuthTarget),
}

#[derive(Debug, clap::Args)]
pub struct AuthTarget {
    /// Environment whose keys to use (a paper profile needs no login).
    #[arg(long, value_enum, env = "ETRADE_MCP_ENVIRONMENT")]
    environment: Option<EnvironmentArg>,
    /// Profile from config.toml (names the keyring entry).
    #[arg(long, env = "ETRADE_MCP_PROFILE")]
    profile: Option<String>,
    /// Where credentials are kept (default: the profile's `credential_store`, else auto).
    #[arg(long, value_parser = store_choice(), env = "ETRADE_MCP_CREDENTIAL_STORE")]
    credential_store: Option<StoreChoice>,
}

pub fn run(args: AuthArgs) -> anyhow::Result<ExitCode> {
    let target = match &args.command {
        AuthCommand::Login(t) | AuthCommand::Renew(t) | AuthCommand::Logout(t) => t,
        AuthCommand::Status { target, .. } => target,
    };
    let ctx = context(target)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        match args.command {
            AuthCommand::Login(_) => login(&ctx).await,
            AuthCommand::Status { check, .. } => status(&ctx, check).await,
            AuthCommand::Renew(_) => match ctx.renew().await {
                Ok(e) => {
                    outln!("Renewed. {}", describe(&e));
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => fail(&e),
            },
            AuthCommand::Logout(_) => match ctx.logout().await {
                Ok(revoked) => {
                    let how = if revoked {
                        "E*TRADE revoked the token"
                    } else {
                        "no live token to revoke"
                    };
                    outln!(
                        "Logged out of {} ({how}); the stored entry is deleted.",
                        ctx.key
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => fail(&e),
            },
        }
    })
}

fn context(target: &AuthTarget) -> anyhow::Result<AuthContext> {
    let setup = Setup::resolve(target.environment.map(Into::into), target.profile.clone())?;
    if setup.settings.environment == Environment::Paper {
        anyhow::bail!(
            "the paper environment needs no E*TRADE login; pass --environment sandbox or --environment production"
        );
    }
    let endpoints = Endpoints::resolve(&setup.file, &setup.settings)?;
    let http =
        EtradeHttp::new(endpoints, &super::setup::client_options()).map_err(anyhow::Error::msg)?;
    let key = setup.credential_key()?;
    let coordinator = super::setup::coordinator(&setup)?;
    let store = setup.open_credential_store(target.credential_store)?.store;
    Ok(AuthContext {
        http,
        store,
        key,
        coordinator,
    })
}

async fn login(ctx: &AuthContext) -> anyhow::Result<ExitCode> {
    let consumer = consumer(ctx)?;
    let result = ctx
        .login(consumer, |url| {
            let mut err = std::io::stderr();
            writeln!(err, "Open this page, log in to E*TRADE and accept:")?;
            // On a line of its own, so it can be copied or opened by a terminal.
            outln!("{url}");
            std::io::stdout().flush()?;
            write!(err, "Verification code: ")?;
            err.flush()?;
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line)?;
            Ok(line)
        })
        .await;
    match result {
        Ok(e) => {
            outln!("Logged in to {}. {}", ctx.key, describe(&e));
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => fail(&e),
    }
}

/// Environment variables first, then the stored entry (a daily re-login needs only the
/// browser step), then a prompt with the secret unechoed.
fn consumer(ctx: &AuthContext) -> anyhow::Result<Consumer> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    if let (Some(key), Some(secret)) = (env("ETRADE_CONSUMER_KEY"), env("ETRADE_CONSUMER_SECRET")) {
        return Ok(Consumer {
            key: key.trim().to_string(),
            secret: Secret::new(secret.trim().to_string()),
        });
    }
    if let Some(stored) = ctx.stored_consumer() {
        return Ok(stored);
    }
    let key = match env("ETRADE_CONSUMER_KEY") {
        Some(k) => k,
        None => {
            eprint!("E*TRADE consumer key: ");
            std::io::stderr().flush()?;
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line)?;
            line
        }
    };
    let secret = match env("ETRADE_CONSUMER_SECRET") {
        Some(s) => s,
        None if std::io::stdin().is_terminal() => {
            rpassword::prompt_password("E*TRADE consumer secret (not shown): ")?
        }
        None => {
            eprint!("E*TRADE consumer secret: ");
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line)?;
            line
        }
    };
    let (key, secret) = (key.trim().to_string(), secret.trim().to_string());
    if key.is_empty() || secret.is_empty() {
        anyhow::bail!(
            "a consumer key and secret are required (ETRADE_CONSUMER_KEY / ETRADE_CONSUMER_SECRET)"
        );
    }
    Ok(Consumer {
        key,
        secret: Secret::new(secret),
    })
}

async fn status(ctx: &AuthContext, check: bool) -> anyhow::Result<ExitCode> {
    let e = ctx.status(jiff::Timestamp::now());
    outln!("{}: {}", ctx.key, describe(&e));
    if !check {
        return Ok(if e.state == CredentialState::Unavailable {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        });
    }
    match ctx.check().await {
        Ok(()) => {
            outln!("Check: E*TRADE accepted a signed request.");
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => fail(&err),
    }
}

fn describe(e: &CredentialEstimate) -> String {
    let state = serde_json::to_value(e.state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut s = format!("state: {state} (store: {}). {}", e.backend, e.detail);
    if let Some(x) = &e.expires_at {
        s.push_str(&format!(" Expires at {x}."));
    }
    s
}

fn fail(e: &runtime::login::AuthError) -> anyhow::Result<ExitCode> {
    crate::cli::output::noteln!("etrade: {e}");
    Ok(ExitCode::FAILURE)
}
