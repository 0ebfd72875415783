//! Big tool results, serialized once and written out in pieces.
//!
//! A tool's envelope is in its MCP result twice: as `structuredContent`, and as the text
//! block that carries the same JSON as a string. rmcp's `CallToolResult` holds the first as
//! a `serde_json::Value` tree, serializes the whole JSON-RPC message into one string (the
//! text escaped once more), and the HTTP transport copies that into one SSE frame; the
//! session keeps the message for a minute for a client that resumes. For a 10,000-position
//! page that is a 13 MiB envelope held as a tree, a 28 MiB message and a 28 MiB frame.
//!
//! So every typed answer (a read's, a hand-written tool's output: `contract::envelope`
//! writes its text straight from the typed value and builds no tree), and any result of
//! [`HELD_FROM_BYTES`] or more, is kept here as the envelope's bytes, and rmcp is handed the
//! same result with two short markers in place of the copies (a text shorter than one
//! escaped chunk stays in the result, for rmcp to escape; only structuredContent is a
//! marker). Each transport ([`crate::mcp::http`], [`crate::mcp::stdio`]) passes what rmcp
//! writes through [`HeldResults::splice`], which puts the bytes where the markers are: once
//! as they are, once escaped a chunk at a time. The message and the frame are never built
//! whole, and what goes out is byte for byte what rmcp would have written for the same text.
//!
//! A held result goes once it is written out whole. One whose writing broke off (or that
//! was never written) is kept for [`KEPT_FOR`], as long as rmcp keeps a finished answer for
//! a client that resumes its stream; a marker whose result was written out already becomes
//! a JSON-RPC error telling the client to call again.

use axum::body::{Bytes, HttpBody};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

pub use crate::contract::envelope::HELD_FROM_BYTES;

/// How long a result whose writing broke off is kept: rmcp's own
/// `SessionConfig::DEFAULT_COMPLETED_CACHE_TTL`, the window in which a client may resume.
pub const KEPT_FOR: Duration = rmcp::transport::streamable_http_server::session::local::SessionConfig::DEFAULT_COMPLETED_CACHE_TTL;

/// The escaped copy is written this much of the envelope at a time.
const ESCAPED_CHUNK_BYTES: usize = 64 * 1024;

/// What every marker holds as rmcp writes it: a string starting with U+0001, which no other
/// string of a message this server writes starts with. The structured marker is an object
/// (`{"\u0001etrade-mcp:json":"<id>"}`: rmcp drops a structuredContent that is not one for
/// older clients), the text marker a string (`"\u0001etrade-mcp:text:<id>"`).
const MARKER_SEEN: &[u8] = b"\\u0001etrade-mcp:";
const JSON_MARKER_KEY: &str = "\u{1}etrade-mcp:json";
const TEXT_MARKER_PREFIX: &str = "\u{1}etrade-mcp:text:";
const ID_HEX: usize = 32;

/// The results held by one server, shared by its tool calls and its transports.
pub struct HeldResults {
    /// Ids are this plus a count: never seen outside the process (markers are replaced
    /// before anything is written), and unguessable by a broker answer that would forge one.
    base: u128,
    issued: AtomicU64,
    held: Mutex<HashMap<u128, Held>>,
}

/// A held envelope, until it is written out whole (or [`KEPT_FOR`] after a write broke off).
struct Held {
    json: Bytes,
    until: Instant,
}

enum Taken {
    Json(Bytes),
    /// Issued here, and written out whole already (or expired).
    Gone,
    /// Not a result this server held: a string that only looks like a marker.
    Unknown,
}

/// Expired entries are swept once in this many holds.
const SWEEP_EVERY: u64 = 256;

impl HeldResults {
    pub fn new() -> Arc<HeldResults> {
        let mut bytes = [0u8; 16];
        let base = match getrandom::fill(&mut bytes) {
            Ok(()) => u128::from_be_bytes(bytes),
            // Ids stay inside the process; without randomness they are only guessable.
            Err(_) => u128::from(std::process::id()) << 64,
        };
        Arc::new(HeldResults {
            base,
            issued: AtomicU64::new(0),
            held: Mutex::new(HashMap::new()),
        })
    }

