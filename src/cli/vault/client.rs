//! The person's side of the vault: when a vault is configured, `etrade serve`, `approve`,
//! `halt`, `resume`, `auth`, `doctor` and `paper` send their command line to it and show what
//! it answers, byte for byte. The person's side holds nothing of the vault's: no token, no
//! PIN hash, no approval record.

use anyhow::{Context, bail};
use runtime::vault::defaults;
use runtime::vault::wire::{
    FORWARDED_ENV, Frame, HTTP_TOKEN_MARK, Hello, LISTENING_NOTE, OPEN_PAGE_MARK, PROMPT_MARK,
};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The vault's socket, when this process should use one: `ETRADE_MCP_VAULT`, else the
/// default socket when it exists. A command the vault itself runs never asks a vault.
pub fn socket() -> Option<PathBuf> {
    if runtime::paths::inside_vault() {
        return None;
    }
    if let Some(named) = std::env::var_os(defaults::SOCKET_VAR).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(named));
    }
    let default = defaults::socket(runtime::platform::CURRENT);
    default.exists().then_some(default)
}

/// This process's command line after the program name.
fn own_argv() -> anyhow::Result<Vec<String>> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect::<Result<_, _>>()
        .map_err(|a| anyhow::anyhow!("the argument {a:?} is not UTF-8"))
}

