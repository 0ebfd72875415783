//! The wire between the person's side and the vault, one connection per command.
//!
//! The person's side opens a connection and writes one [`Hello`] line: the `etrade` command
//! it wants run (`serve`, `approve …`, `paper status`, …), whether a person sits at its
//! terminal, and the few values of its environment a command reads as input. Then it writes
//! the command's standard input, raw, and half-closes when that ends.
//!
//! The vault answers with [`Frame`]s: the command's standard output and standard error, each
//! as it comes, then its exit code. A frame is one kind byte, a four-byte big-endian length
//! and the bytes: MCP messages of many megabytes pass through unescaped.
//!
//! Nothing on this wire lets the person's side act without the vault: it carries the
//! command line and what the person types (a PIN, a verifier) in, and the command's output
//! out.

use serde::{Deserialize, Serialize};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};

/// The longest hello the vault reads: a command line, not a payload.
pub const MAX_HELLO_BYTES: usize = 64 * 1024;

/// The longest frame either side writes: output is split into frames of at most this.
pub const MAX_FRAME_BYTES: usize = 1 << 20;

/// The person's side's environment variables a command may read as the person's input
/// (`auth login`'s consumer key and secret, the profile an MCP host's configuration names). Nothing else of the person's environment
/// reaches the vault.
pub const FORWARDED_ENV: &[&str] = &[
    "ETRADE_CONSUMER_KEY",
    "ETRADE_CONSUMER_SECRET",
    "ETRADE_MCP_PROFILE",
];

/// The first line of a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// The `etrade` command line after the program name, as the person typed it.
    pub argv: Vec<String>,
    /// Whether the person's side reads answers from a terminal: the command then asks its
    /// questions through [`PROMPT_MARK`] lines instead of reading raw standard input.
    #[serde(default)]
    pub terminal: bool,
    /// Values of [`FORWARDED_ENV`] the person's side has set.
    #[serde(default)]
    pub env: Vec<(String, String)>,
    /// The `[trading]` tables of the person's own config.toml, by profile: the vault applies
    /// them only to tighten its own ([`crate::trading::policy::TradingPolicy::narrowed_by`]).
    #[serde(default)]
    pub narrow: Vec<(String, crate::config::trading::TradingConfig)>,
}

/// Carries [`Hello::narrow`] to the command the vault runs, as JSON.
pub const NARROW_VAR: &str = "ETRADE_MCP_NARROW";

/// A command run inside the vault for a person at a terminal writes each question to its
/// standard error as one line: this mark, `secret` or `line`, a space, the prompt text. The
/// person's side asks it at its own terminal (a secret without echo) and writes the answer
/// as one line to the command's standard input.
pub const PROMPT_MARK: &str = "\u{1}etrade-ask ";

pub use crate::platform::OPEN_PAGE_MARK;

/// For `serve --transport http`, the vault's first line to the person's side: this mark and
/// the bearer token its server for them asks for (see `http_relay`).
pub const HTTP_TOKEN_MARK: &str = "\u{1}etrade-http-token ";

/// What `etrade serve --transport http` writes on its standard error once it listens,
/// followed by `http://ADDRESS/mcp`: scripts, tests and the vault's relay read the port there.
pub const LISTENING_NOTE: &str = "etrade-mcp: listening on ";

/// What the vault sends back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    /// The command ended with this exit code (the last frame of a connection).
    Exit(i32),
}