    /// Hold `result`'s envelope, leaving markers in the result, when it is written for the
    /// transports to finish: a typed answer's (its text written, structuredContent left to
    /// this), or any result of [`HELD_FROM_BYTES`] or more.
    pub fn hold(&self, result: &mut CallToolResult) {
        let typed = result.structured_content.is_none();
        let Some(text) = result.content.first_mut().and_then(|c| match c {
            ContentBlock::Text(t) if typed || t.text.len() >= HELD_FROM_BYTES => Some(&mut t.text),
            _ => None,
        }) else {
            return;
        };
        let count = self.issued.fetch_add(1, Ordering::Relaxed);
        let id = self.base.wrapping_add(u128::from(count));
        // A text shorter than one escaped chunk stays in the result for rmcp to escape (the
        // same bytes, serde_json's escaping): only structuredContent is spliced.
        let json = if text.len() < ESCAPED_CHUNK_BYTES {
            Bytes::copy_from_slice(text.as_bytes())
        } else {
            let json = Bytes::from(std::mem::take(text).into_bytes());
            *text = format!("{TEXT_MARKER_PREFIX}{id:032x}");
            json
        };
        let mut structured = serde_json::Map::with_capacity(1);
        structured.insert(JSON_MARKER_KEY.into(), Value::String(format!("{id:032x}")));
        result.structured_content = Some(Value::Object(structured));
        let now = Instant::now();
        let mut held = self.lock();
        if count.is_multiple_of(SWEEP_EVERY) {
            held.retain(|_, h| h.until > now);
        }
        held.insert(
            id,
            Held {
                json,
                until: now + KEPT_FOR,
            },
        );
    }

    /// What to write instead of `message` (one JSON-RPC message, or an SSE frame holding
    /// one), when it has markers of results this server holds; `None` otherwise.
    pub fn splice(self: &Arc<Self>, message: &[u8]) -> Option<Spliced> {
        let mut seen = find_marker(message, 0)?;
        let mut pieces = VecDeque::new();
        let mut deliveries: Vec<Delivery> = Vec::new();
        let mut from = 0;
        loop {
            if let Some((kind, id, start, end)) = read_marker(message, seen)
                && start >= from
            {
                let json = match deliveries.iter().find(|d| d.id == id) {
                    Some(d) => Some(d.json.clone()),
                    None => match self.take(id) {
                        Taken::Unknown => None,
                        Taken::Gone => return Some(Spliced::gone(message)),
                        Taken::Json(json) => {
                            deliveries.push(Delivery {
                                id,
                                json: json.clone(),
                                held: self.clone(),
                                finished: false,
                            });
                            Some(json)
                        }
                    },
                };
                if let Some(json) = json {
                    pieces.push_back(Piece::Plain(Bytes::copy_from_slice(&message[from..start])));
                    pieces.push_back(match kind {
                        Kind::Json => Piece::Plain(json),
                        Kind::Text => Piece::Escaped { json, at: 0 },
                    });
                    from = end;
                }
            }
            match find_marker(message, seen + 1) {
                Some(next) => seen = next,
                None => break,
            }
        }
        if deliveries.is_empty() {
            return None;
        }
        pieces.push_back(Piece::Plain(Bytes::copy_from_slice(&message[from..])));
        Some(Spliced { pieces, deliveries })
    }

    /// Take a held envelope for writing.
    fn take(&self, id: u128) -> Taken {
        if let Some(h) = self.lock().remove(&id) {
            return Taken::Json(h.json);
        }
        let issued = u128::from(self.issued.load(Ordering::Relaxed));
        if id.wrapping_sub(self.base) < issued {
            Taken::Gone
        } else {
            Taken::Unknown
        }
    }