/// Runs this process's command line in the vault at `socket`, and ends as it ended.
pub fn relay(socket: &std::path::Path) -> anyhow::Result<ExitCode> {
    let argv = own_argv()?;
    // A server's standard input is its MCP client, never a person answering questions.
    let terminal = std::io::stdin().is_terminal() && argv.first().is_none_or(|c| c != "serve");
    let hello = Hello {
        argv,
        terminal,
        env: forwarded_env(),
        narrow: person_trading_tables(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let code = rt.block_on(exchange(socket, hello))?;
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

async fn exchange(socket: &std::path::Path, hello: Hello) -> anyhow::Result<i32> {
    let stream = connect(socket).await?;
    let (read, mut write) = tokio::io::split(stream);
    write.write_all(&hello.encode()).await?;
    // What goes to the vault after the hello: the answers to its questions (a person at a
    // terminal), or this process's standard input as it comes (a script, an MCP host).
    let (answers, mut to_send) = mpsc::channel::<Vec<u8>>(4);
    if !hello.terminal {
        tokio::spawn(async move {
            let mut stdin = tokio::io::stdin();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                use tokio::io::AsyncReadExt;
                match stdin.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        if answers.send(buf[..n].to_vec()).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
        tokio::spawn(async move {
            while let Some(bytes) = to_send.recv().await {
                if write.write_all(&bytes).await.is_err() {
                    return;
                }
            }
            let _ = write.shutdown().await;
        });
        return receive(read, None).await;
    }
    tokio::spawn(async move {
        while let Some(bytes) = to_send.recv().await {
            if write.write_all(&bytes).await.is_err() {
                return;
            }
        }
        // Kept open until the command ends: it may ask again.
        std::future::pending::<()>().await;
    });
    receive(read, Some(answers)).await
}

/// Shows the vault's frames until the exit code; `answers` carries a terminal's answers.
async fn receive<R: tokio::io::AsyncRead + Unpin>(
    read: R,
    answers: Option<mpsc::Sender<Vec<u8>>>,
) -> anyhow::Result<i32> {
    let mut read = BufReader::new(read);
    let mut err_line = Vec::new();
    loop {
        let frame = match Frame::read(&mut read).await {
            Ok(frame) => frame,
            Err(runtime::vault::wire::WireError::Closed) => {
                bail!("the trading vault closed the connection before the command ended")
            }
            Err(e) => return Err(e).context("the trading vault's answer is not understood"),
        };
        match frame {
            Frame::Stdout(bytes) => {
                let mut out = std::io::stdout().lock();
                if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                    // The reader went away (`| head`): end quietly, as a Unix filter does.
                    return Ok(0);
                }
            }
            Frame::Stderr(bytes) => {
                for &b in &bytes {
                    err_line.push(b);
                    if b == b'\n' {
                        let line = String::from_utf8_lossy(&err_line).into_owned();
                        err_line.clear();
                        stderr_line(&line, answers.as_ref()).await?;
                    }
                }
            }
            Frame::Exit(code) => {
                if !err_line.is_empty() {
                    let _ = std::io::stderr().write_all(&err_line);
                }
                return Ok(code);
            }
        }
    }
}

/// One line of the command's standard error: a question for the person, a page to open in
/// their browser, or a note to show.
async fn stderr_line(line: &str, answers: Option<&mpsc::Sender<Vec<u8>>>) -> anyhow::Result<()> {
    let text = line.trim_end_matches(['\n', '\r']);
    if let Some(url) = text.strip_prefix(OPEN_PAGE_MARK) {
        if let Err(e) = runtime::platform::open_in_browser(url) {
            crate::cli::output::noteln!("etrade: cannot open the approval page in a browser: {e}");
        }
        return Ok(());
    }
    if let (Some(question), Some(answers)) = (text.strip_prefix(PROMPT_MARK), answers) {
        let (kind, prompt) = question.split_once(' ').unwrap_or((question, ""));
        let secret = kind == "secret";
        let prompt = prompt.to_string();
        let answer = tokio::task::spawn_blocking(move || -> anyhow::Result<String> {
            if secret {
                return Ok(rpassword::prompt_password(&prompt)?);
            }
            eprint!("{prompt}");
            let mut line = String::new();
            std::io::stdin().read_line(&mut line)?;
            Ok(line.trim().to_string())
        })
        .await??;
        let mut line = answer.into_bytes();
        line.push(b'\n');
        answers.send(line).await.ok();
        return Ok(());
    }
    let _ = std::io::stderr().write_all(line.as_bytes());
    Ok(())
}

/// The flags of `etrade serve --transport http` that shape the person's own listener: they
/// stay on this side, and the rest of the command line goes to the vault.
const LISTENER_FLAGS: [&str; 6] = [
    "--listen",
    "--http-token-file",
    "--max-body-bytes",
    "--max-sessions",
    "--session-idle-timeout",
    "--allowed-host",
];

fn without_listener_flags(argv: Vec<String>) -> Vec<String> {
    let mut kept = Vec::new();
    let mut args = argv.into_iter();
    while let Some(arg) = args.next() {
        let name = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
        if LISTENER_FLAGS.contains(&name) {
            if !arg.contains('=') {
                args.next();
            }
            continue;
        }
        kept.push(arg);
    }
    kept
}

/// `etrade serve --transport http` with a vault: the person's listener (`listener`, with
/// their `token`) in front of the server the vault runs for them.
pub fn relay_http(
    socket: &std::path::Path,
    listener: std::net::TcpListener,
    token: Option<String>,
) -> anyhow::Result<ExitCode> {
    let hello = Hello {
        argv: without_listener_flags(own_argv()?),
        terminal: false,
        env: forwarded_env(),
        narrow: person_trading_tables(),
    };
    let rt = crate::cli::serve::async_runtime()?;
    let code = rt.block_on(async move {
        let shutdown = tokio_util::sync::CancellationToken::new();
        crate::cli::serve::install_signal_handlers(shutdown.clone())?;
        let stream = connect(socket).await?;
        let (read, mut write) = tokio::io::split(stream);
        write.write_all(&hello.encode()).await?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let mut relay = HttpRelay {
            listener: Some(listener),
            token,
            upstream_token: None,
            shutdown: shutdown.clone(),
        };
        let code = tokio::select! {
            code = receive_http(read, &mut relay) => code,
            () = shutdown.cancelled() => Ok(0),
        };
        shutdown.cancel();
        // Dropping the connection ends the vault's server for this relay.
        drop(write);
        code
    })?;
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

struct HttpRelay {
    /// The person's listener, until the vault's server is up.
    listener: Option<tokio::net::TcpListener>,
    token: Option<String>,
    upstream_token: Option<String>,
    shutdown: tokio_util::sync::CancellationToken,
}

async fn receive_http<R: tokio::io::AsyncRead + Unpin>(
    read: R,
    relay: &mut HttpRelay,
) -> anyhow::Result<i32> {
    let mut read = BufReader::new(read);
    let mut err_line = Vec::new();
    loop {
        match Frame::read(&mut read).await {
            Ok(Frame::Stdout(bytes)) => {
                let _ = std::io::stderr().write_all(&bytes);
            }
            Ok(Frame::Stderr(bytes)) => {
                for &b in &bytes {
                    err_line.push(b);
                    if b == b'\n' {
                        let line = String::from_utf8_lossy(&err_line).into_owned();
                        err_line.clear();
                        http_stderr_line(&line, relay).await?;
                    }
                }
            }
            Ok(Frame::Exit(code)) => return Ok(code),
            Err(runtime::vault::wire::WireError::Closed) => {
                bail!("the trading vault closed the connection")
            }
            Err(e) => return Err(e).context("the trading vault's answer is not understood"),
        }
    }
}

async fn http_stderr_line(line: &str, relay: &mut HttpRelay) -> anyhow::Result<()> {
    let text = line.trim_end_matches(['\n', '\r']);
    if let Some(token) = text.strip_prefix(HTTP_TOKEN_MARK) {
        relay.upstream_token = Some(token.to_string());
        return Ok(());
    }
    if let Some(url) = text.strip_prefix(LISTENING_NOTE) {
        let origin = url.trim_end_matches("/mcp").to_string();
        let (Some(listener), Some(upstream_token)) =
            (relay.listener.take(), relay.upstream_token.clone())
        else {
            bail!("the trading vault's server started without its token");
        };
        let addr = listener.local_addr()?;
        let upstream = runtime::vault::http_relay::Upstream {
            origin,
            token: upstream_token,
        };
        tokio::spawn(runtime::vault::http_relay::serve(
            listener,
            upstream,
            relay.token.clone(),
            relay.shutdown.clone(),
        ));
        crate::cli::output::noteln!("{LISTENING_NOTE}http://{addr}/mcp");
        return Ok(());
    }
    stderr_line(line, None).await
}

/// The `[trading]` tables of the person's own config.toml, for the vault to tighten its own
/// with. A config.toml that does not load narrows nothing, and says so.
fn person_trading_tables() -> Vec<(String, runtime::config::trading::TradingConfig)> {
    let Ok(paths) = runtime::paths::StatePaths::from_env() else {
        return Vec::new();
    };
    let path = paths.config_file();
    if !path.exists() {
        return Vec::new();
    }
    match runtime::config::ConfigFile::load(&path) {
        Ok(file) => file
            .profiles
            .into_iter()
            .filter_map(|(name, profile)| Some((name, profile.trading?)))
            .collect(),
        Err(e) => {
            crate::cli::output::noteln!(
                "etrade: your config.toml does not load, so it narrows nothing the vault allows: {e}"
            );
            Vec::new()
        }
    }
}

fn forwarded_env() -> Vec<(String, String)> {
    FORWARDED_ENV
        .iter()
        .filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?)))
        .collect()
}

async fn connect(
    socket: &std::path::Path,
) -> anyhow::Result<runtime::platform::local_socket::LocalStream> {
    runtime::platform::local_socket::connect(socket)
        .await
        .with_context(|| {
            format!(
                "cannot reach the trading vault at {} (is its service running? `etrade vault install` sets it up; {} names another socket)",
                socket.display(),
                defaults::SOCKET_VAR
            )
        })
}
