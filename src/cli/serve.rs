//! `etrade serve`: resolve configuration and permissions, then run the chosen transport.

use super::flags::{EnvironmentArg, GrantFlags, TransportArg, store_choice};
use super::setup::Setup;
use anyhow::Context;
use etrade_mcp::generated::Tools;
use etrade_mcp::handlers::Handlers;
use runtime::broker::Broker;
use runtime::config::Environment;
use runtime::credentials::StoreChoice;
use runtime::etrade::endpoints::Endpoints;
use runtime::etrade::{EtradeHttp, EtradeSession};
use runtime::mcp::approval_page::ApprovalPage;
use runtime::mcp::dispatch::Transport;
use runtime::mcp::http::{BoundHttp, HttpOptions};
use runtime::mcp::http_sessions::SessionLimits;
use runtime::mcp::server::{McpServer, ServerClock, ServerOptions};
use runtime::paper::broker::PaperBroker;
use runtime::paper::live::{BlendedMarket, LiveQuotes, LiveTouches};
use runtime::paper::market::SimulatedMarket;
use runtime::trading::approval::ClientTrust;
use runtime::trading::approval_pin::LEGACY_FILE_NAME;
use runtime::trading::desk::OrderDesk;
use runtime::trading::halt::HaltSwitch;
use runtime::trading::policy::TradingPolicy;
use runtime::trading::store::TradingStore;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Environment to serve; overrides the profile's `environment` in config.toml.
    #[arg(long, value_enum, env = "ETRADE_MCP_ENVIRONMENT")]
    environment: Option<EnvironmentArg>,
    /// Profile from config.toml (also names the keyring entry).
    #[arg(long, env = "ETRADE_MCP_PROFILE")]
    profile: Option<String>,
    /// Transport: stdio (for a local MCP client) or streamable HTTP at /mcp.
    #[arg(long, value_enum, default_value_t = TransportArg::Stdio)]
    transport: TransportArg,
    /// Address for --transport http. Non-loopback addresses need a bearer token.
    #[arg(long, default_value = "127.0.0.1:8765")]
    listen: std::net::SocketAddr,
    /// File holding the bearer token required on every HTTP request.
    #[arg(long, value_name = "FILE")]
    http_token_file: Option<PathBuf>,
    /// Largest accepted HTTP request body, in bytes (larger gets 413).
    #[arg(long, default_value_t = runtime::mcp::http::DEFAULT_MAX_BODY_BYTES)]
    max_body_bytes: usize,
    /// Most MCP sessions kept at once over HTTP. At the limit a new one takes the place of
    /// the longest-idle session (idle a fifth of --session-idle-timeout, nothing open), or
    /// gets 503.
    #[arg(
        long,
        value_name = "N",
        env = "ETRADE_MCP_MAX_SESSIONS",
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        default_value_t = runtime::mcp::http_sessions::DEFAULT_MAX_SESSIONS
    )]
    max_sessions: usize,
    /// An HTTP MCP session with no request for this many seconds ends.
    #[arg(
        long,
        value_name = "SECONDS",
        env = "ETRADE_MCP_SESSION_IDLE_TIMEOUT",
        value_parser = clap::value_parser!(u64).range(1..),
        default_value_t = runtime::mcp::http_sessions::DEFAULT_IDLE_TIMEOUT.as_secs()
    )]
    session_idle_timeout: u64,
    /// Extra Host header values accepted for a non-loopback bind (repeatable).
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    #[command(flatten)]
    grants: GrantFlags,
    /// Renew the E*TRADE token shortly before its two-hour idle deadline while the server
    /// runs (off by default: it keeps a session alive without any request from you).
    #[arg(long)]
    keepalive: bool,
    /// Where credentials are kept (default: the profile's `credential_store`, else auto).
    #[arg(long, value_parser = store_choice(), env = "ETRADE_MCP_CREDENTIAL_STORE")]
    credential_store: Option<StoreChoice>,
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let setup = Setup::resolve(args.environment.map(Into::into), args.profile.clone())?;
    let settings = setup.settings.clone();
    if args.grants.production_unconfirmed(settings.environment) {
        anyhow::bail!(
            "--allow-trading in the production environment places real orders with real money; add --confirm-production to start anyway"
        );
    }
    let granted = args.grants.granted();
    let credential_key = setup.credential_key()?;
    let credentials = setup.credential_store_or_unavailable(args.credential_store);
    let brokerage = brokerage(&setup, &credentials, &credential_key)?;
    let policy = setup.trading_policy();
    let (client_trust, http) = listener(&args, &policy)?;
    let page_origin = http
        .as_ref()
        .filter(|h| h.is_loopback())
        .and_then(BoundHttp::local_addr)
        .map(|addr| format!("http://{addr}"));
    // One "now" per answer: in paper every time the server writes (meta.observed_at, a
    // preview's expiry, the journal) is on the book's simulated clock, like its answers.
    let clock = match &brokerage.paper {
        Some(book) => {
            let book = book.clone();
            ServerClock(Arc::new(move || book.now()))
        }
        None => ServerClock::wall(),
    };
    let (desk, approval_page) = order_desk(
        &setup,
        policy,
        brokerage.broker.clone(),
        page_origin,
        clock.0.clone(),
    )?;
    let transport = match args.transport {
        TransportArg::Stdio => Transport::Stdio,
        TransportArg::Http => Transport::Http,
    };
    let handlers = Handlers {
        credentials,
        credential_key,
        broker: brokerage.broker,
        paper: brokerage.paper.clone(),
        live_quotes: brokerage.live_label,
        desk: Arc::new(desk),
        status: Default::default(),
    };
    let server = McpServer::new(
        Arc::new(Tools(handlers)),
        ServerOptions {
            environment: settings.environment,
            profile: settings.profile.clone(),
            transport,
            granted: granted.clone(),
            client_trust,
            clock,
        },
    )
    .map_err(anyhow::Error::msg)?;
    tracing::info!(
        environment = settings.environment.as_str(),
        profile = settings.profile.as_str(),
        transport = transport.as_str(),
        granted = ?granted,
        "starting etrade-mcp"
    );
    let background = Background {
        keepalive: brokerage.session.filter(|_| args.keepalive),
        warm_book: brokerage.paper,
        approval_page,
    };
    if args.transport == TransportArg::Stdio && std::io::stdin().is_terminal() {
        // Typed by hand, `etrade serve` would otherwise sit silent.
        crate::cli::output::noteln!(
            "etrade-mcp: waiting for an MCP client on standard input. `etrade serve` is started by an MCP host, not used at a terminal: add {{\"command\": \"{}\", \"args\": [\"serve\"]}} to your host's configuration (docs/guide/clients.md). Ctrl-D or Ctrl-C ends it.",
            approve_program().replace('"', "\\\"")
        );
    }
    serve_until_shutdown(server, http, background)?;
    tracing::info!("etrade-mcp stopped");
    Ok(ExitCode::SUCCESS)
}

