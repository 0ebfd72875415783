//! One profile's E*TRADE session: loads the stored token for every call (so a fresh
//! `etrade auth login` is picked up without a restart), renews an idle token once before
//! the call, retries a read once after a renewal that a 401 asked for, records the last
//! use, and reports every failure as a [`BrokerError`] carrying the secrets its text must
//! be checked against.

use super::body::BrokerBody;
use super::broker_message::KnownSecrets;
use super::client::EtradeHttp;
use super::failure::{BrokerError, BrokerFailure, OauthProblem, Operation};
use super::request::EtradeRequest;
use crate::credentials::{
    Coordinator, CredentialKey, CredentialState, CredentialStore, StoredCredentials, state_of,
};
use crate::etrade::oauth::Signer;
use serde_json::Value;
use std::sync::Arc;

/// Now, as the session sees it; tests substitute their own.
pub type Clock = Arc<dyn Fn() -> jiff::Timestamp + Send + Sync>;

pub struct EtradeSession {
    http: EtradeHttp,
    store: Arc<dyn CredentialStore>,
    key: CredentialKey,
    coordinator: Coordinator,
    clock: Clock,
}

impl EtradeSession {
    pub fn new(
        http: EtradeHttp,
        store: Arc<dyn CredentialStore>,
        key: CredentialKey,
        coordinator: Coordinator,
        clock: Clock,
    ) -> EtradeSession {
        EtradeSession {
            http,
            store,
            key,
            coordinator,
            clock,
        }
    }

    pub fn key(&self) -> &CredentialKey {
        &self.key
    }

    /// Send one request with the stored token; see the module doc for the lifecycle.
    pub async fn call(&self, request: &EtradeRequest) -> Result<Option<Value>, BrokerError> {
        let Some(body) = self.read(request).await? else {
            return Ok(None);
        };
        body.into_value()
            .map(Some)
            .map_err(|_| BrokerError::new(BrokerFailure::Malformed, request.operation))
    }

    /// [`EtradeSession::call`], with a read's body left as E*TRADE's text for a model to
    /// read directly.
    pub async fn read(&self, request: &EtradeRequest) -> Result<Option<BrokerBody>, BrokerError> {
        let creds = self.load().await?;
        let secrets = known_secrets(&creds);
        let map = |f: BrokerFailure| BrokerError::new(f, request.operation).with_secrets(&secrets);
        let now = (self.clock)();
        let creds = match state_of(&creds, &self.key, now) {
            CredentialState::Expired => {
                return Err(map(BrokerFailure::TokenExpired));
            }
            CredentialState::Inactive => self.renew_locked(&creds, &secrets).await?,
            _ => creds,
        };
        match self.send(&creds, request).await {
            Err(BrokerFailure::Http { status: 401, body })
                if body.oauth_problem == Some(OauthProblem::TokenRejected)
                    && request.operation != Operation::Mutation =>
            {
                // E*TRADE rejects an idle token until it is renewed; our idle estimate can
                // lag (another process, clock skew), so renew once and send the read again.
                let renewed = self.renew_locked(&creds, &secrets).await?;
                let result = self.send(&renewed, request).await.map_err(map)?;
                self.touch().await;
                Ok(result)
            }
            Err(f) => Err(map(f)),
            Ok(v) => {
                self.touch().await;
                Ok(v)
            }
        }
    }

    /// Keepalive: renew a token that is still active but close to its two-hour idle
    /// deadline, so a server left open over lunch still works. Returns whether it renewed.
    pub async fn keep_alive(&self, margin: std::time::Duration) -> Result<bool, BrokerError> {
        let creds = self.load().await?;
        let now = (self.clock)();
        if state_of(&creds, &self.key, now) != CredentialState::Active {
            return Ok(false);
        }
        let Some(last) = creds.last_used_at.or(creds.authorized_at) else {
            return Ok(false);
        };
        let idle = now.duration_since(last).unsigned_abs();
        let deadline = std::time::Duration::from_secs(2 * 3600);
        if idle + margin < deadline {
            return Ok(false);
        }
        let secrets = known_secrets(&creds);
        self.renew_inner(&creds, &secrets, true).await?;
        Ok(true)
    }

    async fn send(
        &self,
        creds: &StoredCredentials,
        request: &EtradeRequest,
    ) -> Result<Option<BrokerBody>, BrokerFailure> {
        self.http.api(&signer(creds), request).await
    }

