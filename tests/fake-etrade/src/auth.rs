//! OAuth 1.0a: request authentication and the token endpoints.
//!
//! Every request is checked in this order: Authorization header present and parseable,
//! `HMAC-SHA1`, consumer key known (and not rejected), timestamp within the window of the fake
//! clock, token known for that consumer, signature (unless disabled), nonce unused, then the
//! token's lifecycle. The first failure is the `oauth_problem` answered.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Extension;
use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use jiff::SignedDuration;

use crate::faults::OauthProblem;
use crate::responses;
use crate::state::Shared;
use crate::tokens::TokenState;

/// Facts about the request as it arrived, attached by the pipeline for the handlers.
#[derive(Debug, Clone)]
pub(crate) struct Wire {
    pub seq: u64,
    pub method: String,
    /// The full URL as received (scheme, Host, raw path with `.json`, raw query): the URL
    /// the client signed.
    pub url: String,
    pub authorization: Option<String>,
}

/// What a route needs to be authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// `request_token`: signed with the consumer secret only.
    Consumer,
    /// `access_token`: request token + verifier.
    RequestToken,
    /// `renew`/`revoke`: an access token in any state (the handler decides).
    AnyAccessToken,
    /// `/v1/...`: an active access token; refreshes its idle timer.
    ActiveAccessToken,
}

/// The authenticated caller.
#[derive(Debug, Clone)]
pub(crate) struct Authed {
    pub consumer_key: String,
    pub token: Option<String>,
    pub callback: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub problem: OauthProblem,
    /// Extra `,name=value` pairs after the problem (e.g. acceptable timestamps).
    pub detail: String,
}

impl Failure {
    fn new(problem: OauthProblem) -> Self {
        Self {
            problem,
            detail: String::new(),
        }
    }

    fn absent(param: &str) -> Self {
        Self {
            problem: OauthProblem::ParameterAbsent,
            detail: format!(",oauth_parameters_absent={param}"),
        }
    }

    pub fn text(&self) -> String {
        format!("{}{}", self.problem, self.detail)
    }
}

pub(crate) fn authenticate(s: &Shared, wire: &Wire, need: Need) -> Result<Authed, Failure> {
    let header = wire
        .authorization
        .as_deref()
        .ok_or_else(|| Failure::absent("oauth_consumer_key"))?;
    let h = runtime::etrade::oauth::parse_authorization(header)
        .map_err(|_| Failure::absent("oauth_signature"))?;
    let consumer_key = h
        .consumer_key()
        .ok_or_else(|| Failure::absent("oauth_consumer_key"))?
        .to_string();
    match h.signature_method() {
        None => return Err(Failure::absent("oauth_signature_method")),
        Some(m) if m != "HMAC-SHA1" => {
            return Err(Failure::new(OauthProblem::SignatureMethodRejected));
        }
        Some(_) => {}
    }
    if h.signature().is_none() {
        return Err(Failure::absent("oauth_signature"));
    }
    let nonce = h
        .nonce()
        .ok_or_else(|| Failure::absent("oauth_nonce"))?
        .to_string();
    let timestamp = h
        .timestamp()
        .ok_or_else(|| Failure::absent("oauth_timestamp"))?;
    let token = h.token().map(str::to_string);

    let now = s.now();
    let mut inner = s.lock();
    let consumer = inner
        .consumers
        .get(&consumer_key)
        .ok_or_else(|| Failure::new(OauthProblem::ConsumerKeyUnknown))?;
    if consumer.rejected {
        return Err(Failure::new(OauthProblem::ConsumerKeyRejected));
    }
    let consumer_secret = consumer.secret.clone();

    let window = s.config.timestamp_window.as_secs() as i64;
    let now_s = now.as_second();
    let ts = i64::try_from(timestamp).unwrap_or(i64::MAX);
    if (ts.saturating_sub(now_s)).abs() > window {
        return Err(Failure {
            problem: OauthProblem::TimestampRefused,
            detail: format!(
                ",oauth_acceptable_timestamps={}-{}",
                now_s - window,
                now_s + window
            ),
        });
    }

    let token_secret = match need {
        Need::Consumer => None,
        Need::RequestToken => {
            let t = token
                .as_deref()
                .ok_or_else(|| Failure::absent("oauth_token"))?;
            match inner.request_tokens.get(t) {
                Some(rt) if rt.consumer_key == consumer_key => Some(rt.secret.clone()),
                _ => return Err(Failure::new(OauthProblem::TokenRejected)),
            }
        }
        Need::AnyAccessToken | Need::ActiveAccessToken => {
            let t = token
                .as_deref()
                .ok_or_else(|| Failure::absent("oauth_token"))?;
            match inner.access_tokens.get(t) {
                Some(at) if at.consumer_key == consumer_key => Some(at.secret.clone()),
                _ => return Err(Failure::new(OauthProblem::TokenRejected)),
            }
        }
    };

    if s.config.verify_signatures {
        let ok = runtime::etrade::oauth::verify(
            &wire.method,
            &wire.url,
            &h,
            &consumer_secret,
            token_secret.as_deref(),
        );
        if !ok {
            return Err(Failure::new(OauthProblem::SignatureInvalid));
        }
        if let Some(r) = inner.record_mut(wire.seq) {
            r.signature_verified = true;
        }
    }

    // Nonces are remembered per consumer for twice the timestamp window, which covers every
    // timestamp that could still be accepted.
    let nonce_key = (consumer_key.clone(), nonce);
    let keep = SignedDuration::from_secs(2 * window.max(1));
    if let Some(seen) = inner.nonces.get(&nonce_key)
        && now.duration_since(*seen) < keep
    {
        return Err(Failure::new(OauthProblem::NonceUsed));
    }
    inner.nonces.insert(nonce_key, now);
    if inner.nonces.len().is_multiple_of(512) {
        inner
            .nonces
            .retain(|_, seen| now.duration_since(*seen) < keep);
    }

    match need {
        Need::RequestToken => {
            let ttl = s.config.request_token_ttl;
            let t = token.as_deref().unwrap_or_default();
            let rt = inner
                .request_tokens
                .get_mut(t)
                .ok_or_else(|| Failure::new(OauthProblem::TokenRejected))?;
            let age = now.duration_since(rt.created_at);
            if age.is_positive() && age.unsigned_abs() > ttl {
                return Err(Failure::new(OauthProblem::TokenExpired));
            }
            if rt.used {
                return Err(Failure::new(OauthProblem::TokenUsed));
            }
            match h.verifier() {
                None => return Err(Failure::absent("oauth_verifier")),
                Some(v) if v != rt.verifier => {
                    return Err(Failure::new(OauthProblem::TokenRejected));
                }
                Some(_) => {}
            }
        }
        Need::ActiveAccessToken => {
            let idle = s.config.idle_timeout;
            let t = token.as_deref().unwrap_or_default();
            let at = inner
                .access_tokens
                .get_mut(t)
                .ok_or_else(|| Failure::new(OauthProblem::TokenRejected))?;
            match at.state(now, idle) {
                TokenState::Active => at.last_used = now,
                TokenState::Expired => return Err(Failure::new(OauthProblem::TokenExpired)),
                TokenState::Inactive | TokenState::Revoked => {
                    return Err(Failure::new(OauthProblem::TokenRejected));
                }
            }
        }
        Need::Consumer | Need::AnyAccessToken => {}
    }

    Ok(Authed {
        consumer_key,
        token,
        callback: h.callback().map(str::to_string),
    })
}