/// `etrade serve` with a trading vault: the vault runs the server. Over stdio this process
/// only carries its messages; over HTTP it keeps the person's listener (their address and
/// bearer token) in front of the vault's server.
pub fn run_through_vault(args: ServeArgs, socket: &std::path::Path) -> anyhow::Result<ExitCode> {
    if args.transport == TransportArg::Stdio {
        return crate::cli::vault::client::relay(socket);
    }
    let token = http_token(&args)?;
    if token.as_deref().is_some_and(|t| t.is_empty()) {
        anyhow::bail!("the HTTP bearer token is empty");
    }
    if !args.listen.ip().is_loopback() && token.is_none() {
        anyhow::bail!(
            "--listen {} is reachable from other computers: give --http-token-file (or ETRADE_MCP_HTTP_TOKEN)",
            args.listen
        );
    }
    let listener = std::net::TcpListener::bind(args.listen)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    crate::cli::vault::client::relay_http(socket, listener, token)
}

/// What answers the tools: the E*TRADE session, or the paper broker and its book.
struct Brokerage {
    broker: Arc<dyn Broker>,
    /// The E*TRADE session, when E*TRADE answers (for `--keepalive`).
    session: Option<Arc<EtradeSession>>,
    /// The paper book, when paper answers.
    paper: Option<Arc<runtime::paper::book::PaperBook>>,
    /// Where paper quotes come from while E*TRADE credentials are active.
    live_label: Option<&'static str>,
}

