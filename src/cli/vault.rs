//! `etrade vault install|uninstall|run`: the trading vault's own commands. The person-side
//! commands reach a vault through [`client`].

pub mod client;
mod install;
mod run;

use clap::Subcommand;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct VaultArgs {
    #[command(subcommand)]
    command: VaultCommand,
}

#[derive(Debug, Subcommand)]
enum VaultCommand {
    /// Create the vault's account, state folder and service, and start it (root or an
    /// administrator).
    Install(InstallArgs),
    /// Stop and remove the vault's service (its state stays unless --purge).
    Uninstall(UninstallArgs),
    /// The vault itself: serve the person's side on the local socket (run as the vault's
    /// account, by the service).
    Run(RunArgs),
}

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// The system account the vault runs as (created when it does not exist).
    #[arg(long, value_name = "NAME")]
    pub account: String,
    /// Create the account and folders only: no service definition is written or started.
    #[arg(long)]
    pub no_service: bool,
    /// The vault's state folder.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Where the vault listens.
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct UninstallArgs {
    /// Also delete the state folder (the vault's login, trading store, paper books) and the
    /// account.
    #[arg(long)]
    pub purge: bool,
    /// The vault's state folder.
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Where the vault listens.
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The vault's state folder (owned by the account this runs as).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Where to listen.
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
}

pub fn run(args: VaultArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        VaultCommand::Install(a) => install::install(a),
        VaultCommand::Uninstall(a) => install::uninstall(a),
        VaultCommand::Run(a) => run::run(a),
    }
}
