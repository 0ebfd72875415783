//! Fault injection: what can go wrong on the wire, and which requests it hits.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// An `oauth_problem` value the fake can answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OauthProblem {
    TokenExpired,
    TokenRejected,
    TokenUsed,
    ConsumerKeyUnknown,
    ConsumerKeyRejected,
    SignatureInvalid,
    SignatureMethodRejected,
    TimestampRefused,
    NonceUsed,
    ParameterAbsent,
    CallbackRejected,
}

impl OauthProblem {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TokenExpired => "token_expired",
            Self::TokenRejected => "token_rejected",
            Self::TokenUsed => "token_used",
            Self::ConsumerKeyUnknown => "consumer_key_unknown",
            Self::ConsumerKeyRejected => "consumer_key_rejected",
            Self::SignatureInvalid => "signature_invalid",
            Self::SignatureMethodRejected => "signature_method_rejected",
            Self::TimestampRefused => "timestamp_refused",
            Self::NonceUsed => "nonce_used",
            Self::ParameterAbsent => "parameter_absent",
            Self::CallbackRejected => "callback_rejected",
        }
    }
}

impl fmt::Display for OauthProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One kind of failure. Faults that answer with a well-formed error (`Status5xx`,
/// `RateLimitPage`, `Http429`, `HtmlErrorPage`, `Unauthorized`) short-circuit before the
/// endpoint runs, so nothing is stored. Faults that lose or garble the answer
/// (`ResetBeforeResponse`, `Timeout`, `MalformedJson`) act after the endpoint ran: a mutation
/// has been applied although the client cannot tell. `Refuse` and `ResetWithoutProcessing`
/// drop the connection and apply nothing. `EchoAuthorization` lets the endpoint answer as
/// usual and only changes the text of a success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "FaultWire", try_from = "FaultWire")]
pub enum Fault {
    /// Close the connection (RST) before reading the request.
    Refuse,
    /// Read the request, apply nothing, drop the connection (RST) without an answer.
    ResetWithoutProcessing,
    /// Read and process the request (a mutation is applied), then drop the connection (RST)
    /// without an answer: the ambiguous case.
    ResetBeforeResponse,
    /// Process the request, then hold the answer this long before sending it.
    Timeout(Duration),
    /// This 5xx status with E*TRADE's code-100 JSON error body.
    Status5xx(u16),
    /// HTTP 400 with E*TRADE's HTML rate-limit page.
    RateLimitPage,
    /// HTTP 429 (E*TRADE is not known to send it; for defensive clients).
    Http429,
    /// Process the request, then answer 200 with the JSON cut in half.
    MalformedJson,
    /// HTTP 500 with an HTML error page.
    HtmlErrorPage,
    /// HTTP 401 with this problem, in the endpoint's usual error format.
    Unauthorized(OauthProblem),
    /// Process the request, then append the request's `Authorization` header (consumer key
    /// and `oauth_token`, percent-encoded) to the free-text fields of a 2xx JSON answer
    /// ([`ECHO_FIELDS`]): a broker echoing request material into a success.
    EchoAuthorization,
}

/// The members whose string values [`Fault::EchoAuthorization`] appends the header to: a
/// preview's or a placement's messages, an account's description and name, a quote's
/// company and a position's description.
pub const ECHO_FIELDS: [&str; 5] = [
    "description",
    "accountDesc",
    "accountName",
    "companyName",
    "symbolDescription",
];

impl Fault {
    pub fn name(&self) -> &'static str {
        match self {
            Self::Refuse => "refuse",
            Self::ResetWithoutProcessing => "reset_without_processing",
            Self::ResetBeforeResponse => "reset_before_response",
            Self::Timeout(_) => "timeout",
            Self::Status5xx(_) => "status5xx",
            Self::RateLimitPage => "rate_limit_page",
            Self::Http429 => "http429",
            Self::MalformedJson => "malformed_json",
            Self::HtmlErrorPage => "html_error_page",
            Self::Unauthorized(_) => "unauthorized",
            Self::EchoAuthorization => "echo_authorization",
        }
    }
}