fn brokerage(
    setup: &Setup,
    credentials: &Arc<dyn runtime::credentials::CredentialStore>,
    credential_key: &runtime::credentials::CredentialKey,
) -> anyhow::Result<Brokerage> {
    let settings = &setup.settings;
    if settings.environment != Environment::Paper {
        let endpoints = Endpoints::resolve(&setup.file, settings)?;
        let http = EtradeHttp::new(endpoints, &super::setup::client_options())
            .map_err(anyhow::Error::msg)?;
        let session = Arc::new(EtradeSession::new(
            http,
            credentials.clone(),
            credential_key.clone(),
            super::setup::coordinator(setup)?,
            Arc::new(jiff::Timestamp::now),
        ));
        return Ok(Brokerage {
            broker: session.clone(),
            session: Some(session),
            paper: None,
            live_label: None,
        });
    }
    let simulated = Arc::new(SimulatedMarket::new(super::paper::MARKET_SEED));
    let touches = Arc::new(LiveTouches::default());
    let market = Arc::new(BlendedMarket {
        simulated: simulated.clone(),
        live: touches.clone(),
    });
    let book = super::paper::open_book_with(setup, market)?;
    let mut broker = PaperBroker::new(book.clone(), simulated);
    let mut live_label = None;
    if let Some(live) = live_quotes(setup, credentials, touches)? {
        live_label = Some(live.label());
        broker = broker.with_live_quotes(Arc::new(live));
    }
    Ok(Brokerage {
        broker: Arc::new(broker),
        session: None,
        paper: Some(book),
        live_label,
    })
}

/// Who may be a client, and the HTTP listener when serving HTTP. Bound before the desk, so
/// the approval page can live beside `/mcp` on a loopback listener; on a network listener
/// it keeps its own loopback port.
fn listener(
    args: &ServeArgs,
    policy: &TradingPolicy,
) -> anyhow::Result<(ClientTrust, Option<BoundHttp>)> {
    let TransportArg::Http = args.transport else {
        // In the vault, stdin is a connection any local program may have opened: its form,
        // link and ticket approve nothing, and a person approves with the PIN, out of band.
        if runtime::paths::inside_vault() {
            return Ok((ClientTrust::Anyone, None));
        }
        return Ok((ClientTrust::Host, None));
    };
    let token = http_token(args)?;
    let approving = args.grants.allow_trading && policy.approval_required();
    runtime::mcp::http::check_approving_token(token.as_deref(), approving)?;
    // In the vault, the token is the vault's, held by the person's relay: its holder is any
    // client the relay lets in, so the channels of a client approve nothing here either.
    let client_trust = if runtime::paths::inside_vault() {
        ClientTrust::Anyone
    } else {
        runtime::mcp::http::client_trust(token.as_deref())
    };
    if approving && !client_trust.may_approve() && !runtime::paths::inside_vault() {
        crate::cli::output::noteln!(
            "etrade-mcp: HTTP without a bearer token: any program on this computer could be a client, so orders are approved only out of band (etrade approve, or the approval page opened in your browser); give --http-token-file to let your MCP client's form or ticket approve"
        );
    }
    let bound = BoundHttp::bind(HttpOptions {
        listen: args.listen,
        token,
        max_body_bytes: args.max_body_bytes,
        allowed_hosts: args.allowed_hosts.clone(),
        sessions: SessionLimits {
            max_sessions: args.max_sessions,
            idle_timeout: std::time::Duration::from_secs(args.session_idle_timeout),
        },
    })?;
    Ok((client_trust, Some(bound)))
}

/// What runs beside the transport.
struct Background {
    keepalive: Option<Arc<EtradeSession>>,
    warm_book: Option<Arc<runtime::paper::book::PaperBook>>,
    approval_page: Page,
}

