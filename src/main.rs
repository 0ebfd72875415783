//! `etrade`: the etrade-mcp command line.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    runtime::logging::init();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            cli::output::noteln!("etrade: {e:#}");
            ExitCode::FAILURE
        }
    }
}
