//! MCP over stdin/stdout: newline-delimited JSON-RPC, with the framing rules rmcp's stdio
//! lifecycle does not keep, applied before a line reaches it.
//!
//! - A line that is not JSON is answered with a Parse error (-32700), and a batch or a
//!   non-object with an Invalid Request (-32600), both with `id: null` as JSON-RPC 2.0
//!   requires; the process goes on.
//! - Notifications and responses before the first request are dropped: a client may cancel
//!   a request that raced a restart, and a server MUST NOT answer notifications (rmcp would
//!   end the process on them).
//! - A process whose client closes stdin without ever selecting a lifecycle (it only sent
//!   `server/discover`, the era probe, or nothing at all) ends cleanly.
//! - An `initialize` selects the 2025 lifecycle for the process (MCP 2026-07-28,
//!   versioning): after 2026-07-28 requests, the rmcp service is started anew in that
//!   lifecycle; a second `initialize` in it is refused.

use crate::mcp::held_results::{HeldResults, Spliced};
use crate::mcp::server::McpServer;
use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// One rmcp service's pipes: lines go in through `input`; what it writes is forwarded.
const PIPE_BYTES: usize = 1 << 16;
const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The longest line read (rmcp's own stdio bound); a longer one is skipped and answered.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Which lifecycle the process has taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lifecycle {
    /// No request has chosen yet (only `server/discover`, `ping`, or nothing).
    Open,
    /// 2026-07-28: each request carries its version in `_meta`.
    Stateless,
    /// `initialize` was answered: a 2025 session.
    Initialized,
}

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
enum Line {
    /// Hand it to the rmcp service.
    Pass,
    /// Hand it to a new rmcp service (an `initialize` after 2026-07-28 requests).
    Restart,
    /// Drop it.
    Drop,
    /// Answer it here with this message.
    Answer(Value),
}

/// The framing state of one process's input.
struct Framing {
    lifecycle: Lifecycle,
    /// A request has been handed to rmcp (before it, notifications are dropped).
    requested: bool,
}

impl Framing {
    fn new() -> Framing {
        Framing {
            lifecycle: Lifecycle::Open,
            requested: false,
        }
    }

    fn judge(&mut self, line: &str) -> Line {
        let message: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) => return Line::Answer(error(Value::Null, -32700, "Parse error")),
        };
        let Value::Object(fields) = &message else {
            let why = if message.is_array() {
                "Invalid Request: JSON-RPC batches are not supported"
            } else {
                "Invalid Request: a JSON-RPC message is an object"
            };
            return Line::Answer(error(Value::Null, -32600, why));
        };
        let id = fields.get("id").cloned();
        let Some(method) = fields.get("method").and_then(Value::as_str) else {
            // A response (to a server request) means nothing before the first request.
            return if self.requested {
                Line::Pass
            } else {
                Line::Drop
            };
        };
        let Some(id) = id else {
            return if self.requested {
                Line::Pass
            } else {
                Line::Drop
            };
        };
        self.requested = true;
        match (method, self.lifecycle) {
            ("initialize", Lifecycle::Initialized) => Line::Answer(error(
                id,
                -32600,
                "Invalid Request: this process is already initialized",
            )),
            ("initialize", Lifecycle::Stateless) => {
                self.lifecycle = Lifecycle::Initialized;
                Line::Restart
            }
            ("initialize", Lifecycle::Open) => {
                self.lifecycle = Lifecycle::Initialized;
                Line::Pass
            }
            ("server/discover" | "ping", _) => Line::Pass,
            (_, Lifecycle::Open) => {
                let inline = fields
                    .get("params")
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get(PROTOCOL_VERSION_KEY))
                    .is_some();
                if inline {
                    self.lifecycle = Lifecycle::Stateless;
                }
                Line::Pass
            }
            _ => Line::Pass,
        }
    }
}

