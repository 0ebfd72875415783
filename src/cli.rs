//! Command-line definitions and the commands behind them.

mod approve;
mod auth;
mod doctor;
mod halt;
pub(crate) mod output;
mod paper;
mod prompt;
mod serve;
mod setup;
mod tools;

use clap::{Parser, Subcommand, ValueEnum};
use runtime::config::Environment;
use runtime::credentials::StoreChoice;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "etrade",
    version,
    about = "MCP server for E*TRADE accounts, with a local paper broker",
    long_about = "etrade-mcp gives AI assistants typed, exact access to an E*TRADE account over MCP \
                  (stdio or streamable HTTP). `etrade serve` starts the server; the default \
                  environment is the local paper broker, which needs no E*TRADE keys."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the MCP server (stdio by default).
    Serve(ServeArgs),
    /// List the tool catalog, or show one tool's schemas.
    Tools(ToolsArgs),
    /// Log in to E*TRADE (OAuth, daily), check, renew or log out.
    Auth(AuthArgs),
    /// Manage the local paper brokerage: reset it, show it, move its simulated time.
    Paper(PaperArgs),
    /// Print a shell completion script, e.g. `etrade completions bash > ~/.local/share/bash-completion/completions/etrade`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Check the setup: config, state folder, keyring, credentials, clock, permissions.
    Doctor(doctor::DoctorArgs),
    /// Approve (or reject) a previewed order so the agent can place it; list the previews
    /// waiting; set the approval PIN.
    Approve(ApproveArgs),
    /// Halt trading now: every running server refuses orders and alert changes (previews
    /// still work) until `etrade resume`.
    Halt(halt::HaltArgs),
    /// Lift a halt made with `etrade halt` (with --all: every halt, of every scope).
    Resume(halt::ResumeArgs),
}

#[derive(Debug, clap::Args)]
pub struct ApproveArgs {
    /// The preview_id that place_order named.
    preview_id: Option<String>,
    /// Approve without asking y/N (for a script that showed the summary). The PIN, when
    /// set, is still asked.
    #[arg(long, conflicts_with_all = ["reject", "list", "set_pin"])]
    yes: bool,
    /// Reject it: it will never be placed.
    #[arg(long, conflicts_with_all = ["list", "set_pin"])]
    reject: bool,
    /// List the previews waiting for approval.
    #[arg(long, conflicts_with_all = ["preview_id", "set_pin"])]
    list: bool,
    /// Set or change the approval PIN (asked by this command and the approval page).
    #[arg(long, conflicts_with = "preview_id")]
    set_pin: bool,
    /// Environment of the preview (default: the profile's).
    #[arg(long, value_enum, env = "ETRADE_MCP_ENVIRONMENT")]
    environment: Option<EnvironmentArg>,
    /// Profile from config.toml.
    #[arg(long, env = "ETRADE_MCP_PROFILE")]
    profile: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct PaperArgs {
    /// Profile from config.toml (each profile has its own paper book).
    #[arg(long, env = "ETRADE_MCP_PROFILE", global = true)]
    profile: Option<String>,
    #[command(subcommand)]
    command: PaperCommand,
}

#[derive(Debug, Subcommand)]
enum PaperCommand {
    /// Delete every order, position and transaction and start again with fresh cash.
    Reset {
        /// Starting cash of every account (default: each account's configured amount).
        #[arg(long, value_name = "AMOUNT")]
        cash: Option<String>,
    },
    /// Simulated time, accounts, cash, positions and open orders.
    Status,
    /// Move simulated time forward (e.g. 30m, 2h, 1d); resting orders fill as it passes.
    Advance {
        /// How far, e.g. 30m, 2h, 1d.
        duration: String,
    },
}

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

/// The startup flags that grant permissions, shared by `serve` and `doctor` (which reports
/// what `serve` would grant with the same flags).
#[derive(Debug, clap::Args)]
pub struct GrantFlags {
    /// Grant the `trade` permission: place, change and cancel orders.
    #[arg(long)]
    allow_trading: bool,
    /// Grant the `alerts_delete` permission: delete alerts.
    #[arg(long)]
    allow_alert_deletion: bool,
    /// Required with --allow-trading in the production environment: real orders, real money.
    #[arg(long)]
    confirm_production: bool,
}

impl GrantFlags {
    /// Whether the startup flag named in the spec (`--allow-trading`, ...) was given.
    fn given(&self, flag: &str) -> bool {
        match flag {
            "--allow-trading" => self.allow_trading,
            "--allow-alert-deletion" => self.allow_alert_deletion,
            _ => false,
        }
    }

    /// Each permission with a startup flag is granted only when that flag was given.
    fn granted(&self) -> Vec<&'static str> {
        etrade_mcp::generated::PERMISSIONS
            .iter()
            .filter(|p| p.flag.is_none_or(|f| self.given(f)))
            .map(|p| p.name)
            .collect()
    }

