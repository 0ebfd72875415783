//! `etrade vault run`'s loop: accept a connection, read its [`Hello`], and run the command it
//! names as this (the vault's) account, with the vault's state and configuration, relaying
//! its standard streams over the connection as [`Frame`]s.
//!
//! Running `etrade` itself per connection keeps one composition root: what the vault does
//! for `etrade approve` or `etrade serve` is what those commands do in single-user mode, on
//! the vault's own store and clock. The commands already share their files between
//! processes (see `store_lease`).

use super::admission;
use super::wire::{FORWARDED_ENV, Frame, HTTP_TOKEN_MARK, Hello, NARROW_VAR, WireError};
use crate::platform::local_socket::{LocalListener, LocalStream, PeerIdentity};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Set for a command run for a person whose side reads from a terminal: it asks its
/// questions through prompt lines (see [`super::wire::PROMPT_MARK`]).
pub const REMOTE_TERMINAL_VAR: &str = "ETRADE_MCP_REMOTE_TERMINAL";

/// The connection's peer as the OS reported it, for the command's journal entries.
pub const PEER_VAR: &str = "ETRADE_MCP_PEER";

/// How long a connection may take to say what it wants.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// The exit code of a command line the vault refused.
pub const REFUSED_EXIT: i32 = 2;

/// What the vault runs, and where.
#[derive(Debug, Clone)]
pub struct Supervisor {
    /// This `etrade` binary.
    pub program: PathBuf,
    /// The vault's state folder (its configuration is `vault.toml` there).
    pub state: PathBuf,
}

