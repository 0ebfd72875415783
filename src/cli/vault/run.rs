//! `etrade vault run`: the vault itself, as its own account.

use super::RunArgs;
use anyhow::{Context, bail};
use runtime::platform::local_socket::LocalListener;
use runtime::vault::defaults;
use runtime::vault::supervisor::Supervisor;
use std::process::ExitCode;
use tokio_util::sync::CancellationToken;

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let os = runtime::platform::CURRENT;
    let state = args.state.unwrap_or_else(|| defaults::state_dir(os));
    let socket = args.socket.unwrap_or_else(|| defaults::socket(os));
    refuse_the_wrong_account(&state)?;
    let program = std::env::current_exe().context("cannot find this etrade binary")?;
    let body = move |shutdown: CancellationToken| serve(program, state, socket, shutdown);
    #[cfg(windows)]
    {
        use runtime::platform::windows_service::{Dispatch, run_as_windows_service};
        let boxed: runtime::platform::windows_service::ServiceBody =
            Box::new(move |shutdown| body(shutdown).map_err(|e| format!("{e:#}")));
        let outcome = match run_as_windows_service(boxed)? {
            Dispatch::Served(result) => result,
            Dispatch::NotAService(body) => body(CancellationToken::new()),
        };
        outcome.map_err(anyhow::Error::msg)?;
        Ok(ExitCode::SUCCESS)
    }
    #[cfg(not(windows))]
    {
        body(CancellationToken::new())?;
        Ok(ExitCode::SUCCESS)
    }
}

/// Serves the socket until `shutdown` (the service manager's stop) or a termination signal.
fn serve(
    program: std::path::PathBuf,
    state: std::path::PathBuf,
    socket: std::path::PathBuf,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let rt = crate::cli::serve::async_runtime()?;
    rt.block_on(async move {
        let listener = LocalListener::bind(&socket)
            .with_context(|| format!("cannot listen at {}", socket.display()))?;
        crate::cli::serve::install_signal_handlers(shutdown.clone())?;
        crate::cli::output::noteln!(
            "etrade vault: serving {} from {}",
            socket.display(),
            state.display()
        );
        Supervisor { program, state }
            .serve(listener, shutdown)
            .await;
        anyhow::Ok(())
    })
}

/// The vault runs as the account that owns its state folder, and never as root: as root,
/// every file it writes would be root's, and a bug in it would be one in a root process.
fn refuse_the_wrong_account(state: &std::path::Path) -> anyhow::Result<()> {
    let Some(me) = runtime::vault::identity::effective_uid() else {
        return Ok(());
    };
    if me == 0 {
        bail!(
            "etrade vault run refuses to run as root (uid 0): run it as the vault's account, e.g. `runuser -u ACCOUNT -- etrade vault run`, or through the service `etrade vault install` made"
        );
    }
    let owner = runtime::vault::identity::owner_uid(state)
        .with_context(|| format!("cannot read the vault's state folder {}", state.display()))?;
    if owner != Some(me) {
        bail!(
            "etrade vault run must run as the owner of its state folder {} (uid {}), not as uid {me}",
            state.display(),
            owner.map_or_else(|| "unknown".to_string(), |o| o.to_string())
        );
    }
    Ok(())
}