    /// A write broke off: kept for a client that resumes.
    fn give_back(&self, id: u128, json: Bytes) {
        self.lock().insert(
            id,
            Held {
                json,
                until: Instant::now() + KEPT_FOR,
            },
        );
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u128, Held>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Json,
    Text,
}

/// The marker whose U+0001 escape is at `seen`: its kind, id, and the range it covers.
fn read_marker(message: &[u8], seen: usize) -> Option<(Kind, u128, usize, usize)> {
    let after = message.get(seen + MARKER_SEEN.len()..)?;
    let (kind, start, hex, tail): (Kind, usize, &[u8], &[u8]) =
        if let Some(rest) = after.strip_prefix(b"json\":\"") {
            (Kind::Json, seen.checked_sub(2)?, rest, b"\"}")
        } else {
            (
                Kind::Text,
                seen.checked_sub(1)?,
                after.strip_prefix(b"text:")?,
                b"\"",
            )
        };
    let opening: &[u8] = match kind {
        Kind::Json => b"{\"",
        Kind::Text => b"\"",
    };
    if message.get(start..seen)? != opening || hex.get(ID_HEX..ID_HEX + tail.len())? != tail {
        return None;
    }
    let id = u128::from_str_radix(std::str::from_utf8(hex.get(..ID_HEX)?).ok()?, 16).ok()?;
    let end = message.len() - hex.len() + ID_HEX + tail.len();
    Some((kind, id, start, end))
}

/// Where the next marker's U+0001 escape is, from `from` on. Every frame of every answer is
/// looked at, so the search is memchr's vectorized one, built once.
fn find_marker(haystack: &[u8], from: usize) -> Option<usize> {
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(MARKER_SEEN));
    FINDER.find(haystack.get(from..)?).map(|i| i + from)
}

enum Piece {
    Plain(Bytes),
    /// `json` as a JSON string, quotes included, written from byte `at` on.
    Escaped {
        json: Bytes,
        at: usize,
    },
}

/// One held result on its way out; given back unless it was written out whole.
struct Delivery {
    id: u128,
    json: Bytes,
    held: Arc<HeldResults>,
    finished: bool,
}

impl Drop for Delivery {
    fn drop(&mut self) {
        if !self.finished {
            self.held.give_back(self.id, std::mem::take(&mut self.json));
        }
    }
}

/// A message with its markers replaced, as the chunks to write in order.
pub struct Spliced {
    pieces: VecDeque<Piece>,
    deliveries: Vec<Delivery>,
}

impl Spliced {
    /// A JSON-RPC error in place of a message whose held result is gone: the answer to the
    /// same request id, so the client can call again.
    fn gone(message: &[u8]) -> Spliced {
        let text = String::from_utf8_lossy(message);
        let mut out = String::with_capacity(message.len());
        for line in text.split_inclusive('\n') {
            let body = line.trim_end_matches(['\n', '\r']);
            let (prefix, json) = match body.strip_prefix("data:") {
                Some(data) => ("data: ", data.trim_start()),
                None => ("", body),
            };
            if json.contains("\\u0001etrade-mcp:") {
                let id = serde_json::from_str::<Value>(json)
                    .ok()
                    .and_then(|m| m.get("id").cloned())
                    .unwrap_or(Value::Null);
                let error = serde_json::json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {
                        "code": -32603,
                        "message": "This answer was written out once and is no longer held; call the tool again."
                    }
                });
                out.push_str(prefix);
                out.push_str(&error.to_string());
                out.push_str(&line[body.len()..]);
            } else {
                out.push_str(line);
            }
        }
        Spliced {
            pieces: VecDeque::from([Piece::Plain(Bytes::from(out))]),
            deliveries: Vec::new(),
        }
    }
}

impl Iterator for Spliced {
    type Item = Bytes;