/// Start the async runtime, the signal handlers and the background work, then serve the
/// transport until the client leaves or a signal arrives.
fn serve_until_shutdown(
    server: McpServer,
    http: Option<BoundHttp>,
    background: Background,
) -> anyhow::Result<()> {
    let rt = crate::cli::serve::async_runtime()?;
    rt.block_on(async move {
        let shutdown = CancellationToken::new();
        // Installed before anything is announced, so a signal right after start is handled.
        install_signal_handlers(shutdown.clone())?;
        if let Some(session) = background.keepalive {
            tokio::spawn(keep_alive(session, shutdown.clone()));
        }
        if let Some(book) = background.warm_book {
            // Read beside the listener, not before it: the first paper answer then finds
            // the book in memory, and startup does not wait for the disk.
            tokio::task::spawn_blocking(move || {
                if let Err(e) = book.warm_up() {
                    tracing::warn!(error = %e, "cannot read the paper book yet");
                }
            });
        }
        let mut page_routes = None;
        if let Some((page, listener)) = background.approval_page {
            crate::cli::output::noteln!("etrade-mcp: approval page on {}/approve/", page.origin());
            match listener {
                Some(listener) => {
                    tokio::spawn(page.serve(listener, shutdown.clone()));
                }
                None => page_routes = Some(page.router()),
            }
        }
        match http {
            None => runtime::mcp::stdio::serve_stdio(server, shutdown)
                .await
                .map_err(anyhow::Error::msg),
            Some(mut bound) => {
                if let Some(addr) = bound.local_addr() {
                    // Tests and scripts read this line to learn the port of `--listen ...:0`.
                    crate::cli::output::noteln!(
                        "{}http://{addr}/mcp",
                        runtime::vault::wire::LISTENING_NOTE
                    );
                }
                if let Some(routes) = page_routes {
                    bound = bound.with_routes(routes);
                }
                bound.serve(server, shutdown).await?;
                Ok(())
            }
        }
    })
}

fn http_token(args: &ServeArgs) -> anyhow::Result<Option<String>> {
    if let Some(path) = &args.http_token_file {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the HTTP token file {}", path.display()))?;
        return Ok(Some(text.trim().to_string()));
    }
    Ok(std::env::var("ETRADE_MCP_HTTP_TOKEN")
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty()))
}

/// Every few minutes, renew a token that would otherwise go idle within the margin.
async fn keep_alive(session: Arc<EtradeSession>, shutdown: CancellationToken) {
    let every = std::time::Duration::from_secs(5 * 60);
    let margin = std::time::Duration::from_secs(15 * 60);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
        match session.keep_alive(margin).await {
            Ok(true) => tracing::info!("keepalive renewed the E*TRADE token"),
            Ok(false) => {}
            Err(e) => {
                let code = runtime::contract::errors::ToolError::from(e).code;
                tracing::info!(code = code.as_str(), "keepalive could not renew");
            }
        }
    }
}

/// Register the termination signals now (registration is what makes them catchable) and
/// cancel `shutdown` when one arrives.
/// The multi-threaded runtime the servers and relays run on.
pub(crate) fn async_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

pub(crate) fn install_signal_handlers(shutdown: CancellationToken) -> anyhow::Result<()> {
    let mut signals = runtime::platform::TerminationSignals::register()
        .context("cannot handle termination signals")?;
    tokio::spawn(async move {
        signals.recv().await;
        tracing::info!("shutdown signal received");
        shutdown.cancel();
    });
    Ok(())
}

/// The local approval page, when the profile turns it on, with its own listener unless
/// it is served beside `/mcp`.
type Page = Option<(Arc<ApprovalPage>, Option<std::net::TcpListener>)>;

