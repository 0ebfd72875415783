//! How a broker call fails, in the broker's terms: an HTTP status with E*TRADE's error body,
//! a transport failure, an unreadable answer, a credential problem. [`BrokerError`] is what
//! crosses the broker seam; the contract maps it to a tool's error object in one place
//! (`contract::error_mapping`).

use std::fmt;

use super::broker_message::{KnownSecrets, RawBrokerCode};

/// What kind of broker call failed; decides how ambiguous failures are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// Reads nothing but state: a failure cannot have changed anything.
    Read,
    /// Order previews: nothing is executed, so failures use the ordinary categories and
    /// never claim uncertain execution.
    Preview,
    /// Places, changes or cancels an order, or deletes alerts: when the outcome cannot be
    /// known the failure is `uncertain_execution`.
    Mutation,
}

/// E*TRADE's structured OAuth refusal (`oauth_problem=...` in a JSON message, a plain-text
/// body or a Tomcat error page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OauthProblem {
    /// `token_expired`: the day's access token ended at midnight US Eastern.
    TokenExpired,
    /// `token_rejected` or "Invalid access token": inactive after two idle hours, revoked,
    /// or replaced by a newer login.
    TokenRejected,
    /// Any other value, e.g. `consumer_key_rejected`, `signature_invalid`,
    /// `timestamp_refused`: the credentials or the signing are wrong, not merely stale.
    Other,
}

impl OauthProblem {
    /// Finds the OAuth signal in a raw error body or message, if there is one.
    pub fn detect(text: &str) -> Option<OauthProblem> {
        const KEY: &str = "oauth_problem=";
        if let Some(at) = text.find(KEY) {
            let value: String = text[at + KEY.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            return Some(match value.as_str() {
                "token_expired" => OauthProblem::TokenExpired,
                "token_rejected" => OauthProblem::TokenRejected,
                _ => OauthProblem::Other,
            });
        }
        // E*TRADE's one documented unstructured token refusal ("Invalid access token used").
        text.to_ascii_lowercase()
            .contains("invalid access token")
            .then_some(OauthProblem::TokenRejected)
    }
}

/// What the broker's error body said, as parsed by the client; raw and unsanitized.
///
/// [`to_tool_error`] sanitizes each field; `Debug` shows only which fields are present,
/// because broker text must not reach logs.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct BrokerErrorBody {
    /// The error code as sent: a JSON number's digits or the string's text.
    pub code: Option<String>,
    pub message: Option<String>,
    /// A request identifier the broker returned (body or response header), if any.
    pub request_id: Option<String>,
    /// Set by the client when it recognized an OAuth signal anywhere in the body (HTML and
    /// plain-text bodies have no `message`). The mapping also looks in `message`.
    pub oauth_problem: Option<OauthProblem>,
    /// Set by the client when the body is E*TRADE's HTML rate-limit page (see
    /// [`crate::etrade::wire::error_body`]); never derived from a JSON or XML message.
    pub rate_limit_page: bool,
}

impl BrokerErrorBody {
    /// A body with only a code and message, the shape of E*TRADE's `{"Error": {...}}`.
    pub fn new(code: Option<RawBrokerCode<'_>>, message: Option<&str>) -> BrokerErrorBody {
        BrokerErrorBody {
            code: code.map(|code| match code {
                RawBrokerCode::Text(text) => text.to_string(),
                RawBrokerCode::Number(n) => n.to_string(),
            }),
            message: message.map(str::to_string),
            ..BrokerErrorBody::default()
        }
    }

    pub(crate) fn oauth_signal(&self) -> Option<OauthProblem> {
        self.oauth_problem
            .or_else(|| self.message.as_deref().and_then(OauthProblem::detect))
    }
}

impl fmt::Debug for BrokerErrorBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BrokerErrorBody")
            .field("has_code", &self.code.is_some())
            .field("has_message", &self.message.is_some())
            .field("has_request_id", &self.request_id.is_some())
            .field("oauth_problem", &self.oauth_problem)
            .field("rate_limit_page", &self.rate_limit_page)
            .finish()
    }
}

