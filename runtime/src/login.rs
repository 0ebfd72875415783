//! The `etrade auth` flows: login (OAuth 1.0a out-of-band), status, renew and logout. Every
//! change to the stored entry happens under the entry's inter-process lock.

use crate::contract::error_mapping::{BrokerFailure, OauthProblem, Operation, to_tool_error};
use crate::contract::errors::ToolError;
use crate::credentials::{
    CoordinationError, Coordinator, CredentialEstimate, CredentialKey, CredentialStore, Secret,
    StoredCredentials, estimate,
};
use crate::etrade::broker_message::KnownSecrets;
use crate::etrade::oauth::Signer;
use crate::etrade::{BrokerBody, Endpoint, EtradeHttp, EtradeRequest, session};
use std::sync::Arc;

pub struct AuthContext {
    pub http: EtradeHttp,
    pub store: Arc<dyn CredentialStore>,
    pub key: CredentialKey,
    pub coordinator: Coordinator,
}

/// Consumer credentials from the environment, a prompt, or the stored entry.
pub struct Consumer {
    pub key: String,
    pub secret: Secret,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// A broker or credential failure, as the contract classifies it.
    #[error("{}{}", .0.message, broker_detail(.0))]
    Broker(ToolError),
    #[error("{0}. Wait for the other etrade process, or remove a stale lock, then try again.")]
    Coordination(CoordinationError),
    #[error("the credential store failed: {0}")]
    Store(crate::credentials::StoreError),
    #[error("no verification code was entered")]
    NoVerifier,
    #[error("cannot read the verification code: {0}")]
    Prompt(std::io::ErrorKind),
    #[error("not logged in. Run {0}.")]
    NotLoggedIn(String),
}

fn broker_detail(e: &ToolError) -> String {
    match &e.broker_message {
        Some(m) => format!(" (E*TRADE said: {m})"),
        None => String::new(),
    }
}

/// The command that fixes most credential problems, for messages.
pub fn login_command(key: &CredentialKey) -> String {
    format!(
        "etrade auth login --environment {} --profile {}",
        key.environment(),
        key.profile()
    )
}

impl AuthContext {
    /// OAuth out-of-band login: request token, the user approves in a browser and types
    /// the verification code, access token; then the entry is written under the lock.
    /// `ask_verifier` gets the authorization URL and returns what the user typed.
    pub async fn login(
        &self,
        consumer: Consumer,
        ask_verifier: impl FnOnce(&str) -> std::io::Result<String>,
    ) -> Result<CredentialEstimate, AuthError> {
        let secrets = KnownSecrets::new([consumer.key.as_str(), consumer.secret.expose()]);
        let fail =
            |f: &BrokerFailure| AuthError::Broker(to_tool_error(f, Operation::Read, &secrets));
        let request = self
            .http
            .request_token(&Signer {
                consumer_key: &consumer.key,
                consumer_secret: consumer.secret.expose(),
                token: None,
                token_secret: None,
            })
            .await
            .map_err(|f| fail(&f))?;
        let url = self.http.authorize_url(&consumer.key, &request.token);
        let verifier = ask_verifier(&url).map_err(|e| AuthError::Prompt(e.kind()))?;
        let verifier = Secret::new(verifier.trim().to_string());
        if verifier.is_empty() {
            return Err(AuthError::NoVerifier);
        }
        let secrets = KnownSecrets::new([
            consumer.key.as_str(),
            consumer.secret.expose(),
            request.secret.as_str(),
            verifier.expose(),
        ]);
        let access = self
            .http
            .access_token(
                &Signer {
                    consumer_key: &consumer.key,
                    consumer_secret: consumer.secret.expose(),
                    token: Some(&request.token),
                    token_secret: Some(&request.secret),
                },
                verifier.expose(),
            )
            .await
            .map_err(|f| AuthError::Broker(to_tool_error(&f, Operation::Read, &secrets)))?;
        let now = jiff::Timestamp::now();
        let mut creds = StoredCredentials::new(consumer.key, consumer.secret);
        creds.authorize(Secret::new(access.token), Secret::new(access.secret), now);
        self.locked(|store, key| store.save(key, &creds)).await?;
        Ok(self.status(now))
    }

