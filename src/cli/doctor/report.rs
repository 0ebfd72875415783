//! The report: one line per check as it is made, the tally, and the exit code.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    Ok,
    Warn,
    Fail,
    /// Not run (offline, or nothing to run it with); never a failure.
    Skip,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Padded so the check names line up.
        f.write_str(match self {
            Status::Ok => "ok  ",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        })
    }
}

/// Prints each check as it is made and keeps the tally.
#[derive(Default)]
pub(super) struct Report {
    ok: usize,
    warn: usize,
    fail: usize,
    skip: usize,
}

impl Report {
    pub(super) fn line(&mut self, status: Status, name: &str, found: &str, next: Option<&str>) {
        match status {
            Status::Ok => self.ok += 1,
            Status::Warn => self.warn += 1,
            Status::Fail => self.fail += 1,
            Status::Skip => self.skip += 1,
        }
        match next {
            Some(n) => outln!("{status} {name}: {found} Next: {n}"),
            None => outln!("{status} {name}: {found}"),
        }
    }

    pub(super) fn ok(&mut self, name: &str, found: &str) {
        self.line(Status::Ok, name, found, None);
    }

    pub(super) fn warn(&mut self, name: &str, found: &str, next: &str) {
        self.line(Status::Warn, name, found, Some(next));
    }

    pub(super) fn fail(&mut self, name: &str, found: &str, next: &str) {
        self.line(Status::Fail, name, found, Some(next));
    }

    pub(super) fn skip(&mut self, name: &str, found: &str) {
        self.line(Status::Skip, name, found, None);
    }

    /// Explanation that is not a check: printed, never counted.
    pub(super) fn info(&mut self, name: &str, found: &str) {
        outln!("info {name}: {found}");
    }

    pub(super) fn finish(self) -> ExitCode {
        let mut summary = format!(
            "summary: {} ok, {} warn, {} FAIL",
            self.ok, self.warn, self.fail
        );
        if self.skip > 0 {
            summary.push_str(&format!(", {} skipped", self.skip));
        }
        if self.fail == 0 {
            summary.push_str(" - no problems that stop etrade");
        }
        outln!("{summary}");
        if self.fail == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}
