//! Standard output for the commands that print: a reader that went away (`etrade tools show
//! NAME | head`) ends the command quietly with exit 0, as it would any Unix filter; `println!`
//! would panic instead. Notes for the person go to stderr, which may be closed too (a host that
//! stopped reading a server's stderr): `eprintln!` would panic there, so [`note`] drops them.

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
        note(format_args!("etrade: cannot write to standard output: {e}"));
        std::process::exit(1);
    }
}

/// Writes `args` and a newline to stderr; a failed write is dropped (there is nowhere left to
/// say it).
pub fn note(args: fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// `eprintln!` that never panics; see [`note`].
macro_rules! noteln {
    ($($arg:tt)*) => {
        $crate::cli::output::note(format_args!($($arg)*))
    };
}
pub(crate) use noteln;

/// `println!` for command output; see [`line`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::output::line(format_args!($($arg)*))
    };
}
pub(crate) use outln;
