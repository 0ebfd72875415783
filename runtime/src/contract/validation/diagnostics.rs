//! Validation diagnostics and the contract's limits on them: deduplicated, at most 20
//! entries (the 20th an omission notice when more remain), paths of at most 16 components,
//! messages of at most 256 characters. Messages come only from fixed texts and the spec,
//! never from submitted values or unknown keys.

use serde::{Serialize, Serializer};

pub mod limits {
    pub const MAX_ENTRIES: usize = 20;
    pub const MAX_PATH: usize = 16;
    pub const MAX_MESSAGE: usize = 256;
    /// Raw problems kept while validating, so a huge bad array cannot exhaust memory.
    pub const MAX_COLLECTED: usize = 1024;
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    Key(&'static str),
    Index(usize),
}

impl Serialize for PathSegment {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PathSegment::Key(k) => s.serialize_str(k),
            PathSegment::Index(i) => s.serialize_u64(*i as u64),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ValidationError {
    pub path: Vec<PathSegment>,
    pub code: &'static str,
    pub message: String,
}

/// Collects problems during one validation pass.
#[derive(Debug, Default)]
pub struct Diagnostics {
    entries: Vec<ValidationError>,
    overflowed: bool,
    pushed: usize,
}

impl Diagnostics {
    pub fn push(&mut self, path: &[PathSegment], code: &'static str, message: impl Into<String>) {
        self.pushed += 1;
        if self.entries.len() >= limits::MAX_COLLECTED {
            self.overflowed = true;
            return;
        }
        let path = path.iter().take(limits::MAX_PATH).cloned().collect();
        self.entries.push(ValidationError {
            path,
            code,
            message: bounded(message.into()),
        });
    }

    /// One root-level entry, for refusals that have no better path.
    pub fn single(code: &'static str, message: &str) -> Vec<ValidationError> {
        let mut d = Diagnostics::default();
        d.push(&[], code, message);
        d.finish()
    }

    /// How many problems were pushed so far, kept or not.
    pub fn pushed(&self) -> usize {
        self.pushed
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Apply the limits: deduplicate (first occurrence wins), cap at 20 with a notice.
    pub fn finish(self) -> Vec<ValidationError> {
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<ValidationError> = Vec::new();
        let mut more = self.overflowed;
        for e in self.entries {
            if !seen.insert(e.clone()) {
                continue;
            }
            if out.len() < limits::MAX_ENTRIES {
                out.push(e);
            } else {
                more = true;
                break;
            }
        }
        if more || out.len() > limits::MAX_ENTRIES {
            out.truncate(limits::MAX_ENTRIES - 1);
            out.push(ValidationError {
                path: Vec::new(),
                code: "omitted",
                message: "More problems were found and omitted; correct these and call again."
                    .into(),
            });
        }
        out
    }
}

fn bounded(mut m: String) -> String {
    if m.chars().count() > limits::MAX_MESSAGE {
        let cut: String = m.chars().take(limits::MAX_MESSAGE - 1).collect();
        m = format!("{cut}…");
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedupes_and_caps_with_a_notice() {
        let mut d = Diagnostics::default();
        for i in 0..30 {
            d.push(&[PathSegment::Index(i)], "x", "m");
            d.push(&[PathSegment::Index(i)], "x", "m");
        }
        let out = d.finish();
        assert_eq!(out.len(), 20);
        assert_eq!(out[18].path, vec![PathSegment::Index(18)]);
        assert_eq!(out[19].code, "omitted");
    }

    #[test]
    fn exactly_twenty_distinct_keeps_all_twenty() {
        let mut d = Diagnostics::default();
        for i in 0..20 {
            d.push(&[PathSegment::Index(i)], "x", "m");
        }
        let out = d.finish();
        assert_eq!(out.len(), 20);
        assert!(out.iter().all(|e| e.code == "x"));
    }

    #[test]
    fn bounds_paths_and_messages() {
        let mut d = Diagnostics::default();
        let path: Vec<PathSegment> = (0..40).map(PathSegment::Index).collect();
        d.push(&path, "x", "é".repeat(1000));
        let out = d.finish();
        assert_eq!(out[0].path.len(), 16);
        assert_eq!(out[0].message.chars().count(), 256);
    }
}