/// The JSON form used by the control API, e.g. `{"kind":"status5xx","status":503}`,
/// `{"kind":"timeout","ms":2000}`, `{"kind":"unauthorized","problem":"token_expired"}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum FaultWire {
    Refuse,
    ResetWithoutProcessing,
    ResetBeforeResponse,
    Timeout { ms: u64 },
    Status5xx { status: u16 },
    RateLimitPage,
    Http429,
    MalformedJson,
    HtmlErrorPage,
    Unauthorized { problem: OauthProblem },
    EchoAuthorization,
}

impl From<Fault> for FaultWire {
    fn from(f: Fault) -> Self {
        match f {
            Fault::Refuse => Self::Refuse,
            Fault::ResetWithoutProcessing => Self::ResetWithoutProcessing,
            Fault::ResetBeforeResponse => Self::ResetBeforeResponse,
            Fault::Timeout(d) => Self::Timeout {
                ms: u64::try_from(d.as_millis()).unwrap_or(u64::MAX),
            },
            Fault::Status5xx(status) => Self::Status5xx { status },
            Fault::RateLimitPage => Self::RateLimitPage,
            Fault::Http429 => Self::Http429,
            Fault::MalformedJson => Self::MalformedJson,
            Fault::HtmlErrorPage => Self::HtmlErrorPage,
            Fault::Unauthorized(problem) => Self::Unauthorized { problem },
            Fault::EchoAuthorization => Self::EchoAuthorization,
        }
    }
}

impl TryFrom<FaultWire> for Fault {
    type Error = String;

    fn try_from(w: FaultWire) -> Result<Self, String> {
        Ok(match w {
            FaultWire::Refuse => Self::Refuse,
            FaultWire::ResetWithoutProcessing => Self::ResetWithoutProcessing,
            FaultWire::ResetBeforeResponse => Self::ResetBeforeResponse,
            FaultWire::Timeout { ms } => Self::Timeout(Duration::from_millis(ms)),
            FaultWire::Status5xx { status } if (500..=599).contains(&status) => {
                Self::Status5xx(status)
            }
            FaultWire::Status5xx { status } => return Err(format!("{status} is not a 5xx status")),
            FaultWire::RateLimitPage => Self::RateLimitPage,
            FaultWire::Http429 => Self::Http429,
            FaultWire::MalformedJson => Self::MalformedJson,
            FaultWire::HtmlErrorPage => Self::HtmlErrorPage,
            FaultWire::Unauthorized { problem } => Self::Unauthorized(problem),
            FaultWire::EchoAuthorization => Self::EchoAuthorization,
        })
    }
}

/// Which requests a fault hits: an optional method, then a path glob matched against the
/// path with every `.json` suffix removed. `*` matches one segment, `**` any number
/// (including none). Examples: `"*"` or `"**"` (everything), `"GET /v1/accounts/list"`,
/// `"POST /v1/accounts/*/orders/place"`, `"/oauth/**"`, `"PUT /v1/accounts/*/orders/**"`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EndpointPattern {
    method: Option<String>,
    segments: Vec<String>,
    source: String,
}

impl EndpointPattern {
    pub fn parse(pattern: &str) -> Result<Self, String> {
        let source = pattern.trim().to_string();
        let (method, path) = match source.split_once(' ') {
            Some((m, p)) => (Some(m.trim().to_ascii_uppercase()), p.trim()),
            None => (None, source.as_str()),
        };
        if path == "*" || path == "**" {
            return Ok(Self {
                method,
                segments: vec!["**".into()],
                source,
            });
        }
        if !path.starts_with('/') {
            return Err(format!("pattern path must start with '/': {pattern:?}"));
        }
        let segments = crate::server::normalize_path(path)
            .split('/')
            .skip(1)
            .map(str::to_string)
            .collect();
        Ok(Self {
            method,
            segments,
            source,
        })
    }

    pub fn matches(&self, method: &str, normalized_path: &str) -> bool {
        if let Some(m) = &self.method
            && !m.eq_ignore_ascii_case(method)
        {
            return false;
        }
        let path: Vec<&str> = normalized_path.split('/').skip(1).collect();
        glob(&self.segments, &path)
    }
}

fn glob(pattern: &[String], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((p, rest)) if p == "**" => (0..=path.len()).any(|i| glob(rest, &path[i..])),
        Some((p, rest)) => match path.split_first() {
            Some((s, path_rest)) => (p == "*" || p == s) && glob(rest, path_rest),
            None => false,
        },
    }
}

