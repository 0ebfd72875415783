//! Problems the broker client itself finds in a request just before sending it (rules that
//! need context the schema lacks, e.g. a leg count per spread type). They reach the host in
//! the same `invalid_input` structure, under the same limits, as schema diagnostics.

use super::diagnostics::{Diagnostics, PathSegment};
use crate::contract::errors::ToolError;

/// Why the client refused a value. Each reason has one fixed, value-free message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientReason {
    Missing,
    NotAllowedHere,
    TooFew {
        min: usize,
    },
    TooMany {
        max: usize,
    },
    InvalidFormat,
    OutOfRange,
    /// A domain rule with its own fixed, value-free explanation (written in this crate,
    /// never built from input), e.g. "A MARKET order must be GOOD_FOR_DAY."
    Rule {
        code: &'static str,
        message: &'static str,
    },
    /// Anything else: the host gets safe generic guidance, never the internal reason.
    Unrecognized,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientProblem {
    /// Canonical field names and zero-based indices, as in schema diagnostics.
    pub path: Vec<PathSegment>,
    pub reason: ClientReason,
}

/// `invalid_input` for problems found before dispatch; no request is sent.
pub fn client_validation_error(problems: impl IntoIterator<Item = ClientProblem>) -> ToolError {
    let mut d = Diagnostics::default();
    for p in problems {
        let (code, message): (&'static str, String) = match p.reason {
            ClientReason::Missing => ("missing", "Required here.".into()),
            ClientReason::NotAllowedHere => (
                "not_allowed",
                "Not allowed in this combination; remove it.".into(),
            ),
            ClientReason::TooFew { min } => {
                ("too_few_items", format!("Must have at least {min} item(s)."))
            }
            ClientReason::TooMany { max } => {
                ("too_many_items", format!("Must have at most {max} item(s)."))
            }
            ClientReason::InvalidFormat => (
                "invalid_format",
                "Does not have the expected format; see the tool's input schema.".into(),
            ),
            ClientReason::OutOfRange => (
                "out_of_range",
                "Outside the range the broker accepts for this field.".into(),
            ),
            ClientReason::Rule { code, message } => (code, message.into()),
            ClientReason::Unrecognized => (
                "invalid",
                "Refused before sending; check this value against the tool's input schema and description."
                    .into(),
            ),
        };
        d.push(&p.path, code, message);
    }
    let mut errors = d.finish();
    if errors.is_empty() {
        // Called with nothing: still a refusal, so say something useful.
        errors = Diagnostics::single(
            "invalid",
            "The request was refused before sending; check the arguments against the tool's input schema.",
        );
    }
    ToolError::invalid_input(errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::errors::ErrorCode;

    #[test]
    fn same_structure_as_schema_diagnostics() {
        let e = client_validation_error([
            ClientProblem {
                path: vec![PathSegment::Key("request"), PathSegment::Key("legs")],
                reason: ClientReason::TooMany { max: 4 },
            },
            ClientProblem {
                path: vec![PathSegment::Key("request")],
                reason: ClientReason::Unrecognized,
            },
        ]);
        assert_eq!(e.code, ErrorCode::InvalidInput);
        assert_eq!(e.message, "Tool arguments are invalid.");
        assert!(e.broker_message.is_none() && e.status_code.is_none());
        let v = serde_json::to_value(&e.validation_errors).unwrap_or_default();
        assert_eq!(v[0]["path"], serde_json::json!(["request", "legs"]));
        assert_eq!(v[0]["code"], "too_many_items");
        assert_eq!(v[1]["code"], "invalid");
    }

    #[test]
    fn limits_apply() {
        let many = (0..50).map(|i| ClientProblem {
            path: vec![PathSegment::Index(i)],
            reason: ClientReason::InvalidFormat,
        });
        let e = client_validation_error(many);
        assert_eq!(e.validation_errors.len(), 20);
        assert_eq!(e.validation_errors[19].code, "omitted");
    }

    #[test]
    fn empty_still_explains() {
        let e = client_validation_error([]);
        assert_eq!(e.validation_errors.len(), 1);
    }
}