/// How the connection failed. The split is by whether request bytes may have reached the
/// broker, which is what decides if a mutation's outcome is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportFailure {
    /// No connection was established — DNS failure, refused or unreachable, connect timeout,
    /// TLS handshake failure — so no request byte was written.
    Connect,
    /// A TLS error on an established connection.
    Tls,
    /// No (complete) response in time after the connection was established.
    Timeout,
    /// The connection was closed or reset while the request or response was in flight.
    ConnectionReset,
    /// The response status arrived but its body could not be read completely.
    BodyRead,
}

impl TransportFailure {
    pub fn request_may_have_been_sent(self) -> bool {
        self != TransportFailure::Connect
    }
}

impl fmt::Display for TransportFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TransportFailure::Connect => "could not connect",
            TransportFailure::Tls => "TLS failure",
            TransportFailure::Timeout => "timed out",
            TransportFailure::ConnectionReset => "connection reset",
            TransportFailure::BodyRead => "response body could not be read",
        })
    }
}

/// A failed broker call, as the E*TRADE client and the paper broker report it.
///
/// Display texts are fixed and carry no broker text or credential material, so these values
/// may be logged; the body's contents only ever reach the tool result, sanitized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrokerFailure {
    /// The broker answered with an error status.
    #[error("the broker answered HTTP {status}")]
    Http { status: u16, body: BrokerErrorBody },
    #[error("broker transport failure: {0}")]
    Transport(TransportFailure),
    /// A response arrived but could not be parsed or had an unexpected shape.
    #[error("the broker's response could not be understood")]
    Malformed,
    /// The call was cancelled (client cancellation or shutdown) before it completed.
    #[error("the broker call was cancelled")]
    Cancelled,
    /// No consumer credentials or no access token for the configured environment/profile.
    #[error("no credentials are stored for this environment/profile")]
    CredentialsMissing,
    /// The access token is known to be past its expiry (midnight US Eastern) before any
    /// request was sent.
    #[error("the access token has expired")]
    TokenExpired,
    /// The broker refused to renew or accept the stored credentials in a way a renewal
    /// cannot fix (e.g. renewal itself refused, consumer key rejected).
    #[error("the broker rejected the stored credentials")]
    TokenRejected,
    /// The keyring backend could not be used.
    #[error("the credential store is unavailable")]
    StoreUnavailable,
    /// Another process held the credential lock too long.
    #[error("timed out waiting for the credential lock")]
    LockTimeout,
    /// The stored credentials changed while this call was using them.
    #[error("the stored credentials changed concurrently")]
    ConcurrentChange,
    /// This broker does not offer the request at all (the paper broker has no alert
    /// inbox); `why` is a fixed sentence saying what to use instead.
    #[error("this broker does not offer the request")]
    NotOffered { why: &'static str },
    /// A failure inside this process (a worker that died, a local database that failed);
    /// `why` is a fixed sentence, never error text.
    #[error("internal failure")]
    Internal { why: Option<&'static str> },
}

/// A failed broker call as it crosses the broker seam: what failed, for which kind of call,
/// and the secrets the broker's text must be checked against before anyone shows it (the
/// session knows them; the mapping above the seam does not).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{failure}")]
pub struct BrokerError {
    pub failure: BrokerFailure,
    pub operation: Operation,
    pub secrets: KnownSecrets,
}

impl BrokerError {
    /// A failure whose broker text (if any) names no secret of this process.
    pub fn new(failure: BrokerFailure, operation: Operation) -> BrokerError {
        BrokerError {
            failure,
            operation,
            secrets: KnownSecrets::default(),
        }
    }

    pub fn with_secrets(mut self, secrets: &KnownSecrets) -> BrokerError {
        self.secrets = secrets.clone();
        self
    }

    /// E*TRADE's refusal `{"Error": {"code", "message"}}` with this HTTP status.
    pub fn refusal(status: u16, code: i64, message: &str, operation: Operation) -> BrokerError {
        let code = code.to_string();
        BrokerError::new(
            BrokerFailure::Http {
                status,
                body: BrokerErrorBody::new(Some(code.as_str().into()), Some(message)),
            },
            operation,
        )
    }

    pub fn internal(operation: Operation) -> BrokerError {
        BrokerError::new(BrokerFailure::Internal { why: None }, operation)
    }

    /// The HTTP status and E*TRADE's error code as sent, when the broker answered with one.
    pub fn http_refusal(&self) -> Option<(u16, Option<&str>)> {
        match &self.failure {
            BrokerFailure::Http { status, body } => Some((*status, body.code.as_deref())),
            _ => None,
        }
    }
}
