//! Command-line definitions and the commands behind them.

mod approve;
mod auth;
mod doctor;
mod flags;
mod halt;
pub(crate) mod output;
mod paper;
mod prompt;
mod serve;
mod setup;
mod tools;
mod vault;

use clap::{Parser, Subcommand};
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
    Serve(serve::ServeArgs),
    /// List the tool catalog, or show one tool's schemas.
    Tools(tools::ToolsArgs),
    /// Log in to E*TRADE (OAuth, daily), check, renew or log out.
    Auth(auth::AuthArgs),
    /// Manage the local paper brokerage: reset it, show it, move its simulated time.
    Paper(paper::PaperArgs),
    /// Print a shell completion script, e.g. `etrade completions bash > ~/.local/share/bash-completion/completions/etrade`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Check the setup: config, state folder, keyring, credentials, clock, permissions.
    Doctor(doctor::DoctorArgs),
    /// Approve (or reject) a previewed order so the agent can place it; list the previews
    /// waiting; set the approval PIN.
    Approve(approve::ApproveArgs),
    /// Halt trading now: every running server refuses orders and alert changes (previews
    /// still work) until `etrade resume`.
    Halt(halt::HaltArgs),
    /// Lift a halt made with `etrade halt` (with --all: every halt, of every scope).
    Resume(halt::ResumeArgs),
    /// The trading vault: install it under its own OS account, remove it, or run it.
    Vault(vault::VaultArgs),
}

impl Command {
    /// The commands that act on the trading state: with a vault, it runs them.
    fn uses_the_vault(&self) -> bool {
        match self {
            Command::Serve(_)
            | Command::Auth(_)
            | Command::Paper(_)
            | Command::Doctor(_)
            | Command::Approve(_)
            | Command::Halt(_)
            | Command::Resume(_) => true,
            Command::Tools(_) | Command::Completions { .. } | Command::Vault(_) => false,
        }
    }
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if cli.command.uses_the_vault()
        && let Some(socket) = vault::client::socket()
    {
        return match cli.command {
            Command::Serve(args) => serve::run_through_vault(args, &socket),
            Command::Doctor(_) => {
                doctor::say_vault(&socket);
                vault::client::relay(&socket)
            }
            _ => vault::client::relay(&socket),
        };
    }
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
        Command::Paper(args) => paper::run(args),
        Command::Approve(args) => approve::run(args),
        Command::Tools(args) => Ok(tools::run(args)),
        Command::Vault(args) => vault::run(args),
    }
}