impl TryFrom<String> for EndpointPattern {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        Self::parse(&s)
    }
}

impl From<EndpointPattern> for String {
    fn from(p: EndpointPattern) -> Self {
        p.source
    }
}

impl From<&str> for EndpointPattern {
    /// Panics on an invalid pattern (test-support convenience); use
    /// [`EndpointPattern::parse`] for untrusted input.
    fn from(s: &str) -> Self {
        Self::parse(s).expect("valid endpoint pattern")
    }
}

impl fmt::Display for EndpointPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FaultEntry {
    pub id: u64,
    pub pattern: EndpointPattern,
    pub fault: Fault,
    /// Matching requests still to hit; `None` = until cleared.
    pub remaining: Option<u32>,
}

#[derive(Debug, Default)]
pub(crate) struct FaultTable {
    entries: Vec<FaultEntry>,
    next_id: u64,
}

impl FaultTable {
    pub fn add(&mut self, pattern: EndpointPattern, fault: Fault, times: Option<u32>) -> u64 {
        self.next_id += 1;
        if times != Some(0) {
            self.entries.push(FaultEntry {
                id: self.next_id,
                pattern,
                fault,
                remaining: times,
            });
        }
        self.next_id
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn list(&self) -> Vec<FaultEntry> {
        self.entries.clone()
    }

    pub fn has_refuse(&self) -> bool {
        self.entries.iter().any(|e| e.fault == Fault::Refuse)
    }

    /// The first fault matching the request, consuming one of its uses. With `only_refuse`
    /// the first match is taken only if it is a `Refuse` (the accept-time check).
    pub fn take(&mut self, method: &str, path: &str, only_refuse: bool) -> Option<Fault> {
        let i = self
            .entries
            .iter()
            .position(|e| e.pattern.matches(method, path))?;
        let entry = &mut self.entries[i];
        if only_refuse && entry.fault != Fault::Refuse {
            return None;
        }
        let fault = entry.fault;
        if let Some(n) = entry.remaining.as_mut() {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.entries.remove(i);
            }
        }
        Some(fault)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let p = EndpointPattern::parse("POST /v1/accounts/*/orders/place").unwrap();
        assert!(p.matches("POST", "/v1/accounts/abc/orders/place"));
        assert!(!p.matches("PUT", "/v1/accounts/abc/orders/place"));
        assert!(!p.matches("POST", "/v1/accounts/abc/orders/preview"));
        let p = EndpointPattern::parse("/v1/accounts/list.json").unwrap();
        assert!(p.matches("GET", "/v1/accounts/list"));
        let p = EndpointPattern::parse("/oauth/**").unwrap();
        assert!(p.matches("GET", "/oauth/request_token"));
        assert!(!p.matches("GET", "/v1/accounts/list"));
        let p = EndpointPattern::parse("*").unwrap();
        assert!(p.matches("DELETE", "/v1/user/alerts/1,2"));
        assert!(EndpointPattern::parse("v1/x").is_err());
    }

    #[test]
    fn counts_and_wire_form() {
        let mut t = FaultTable::default();
        t.add("*".into(), Fault::Http429, Some(2));
        assert_eq!(t.take("GET", "/a", false), Some(Fault::Http429));
        assert_eq!(t.take("GET", "/a", true), None);
        assert_eq!(t.take("GET", "/a", false), Some(Fault::Http429));
        assert_eq!(t.take("GET", "/a", false), None);
        let f: Fault = serde_json::from_str(r#"{"kind":"timeout","ms":1500}"#).unwrap();
        assert_eq!(f, Fault::Timeout(Duration::from_millis(1500)));
        let f: Fault =
            serde_json::from_str(r#"{"kind":"unauthorized","problem":"token_expired"}"#).unwrap();
        assert_eq!(f, Fault::Unauthorized(OauthProblem::TokenExpired));
        let f: Fault = serde_json::from_str(r#"{"kind":"echo_authorization"}"#).unwrap();
        assert_eq!(f, Fault::EchoAuthorization);
        assert!(serde_json::from_str::<Fault>(r#"{"kind":"status5xx","status":404}"#).is_err());
        assert_eq!(
            serde_json::to_string(&Fault::Status5xx(503)).unwrap(),
            r#"{"kind":"status5xx","status":503}"#
        );
    }
}
