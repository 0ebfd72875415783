//! What rmcp writes that an MCP revision no longer has, taken out on the way to the client.
//!
//! rmcp 3.11's `ElicitRequestParams::UrlElicitationParams` requires `elicitationId`, which
//! MCP 2026-07-28 removed (`ElicitRequestURLParams` is `{mode, message, url}`); an
//! `InputRequiredResult` exists only in 2026-07-28, so a URL-mode elicitation inside one must
//! not carry it. Until rmcp's type lets the field be absent, both transports pass each
//! outgoing message through [`without_removed_fields`].

use serde_json::Value;

/// Messages larger than this are not looked at: an input request is a few kilobytes, and a
/// big answer (a 10,000-position page) must not be scanned for one.
pub const MAX_INSPECTED_BYTES: usize = 256 * 1024;

/// `message` without the fields its revision removed, or `None` when it has none of them.
pub fn without_removed_fields(message: &str) -> Option<String> {
    if message.len() > MAX_INSPECTED_BYTES
        || !message.contains("\"input_required\"")
        || !message.contains("\"elicitationId\"")
    {
        return None;
    }
    let mut value: Value = serde_json::from_str(message).ok()?;
    let requests = value
        .get_mut("result")?
        .get_mut("inputRequests")?
        .as_object_mut()?;
    let mut changed = false;
    for request in requests.values_mut() {
        if let Some(params) = request.get_mut("params").and_then(Value::as_object_mut)
            && params.get("mode").and_then(Value::as_str) == Some("url")
        {
            changed |= params.remove("elicitationId").is_some();
        }
    }
    changed.then(|| value.to_string())
}

/// The same for one server-sent-events frame: each `data:` line is one message.
pub fn frame_without_removed_fields(frame: &[u8]) -> Option<Vec<u8>> {
    // Every frame of every answer passes here: the bytes are searched (vectorized) before
    // any of them is read as text.
    if frame.len() > MAX_INSPECTED_BYTES
        || memchr::memmem::find(frame, b"\"elicitationId\"").is_none()
    {
        return None;
    }
    let text = std::str::from_utf8(frame).ok()?;
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        match body
            .strip_prefix("data:")
            .and_then(|d| without_removed_fields(d.trim_start()))
        {
            Some(fixed) => {
                changed = true;
                out.push_str("data: ");
                out.push_str(&fixed);
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    changed.then(|| out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn question(mode: &str) -> String {
        json!({"jsonrpc": "2.0", "id": 3, "result": {
            "resultType": "input_required",
            "requestState": "s",
            "inputRequests": {"approval": {"method": "elicitation/create", "params": {
                "mode": mode, "message": "m", "url": "http://127.0.0.1:1/approve/x",
                "elicitationId": "approve-pv-1"}}}}})
        .to_string()
    }

    #[test]
    fn a_url_input_request_loses_its_elicitation_id() {
        let fixed = without_removed_fields(&question("url")).expect("changed");
        let v: Value = serde_json::from_str(&fixed).expect("json");
        let params = &v["result"]["inputRequests"]["approval"]["params"];
        assert_eq!(params.get("elicitationId"), None);
        assert_eq!(params["url"], "http://127.0.0.1:1/approve/x");
        // A 2025 `elicitation/create` request keeps it: it is not an input request.
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
            "params": {"mode": "url", "elicitationId": "e"}})
        .to_string();
        assert_eq!(without_removed_fields(&request), None);
    }

    #[test]
    fn an_sse_frame_is_fixed_line_by_line() {
        let frame = format!("id: 0\ndata: {}\n\n", question("url"));
        let fixed = frame_without_removed_fields(frame.as_bytes()).expect("changed");
        let text = String::from_utf8(fixed).expect("utf-8");
        assert!(text.starts_with("id: 0\ndata: {"), "{text}");
        assert!(text.ends_with("}\n\n"), "{text}");
        assert!(!text.contains("elicitationId"), "{text}");
        assert_eq!(frame_without_removed_fields(b"data: {}\n\n"), None);
    }
}
