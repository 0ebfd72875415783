//! The request log. Records never hold secrets: only the consumer key and the `oauth_token`
//! (the public half of a token pair) are kept from the Authorization header.

use jiff::Timestamp;
use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RecordedRequest {
    /// 1-based arrival order (not reset by clearing the log).
    pub seq: u64,
    /// Arrival time on the fake clock.
    pub at: Timestamp,
    pub method: String,
    /// The path exactly as received (with any `.json` suffix).
    pub path: String,
    /// The path with `.json` suffixes removed (what routing and fault patterns see).
    pub endpoint: String,
    /// The raw query string, if any.
    pub query: Option<String>,
    pub consumer_key: Option<String>,
    pub oauth_token: Option<String>,
    /// The `Accept` header as sent, if any (`None` also for a request refused unread).
    pub accept: Option<String>,
    /// The HMAC-SHA1 signature was checked and matched.
    pub signature_verified: bool,
    /// The `oauth_problem` the fake answered with, if authentication failed.
    pub oauth_problem: Option<String>,
    /// POST/PUT/DELETE under `/v1/` (order preview/place/cancel/change, alert deletion).
    pub mutation: bool,
    /// The request body of a mutation (lossy UTF-8, at most 64 KiB).
    pub body: Option<String>,
    /// The injected fault that hit this request (its name, e.g. `reset_before_response`).
    pub fault: Option<String>,
    /// The status sent; `None` when the connection was dropped without an answer.
    pub status: Option<u16>,
}
