//! `fake-etrade`: the fake E*TRADE server as a process, driven over `/__fake/...`.
//!
//! ```text
//! fake-etrade [--port N] [--consumer-key KEY --consumer-secret SECRET]... [--no-verify-signatures]
//! ```
//! Prints `fake-etrade: listening on http://127.0.0.1:PORT` on stderr and runs until
//! SIGINT/SIGTERM.

use std::process::ExitCode;

use fake_etrade::{
    Consumer, DEFAULT_CONSUMER_KEY, DEFAULT_CONSUMER_SECRET, FakeConfig, FakeEtrade,
};

const USAGE: &str = "usage: fake-etrade [--port N] [--consumer-key KEY --consumer-secret SECRET]... [--no-verify-signatures]";

fn parse_args() -> Result<(FakeConfig, u16), String> {
    let mut keys = Vec::new();
    let mut secrets = Vec::new();
    let mut port = 0u16;
    let mut verify = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (arg.clone(), None),
        };
        let mut value = |what: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{what} needs a value\n{USAGE}"))
        };
        match name.as_str() {
            "--consumer-key" => keys.push(value("--consumer-key")?),
            "--consumer-secret" => secrets.push(value("--consumer-secret")?),
            "--port" => {
                port = value("--port")?
                    .parse()
                    .map_err(|_| format!("--port needs a number\n{USAGE}"))?;
            }
            "--no-verify-signatures" => verify = false,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    if keys.len() != secrets.len() {
        return Err(format!(
            "give a --consumer-secret for every --consumer-key\n{USAGE}"
        ));
    }
    let consumers = if keys.is_empty() {
        vec![Consumer::new(DEFAULT_CONSUMER_KEY, DEFAULT_CONSUMER_SECRET)]
    } else {
        keys.into_iter()
            .zip(secrets)
            .map(|(k, s)| Consumer::new(k, s))
            .collect()
    };
    Ok((
        FakeConfig {
            consumers,
            verify_signatures: verify,
            ..FakeConfig::default()
        },
        port,
    ))
}

#[tokio::main]
async fn main() -> ExitCode {
    let (config, port) = match parse_args() {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let fake = match FakeEtrade::start_on(config, port).await {
        Ok(f) => f,
        Err(e) => {
            eprintln!("fake-etrade: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("fake-etrade: listening on {}", fake.base_url());
    let stop = async {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            match signal(SignalKind::terminate()) {
                Ok(mut term) => {
                    tokio::select! {
                        _ = tokio::signal::ctrl_c() => {}
                        _ = term.recv() => {}
                    }
                }
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    };
    stop.await;
    fake.shutdown().await;
    ExitCode::SUCCESS
}
