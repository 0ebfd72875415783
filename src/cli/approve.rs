//! `etrade approve`: a person approves (or rejects) a stored preview from a terminal, lists
//! the previews waiting, or sets the approval PIN. It works beside a running `etrade serve`:
//! both use the trading database in the state folder.

use super::output::outln;
use super::setup::Setup;
use anyhow::{Context, bail};
use runtime::trading::approval::{self, Channel, Decision};
use runtime::trading::approval_pin::ApprovalPin;
use runtime::trading::store::{DecisionFor, TradingStore};
use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

pub struct ApproveRequest<'a> {
    pub preview_id: Option<&'a str>,
    pub yes: bool,
    pub reject: bool,
    pub list: bool,
    pub set_pin: bool,
}

pub fn run(setup: &Setup, r: &ApproveRequest<'_>) -> anyhow::Result<ExitCode> {
    let dir = setup.paths.ensure_data_dir()?;
    let pin = ApprovalPin::in_dir(dir);
    if r.set_pin {
        return set_pin(&pin);
    }
    let store =
        TradingStore::open(dir.join("trading.redb")).context("cannot open the trading database")?;
    let (environment, profile) = (setup.settings.environment.as_str(), &setup.settings.profile);
    let now = jiff::Timestamp::now();
    if r.list {
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
        if pin.is_set() && !pin.check(&input.secret("Approval PIN: ")?)? {
            bail!("wrong PIN; nothing was approved");
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
    if pin.is_set() && !pin.check(&input.secret("Current approval PIN: ")?)? {
        bail!("wrong PIN; the PIN was not changed");
    }
    let new = input.secret("New approval PIN (at least 4 characters): ")?;
    if input.secret("The new PIN again: ")? != new {
        bail!("the two PINs differ; the PIN was not changed");
    }
    pin.set(&new)?;
    outln!("The approval PIN is set: etrade approve and the approval page will ask for it.");
    Ok(ExitCode::SUCCESS)
}

/// Answers from the person: a terminal when there is one (the PIN not echoed), else one
/// line of standard input per answer (scripts that showed the summary themselves).
struct Input {
    terminal: bool,
    lines: std::io::Lines<std::io::StdinLock<'static>>,
}

impl Input {
    fn new() -> Input {
        Input {
            terminal: std::io::stdin().is_terminal(),
            lines: std::io::stdin().lock().lines(),
        }
    }

    fn line(&mut self, prompt: &str) -> anyhow::Result<String> {
        if self.terminal {
            eprint!("{prompt}");
        }
        match self.lines.next() {
            Some(line) => Ok(line?.trim().to_string()),
            None => bail!("no answer on standard input"),
        }
    }

    fn confirm(&mut self, prompt: &str) -> anyhow::Result<bool> {
        if !self.terminal {
            bail!(
                "standard input is not a terminal: show the summary to the person, then run again with --yes"
            );
        }
        let answer = self.line(prompt)?.to_ascii_lowercase();
        Ok(answer == "y" || answer == "yes")
    }

    fn secret(&mut self, prompt: &str) -> anyhow::Result<String> {
        if self.terminal {
            return Ok(rpassword::prompt_password(prompt)?);
        }
        self.line(prompt)
    }
}
