//! `etrade-mcp`: the package's name as a command, for `uvx etrade-mcp` and
//! `pipx run etrade-mcp`, which run the command named like the package. It runs the `etrade`
//! installed beside it with the same arguments; with none, `etrade serve` (the MCP server on
//! stdio, in the configured environment: paper by default).

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(path) => path.with_file_name(format!("etrade{}", std::env::consts::EXE_SUFFIX)),
        Err(e) => {
            eprintln!("etrade-mcp: cannot tell where this program is: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.is_empty() {
        args.push("serve".into());
    }
    // A child sharing this process's console and standard streams, not exec: OS-specific
    // APIs stay in runtime/src/platform.rs (.ci/check-portability). A host ends a stdio server
    // by closing its standard input, which `etrade` reads directly.
    match Command::new(&exe).args(&args).status() {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::FAILURE,
        },
        Err(e) => {
            eprintln!("etrade-mcp: cannot run {}: {e}", exe.display());
            ExitCode::FAILURE
        }
    }
}
