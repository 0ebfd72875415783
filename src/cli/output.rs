//! Standard output for the commands that print: a reader that went away (`etrade tools show
//! NAME | head`) ends the command quietly with exit 0, as it would any Unix filter; `println!`
//! would panic instead.

use std::fmt;
use std::io::{ErrorKind, Write};

/// Writes `args` and a newline to stdout.
pub fn line(args: fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    let written = out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if let Err(e) = written {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        // Anything else (a full disk behind a redirect) is worth saying, without a panic.
        eprintln!("etrade: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// `println!` for command output; see [`line`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::output::line(format_args!($($arg)*))
    };
}
pub(crate) use outln;
