//! The tool-result envelope `{data, error, meta}`: the same JSON as structuredContent and as
//! the text block, with isError outside it.

use crate::config::Environment;
use crate::contract::errors::ToolError;
use crate::time::rfc3339;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Serialize)]
pub struct Meta {
    pub environment: Environment,
    pub profile: String,
    /// RFC 3339 UTC, to the millisecond at most (`crate::time::rfc3339`).
    pub observed_at: String,
}

impl Meta {
    /// The meta of an answer observed at `at`: the server's clock when the call began (in
    /// paper, the simulated clock), the one "now" the whole answer uses.
    pub fn at(environment: Environment, profile: &str, at: jiff::Timestamp) -> Meta {
        Meta {
            environment,
            profile: profile.to_string(),
            observed_at: rfc3339(at),
        }
    }
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
    // The text is the payload's own serialization, so both carry the same JSON byte for
    // byte. Written straight into a byte buffer: rmcp's `structured` goes through
    // `Display`, whose formatter adapter made the text of a 13 MiB page markedly slower.
    let text = serde_json::to_string(&payload).unwrap_or_default();
    let mut result = if failed {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(payload);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::errors::ErrorCode;

    /// The same result rmcp's own constructors build: text and structuredContent alike.
    #[test]
    fn results_match_rmcp_structured_results() {
        let meta = Meta {
            environment: Environment::Sandbox,
            profile: "p".into(),
            observed_at: "2026-10-17T12:00:00Z".into(),
        };
        let data = serde_json::json!({"b": [1, "2.50", null], "a": {"z": "\"q\"", "y": true}});
        let ok = tool_result(Ok(data.clone()), &meta);
        let want = serde_json::json!({"data": data, "error": null, "meta": meta});
        assert_eq!(ok, CallToolResult::structured(want));

        let err = tool_result(Err(ToolError::new(ErrorCode::InvalidBrokerResponse)), &meta);
        let want = serde_json::json!({
            "data": null,
            "error": ToolError::new(ErrorCode::InvalidBrokerResponse),
            "meta": meta,
        });
        assert_eq!(err, CallToolResult::structured_error(want));
    }
}
