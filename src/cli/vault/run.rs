//! `etrade vault run`.

use super::RunArgs;
use std::process::ExitCode;

pub fn run(_args: RunArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("etrade vault run is not built yet")
}