const STDOUT: u8 = 1;
const STDERR: u8 = 2;
const EXIT: u8 = 3;

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("the connection closed")]
    Closed,
    #[error("the hello line is longer than {MAX_HELLO_BYTES} bytes")]
    HelloTooLong,
    #[error("the hello line is not understood: {0}")]
    BadHello(String),
    #[error("a frame of kind {kind} and {len} bytes is not understood")]
    BadFrame { kind: u8, len: u32 },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl Hello {
    pub fn encode(&self) -> Vec<u8> {
        let mut line = serde_json::to_vec(self).unwrap_or_default();
        line.push(b'\n');
        line
    }

    /// Reads the hello line, refusing one longer than [`MAX_HELLO_BYTES`].
    pub async fn read<R: AsyncBufRead + Unpin>(input: &mut R) -> Result<Hello, WireError> {
        let mut line = Vec::new();
        let read = (&mut *input)
            .take(MAX_HELLO_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .await?;
        if read == 0 {
            return Err(WireError::Closed);
        }
        if line.last() != Some(&b'\n') {
            return Err(if line.len() > MAX_HELLO_BYTES {
                WireError::HelloTooLong
            } else {
                WireError::Closed
            });
        }
        serde_json::from_slice(&line).map_err(|e| WireError::BadHello(e.to_string()))
    }
}

impl Frame {
    /// Writes the frame; output longer than [`MAX_FRAME_BYTES`] is split into several.
    pub async fn write<W: AsyncWrite + Unpin>(&self, out: &mut W) -> std::io::Result<()> {
        match self {
            Frame::Stdout(bytes) => write_chunks(out, STDOUT, bytes).await,
            Frame::Stderr(bytes) => write_chunks(out, STDERR, bytes).await,
            Frame::Exit(code) => {
                write_header(out, EXIT, 4).await?;
                out.write_all(&code.to_be_bytes()).await
            }
        }
    }

    pub async fn read<R: AsyncRead + Unpin>(input: &mut R) -> Result<Frame, WireError> {
        let mut header = [0u8; 5];
        match input.read_exact(&mut header).await {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(WireError::Closed);
            }
            Err(e) => return Err(e.into()),
        }
        let kind = header[0];
        let len = u32::from_be_bytes([header[1], header[2], header[3], header[4]]);
        let bad = WireError::BadFrame { kind, len };
        if len as usize > MAX_FRAME_BYTES {
            return Err(bad);
        }
        let mut body = vec![0u8; len as usize];
        input.read_exact(&mut body).await?;
        match kind {
            STDOUT => Ok(Frame::Stdout(body)),
            STDERR => Ok(Frame::Stderr(body)),
            EXIT => match <[u8; 4]>::try_from(body.as_slice()) {
                Ok(code) => Ok(Frame::Exit(i32::from_be_bytes(code))),
                Err(_) => Err(bad),
            },
            _ => Err(bad),
        }
    }
}

async fn write_header<W: AsyncWrite + Unpin>(
    out: &mut W,
    kind: u8,
    len: u32,
) -> std::io::Result<()> {
    let mut header = [0u8; 5];
    header[0] = kind;
    header[1..].copy_from_slice(&len.to_be_bytes());
    out.write_all(&header).await
}

async fn write_chunks<W: AsyncWrite + Unpin>(
    out: &mut W,
    kind: u8,
    bytes: &[u8],
) -> std::io::Result<()> {
    for chunk in bytes.chunks(MAX_FRAME_BYTES) {
        // A chunk is at most MAX_FRAME_BYTES, which fits a u32.
        write_header(out, kind, chunk.len() as u32).await?;
        out.write_all(chunk).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn frames_round_trip_and_big_output_is_split() {
        let big = vec![b'x'; MAX_FRAME_BYTES + 10];
        let mut buf = Vec::new();
        Frame::Stdout(big.clone()).write(&mut buf).await.unwrap();
        Frame::Stderr(b"note\n".to_vec())
            .write(&mut buf)
            .await
            .unwrap();
        Frame::Exit(-3).write(&mut buf).await.unwrap();
        let mut input = buf.as_slice();
        let mut out = Vec::new();
        let mut frames = 0;
        loop {
            match Frame::read(&mut input).await.unwrap() {
                Frame::Stdout(b) => {
                    frames += 1;
                    out.extend(b)
                }
                Frame::Stderr(b) => assert_eq!(b, b"note\n"),
                Frame::Exit(code) => {
                    assert_eq!(code, -3);
                    break;
                }
            }
        }
        assert_eq!(frames, 2);
        assert_eq!(out, big);
        assert!(matches!(
            Frame::read(&mut input).await,
            Err(WireError::Closed)
        ));
    }

    #[tokio::test]
    async fn a_frame_longer_than_the_limit_or_of_unknown_kind_is_refused() {
        let mut header = vec![STDOUT];
        header.extend((MAX_FRAME_BYTES as u32 + 1).to_be_bytes());
        assert!(matches!(
            Frame::read(&mut header.as_slice()).await,
            Err(WireError::BadFrame { .. })
        ));
        let odd = [9u8, 0, 0, 0, 0];
        assert!(matches!(
            Frame::read(&mut odd.as_slice()).await,
            Err(WireError::BadFrame { kind: 9, .. })
        ));
    }

    #[tokio::test]
    async fn the_hello_is_one_bounded_line_with_no_unknown_members() {
        let hello = Hello {
            argv: vec!["approve".into(), "--list".into()],
            terminal: true,
            env: vec![],
            narrow: vec![],
        };
        let line = hello.encode();
        let mut reader = tokio::io::BufReader::new(line.as_slice());
        assert_eq!(Hello::read(&mut reader).await.unwrap(), hello);
        let long = vec![b'a'; MAX_HELLO_BYTES + 5];
        let mut reader = tokio::io::BufReader::new(long.as_slice());
        assert!(matches!(
            Hello::read(&mut reader).await,
            Err(WireError::HelloTooLong)
        ));
        let extra = b"{\"argv\":[],\"as_root\":true}\n";
        let mut reader = tokio::io::BufReader::new(&extra[..]);
        assert!(matches!(
            Hello::read(&mut reader).await,
            Err(WireError::BadHello(_))
        ));
    }
}