fn error(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Serve MCP over stdin/stdout until the client closes stdin or `shutdown` fires.
pub async fn serve_stdio(server: McpServer, shutdown: CancellationToken) -> Result<(), String> {
    serve_lines(server, tokio::io::stdin(), tokio::io::stdout(), shutdown).await
}

/// [`serve_stdio`] over any pair of byte streams.
pub async fn serve_lines<R, W>(
    server: McpServer,
    input: R,
    output: W,
    shutdown: CancellationToken,
) -> Result<(), String>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::channel::<Outgoing>(64);
    let writer = tokio::spawn(write_lines(output, out_rx));
    let mut input = BufReader::new(input);
    let mut buf = Vec::new();
    let mut framing = Framing::new();
    let mut service = Instance::start(server.clone(), out_tx.clone(), &shutdown);
    let mut outcome = Ok(());
    loop {
        buf.clear();
        let read = tokio::select! {
            read = read_line_bounded(&mut input, &mut buf, MAX_LINE_BYTES) => read,
            () = shutdown.cancelled() => break,
        };
        let refusal = match read {
            Ok(Read::Line) => None,
            Ok(Read::Eof) => break,
            Ok(Read::Oversized) => Some(error(
                Value::Null,
                -32600,
                "Invalid Request: the message is longer than this server reads",
            )),
            Err(e) => {
                tracing::debug!(error = %e, "stdin could not be read");
                break;
            }
        };
        let line = match (refusal, std::str::from_utf8(&buf)) {
            (Some(message), _) => Err(message),
            (None, Ok(text)) => Ok(text),
            // Not UTF-8: not JSON either.
            (None, Err(_)) => Err(error(Value::Null, -32700, "Parse error")),
        };
        let line = match line {
            Ok(line) => line,
            Err(message) => {
                if out_tx.send(encode(&message)).await.is_err() {
                    break;
                }
                continue;
            }
        };
        let trimmed = line.trim_end_matches('\r');
        if trimmed.trim().is_empty() {
            continue;
        }
        match framing.judge(trimmed) {
            Line::Pass => {}
            Line::Drop => {
                tracing::debug!("a notification or response before the first request was dropped");
                continue;
            }
            Line::Answer(message) => {
                if out_tx.send(encode(&message)).await.is_err() {
                    break;
                }
                continue;
            }
            Line::Restart => {
                // An `initialize` after 2026-07-28 requests: the 2025 lifecycle from here on.
                outcome = service.finish().await;
                service = Instance::start(server.clone(), out_tx.clone(), &shutdown);
            }
        }
        if !service.send(trimmed).await {
            break;
        }
    }
    let last = service.finish().await;
    drop(out_tx);
    let _ = writer.await;
    outcome.and(last)
}

/// What one read of a line found.
enum Read {
    Line,
    /// Longer than the bound: skipped to its end, nothing kept.
    Oversized,
    Eof,
}

/// Read one line (without its newline) into `buf`, keeping at most `max` bytes of it.
async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    input: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Read> {
    let mut oversized = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (oversized, buf.is_empty()) {
                (true, _) => Read::Oversized,
                (false, true) => Read::Eof,
                // A last line without its newline.
                (false, false) => Read::Line,
            });
        }
        let (chunk, used, ends) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (&available[..at], at + 1, true),
            None => (available, available.len(), false),
        };
        if !oversized {
            if buf.len() + chunk.len() > max {
                oversized = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if ends {
            return Ok(if oversized {
                Read::Oversized
            } else {
                Read::Line
            });
        }
    }
}

/// One rmcp service over a pair of in-memory pipes.
struct Instance {
    input: Option<tokio::io::DuplexStream>,
    running: JoinHandle<Result<(), String>>,
}

impl Instance {
    fn start(
        server: McpServer,
        out: mpsc::Sender<Outgoing>,
        shutdown: &CancellationToken,
    ) -> Instance {
        let held = server.held_results();
        let (input, service_in) = tokio::io::duplex(PIPE_BYTES);
        let (service_out, from_service) = tokio::io::duplex(PIPE_BYTES);
        let ct = shutdown.child_token();
        let running = tokio::spawn(async move {
            let forward = tokio::spawn(forward_lines(from_service, out, held));
            let served = match server.serve_with_ct((service_in, service_out), ct).await {
                Ok(running) => running
                    .waiting()
                    .await
                    .map(|_| ())
                    .map_err(|e| format!("stdio session ended abnormally: {e}")),
                // The client closed stdin before choosing a lifecycle (say, after only
                // the `server/discover` probe): an ordinary end, not a failure.
                Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
                Err(e) => Err(format!("MCP initialization over stdio failed: {e}")),
            };
            let _ = forward.await;
            served
        });
        Instance {
            input: Some(input),
            running,
        }
    }

    /// Hand one line to the service; false when it is gone.
    async fn send(&mut self, line: &str) -> bool {
        let Some(input) = self.input.as_mut() else {
            return false;
        };
        let mut framed = Vec::with_capacity(line.len() + 1);
        framed.extend_from_slice(line.as_bytes());
        framed.push(b'\n');
        input.write_all(&framed).await.is_ok()
    }

    /// Close its input and wait until it has answered what it had and stopped.
    async fn finish(&mut self) -> Result<(), String> {
        drop(self.input.take());
        (&mut self.running)
            .await
            .unwrap_or_else(|_| Err("the stdio session task failed".into()))
    }
}

/// Copy the service's lines to the output channel, whole, with the big results they carry
/// as markers written in ([`crate::mcp::held_results`]).
async fn forward_lines(
    from: tokio::io::DuplexStream,
    out: mpsc::Sender<Outgoing>,
    held: Arc<HeldResults>,
) {
    let mut lines = BufReader::new(from).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line = crate::mcp::wire_fixes::without_removed_fields(&line).unwrap_or(line);
        // Sent without its newline (the writer adds it): appending one here could copy a
        // many-megabyte answer once more.
        let outgoing = match held.splice(line.as_bytes()) {
            Some(spliced) => Outgoing::Spliced(spliced),
            None => Outgoing::Line(line.into_bytes()),
        };
        if out.send(outgoing).await.is_err() {
            return;
        }
    }
}

