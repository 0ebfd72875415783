//! `etrade vault install` and `uninstall`.

use super::{InstallArgs, UninstallArgs};
use std::process::ExitCode;

pub fn install(_args: InstallArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("etrade vault install is not built yet")
}

pub fn uninstall(_args: UninstallArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("etrade vault uninstall is not built yet")
}
