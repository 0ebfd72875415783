//! `etrade vault install` and `uninstall`: resolve the defaults, refuse without root (an
//! administrator), then build the OS's plan and run it (runtime::vault::install).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use runtime::platform::{CURRENT, Os};
use runtime::vault::install::{self as vault_install, InstallRequest, UninstallRequest};
use runtime::vault::{defaults, identity};

use super::{InstallArgs, UninstallArgs};

pub fn install(args: InstallArgs) -> anyhow::Result<ExitCode> {
    require_administrator("install")?;
    let request = InstallRequest {
        account: args.account,
        state: args.state.unwrap_or_else(|| defaults::state_dir(CURRENT)),
        socket: args.socket.unwrap_or_else(|| defaults::socket(CURRENT)),
        program: this_program()?,
        service: !args.no_service,
    };
    let plan = vault_install::install_plan(CURRENT, &request)?;
    let outcome = vault_install::execute(&plan, &mut std::io::stdout().lock())
        .context("etrade vault install stopped")?;
    report_ignored(&outcome);
    println!("{}", vault_install::next_steps(CURRENT, &request));
    Ok(ExitCode::SUCCESS)
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<ExitCode> {
    require_administrator("uninstall")?;
    let state = args.state.unwrap_or_else(|| defaults::state_dir(CURRENT));
    let socket = args.socket.unwrap_or_else(|| defaults::socket(CURRENT));
    let account = if args.purge {
        purge_account(&state)?
    } else {
        None
    };
    let request = UninstallRequest {
        state,
        socket,
        purge: args.purge,
        account,
    };
    let plan = vault_install::uninstall_plan(CURRENT, &request)?;
    let outcome = vault_install::execute(&plan, &mut std::io::stdout().lock())
        .context("etrade vault uninstall stopped")?;
    report_ignored(&outcome);
    if !request.purge {
        println!(
            "the state folder {} and the vault's account were kept (--purge removes them)",
            request.state.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn require_administrator(verb: &str) -> anyhow::Result<()> {
    if identity::is_administrator() {
        return Ok(());
    }
    match CURRENT {
        Os::Windows => anyhow::bail!(
            "etrade vault {verb} must run as an administrator (an elevated prompt): it writes \
             a Windows service and the state folder's permissions"
        ),
        _ => anyhow::bail!(
            "etrade vault {verb} must run as root (uid 0; this is uid {}): it manages a system \
             account, its folders and a service; try sudo",
            identity::effective_uid().map_or_else(|| "unknown".into(), |u| u.to_string())
        ),
    }
}

/// The absolute path of this binary, for the service definition.
fn this_program() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot tell where this etrade binary is")?;
    if CURRENT == Os::Windows {
        // canonicalize would give a `\\?\` path, which sc.exe and the person can do without.
        return Ok(exe);
    }
    exe.canonicalize()
        .with_context(|| format!("{}: cannot resolve", exe.display()))
}

/// The account `--purge` deletes: the state folder's owner, when the user database gives
/// that account the state folder as its home (so a folder handed to some other account by
/// mistake never costs that account). Found on the machine rather than in a file in the
/// folder, which the vault's account could rewrite to name any account.
fn purge_account(state: &Path) -> anyhow::Result<Option<String>> {
    let Some(uid) = identity::owner_uid(state)
        .with_context(|| format!("{}: cannot read its owner", state.display()))?
    else {
        return Ok(None);
    };
    if uid == 0 {
        return Ok(None);
    }
    let Some(name) = identity::account_name(uid).context("cannot look up the owner's name")? else {
        return Ok(None);
    };
    let home = identity::account_home(&name).context("cannot look up the owner's home")?;
    if home.as_deref() != Some(state) {
        println!(
            "note: {name} owns {} but its home is {}: the account is kept",
            state.display(),
            home.map_or_else(|| "unknown".into(), |h| h.display().to_string())
        );
        return Ok(None);
    }
    Ok(Some(name))
}

fn report_ignored(outcome: &vault_install::Outcome) {
    if !outcome.ignored_failures.is_empty() {
        println!(
            "{} step(s) failed without stopping the rest (above)",
            outcome.ignored_failures.len()
        );
    }
}