/// Records the problem and builds the 401 in the endpoint family's format.
pub(crate) fn unauthorized(s: &Shared, wire: Option<&Wire>, f: &Failure, api: bool) -> Response {
    let text = f.text();
    if let Some(w) = wire {
        s.update_record(w.seq, |r| r.oauth_problem = Some(text.clone()));
    }
    if api {
        responses::api_unauthorized(&text)
    } else {
        responses::oauth_unauthorized(s.config.oauth_error_style, &text)
    }
}

async fn gate(s: Arc<Shared>, mut req: Request, next: Next, need: Need) -> Response {
    let api = need == Need::ActiveAccessToken;
    let Some(wire) = req.extensions().get::<Wire>().cloned() else {
        return responses::not_found();
    };
    match authenticate(&s, &wire, need) {
        Ok(a) => {
            req.extensions_mut().insert(a);
            next.run(req).await
        }
        Err(f) => unauthorized(&s, Some(&wire), &f, api),
    }
}

pub(crate) async fn gate_consumer(
    State(s): State<Arc<Shared>>,
    req: Request,
    next: Next,
) -> Response {
    gate(s, req, next, Need::Consumer).await
}

pub(crate) async fn gate_request_token(
    State(s): State<Arc<Shared>>,
    req: Request,
    next: Next,
) -> Response {
    gate(s, req, next, Need::RequestToken).await
}

pub(crate) async fn gate_any_access_token(
    State(s): State<Arc<Shared>>,
    req: Request,
    next: Next,
) -> Response {
    gate(s, req, next, Need::AnyAccessToken).await
}

pub(crate) async fn gate_api(State(s): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    gate(s, req, next, Need::ActiveAccessToken).await
}

/// `GET /oauth/request_token` (callback must be `oob`).
pub(crate) async fn request_token(
    State(s): State<Arc<Shared>>,
    Extension(wire): Extension<Wire>,
    Extension(a): Extension<Authed>,
) -> Response {
    match a.callback.as_deref() {
        Some("oob") => {}
        None => {
            return unauthorized(&s, Some(&wire), &Failure::absent("oauth_callback"), false);
        }
        Some(_) => {
            let f = Failure {
                problem: OauthProblem::CallbackRejected,
                detail: ",oauth_acceptable_callback=oob".into(),
            };
            return unauthorized(&s, Some(&wire), &f, false);
        }
    }
    let (pair, _verifier) = s.issue_request_token(&a.consumer_key);
    responses::form(&[
        ("oauth_token", &pair.token),
        ("oauth_token_secret", &pair.secret),
        ("oauth_callback_confirmed", "true"),
    ])
}

