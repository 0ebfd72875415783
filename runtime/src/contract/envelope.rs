//! The tool-result envelope `{data, error, meta}`: the same JSON as structuredContent and as
//! the text block, with isError outside it.

use crate::config::Environment;
use crate::contract::errors::ToolError;
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

/// Build the MCP result for a handler outcome. Takes the outcome by value: a page of
/// thousands of positions is moved into the envelope, not copied.
pub fn tool_result(outcome: Result<Value, ToolError>, meta: &Meta) -> CallToolResult {
    let meta = serde_json::to_value(meta).unwrap_or(Value::Null);
    let mut envelope = serde_json::Map::with_capacity(3);
    let failed = outcome.is_err();
    match outcome {
        Ok(data) => {
            envelope.insert("data".into(), data);
            envelope.insert("error".into(), Value::Null);
        }
        Err(e) => {
            envelope.insert("data".into(), Value::Null);
            envelope.insert(
                "error".into(),
                serde_json::to_value(&e).unwrap_or(Value::Null),
            );
        }
    }
    envelope.insert("meta".into(), meta);
    let payload = Value::Object(envelope);
    if failed {
        CallToolResult::structured_error(payload)
    } else {
        CallToolResult::structured(payload)
    }
}
