//! `etrade approve`: a person approves (or rejects) a stored preview from a terminal, lists
//! the previews waiting, or sets the approval PIN. It works beside a running `etrade serve`:
//! both use the trading database in the state folder.

use super::flags::EnvironmentArg;
use super::output::outln;
use super::prompt::Input;
use super::setup::Setup;
use anyhow::{Context, bail};
use runtime::trading::approval::{self, Channel, Decision};
use runtime::trading::approval_pin::ApprovalPin;
use runtime::trading::pin_strength::{MIN_LENGTH, MIN_WORDS};
use runtime::trading::store::{DecisionFor, PinPurpose, StoreError, TradingStore};
use std::process::ExitCode;
use std::sync::Arc;

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

/// `etrade approve`, as parsed.
pub fn run(args: ApproveArgs) -> anyhow::Result<ExitCode> {
    let setup = Setup::resolve(args.environment.map(Into::into), args.profile)?;
    decide(
        &setup,
        &ApproveRequest {
            preview_id: args.preview_id.as_deref(),
            yes: args.yes,
            reject: args.reject,
            list: args.list,
            set_pin: args.set_pin,
        },
    )
}

pub struct ApproveRequest<'a> {
    pub preview_id: Option<&'a str>,
    pub yes: bool,
    pub reject: bool,
    pub list: bool,
    pub set_pin: bool,
}

pub fn decide(setup: &Setup, r: &ApproveRequest<'_>) -> anyhow::Result<ExitCode> {
    let dir = setup.paths.ensure_data_dir()?;
    let path = dir.join("trading.redb");
    if r.set_pin {
        // Setting a PIN is the one approval command that may create the store.
        let store =
            Arc::new(TradingStore::open(&path).context("cannot open the trading database")?);
        return set_pin(&super::setup::approval_pin(store, dir));
    }
    // Deciding creates nothing: a store that was moved away or deleted took its PIN and its
    // approvals with it, and an empty one made here would approve without a PIN.
    let store = match TradingStore::open_existing(&path) {
        Ok(store) => Arc::new(store.with_peer(super::setup::vault_peer())),
        Err(StoreError::Missing(at)) => bail!(
            "there is no trading database at {at}, so there is nothing to approve: `etrade serve` creates it with its first preview. If there was one, it was moved or deleted, and its approval PIN with it: nothing is approved until it is back, or until a new PIN is set with `etrade approve --set-pin` and the order previewed again"
        ),
        Err(e) => return Err(e).context("cannot open the trading database"),
    };
    let pin = super::setup::approval_pin(store.clone(), dir);
    let (environment, profile) = (setup.settings.environment.as_str(), &setup.settings.profile);
    let now = jiff::Timestamp::now();
    if r.list {
        // With approval off, previews are placed without a person: none of them waits.
        if !setup.trading_policy().approval_required() {
            outln!(
                "No previews of {environment}/{profile} wait for approval: this profile places orders without asking a person (its [trading] approval is \"none\")."
            );
            return Ok(ExitCode::SUCCESS);
        }
        let waiting = store.awaiting_decision(environment, profile, now)?;
        if waiting.is_empty() {
            outln!("No previews of {environment}/{profile} are waiting for approval.");
        }
        for p in waiting {
            outln!("{}\n", approval::summary(&p));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(id) = r.preview_id else {
        bail!("name the preview to approve (etrade approve PREVIEW_ID), or use --list");
    };
    let preview = store
        .preview(id)?
        .filter(|p| p.environment == environment && p.profile == *profile)
        .with_context(|| format!("no preview {id} in {environment}/{profile}"))?;
    outln!("{}\n", approval::summary(&preview));
    let decision = if r.reject {
        Decision::Rejected
    } else {
        let mut input = Input::new();
        if !r.yes && !input.confirm("Place this order? [y/N] ")? {
            outln!("Not approved; nothing changed.");
            return Ok(ExitCode::FAILURE);
        }
        // The PIN is asked even with --yes: --yes only skips the question.
        if pin.is_set() {
            let given = input.secret("Approval PIN: ")?;
            if let Err(refusal) = pin.verify(&given, PinPurpose::ApproveTerminal) {
                bail!("{refusal}; nothing was approved");
            }
        }
        Decision::Approved
    };
    store.record_decision(&DecisionFor {
        preview_id: id,
        environment,
        profile,
        decision,
        channel: Channel::Terminal,
        now,
    })?;
    match decision {
        Decision::Approved => outln!(
            "Approved. The agent can now place it: place_order with preview_id {id} (until {}).",
            preview.expires_at
        ),
        Decision::Rejected => outln!("Rejected. This preview will not be placed."),
    }
    Ok(ExitCode::SUCCESS)
}

fn set_pin(pin: &ApprovalPin) -> anyhow::Result<ExitCode> {
    let mut input = Input::new();
    if pin.is_stored() {
        let given = input.secret("Current approval PIN: ")?;
        if let Err(refusal) = pin.verify(&given, PinPurpose::ChangePin) {
            bail!("{refusal}; the PIN was not changed");
        }
    }
    let new = input.secret(&format!(
        "New approval PIN (at least {MIN_LENGTH} characters, not all digits; or {MIN_WORDS}+ words): "
    ))?;
    if input.secret("The new PIN again: ")? != new {
        bail!("the two PINs differ; the PIN was not changed");
    }
    let set = pin.set(&new)?;
    outln!(
        "The approval PIN is set ({}): etrade approve, the approval page, the order ticket and etrade resume will ask for it.",
        set.strength.as_str()
    );
    outln!(
        "Guessing it from a copy of its hash would take {} on this machine, if it were random over its characters; a word or a pattern is far weaker.",
        set.offline_cost()
    );
    Ok(ExitCode::SUCCESS)
}