    /// Trading in production needs the explicit confirmation.
    fn production_unconfirmed(&self, environment: Environment) -> bool {
        environment == Environment::Production && self.allow_trading && !self.confirm_production
    }
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Environment to serve; overrides the profile's `environment` in config.toml.
    #[arg(long, value_enum, env = "ETRADE_MCP_ENVIRONMENT")]
    environment: Option<EnvironmentArg>,
    /// Profile from config.toml (also names the keyring entry).
    #[arg(long, env = "ETRADE_MCP_PROFILE")]
    profile: Option<String>,
    /// Transport: stdio (for a local MCP client) or streamable HTTP at /mcp.
    #[arg(long, value_enum, default_value_t = TransportArg::Stdio)]
    transport: TransportArg,
    /// Address for --transport http. Non-loopback addresses need a bearer token.
    #[arg(long, default_value = "127.0.0.1:8765")]
    listen: std::net::SocketAddr,
    /// File holding the bearer token required on every HTTP request.
    #[arg(long, value_name = "FILE")]
    http_token_file: Option<PathBuf>,
    /// Largest accepted HTTP request body, in bytes (larger gets 413).
    #[arg(long, default_value_t = runtime::mcp::http::DEFAULT_MAX_BODY_BYTES)]
    max_body_bytes: usize,
    /// Most MCP sessions kept at once over HTTP. At the limit a new one takes the place of
    /// the longest-idle session (idle a fifth of --session-idle-timeout, nothing open), or
    /// gets 503.
    #[arg(
        long,
        value_name = "N",
        env = "ETRADE_MCP_MAX_SESSIONS",
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        default_value_t = runtime::mcp::http_sessions::DEFAULT_MAX_SESSIONS
    )]
    max_sessions: usize,
    /// An HTTP MCP session with no request for this many seconds ends.
    #[arg(
        long,
        value_name = "SECONDS",
        env = "ETRADE_MCP_SESSION_IDLE_TIMEOUT",
        value_parser = clap::value_parser!(u64).range(1..),
        default_value_t = runtime::mcp::http_sessions::DEFAULT_IDLE_TIMEOUT.as_secs()
    )]
    session_idle_timeout: u64,
    /// Extra Host header values accepted for a non-loopback bind (repeatable).
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    #[command(flatten)]
    grants: GrantFlags,
    /// Renew the E*TRADE token shortly before its two-hour idle deadline while the server
    /// runs (off by default: it keeps a session alive without any request from you).
    #[arg(long)]
    keepalive: bool,
    /// Where credentials are kept (default: the profile's `credential_store`, else auto).
    #[arg(long, value_parser = store_choice(), env = "ETRADE_MCP_CREDENTIAL_STORE")]
    credential_store: Option<StoreChoice>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum EnvironmentArg {
    Paper,
    Sandbox,
    Production,
}

impl From<EnvironmentArg> for Environment {
    fn from(e: EnvironmentArg) -> Environment {
        match e {
            EnvironmentArg::Paper => Environment::Paper,
            EnvironmentArg::Sandbox => Environment::Sandbox,
            EnvironmentArg::Production => Environment::Production,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TransportArg {
    Stdio,
    Http,
}

/// `--credential-store`: the names and one-line descriptions come from [`StoreChoice`].
fn store_choice() -> impl clap::builder::TypedValueParser<Value = StoreChoice> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        StoreChoice::ALL.map(|c| PossibleValue::new(c.as_str()).help(c.describe())),
    )
    .try_map(|name| name.parse::<StoreChoice>())
}

#[derive(Debug, clap::Args)]
struct ToolsArgs {
    #[command(subcommand)]
    command: Option<ToolsCommand>,
}

#[derive(Debug, Subcommand)]
enum ToolsCommand {
    /// Print a tool's input and output JSON Schemas.
    Show {
        /// Tool name, e.g. server_status.
        name: String,
    },
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Auth(args) => auth::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Halt(args) => halt::halt(args),
        Command::Resume(args) => halt::resume(args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            // Generated into memory first: clap_complete panics when its writer fails (a
            // closed pipe), and a closed pipe is no reason to panic.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "etrade", &mut script);
            use std::io::Write;
            let _ = std::io::stdout().write_all(&script);
            Ok(ExitCode::SUCCESS)
        }
        Command::Paper(args) => {
            let setup = setup::Setup::resolve(Some(Environment::Paper), args.profile)?;
            match args.command {
                PaperCommand::Reset { cash } => paper::reset(&setup, cash.as_deref()),
                PaperCommand::Status => paper::status(&setup),
                PaperCommand::Advance { duration } => paper::advance(&setup, &duration),
            }
        }
        Command::Approve(args) => {
            let setup = setup::Setup::resolve(args.environment.map(Into::into), args.profile)?;
            approve::run(
                &setup,
                &approve::ApproveRequest {
                    preview_id: args.preview_id.as_deref(),
                    yes: args.yes,
                    reject: args.reject,
                    list: args.list,
                    set_pin: args.set_pin,
                },
            )
        }
        Command::Tools(args) => Ok(match args.command {
            None => tools::list(),
            Some(ToolsCommand::Show { name }) => tools::show(&name),
        }),
    }
}

/// HTTP client settings; `ETRADE_MCP_RATE_SCALE` raises the request pacing and
/// `ETRADE_MCP_HTTP_TIMEOUT_MS` sets the per-request deadline (tests against the fake).
pub fn client_options() -> runtime::etrade::ClientOptions {
    let mut o = runtime::etrade::ClientOptions::default();
    if let Some(ms) = std::env::var("ETRADE_MCP_HTTP_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        o.timeout = std::time::Duration::from_millis(ms);
    }
    if let Some(scale) = std::env::var("ETRADE_MCP_RATE_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        o.rate_scale = scale;
    }
    o
}

/// The credential lock for this state folder; `ETRADE_MCP_LOCK_TIMEOUT_MS` shortens the wait.
pub fn coordinator(setup: &setup::Setup) -> anyhow::Result<runtime::credentials::Coordinator> {
    let timeout = std::env::var("ETRADE_MCP_LOCK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(std::time::Duration::from_millis)
        .unwrap_or(runtime::credentials::DEFAULT_LOCK_TIMEOUT);
    let dir = setup.paths.ensure_data_dir()?;
    Ok(runtime::credentials::Coordinator::new(dir, timeout))
}
