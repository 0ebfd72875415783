//! `etrade paper reset|status|advance`: manage the local paper brokerage of a profile.

use super::output::outln;
use super::setup::Setup;
use anyhow::Context;
use clap::Subcommand;
use runtime::config::Environment;
use runtime::paper::MarketData;
use runtime::paper::book::{PaperBook, PaperConfig};
use runtime::paper::market::SimulatedMarket;
use rust_decimal::Decimal;
use std::process::ExitCode;
use std::str::FromStr;
use std::sync::Arc;

/// The seed of the built-in market: fixed, so paper prices are the same on every machine.
pub const MARKET_SEED: u64 = 0x0e7a_de00;

/// The profile's paper book (`paper-PROFILE.redb` in the state folder) on the simulator.
pub fn open_book(setup: &Setup) -> anyhow::Result<Arc<PaperBook>> {
    open_book_with(setup, Arc::new(SimulatedMarket::new(MARKET_SEED)))
}

/// The profile's paper book, pricing with `market`.
pub fn open_book_with(
    setup: &Setup,
    market: Arc<dyn MarketData>,
) -> anyhow::Result<Arc<PaperBook>> {
    let dir = setup.paths.ensure_data_dir()?;
    let path = dir.join(format!("paper-{}.redb", setup.settings.profile));
    let book = PaperBook::open(&path, PaperConfig::default(), market)
        .with_context(|| format!("cannot open the paper book {}", path.display()))?;
    Ok(Arc::new(book))
}

fn print(v: &serde_json::Value) {
    outln!(
        "{}",
        serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
    );
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

/// `etrade paper`, as parsed.
pub fn run(args: PaperArgs) -> anyhow::Result<ExitCode> {
    let setup = Setup::resolve(Some(Environment::Paper), args.profile)?;
    match args.command {
        PaperCommand::Reset { cash } => reset(&setup, cash.as_deref()),
        PaperCommand::Status => status(&setup),
        PaperCommand::Advance { duration } => advance(&setup, &duration),
    }
}

pub fn reset(setup: &Setup, cash: Option<&str>) -> anyhow::Result<ExitCode> {
    let cash = match cash {
        Some(c) => Some(
            Decimal::from_str(c.trim_start_matches('$').replace(',', "").as_str())
                .ok()
                .filter(|d| !d.is_sign_negative())
                .with_context(|| {
                    "--cash must be an amount such as 25000 or 25000.00".to_string()
                })?,
        ),
        None => None,
    };
    let book = open_book(setup)?;
    book.reset(cash).context("reset failed")?;
    print(&book.status().context("status")?);
    Ok(ExitCode::SUCCESS)
}

pub fn status(setup: &Setup) -> anyhow::Result<ExitCode> {
    let book = open_book(setup)?;
    book.catch_up().context("catching up")?;
    print(&book.status().context("status")?);
    Ok(ExitCode::SUCCESS)
}

/// DURATION like `30m`, `2h`, `1d 4h` (a day is 24 hours of simulated time).
pub fn parse_duration(text: &str) -> anyhow::Result<jiff::SignedDuration> {
    let span = jiff::Span::from_str(text.trim())
        .with_context(|| format!("{text:?} is not a duration such as 30m, 2h or 1d"))?;
    let d = span
        .to_duration(jiff::SpanRelativeTo::days_are_24_hours())
        .with_context(|| format!("{text:?} cannot be used as a duration"))?;
    anyhow::ensure!(!d.is_negative(), "simulated time only moves forward");
    Ok(d)
}

pub fn advance(setup: &Setup, by: &str) -> anyhow::Result<ExitCode> {
    let by = parse_duration(by)?;
    let book = open_book(setup)?;
    book.advance(by).context("advance failed")?;
    print(&book.status().context("status")?);
    Ok(ExitCode::SUCCESS)
}