/// `GET /e/t/etws/authorize?key=CK&token=RT`: the user "logs in and accepts" at once and is
/// shown the verification code (plain text, or a minimal page if HTML is asked for).
pub(crate) async fn authorize(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let style = s.config.oauth_error_style;
    // Decoded with `+` kept literal: clients that paste the raw token (E*TRADE tokens
    // contain `+`) and clients that percent-encode it both work.
    let q: HashMap<String, String> = raw
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            Some((
                runtime::etrade::oauth::decode(k)?,
                runtime::etrade::oauth::decode(v)?,
            ))
        })
        .collect();
    let (Some(key), Some(token)) = (q.get("key"), q.get("token")) else {
        return responses::tomcat_page(
            StatusCode::BAD_REQUEST,
            "Missing key or token",
            "The request sent by the client was syntactically incorrect.",
        );
    };
    let now = s.now();
    let inner = s.lock();
    if !inner.consumers.contains_key(key) {
        return responses::oauth_unauthorized(style, "consumer_key_unknown");
    }
    let Some(rt) = inner
        .request_tokens
        .get(token)
        .filter(|rt| &rt.consumer_key == key)
    else {
        return responses::oauth_unauthorized(style, "token_rejected");
    };
    let age = now.duration_since(rt.created_at);
    if age.is_positive() && age.unsigned_abs() > s.config.request_token_ttl {
        return responses::oauth_unauthorized(style, "token_expired");
    }
    if rt.used {
        return responses::oauth_unauthorized(style, "token_used");
    }
    let code = rt.verifier.clone();
    drop(inner);
    let wants_html = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"));
    if wants_html {
        let body = format!(
            "<html><head><title>E*TRADE - Authorize Application</title></head><body>\
             <p>Please copy this code and paste it into the application:</p>\
             <input type=\"text\" name=\"verifier\" id=\"verifier\" value=\"{code}\" readonly>\
             </body></html>"
        );
        ([(header::CONTENT_TYPE, "text/html;charset=UTF-8")], body).into_response()
    } else {
        responses::text(StatusCode::OK, code)
    }
}

/// `GET /oauth/access_token`: trades an authorized request token for an access token.
pub(crate) async fn access_token(
    State(s): State<Arc<Shared>>,
    Extension(a): Extension<Authed>,
) -> Response {
    if let Some(t) = a.token.as_deref()
        && let Some(rt) = s.lock().request_tokens.get_mut(t)
    {
        rt.used = true;
    }
    let pair = s.issue_access_token(&a.consumer_key);
    responses::form(&[
        ("oauth_token", &pair.token),
        ("oauth_token_secret", &pair.secret),
    ])
}

fn lifecycle(s: &Shared, a: &Authed) -> Result<TokenState, OauthProblem> {
    let now = s.now();
    let mut inner = s.lock();
    let at = a
        .token
        .as_deref()
        .and_then(|t| inner.access_tokens.get_mut(t))
        .ok_or(OauthProblem::TokenRejected)?;
    Ok(at.state(now, s.config.idle_timeout))
}

/// `GET /oauth/renew_access_token`: reactivates an idle token; fails once it expired.
pub(crate) async fn renew(
    State(s): State<Arc<Shared>>,
    Extension(wire): Extension<Wire>,
    Extension(a): Extension<Authed>,
) -> Response {
    let problem = match lifecycle(&s, &a) {
        Ok(TokenState::Active | TokenState::Inactive) => {
            let now = s.now();
            let mut inner = s.lock();
            if let Some(at) = a
                .token
                .as_deref()
                .and_then(|t| inner.access_tokens.get_mut(t))
            {
                at.inactive = false;
                at.last_used = now;
            }
            return responses::text(StatusCode::OK, "Access Token has been renewed");
        }
        Ok(TokenState::Expired) => OauthProblem::TokenExpired,
        Ok(TokenState::Revoked) => OauthProblem::TokenRejected,
        Err(p) => p,
    };
    unauthorized(&s, Some(&wire), &Failure::new(problem), false)
}

/// `GET /oauth/revoke_access_token`.
pub(crate) async fn revoke(
    State(s): State<Arc<Shared>>,
    Extension(wire): Extension<Wire>,
    Extension(a): Extension<Authed>,
) -> Response {
    let problem = match lifecycle(&s, &a) {
        Ok(TokenState::Active | TokenState::Inactive) => {
            let mut inner = s.lock();
            if let Some(at) = a
                .token
                .as_deref()
                .and_then(|t| inner.access_tokens.get_mut(t))
            {
                at.revoked = true;
            }
            return responses::text(StatusCode::OK, "Revoked Access Token");
        }
        Ok(TokenState::Expired) => OauthProblem::TokenExpired,
        Ok(TokenState::Revoked) => OauthProblem::TokenRejected,
        Err(p) => p,
    };
    unauthorized(&s, Some(&wire), &Failure::new(problem), false)
}