/// One message for the writer, which ends each with a newline.
pub(crate) enum Outgoing {
    Line(Vec<u8>),
    /// A message with a big result, written a chunk at a time.
    Spliced(Spliced),
}

impl Outgoing {
    /// A length at least this message's: a spliced one is taken as big.
    fn len(&self) -> usize {
        match self {
            Outgoing::Line(line) => line.len(),
            Outgoing::Spliced(_) => usize::MAX - 1,
        }
    }
}

fn encode(message: &Value) -> Outgoing {
    Outgoing::Line(message.to_string().into_bytes())
}

/// Lines ready together are written in one write of at most this many bytes: each write to
/// stdout is a trip through a blocking thread, and pipelined answers come in bursts.
const BATCH_BYTES: usize = 64 * 1024;

/// The one writer of stdout. A closed stdout ends the writes, never the process with a
/// panic.
async fn write_lines<W: AsyncWrite + Unpin>(mut output: W, mut lines: mpsc::Receiver<Outgoing>) {
    let mut batch = Vec::with_capacity(BATCH_BYTES);
    while let Some(first) = lines.recv().await {
        let mut next = Some(first);
        let mut written = Ok(());
        while let Some(line) = next.take() {
            if batch.len().saturating_add(line.len() + 1) > BATCH_BYTES && !batch.is_empty() {
                written = output.write_all(&batch).await;
                batch.clear();
            }
            if written.is_ok() && line.len() + 1 > BATCH_BYTES {
                // A big answer goes out as it is, never copied into the batch.
                written = write_big(&mut output, line).await;
            } else if let Outgoing::Line(line) = line {
                batch.extend_from_slice(&line);
                batch.push(b'\n');
            }
            if written.is_err() {
                break;
            }
            next = lines.try_recv().ok();
        }
        if written.is_ok() && !batch.is_empty() {
            written = output.write_all(&batch).await;
            batch.clear();
        }
        if written.is_err() || output.flush().await.is_err() {
            // Drain, so that senders never wait on a reader that is gone.
            while lines.recv().await.is_some() {}
            return;
        }
    }
}

/// Write one big message and its newline without copying it.
async fn write_big<W: AsyncWrite + Unpin>(output: &mut W, line: Outgoing) -> std::io::Result<()> {
    match line {
        Outgoing::Line(line) => output.write_all(&line).await?,
        Outgoing::Spliced(spliced) => {
            for chunk in spliced {
                output.write_all(&chunk).await?;
            }
        }
    }
    output.write_all(b"\n").await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge_all(lines: &[&str]) -> Vec<Line> {
        let mut f = Framing::new();
        lines.iter().map(|l| f.judge(l)).collect()
    }

    const MODERN_CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}"#;

    #[tokio::test]
    async fn the_writer_ends_every_line_and_batches_those_ready_together() {
        let (tx, rx) = mpsc::channel(8);
        let (mut read, write) = tokio::io::duplex(1 << 20);
        let writer = tokio::spawn(write_lines(write, rx));
        let big = vec![b'x'; BATCH_BYTES + 10];
        for line in [b"a".to_vec(), big.clone(), b"b".to_vec()] {
            tx.send(Outgoing::Line(line)).await.expect("send");
        }
        drop(tx);
        writer.await.expect("writer");
        let mut out = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut read, &mut out)
            .await
            .expect("read");
        let mut want = b"a\n".to_vec();
        want.extend_from_slice(&big);
        want.extend_from_slice(b"\nb\n");
        assert_eq!(out, want);
    }

    #[test]
    fn notifications_and_responses_before_the_first_request_are_dropped() {
        let out = judge_all(&[
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
            INITIALIZE,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ]);
        assert_eq!(
            out,
            [Line::Drop, Line::Drop, Line::Drop, Line::Pass, Line::Pass]
        );
    }

    #[test]
    fn malformed_lines_are_answered_with_a_null_id() {
        let out = judge_all(&["not json", "[1,2]", "42"]);
        let codes: Vec<(Value, Value)> = out
            .into_iter()
            .map(|l| match l {
                Line::Answer(m) => (m["id"].clone(), m["error"]["code"].clone()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            codes,
            [
                (Value::Null, json!(-32700)),
                (Value::Null, json!(-32600)),
                (Value::Null, json!(-32600))
            ]
        );
    }

    #[test]
    fn an_initialize_after_2026_requests_selects_the_2025_lifecycle_once() {
        let out = judge_all(&[
            r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#,
            MODERN_CALL,
            INITIALIZE,
            INITIALIZE,
        ]);
        assert_eq!(out[0], Line::Pass);
        assert_eq!(out[1], Line::Pass);
        assert_eq!(out[2], Line::Restart);
        assert!(
            matches!(&out[3], Line::Answer(m) if m["error"]["code"] == -32600 && m["id"] == 2),
            "{:?}",
            out[3]
        );
        // A discover probe before initialize leaves the choice open.
        let out = judge_all(&[
            r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#,
            INITIALIZE,
        ]);
        assert_eq!(out, [Line::Pass, Line::Pass]);
    }
}
