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

/// A result built as a tree (an error, a compact projection) whose JSON text is at least
/// this long is held as text too (`crate::mcp::held_results`), as every typed answer is:
/// then rmcp neither serializes its tree again nor builds its message and frame whole.
pub const HELD_FROM_BYTES: usize = 256 * 1024;

/// A tool's `data`.
pub enum ToolData {
    /// Built as a tree: a hand-written tool's output, a compact projection.
    Tree(Value),
    /// A typed answer (a read's, a hand-written tool's output), not serialized yet: written
    /// once, straight to the text, and never built as a tree ([`tool_result`]).
    Typed(Box<dyn TypedData>, BrokerBytes),
}

/// How long E*TRADE's text of a typed answer was (0 when unknown): the envelope's text is
/// about a third longer, and is given its room in one allocation rather than grown by
/// doubling (a 13 MiB text otherwise passes through 8 and 16 MiB copies).
pub type BrokerBytes = usize;

/// A typed answer, as the envelope needs it.
pub trait TypedData: Send {
    /// As a tree, for structuredContent and projections.
    fn to_tree(&self) -> serde_json::Result<Value>;
    /// As JSON text, appended to `out`.
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
}

impl<T: serde::Serialize + Send> TypedData for T {
    fn to_tree(&self) -> serde_json::Result<Value> {
        serde_json::to_value(self)
    }

    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

impl ToolData {
    /// The data as a tree, whichever form it is in.
    pub fn into_tree(self) -> serde_json::Result<Value> {
        match self {
            ToolData::Tree(v) => Ok(v),
            ToolData::Typed(t, _) => t.to_tree(),
        }
    }
}

/// Build the MCP result for a handler outcome. Takes the outcome by value: a page of
/// thousands of positions is moved into the envelope, not copied.
pub fn tool_result(outcome: Result<ToolData, ToolError>, meta: &Meta) -> CallToolResult {
    match outcome {
        Ok(ToolData::Typed(data, broker_bytes)) => typed_result(&*data, broker_bytes, meta),
        Ok(ToolData::Tree(data)) => tree_result(Ok(data), meta),
        Err(e) => tree_result(Err(e), meta),
    }
}

fn tree_result(outcome: Result<Value, ToolError>, meta: &Meta) -> CallToolResult {
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

/// A typed answer's result: its JSON written once, straight from the typed value, as the
/// text. structuredContent is left out: `HeldResults::hold` (which the server applies to
/// every result) keeps the text and the transports write both copies from it, so the two
/// are the same bytes and no tree of the answer is ever built.
fn typed_result(data: &dyn TypedData, broker_bytes: BrokerBytes, meta: &Meta) -> CallToolResult {
    let mut text = Vec::with_capacity(broker_bytes.saturating_add(broker_bytes / 2) + 512);
    text.extend_from_slice(b"{\"data\":");
    let written = data.write_json(&mut text).and_then(|()| {
        text.extend_from_slice(b",\"error\":null,\"meta\":");
        serde_json::to_writer(&mut text, meta)
    });
    if written.is_err() {
        tracing::error!("a tool's answer did not serialize");
        return tree_result(Err(ToolError::internal()), meta);
    }
    text.push(b'}');
    // serde_json writes UTF-8 only.
    let text = String::from_utf8(text).unwrap_or_default();
    CallToolResult::success(vec![ContentBlock::text(text)])
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
        let ok = tool_result(Ok(ToolData::Tree(data.clone())), &meta);
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