    fn next(&mut self) -> Option<Bytes> {
        loop {
            let Some(piece) = self.pieces.front_mut() else {
                for d in &mut self.deliveries {
                    d.finished = true;
                }
                return None;
            };
            match piece {
                Piece::Plain(bytes) => {
                    let bytes = std::mem::take(bytes);
                    self.pieces.pop_front();
                    if !bytes.is_empty() {
                        return Some(bytes);
                    }
                }
                Piece::Escaped { json, at } => {
                    if *at > json.len() {
                        self.pieces.pop_front();
                        continue;
                    }
                    let (out, next) = escaped_chunk(json, *at);
                    *at = next;
                    return Some(Bytes::from(out));
                }
            }
        }
    }
}

/// The JSON string of `json` from byte `at` on, at most [`ESCAPED_CHUNK_BYTES`] of it
/// escaped (the opening quote first, the closing one last), and where the next chunk starts
/// (past the end once the closing quote is written). Its buffer is sized from the chunk
/// alone: hyper queues several chunks before it writes them, so each must stay small.
fn escaped_chunk(json: &[u8], at: usize) -> (Vec<u8>, usize) {
    let end = at.saturating_add(ESCAPED_CHUNK_BYTES).min(json.len());
    let len = end - at;
    // An eighth more for escapes (a chunk with more grows once) and the two quotes.
    let mut out = Vec::with_capacity(len + len / 8 + 2);
    if at == 0 {
        out.push(b'"');
    }
    escape_into(&json[at..end], &mut out);
    if end == json.len() {
        out.push(b'"');
        (out, json.len() + 1)
    } else {
        (out, end)
    }
}

/// Escape `bytes` (UTF-8 JSON text) as the inside of a JSON string, as serde_json does:
/// `"` and `\` with a backslash, control characters as `\b \t \n \f \r` or `\u00XX`, every
/// other byte (UTF-8 sequences included) as it is. Byte by byte, so a chunk may end anywhere.
fn escape_into(bytes: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut start = 0;
    let mut i = 0;
    loop {
        // Eight bytes at a time: past them all when none needs an escape, else straight to
        // the first that does.
        if let Some(word) = bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
            let flags = escape_flags(u64::from_le_bytes(*word));
            if flags == 0 {
                i += 8;
                continue;
            }
            i += (flags.trailing_zeros() / 8) as usize;
        }
        let Some(&b) = bytes.get(i) else {
            break;
        };
        i += 1;
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x09 => b't',
            0x0A => b'n',
            0x0C => b'f',
            0x0D => b'r',
            0x00..=0x1F => b'u',
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i - 1]);
        out.push(b'\\');
        out.push(short);
        if short == b'u' {
            out.extend_from_slice(&[
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]);
        }
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// The bytes of `word` (little-endian) that are `"`, `\` or a control character (below
/// 0x20), as the high bit of each: zero when there is none. The bit tricks that find a byte
/// below a bound can flag a byte above a true one, never below it, so the lowest flag is
/// always a byte that needs an escape.
fn escape_flags(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGHS;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    below(word, 0x20) | below(quote, 1) | below(backslash, 1)
}

/// An HTTP answer's body with every frame passed through [`HeldResults::splice`].
pub struct SplicedBody {
    inner: axum::body::Body,
    held: Arc<HeldResults>,
    pending: Option<Spliced>,
}

impl SplicedBody {
    pub fn new(inner: axum::body::Body, held: Arc<HeldResults>) -> SplicedBody {
        SplicedBody {
            inner,
            held,
            pending: None,
        }
    }
}

