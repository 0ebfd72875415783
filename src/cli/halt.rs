//! `etrade halt` and `etrade resume`: stop every order and alert change of the running
//! servers at once, for the moment a person sees an agent misbehave, and lift it again.
//! The records and the check are runtime's ([`runtime::trading::halt`]).

use super::flags::EnvironmentArg;
use super::output::outln;
use super::prompt::Input;
use super::setup::Setup;
use anyhow::{Context, bail};
use runtime::paths::StatePaths;
use runtime::trading::approval_pin::{LEGACY_FILE_NAME, PinRefusal};
use runtime::trading::halt::{Halt, HaltError, HaltRecords, HaltScope, HaltSwitch, current_user};
use runtime::trading::store::{PinPurpose, StoreError, TradingStore};
use std::process::ExitCode;
use std::sync::Arc;

/// Which servers: one profile in one environment (resolved as `etrade serve` resolves
/// them), or every one.
#[derive(Debug, clap::Args)]
pub struct HaltTarget {
    /// Environment (default: the profile's `environment` in config.toml, as `etrade serve`).
    #[arg(long, value_enum, env = "ETRADE_MCP_ENVIRONMENT")]
    environment: Option<EnvironmentArg>,
    /// Profile from config.toml (default: `default`, as `etrade serve`).
    #[arg(long, env = "ETRADE_MCP_PROFILE")]
    profile: Option<String>,
    /// Every profile and environment of this state folder (--environment and --profile are
    /// then ignored; config.toml is not read).
    #[arg(long)]
    all: bool,
}

#[derive(Debug, clap::Args)]
pub struct HaltArgs {
    #[command(flatten)]
    target: HaltTarget,
    /// Why, for whoever reads it later (shown by server_status and in every refusal).
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ResumeArgs {
    #[command(flatten)]
    target: HaltTarget,
}

/// The state folder and the scope the flags name.
fn resolve(target: HaltTarget) -> anyhow::Result<(HaltRecords, HaltScope, Option<Setup>)> {
    if target.all {
        let paths = StatePaths::from_env().context("cannot locate the state folder")?;
        return Ok((HaltRecords::new(paths.data_dir), HaltScope::All, None));
    }
    let setup = Setup::resolve(target.environment.map(Into::into), target.profile).context(
        "cannot resolve the environment and profile (with --all, config.toml is not read)",
    )?;
    let scope = HaltScope::profile(setup.settings.environment, &setup.settings.profile)?;
    Ok((HaltRecords::new(&setup.paths.data_dir), scope, Some(setup)))
}

pub fn halt(args: HaltArgs) -> anyhow::Result<ExitCode> {
    let (records, scope, _) = resolve(args.target)?;
    // Through the vault, the halt names who asked, not the vault's own account.
    let by = match super::setup::vault_peer() {
        Some(peer) => format!("{peer} (through the vault)"),
        None => current_user(),
    };
    let halt = Halt::new(
        scope.clone(),
        &by,
        jiff::Timestamp::now(),
        args.reason.as_deref(),
    )?;
    let before = records.read(&scope).ok().flatten();
    records.write(&halt)?;
    outln!("{halt}");
    if let Some(before) = before {
        outln!(
            "(It replaces the halt by {} since {}.)",
            before.by,
            before.at
        );
    }
    outln!(
        "Running servers refuse every order and alert change from their next call on; previews still work."
    );
    Ok(ExitCode::SUCCESS)
}

pub fn resume(args: ResumeArgs) -> anyhow::Result<ExitCode> {
    let (records, scope, setup) = resolve(args.target)?;
    check_pin(&records)?;
    if scope == HaltScope::All {
        let lifted = records.remove_all()?;
        if lifted.is_empty() {
            outln!("Nothing was halted.");
        }
        for record in &lifted {
            say_lifted(record);
        }
        return Ok(ExitCode::SUCCESS);
    }
    match records.remove(&scope)? {
        None => outln!("Trading for {scope} was not halted."),
        Some(record) => say_lifted(&record),
    }
    // `--all` outranks a profile's resume: say so, and fail, since trading did not resume.
    if let Some(setup) = setup {
        let switch = HaltSwitch::new(
            &setup.paths.data_dir,
            setup.settings.environment,
            &setup.settings.profile,
        )?;
        if let Err(still) = switch.check() {
            crate::cli::output::noteln!("etrade: still halted: {still}");
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Lifting a halt needs the approval PIN when one is set: a halt is a person's, and a
/// program with a shell must not undo it (halting never needs the PIN).
fn check_pin(records: &HaltRecords) -> anyhow::Result<()> {
    let dir = records.dir();
    let store_path = dir.join("trading.redb");
    // Creates no store: without one (and without an older version's PIN file) no PIN was
    // ever set here. A program with a shell can move the store away, as it can delete the
    // halt file itself; tier (c) in docs/guide/trading-and-approvals.md says so.
    let store = match TradingStore::open_existing(&store_path) {
        Ok(store) => store,
        Err(StoreError::Missing(_)) if runtime::paths::inside_vault() => {
            bail!("{}; trading stays halted", PinRefusal::NotSet)
        }
        Err(StoreError::Missing(_)) if !dir.join(LEGACY_FILE_NAME).exists() => return Ok(()),
        Err(StoreError::Missing(_)) => {
            TradingStore::open(&store_path).context("cannot open the trading database")?
        }
        Err(e) => return Err(e).context("cannot open the trading database"),
    };
    let pin = super::setup::approval_pin(Arc::new(store), dir);
    if !pin.is_set() {
        return Ok(());
    }
    let given = Input::new().secret("Approval PIN: ")?;
    if let Err(refusal) = pin.verify(&given, PinPurpose::Resume) {
        bail!("{refusal}; trading stays halted");
    }
    Ok(())
}

fn say_lifted(record: &Result<Halt, HaltError>) {
    match record {
        Ok(h) => {
            let reason = h
                .reason
                .as_deref()
                .map(|r| format!(" (reason: {r})"))
                .unwrap_or_default();
            outln!(
                "Resumed trading for {}: it was halted by {} since {}{reason}.",
                h.scope,
                h.by,
                h.at
            );
        }
        Err(e) => outln!("Removed an unreadable halt record: {e}."),
    }
}