    /// The local estimate only; no broker request.
    pub fn status(&self, now: jiff::Timestamp) -> CredentialEstimate {
        estimate(self.store.as_ref(), &self.key, now)
    }

    /// One cheap signed call (list accounts) to see whether E*TRADE accepts the token.
    pub async fn check(&self) -> Result<(), AuthError> {
        let creds = self.logged_in()?;
        let secrets = session::known_secrets(&creds);
        self.http
            .api(
                &session::signer(&creds),
                &EtradeRequest::read(Endpoint::AccountList),
            )
            .await
            // An unreadable body fails the check, as it fails every read.
            .and_then(|body| match body.map(BrokerBody::into_value) {
                Some(Err(_)) => Err(BrokerFailure::Malformed),
                _ => Ok(()),
            })
            .map_err(|f| AuthError::Broker(to_tool_error(&f, Operation::Read, &secrets)))?;
        self.touch(jiff::Timestamp::now()).await
    }

    /// Reactivate an idle token (it stays the same pair) and record the use.
    pub async fn renew(&self) -> Result<CredentialEstimate, AuthError> {
        let lock = self.lock().await?;
        let mut creds = self.logged_in()?;
        let secrets = session::known_secrets(&creds);
        match self.http.renew(&session::signer(&creds)).await {
            Ok(()) => {}
            Err(BrokerFailure::Http { status: 401, body })
                if body.oauth_problem == Some(OauthProblem::TokenExpired) =>
            {
                return Err(AuthError::Broker(to_tool_error(
                    &BrokerFailure::TokenExpired,
                    Operation::Read,
                    &secrets,
                )));
            }
            Err(f) => {
                return Err(AuthError::Broker(to_tool_error(
                    &f,
                    Operation::Read,
                    &secrets,
                )));
            }
        }
        let now = jiff::Timestamp::now();
        creds.mark_used(now);
        self.store
            .save(&self.key, &creds)
            .map_err(AuthError::Store)?;
        drop(lock);
        Ok(self.status(now))
    }

    /// Revoke at E*TRADE (best effort: the token may already be dead), then delete the entry.
    /// Returns whether E*TRADE confirmed the revocation.
    pub async fn logout(&self) -> Result<bool, AuthError> {
        let lock = self.lock().await?;
        let revoked = match self.store.load(&self.key).map_err(AuthError::Store)? {
            Some(c) if c.has_access_token() => self.http.revoke(&session::signer(&c)).await.is_ok(),
            _ => false,
        };
        self.store.delete(&self.key).map_err(AuthError::Store)?;
        drop(lock);
        Ok(revoked)
    }

    /// The stored consumer key and secret, so a daily re-login needs only the browser step.
    pub fn stored_consumer(&self) -> Option<Consumer> {
        let c = self.store.load(&self.key).ok()??;
        Some(Consumer {
            key: c.consumer_key,
            secret: c.consumer_secret,
        })
    }

    fn logged_in(&self) -> Result<StoredCredentials, AuthError> {
        match self.store.load(&self.key).map_err(AuthError::Store)? {
            Some(c) if c.has_access_token() => Ok(c),
            _ => Err(AuthError::NotLoggedIn(login_command(&self.key))),
        }
    }

    async fn touch(&self, now: jiff::Timestamp) -> Result<(), AuthError> {
        self.locked(|store, key| {
            let Some(mut c) = store.load(key)? else {
                return Ok(());
            };
            c.mark_used(now);
            store.save(key, &c)
        })
        .await
    }

    async fn lock(&self) -> Result<crate::credentials::CredentialLock, AuthError> {
        let coordinator = self.coordinator.clone();
        let key = self.key.clone();
        tokio::task::spawn_blocking(move || coordinator.lock(&key))
            .await
            .map_err(|_| AuthError::Broker(ToolError::internal()))?
            .map_err(AuthError::Coordination)
    }

    async fn locked(
        &self,
        f: impl FnOnce(
            &dyn CredentialStore,
            &CredentialKey,
        ) -> Result<(), crate::credentials::StoreError>,
    ) -> Result<(), AuthError> {
        let lock = self.lock().await?;
        let r = f(self.store.as_ref(), &self.key).map_err(AuthError::Store);
        drop(lock);
        r
    }
}