impl HttpBody for SplicedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        if let Some(spliced) = &mut this.pending {
            match spliced.next() {
                Some(chunk) => return Poll::Ready(Some(Ok(http_body::Frame::data(chunk)))),
                None => this.pending = None,
            }
        }
        let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => frame,
            other => return other,
        };
        let data = match frame.into_data() {
            Ok(data) => data,
            Err(frame) => return Poll::Ready(Some(Ok(frame))),
        };
        let Some(mut spliced) = this.held.splice(&data) else {
            return Poll::Ready(Some(Ok(http_body::Frame::data(data))));
        };
        let first = spliced.next().unwrap_or_default();
        this.pending = Some(spliced);
        Poll::Ready(Some(Ok(http_body::Frame::data(first))))
    }

    fn is_end_stream(&self) -> bool {
        self.pending.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        // Splicing changes the length: only the lower bound of what is left stays true.
        let mut hint = http_body::SizeHint::new();
        hint.set_lower(self.inner.size_hint().lower());
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{JsonRpcResponse, JsonRpcVersion2_0, NumberOrString, ServerResult};

    fn big_envelope() -> Value {
        let rows: Vec<Value> = (0..6000)
            .map(|i| {
                serde_json::json!({
                    "symbol": format!("S{i}"),
                    "note": "quote \" backslash \\ tab \t newline \n bell \u{7} é ✓ \u{1}",
                    "value": format!("{i}.25"),
                })
            })
            .collect();
        serde_json::json!({"data": {"positions": rows}, "error": null, "meta": {"profile": "p"}})
    }

    /// The message rmcp writes for `result`, to an older client (which strips a
    /// structuredContent that is not an object).
    fn message(result: CallToolResult) -> Vec<u8> {
        let mut result = ServerResult::CallToolResult(result);
        result.strip_non_object_output_for_legacy_peer();
        let response = rmcp::model::ServerJsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id: NumberOrString::Number(7),
            result,
        });
        serde_json::to_vec(&response).unwrap_or_default()
    }

    fn is_marker(block: &ContentBlock) -> bool {
        matches!(block, ContentBlock::Text(t) if t.text.starts_with(TEXT_MARKER_PREFIX))
    }

    fn written(spliced: Spliced) -> Vec<u8> {
        spliced.flat_map(|b| b.to_vec()).collect()
    }

    #[test]
    fn a_big_result_is_written_byte_for_byte_as_rmcp_writes_it() {
        let envelope = big_envelope();
        let plain = CallToolResult::structured(envelope.clone());
        let want = message(plain.clone());
        let held = HeldResults::new();
        let mut result = plain;
        held.hold(&mut result);
        assert!(is_marker(&result.content[0]), "the result was not held");
        let small = message(result);
        assert!(small.len() < 400, "the message still carries the page");
        let frame = [b"id: 0/1\ndata: ".as_slice(), &small, b"\n\n"].concat();
        let spliced = held.splice(&frame).expect("markers found");
        let got = written(spliced);
        let want_frame = [b"id: 0/1\ndata: ".as_slice(), &want, b"\n\n"].concat();
        assert!(got == want_frame, "the spliced frame differs from rmcp's");
        assert_eq!(held.len(), 0, "a result written whole is no longer held");
    }

    #[test]
    fn a_small_typed_result_is_written_byte_for_byte_as_rmcp_writes_it() {
        let envelope = serde_json::json!({"data": {"note": "quote \" and ✓"}, "error": null});
        let want = message(CallToolResult::structured(envelope.clone()));
        let mut result = CallToolResult::success(vec![ContentBlock::text(envelope.to_string())]);
        let held = HeldResults::new();
        held.hold(&mut result);
        assert!(
            !is_marker(&result.content[0]),
            "a short text stays in the result"
        );
        let spliced = held
            .splice(&message(result))
            .expect("the structured marker");
        assert!(
            written(spliced) == want,
            "the spliced message differs from rmcp's"
        );
        assert_eq!(held.len(), 0);
    }

    #[test]
    fn a_small_result_stays_an_ordinary_result() {
        let plain = CallToolResult::structured(serde_json::json!({"data": {"a": 1}}));
        let mut result = plain.clone();
        let held = HeldResults::new();
        held.hold(&mut result);
        assert_eq!(result, plain);
        assert!(held.splice(&message(result)).is_none());
    }

    #[test]
    fn a_result_whose_writing_broke_off_is_kept_and_then_written_whole() {
        let envelope = big_envelope();
        let want = message(CallToolResult::structured(envelope.clone()));
        let held = HeldResults::new();
        let mut result = CallToolResult::structured(envelope);
        held.hold(&mut result);
        let small = message(result);
        let mut first = held.splice(&small).expect("markers found");
        let _ = first.next();
        let _ = first.next();
        drop(first);
        assert_eq!(held.len(), 1, "a broken-off result is kept for a resume");
        let again = written(held.splice(&small).expect("still held"));
        assert!(again == want);
        let gone: Value = serde_json::from_slice(&written(
            held.splice(&small).expect("a marker with nothing held"),
        ))
        .expect("JSON");
        assert_eq!(gone["id"], 7);
        assert_eq!(gone["error"]["code"], -32603);
    }

    #[test]
    fn escaping_matches_serde_json_for_every_byte_and_chunk_edge() {
        let mut text = String::new();
        for c in (0u32..0x250).chain([0x2713, 0x1F600]) {
            if let Some(c) = char::from_u32(c) {
                text.push(c);
            }
        }
        let want = serde_json::to_string(&text).unwrap_or_default();
        for split in [0, 1, 7, text.len() / 2, text.len()] {
            let mut out = vec![b'"'];
            escape_into(&text.as_bytes()[..split], &mut out);
            escape_into(&text.as_bytes()[split..], &mut out);
            out.push(b'"');
            assert_eq!(String::from_utf8_lossy(&out), want, "split at {split}");
        }
    }

    #[test]
    fn escaping_finds_every_escape_wherever_it_falls_in_a_word() {
        for c in ['"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', ' '] {
            for at in 0..17 {
                let mut text = "a".repeat(24);
                text.insert(at, c);
                assert_escapes_as_serde_json(&text);
            }
        }
    }

    #[test]
    fn escaping_matches_serde_json_on_mixed_text() {
        let alphabet = [
            'a', '"', '\\', '\n', '\u{2}', '\u{7f}', 'é', '✓', ' ', '{', '0',
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..200 {
            let text: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            assert_escapes_as_serde_json(&text);
        }
    }

    fn assert_escapes_as_serde_json(text: &str) {
        let mut out = vec![b'"'];
        escape_into(text.as_bytes(), &mut out);
        out.push(b'"');
        let want = serde_json::to_string(text).unwrap_or_default();
        assert_eq!(String::from_utf8_lossy(&out), want, "{text:?}");
    }

    /// hyper queues several chunks before writing them: a chunk's buffer sized from its
    /// place in the text rather than its own length held tens of MiB of a big page at once.
    #[test]
    fn each_escaped_chunk_is_sized_from_the_chunk_alone() {
        let json = vec![b'a'; ESCAPED_CHUNK_BYTES * 40 + 5];
        let (mut at, mut whole) = (0, Vec::new());
        while at <= json.len() {
            let (chunk, next) = escaped_chunk(&json, at);
            assert!(
                chunk.capacity() <= ESCAPED_CHUNK_BYTES + ESCAPED_CHUNK_BYTES / 8 + 2,
                "the chunk at {at} reserved {} bytes",
                chunk.capacity()
            );
            whole.extend_from_slice(&chunk);
            at = next;
        }
        let want = serde_json::to_vec(&String::from_utf8_lossy(&json)).unwrap_or_default();
        assert_eq!(whole, want);
    }

    #[test]
    fn a_string_that_looks_like_a_marker_is_left_as_it_is() {
        let held = HeldResults::new();
        let forged = format!("{{\"text\":\"\\u0001etrade-mcp:json:{:032x}\"}}", 12345u128);
        assert!(
            held.splice(forged.as_bytes()).is_none(),
            "a string that only looks like a marker is written as it is"
        );
        assert!(
            held.splice(b"{\"text\":\"\\u0001etrade-mcp:json:zz\"}")
                .is_none()
        );
    }
}