    async fn load(&self) -> Result<StoredCredentials, BrokerError> {
        let store = self.store.clone();
        let key = self.key.clone();
        let loaded = tokio::task::spawn_blocking(move || store.load(&key))
            .await
            .map_err(|_| BrokerError::internal(Operation::Read))?;
        match loaded {
            Ok(Some(c)) if c.has_access_token() => Ok(c),
            Ok(_) => Err(credential_error(BrokerFailure::CredentialsMissing)),
            Err(_) => Err(credential_error(BrokerFailure::StoreUnavailable)),
        }
    }

    /// Renew under the entry's lock. If another process renewed (or logged in) while we
    /// waited for the lock, use its result instead of renewing again.
    async fn renew_locked(
        &self,
        seen: &StoredCredentials,
        secrets: &KnownSecrets,
    ) -> Result<StoredCredentials, BrokerError> {
        self.renew_inner(seen, secrets, false).await
    }

    async fn renew_inner(
        &self,
        seen: &StoredCredentials,
        secrets: &KnownSecrets,
        always: bool,
    ) -> Result<StoredCredentials, BrokerError> {
        let lock = self.acquire().await?;
        let store = self.store.clone();
        let key = self.key.clone();
        let current = tokio::task::spawn_blocking(move || store.load(&key))
            .await
            .map_err(|_| BrokerError::internal(Operation::Read))?
            .map_err(|_| credential_error(BrokerFailure::StoreUnavailable))?
            .filter(StoredCredentials::has_access_token)
            .ok_or_else(|| credential_error(BrokerFailure::CredentialsMissing))?;
        let now = (self.clock)();
        if !always
            && &current != seen
            && state_of(&current, &self.key, now) == CredentialState::Active
        {
            drop(lock);
            return Ok(current);
        }
        let signer = signer(&current);
        match self.http.renew(&signer).await {
            Ok(()) => {}
            Err(BrokerFailure::Http { status: 401, body })
                if body.oauth_problem == Some(OauthProblem::TokenExpired) =>
            {
                return Err(
                    BrokerError::new(BrokerFailure::TokenExpired, Operation::Read)
                        .with_secrets(secrets),
                );
            }
            // Any other refusal keeps E*TRADE's explanation (e.g. timestamp_refused, which
            // means this machine's clock is off): the 401 maps to authentication_failed.
            Err(f) => return Err(BrokerError::new(f, Operation::Read).with_secrets(secrets)),
        }
        let mut renewed = current;
        renewed.mark_used(now);
        let store = self.store.clone();
        let key = self.key.clone();
        let saved = renewed.clone();
        tokio::task::spawn_blocking(move || store.save(&key, &saved))
            .await
            .map_err(|_| BrokerError::internal(Operation::Read))?
            .map_err(|_| credential_error(BrokerFailure::StoreUnavailable))?;
        drop(lock);
        tracing::info!(entry = %self.key, "access token renewed");
        Ok(renewed)
    }

    /// Record the last use (which the idle estimate reads). Best effort: a busy lock or a
    /// store hiccup must not fail a call that already succeeded.
    async fn touch(&self) {
        let coordinator = self.coordinator.clone();
        let store = self.store.clone();
        let key = self.key.clone();
        let now = (self.clock)();
        let done = tokio::task::spawn_blocking(move || {
            let _lock = coordinator.lock(&key).ok()?;
            let mut c = store.load(&key).ok()??;
            c.mark_used(now);
            store.save(&key, &c).ok()
        })
        .await;
        if !matches!(done, Ok(Some(()))) {
            tracing::debug!(entry = %self.key, "could not record token use");
        }
    }

    async fn acquire(&self) -> Result<crate::credentials::CredentialLock, BrokerError> {
        let coordinator = self.coordinator.clone();
        let key = self.key.clone();
        tokio::task::spawn_blocking(move || coordinator.lock(&key))
            .await
            .map_err(|_| BrokerError::internal(Operation::Read))?
            .map_err(|_| credential_error(BrokerFailure::LockTimeout))
    }
}

fn credential_error(f: BrokerFailure) -> BrokerError {
    BrokerError::new(f, Operation::Read)
}

pub fn signer(c: &StoredCredentials) -> Signer<'_> {
    Signer {
        consumer_key: &c.consumer_key,
        consumer_secret: c.consumer_secret.expose(),
        token: c.access_token.as_ref().map(|s| s.expose()),
        token_secret: c.access_token_secret.as_ref().map(|s| s.expose()),
    }
}

pub fn known_secrets(c: &StoredCredentials) -> KnownSecrets {
    signer(c).known_secrets()
}