/// The order desk of this environment/profile: the shared trading database in the state
/// folder, the profile's trading policy, the halt switch (`etrade halt`) and, when the
/// profile turns it on, the local approval page — at `page_origin` (the loopback MCP HTTP
/// listener) when given, else on a loopback port of its own.
fn order_desk(
    setup: &Setup,
    policy: TradingPolicy,
    broker: Arc<dyn Broker>,
    page_origin: Option<String>,
    clock: runtime::etrade::Clock,
) -> anyhow::Result<(OrderDesk, Page)> {
    let dir = setup.paths.ensure_data_dir()?;
    let store = TradingStore::open_deferred(dir.join("trading.redb"))
        .context("cannot open the trading database")?
        .with_peer(super::setup::vault_peer());
    let settings = &setup.settings;
    let store = Arc::new(store);
    if dir.join(LEGACY_FILE_NAME).exists() {
        // An older version's PIN file moves into the store now, not at the first approval:
        // until then, moving the file away would turn the PIN off.
        let _ = super::setup::approval_pin(store.clone(), dir).posture();
    }
    let (environment, profile) = (settings.environment.as_str(), settings.profile.as_str());
    let page = match (policy.approval_page(), page_origin) {
        (false, _) => None,
        (true, Some(origin)) => Some((
            ApprovalPage::new(
                origin,
                store.clone(),
                environment,
                profile,
                super::setup::approval_pin(store.clone(), dir),
            ),
            None,
        )),
        (true, None) => {
            let (page, listener) = ApprovalPage::bind(
                store.clone(),
                environment,
                profile,
                super::setup::approval_pin(store.clone(), dir),
            )
            .context("cannot open the approval page's loopback port")?;
            Some((page, Some(listener)))
        }
    };
    let app_pin = Arc::new(super::setup::approval_pin(store.clone(), dir));
    let mut desk = OrderDesk::new(
        store,
        policy,
        settings.environment.as_str(),
        &settings.profile,
        broker,
        clock,
    )
    .with_halt(HaltSwitch::new(
        dir,
        settings.environment,
        &settings.profile,
    )?)
    .with_approval_pin(app_pin)
    .with_approve_program(approve_program());
    if let Some((page, _)) = &page {
        desk = desk.with_approval_links(page.clone());
    }
    Ok((desk, page))
}

/// How a person runs this `etrade` in a terminal: `etrade` when PATH finds this very binary,
/// else its full path (an MCP host starts the server by path, and PATH may not have it).
fn approve_program() -> String {
    let Ok(me) = std::env::current_exe() else {
        return "etrade".to_string();
    };
    let same = |p: &std::path::Path| matches!((p.canonicalize(), me.canonicalize()), (Ok(a), Ok(b)) if a == b);
    if runtime::platform::on_path("etrade").is_some_and(|p| same(&p)) {
        return "etrade".to_string();
    }
    let path = me.display().to_string();
    if path.contains(char::is_whitespace) {
        format!("\"{path}\"")
    } else {
        path
    }
}

/// Paper quotes from E*TRADE when this profile has stored E*TRADE credentials (production
/// first, then sandbox); whether they are usable is judged per request.
fn live_quotes(
    setup: &Setup,
    store: &Arc<dyn runtime::credentials::CredentialStore>,
    touches: Arc<LiveTouches>,
) -> anyhow::Result<Option<LiveQuotes>> {
    for environment in [Environment::Production, Environment::Sandbox] {
        let key =
            runtime::credentials::CredentialKey::new(environment, setup.settings.profile.clone())?;
        let stored = matches!(store.load(&key), Ok(Some(c)) if c.has_access_token());
        if !stored {
            continue;
        }
        let settings = runtime::config::Settings {
            environment,
            profile: setup.settings.profile.clone(),
        };
        let endpoints = Endpoints::resolve(&setup.file, &settings)?;
        let http = EtradeHttp::new(endpoints, &super::setup::client_options())
            .map_err(anyhow::Error::msg)?;
        let session = Arc::new(EtradeSession::new(
            http,
            store.clone(),
            key,
            super::setup::coordinator(setup)?,
            Arc::new(jiff::Timestamp::now),
        ));
        tracing::info!(
            environment = environment.as_str(),
            "paper quotes come from E*TRADE while the credentials are active"
        );
        return Ok(Some(LiveQuotes::new(
            session,
            environment == Environment::Production,
            touches,
        )));
    }
    Ok(None)
}
