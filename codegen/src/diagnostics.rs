//! Spec problems with their position, rendered as `spec/tools.yaml:LINE:COL: message`.

use serde_saphyr::{Location, Spanned};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub line: u64,
    pub column: u64,
    pub message: String,
}

impl Diagnostic {
    /// Render for a spec file named `file` (as Cargo and editors expect).
    pub fn render(&self, file: &str) -> String {
        format!("{file}:{}:{}: {}", self.line, self.column, self.message)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// Collects every problem; checks never stop at the first.
#[derive(Debug, Default)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn at<T>(&mut self, spanned: &Spanned<T>, message: impl Into<String>) {
        self.at_loc(spanned.referenced, message);
    }

    pub fn at_loc(&mut self, loc: Location, message: impl Into<String>) {
        self.0.push(Diagnostic {
            line: loc.line().max(1),
            column: loc.column().max(1),
            message: message.into(),
        });
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sorted by position and deduplicated, so output is stable for snapshots.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        self.0.sort();
        self.0.dedup();
        self.0
    }
}
