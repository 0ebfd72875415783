//! The tool-result envelope `{data, error, meta}`: the same JSON as structuredContent and as
//! the text block, with isError outside it.

use crate::config::Environment;
use crate::errors::ToolError;
use rmcp::model::CallToolResult;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Serialize)]
pub struct Meta {
    pub environment: Environment,
    pub profile: String,
    /// RFC 3339 UTC, whole seconds.
    pub observed_at: String,
}

impl Meta {
    pub fn now(environment: Environment, profile: &str) -> Meta {
        Meta {
            environment,
            profile: profile.to_string(),
            observed_at: rfc3339_seconds(jiff::Timestamp::now()),
        }
    }
}

/// `2026-10-17T12:00:00Z`.
pub fn rfc3339_seconds(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[derive(Debug, Serialize)]
struct Envelope<'a> {
    data: Option<&'a Value>,
    error: Option<&'a ToolError>,
    meta: &'a Meta,
}

/// Build the MCP result for a handler outcome.
pub fn tool_result(outcome: &Result<Value, ToolError>, meta: &Meta) -> CallToolResult {
    let (data, error) = match outcome {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    };
    let payload = serde_json::to_value(Envelope { data, error, meta }).unwrap_or(Value::Null);
    match outcome {
        Ok(_) => CallToolResult::structured(payload),
        Err(_) => CallToolResult::structured_error(payload),
    }
}
