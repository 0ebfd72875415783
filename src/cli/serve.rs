//! `etrade serve`: resolve configuration and permissions, then run the chosen transport.

use super::{ServeArgs, StoreArg, TransportArg};
use anyhow::Context;
use etrade_mcp::generated::{PERMISSIONS, Tools};
use etrade_mcp::handlers::Handlers;
use runtime::config::{ConfigFile, Settings};
use runtime::credentials::{
    CredentialKey, CredentialStore, KeyringStore, StoreError, StoreFailure, StoredCredentials,
};
use runtime::dispatch::Transport;
use runtime::http::{BoundHttp, HttpOptions};
use runtime::paths::StatePaths;
use runtime::server::{McpServer, ServerOptions};
use std::process::ExitCode;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let paths = StatePaths::from_env().context("cannot locate the configuration folder")?;
    let file = ConfigFile::load(&paths.config_file())?;
    let settings = Settings::resolve(
        &file,
        args.environment.map(Into::into),
        args.profile.clone(),
    )?;
    let granted = granted_permissions(&args);
    let credential_key = CredentialKey::from_settings(&settings)?;
    let credentials = credential_store(args.credential_store);
    let transport = match args.transport {
        TransportArg::Stdio => Transport::Stdio,
        TransportArg::Http => Transport::Http,
    };
    let handlers = Handlers {
        credentials,
        credential_key,
    };
    let server = McpServer::new(
        Arc::new(Tools(handlers)),
        ServerOptions {
            environment: settings.environment,
            profile: settings.profile.clone(),
            transport,
            granted: granted.clone(),
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

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        let shutdown = CancellationToken::new();
        tokio::spawn(cancel_on_signal(shutdown.clone()));
        match args.transport {
            TransportArg::Stdio => runtime::server::serve_stdio(server, shutdown)
                .await
                .map_err(anyhow::Error::msg),
            TransportArg::Http => {
                let token = http_token(&args)?;
                let bound = BoundHttp::bind(HttpOptions {
                    listen: args.listen,
                    token,
                    max_body_bytes: args.max_body_bytes,
                    allowed_hosts: args.allowed_hosts.clone(),
                })
                .await?;
                if let Some(addr) = bound.local_addr() {
                    // Tests and scripts read this line to learn the port of `--listen ...:0`.
                    eprintln!("etrade-mcp: listening on http://{addr}/mcp");
                }
                bound.serve(server, shutdown).await?;
                Ok(())
            }
        }
    })?;
    tracing::info!("etrade-mcp stopped");
    Ok(ExitCode::SUCCESS)
}

/// Each permission with a startup flag is granted only when that flag was given.
fn granted_permissions(args: &ServeArgs) -> Vec<&'static str> {
    let given = |flag: &str| match flag {
        "--allow-trading" => args.allow_trading,
        "--allow-alert-deletion" => args.allow_alert_deletion,
        _ => false,
    };
    PERMISSIONS
        .iter()
        .filter(|p| p.flag.is_none_or(given))
        .map(|p| p.name)
        .collect()
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

fn credential_store(choice: StoreArg) -> Arc<dyn CredentialStore> {
    let made = match choice {
        StoreArg::Keyutils => KeyringStore::linux_keyutils(),
        StoreArg::Memory => KeyringStore::mock(),
    };
    match made {
        Ok(store) => Arc::new(store),
        Err(e) => {
            // Not fatal: server_status reports the store as unavailable.
            tracing::warn!(error = %e, "credential store unavailable");
            Arc::new(UnavailableStore)
        }
    }
}

/// Stands in when the platform store cannot be opened, so every read reports it.
struct UnavailableStore;

impl CredentialStore for UnavailableStore {
    fn load(&self, _: &CredentialKey) -> Result<Option<StoredCredentials>, StoreError> {
        Err(self.error())
    }
    fn save(&self, _: &CredentialKey, _: &StoredCredentials) -> Result<(), StoreError> {
        Err(self.error())
    }
    fn delete(&self, _: &CredentialKey) -> Result<(), StoreError> {
        Err(self.error())
    }
    fn backend_name(&self) -> &'static str {
        "unavailable"
    }
}

impl UnavailableStore {
    fn error(&self) -> StoreError {
        StoreError::Unavailable {
            backend: "unavailable",
            kind: StoreFailure::PlatformFailure,
        }
    }
}

async fn cancel_on_signal(shutdown: CancellationToken) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            shutdown.cancel();
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    tracing::info!("shutdown signal received");
    shutdown.cancel();
}