impl Supervisor {
    /// Serves connections until `shutdown`; each runs on its own task.
    pub async fn serve(self, mut listener: LocalListener, shutdown: CancellationToken) {
        let me = Arc::new(self);
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = shutdown.cancelled() => return,
            };
            match accepted {
                Ok((stream, peer)) => {
                    let me = me.clone();
                    let shutdown = shutdown.clone();
                    tokio::spawn(async move { me.connection(stream, peer, shutdown).await });
                }
                Err(e) => {
                    tracing::warn!(error = %e, "vault: cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    async fn connection(
        &self,
        stream: LocalStream,
        peer: PeerIdentity,
        shutdown: CancellationToken,
    ) {
        let (read, mut write) = tokio::io::split(stream);
        let mut read = BufReader::new(read);
        let hello = match tokio::time::timeout(HELLO_TIMEOUT, Hello::read(&mut read)).await {
            Ok(Ok(hello)) => hello,
            Ok(Err(WireError::Closed)) | Err(_) => return,
            Ok(Err(e)) => {
                refuse(&mut write, &e.to_string()).await;
                return;
            }
        };
        let command = match admission::admit(&hello.argv) {
            Ok(command) => command,
            Err(refusal) => {
                tracing::info!(peer = %peer, argv = ?hello.argv, %refusal, "vault: refused");
                refuse(&mut write, &refusal.to_string()).await;
                return;
            }
        };
        tracing::info!(peer = %peer, command, "vault: running for a client");
        let code = match self.run(&hello, peer, read, &mut write, shutdown).await {
            Ok(code) => code,
            Err(e) => {
                tracing::warn!(peer = %peer, command, error = %e, "vault: the command failed to run");
                let _ = Frame::Stderr(
                    format!("etrade vault: cannot run {command}: {e}\n").into_bytes(),
                )
                .write(&mut write)
                .await;
                1
            }
        };
        tracing::info!(peer = %peer, command, code, "vault: client done");
        let _ = Frame::Exit(code).write(&mut write).await;
        let _ = write.shutdown().await;
    }

    /// Runs the command; its exit code, or why it could not start.
    async fn run<R, W>(
        &self,
        hello: &Hello,
        peer: PeerIdentity,
        mut input: R,
        output: &mut W,
        shutdown: CancellationToken,
    ) -> std::io::Result<i32>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin,
    {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&hello.argv)
            .env(crate::paths::HOME_OVERRIDE_VAR, &self.state)
            .env(crate::paths::INSIDE_VAULT_VAR, "1")
            .env(PEER_VAR, peer.to_string())
            .env_remove(super::defaults::SOCKET_VAR)
            .env_remove(REMOTE_TERMINAL_VAR)
            .current_dir(&self.state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for name in FORWARDED_ENV {
            command.env_remove(name);
        }
        for (name, value) in &hello.env {
            if FORWARDED_ENV.contains(&name.as_str()) {
                command.env(name, value);
            }
        }
        if hello.terminal {
            command.env(REMOTE_TERMINAL_VAR, "1");
        }
        command.env_remove(NARROW_VAR);
        if !hello.narrow.is_empty()
            && let Ok(json) = serde_json::to_string(&hello.narrow)
        {
            command.env(NARROW_VAR, json);
        }
        let http = serves_http(&hello.argv);
        if http {
            // The server for this person listens on a loopback port of the vault's choosing,
            // behind a token only their relay is told.
            let token = http_token()?;
            command
                .args(["--listen", "127.0.0.1:0"])
                .env("ETRADE_MCP_HTTP_TOKEN", &token);
            Frame::Stderr(format!("{HTTP_TOKEN_MARK}{token}\n").into_bytes())
                .write(output)
                .await?;
        }
        let mut child = command.spawn()?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(std::io::Error::other("the command's streams are missing"));
        };
        // The person's side's input, until it half-closes; then the command's stdin ends.
        let mut feeding = tokio::spawn(async move {
            let _ = tokio::io::copy(&mut input, &mut stdin).await;
            let _ = stdin.shutdown().await;
        });
        let (frames, mut outgoing) = mpsc::channel::<Frame>(16);
        let out_pump = tokio::spawn(pump(stdout, frames.clone(), Frame::Stdout));
        let err_pump = tokio::spawn(pump(stderr, frames, Frame::Stderr));
        let mut client_gone = false;
        let mut input_ended = false;
        loop {
            tokio::select! {
                frame = outgoing.recv() => match frame {
                    Some(frame) => {
                        if frame.write(output).await.is_err() {
                            client_gone = true;
                            break;
                        }
                    }
                    None => break,
                },
                _ = &mut feeding, if !input_ended => {
                    input_ended = true;
                    // An HTTP server does not read stdin: the relay going away is its end.
                    if http {
                        let _ = child.start_kill();
                    }
                }
                () = shutdown.cancelled() => break,
            }
        }
        if client_gone || shutdown.is_cancelled() {
            let _ = child.start_kill();
        }
        let status = child.wait().await?;
        if !input_ended {
            feeding.abort();
        }
        out_pump.abort();
        err_pump.abort();
        Ok(status.code().unwrap_or(1))
    }
}

/// Whether `argv` is `serve --transport http` (in either spelling).
fn serves_http(argv: &[String]) -> bool {
    argv.first().is_some_and(|c| c == "serve")
        && (argv.iter().any(|a| a == "--transport=http")
            || argv
                .windows(2)
                .any(|w| w[0] == "--transport" && w[1] == "http"))
}

/// 256 random bits, hex.
fn http_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Copies one of the command's output streams into frames, as it comes.
async fn pump<R: AsyncRead + Unpin>(
    mut from: R,
    to: mpsc::Sender<Frame>,
    frame: fn(Vec<u8>) -> Frame,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.send(frame(buf[..n].to_vec())).await.is_err() {
                    return;
                }
            }
        }
    }
}

async fn refuse<W: AsyncWrite + Unpin>(write: &mut W, text: &str) {
    let _ = Frame::Stderr(format!("etrade vault: {text}\n").into_bytes())
        .write(write)
        .await;
    let _ = Frame::Exit(REFUSED_EXIT).write(write).await;
    let _ = write.shutdown().await;
}
