//! The signed HTTP client for E*TRADE's v1 API and OAuth endpoints. One request per call,
//! never retried here: whether a retry is safe is the caller's decision (never for
//! mutations). Every failure is classified as a [`BrokerFailure`].

use super::body::BrokerBody;
use super::failure::{BrokerErrorBody, BrokerFailure, Operation, TransportFailure};
use super::limiter::{Module, Pacer};
use super::wire;
use crate::etrade::endpoints::Endpoints;
use crate::etrade::oauth::{self, Extra, Signer};
use crate::etrade::request::{Endpoint, EtradeRequest};
use reqwest::Method;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Whole-request deadline (connect + send + response).
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// Multiplier on E*TRADE's published per-module request rates.
    pub rate_scale: u32,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            timeout: Duration::from_secs(20),
            connect_timeout: Duration::from_secs(5),
            rate_scale: 1,
        }
    }
}

/// Token pair returned by the request-token and access-token steps (decoded).
#[derive(Clone, PartialEq, Eq)]
pub struct TokenPair {
    pub token: String,
    pub secret: String,
}

impl std::fmt::Debug for TokenPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenPair([redacted])")
    }
}

/// One answer from E*TRADE, whatever its status: for callers that need more than the body
/// (`etrade doctor` reads the `Date` to measure clock skew).
#[derive(Clone)]
pub struct Answer {
    pub status: u16,
    /// The `Date` header: E*TRADE's clock.
    pub date: Option<jiff::Timestamp>,
    /// E*TRADE's request id header, when it sent one.
    pub request_id: Option<String>,
    pub body: String,
}

impl Answer {
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body of a success; the classified failure otherwise.
    pub fn into_body(self) -> Result<String, BrokerFailure> {
        if self.is_success() {
            Ok(self.body)
        } else {
            Err(self.failure())
        }
    }

    /// The classified failure of an answer that is not a success.
    pub fn failure(&self) -> BrokerFailure {
        let mut body: BrokerErrorBody = wire::error_body(&self.body);
        if body.request_id.is_none() {
            body.request_id = self.request_id.clone();
        }
        BrokerFailure::Http {
            status: self.status,
            body,
        }
    }
}

impl std::fmt::Debug for Answer {
    // Token answers carry secrets: the body is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answer")
            .field("status", &self.status)
            .field("date", &self.date)
            .field("request_id", &self.request_id)
            .field("body_bytes", &self.body.len())
            .finish()
    }
}

pub struct EtradeHttp {
    http: reqwest::Client,
    endpoints: Endpoints,
    pacer: Pacer,
}

impl EtradeHttp {
    pub fn new(endpoints: Endpoints, options: &ClientOptions) -> Result<EtradeHttp, String> {
        let http = reqwest::Client::builder()
            .timeout(options.timeout)
            .connect_timeout(options.connect_timeout)
            .user_agent(concat!("etrade-mcp/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|_| "cannot build the HTTP client".to_string())?;
        Ok(EtradeHttp {
            http,
            endpoints,
            pacer: Pacer::new(options.rate_scale),
        })
    }

    pub fn endpoints(&self) -> &Endpoints {
        &self.endpoints
    }

    /// One API request: `Ok(None)` for E*TRADE's empty answers (204 or an empty body).
    ///
    /// Every string of the answer that reveals one of the signer's credentials is replaced
    /// by [`REDACTED`](super::broker_message::REDACTED) before anything reads it: E*TRADE's text can echo request material
    /// (the `Authorization` header, a signature base string), and this is the one place
    /// every success body of every read and mutation passes through.
    ///
    /// A read's body that cannot reveal a known secret stays text, for its model to read
    /// directly (unreadable JSON is then the model's [`InvalidBrokerResponse`]); a mutation's
    /// is parsed here, so that an unreadable answer to an order is
    /// [`BrokerFailure::Malformed`] before anything else looks at it.
    ///
    /// [`InvalidBrokerResponse`]: crate::contract::errors::ErrorCode::InvalidBrokerResponse
    pub async fn api(
        &self,
        signer: &Signer<'_>,
        request: &EtradeRequest,
    ) -> Result<Option<BrokerBody>, BrokerFailure> {
        let body = self.api_answer(signer, request).await?.into_body()?;
        if body.trim().is_empty() {
            return Ok(None);
        }
        let secrets = signer.known_secrets();
        if request.operation == Operation::Read && !secrets.may_reveal(&body) {
            return Ok(Some(BrokerBody::Text(body)));
        }
        let (value, redacted) = secrets
            .parse_redacted(&body)
            .map_err(|_| BrokerFailure::Malformed)?;
        if redacted > 0 {
            tracing::warn!(
                strings = redacted,
                "E*TRADE's answer echoed credentials; those strings were redacted"
            );
        }
        Ok(Some(BrokerBody::Tree(value)))
    }

    /// [`EtradeHttp::api`], but the whole answer whatever its status (an `Err` only when
    /// there is no answer: transport failures). The body is as E*TRADE sent it, not
    /// redacted: a caller must not show it (`etrade doctor` reads only the clock from it).
    pub async fn api_answer(
        &self,
        signer: &Signer<'_>,
        request: &EtradeRequest,
    ) -> Result<Answer, BrokerFailure> {
        let url = request.url(&self.endpoints.api_base);
        self.exchange(
            signer,
            request.method(),
            &url,
            &Extra::default(),
            request.body.as_deref(),
            request.module(),
        )
        .await
    }

    /// E*TRADE's clock, from the `Date` header of an unsigned request to the API host (which
    /// E*TRADE refuses, harmlessly: nothing is signed, so nothing secret is sent). For the
    /// 5-minute OAuth timestamp window; `Ok(None)` when the answer has no usable `Date`.
    pub async fn server_date(&self) -> Result<Option<jiff::Timestamp>, BrokerFailure> {
        let url = EtradeRequest::read(Endpoint::AccountList).url(&self.endpoints.api_base);
        let response = self.http.get(url).send().await.map_err(transport)?;
        Ok(date_of(response.headers()))
    }

    /// Step 1 of login: a request token for the consumer key, callback `oob`.
    pub async fn request_token(&self, signer: &Signer<'_>) -> Result<TokenPair, BrokerFailure> {
        let url = format!("{}/oauth/request_token", self.endpoints.oauth_base);
        let extra = Extra {
            callback: Some("oob"),
            ..Extra::default()
        };
        let text = self
            .send(signer, Method::GET, &url, &extra, None, Module::OAuth)
            .await?;
        token_pair(&text)
    }

    /// The page where the user approves access and gets a verification code.
    pub fn authorize_url(&self, consumer_key: &str, request_token: &str) -> String {
        format!(
            "{}?key={}&token={}",
            self.endpoints.authorize,
            oauth::encode(consumer_key),
            oauth::encode(request_token)
        )
    }

    /// Step 3 of login: the access token, signed with the request token and verifier.
    pub async fn access_token(
        &self,
        signer: &Signer<'_>,
        verifier: &str,
    ) -> Result<TokenPair, BrokerFailure> {
        let url = format!("{}/oauth/access_token", self.endpoints.oauth_base);
        let extra = Extra {
            verifier: Some(verifier),
            ..Extra::default()
        };
        let text = self
            .send(signer, Method::GET, &url, &extra, None, Module::OAuth)
            .await?;
        token_pair(&text)
    }

    /// Reactivate an idle (inactive) access token; E*TRADE keeps the same pair.
    pub async fn renew(&self, signer: &Signer<'_>) -> Result<(), BrokerFailure> {
        let url = format!("{}/oauth/renew_access_token", self.endpoints.oauth_base);
        self.send(
            signer,
            Method::GET,
            &url,
            &Extra::default(),
            None,
            Module::OAuth,
        )
        .await
        .map(|_| ())
    }

    pub async fn revoke(&self, signer: &Signer<'_>) -> Result<(), BrokerFailure> {
        let url = format!("{}/oauth/revoke_access_token", self.endpoints.oauth_base);
        self.send(
            signer,
            Method::GET,
            &url,
            &Extra::default(),
            None,
            Module::OAuth,
        )
        .await
        .map(|_| ())
    }

    /// One request; a non-2xx answer is an `Err` with its classified failure.
    async fn send(
        &self,
        signer: &Signer<'_>,
        method: Method,
        url: &str,
        extra: &Extra<'_>,
        body: Option<&str>,
        module: Module,
    ) -> Result<String, BrokerFailure> {
        self.exchange(signer, method, url, extra, body, module)
            .await?
            .into_body()
    }

    /// One paced, signed request and its whole answer.
    async fn exchange(
        &self,
        signer: &Signer<'_>,
        method: Method,
        url: &str,
        extra: &Extra<'_>,
        body: Option<&str>,
        module: Module,
    ) -> Result<Answer, BrokerFailure> {
        // Signed just before sending: the timestamp must be within E*TRADE's 5-minute window.
        self.pacer.wait(module).await;
        let authorization = signer
            .authorization(method.as_str(), url, extra)
            .map_err(|_| BrokerFailure::Malformed)?;
        let mut request = self
            .http
            .request(method, url)
            .header(reqwest::header::AUTHORIZATION, authorization)
            .header(reqwest::header::ACCEPT, accept(module));
        if let Some(b) = body {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(b.to_owned());
        }
        let response = request.send().await.map_err(transport)?;
        let status = response.status().as_u16();
        let headers = response.headers();
        let request_id = headers
            .get("x-request-id")
            .or_else(|| headers.get("x-etrade-request-id"))
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let date = date_of(headers);
        let body = whole_text(response)
            .await
            .map_err(|_| BrokerFailure::Transport(TransportFailure::BodyRead))?;
        Ok(Answer {
            status,
            date,
            request_id,
            body,
        })
    }
}

/// The most an answer's `Content-Length` reserves before its bytes arrive: a longer answer
/// still arrives whole, its buffer grown as it comes.
const MAX_RESERVED_BODY: usize = 64 << 20;

/// The answer's body as text, read into one buffer sized from its `Content-Length`: what
/// `Response::text` gives (invalid UTF-8 replaced, nothing else changed) without its two
/// whole copies (the chunks joined, then the text copied out of them), each of which lives
/// beside the one before it: one body more at the peak, 10 MiB for a 10,000-position page.
async fn whole_text(mut response: reqwest::Response) -> Result<String, reqwest::Error> {
    let reserve = response.content_length().map_or(0, |n| {
        usize::try_from(n)
            .unwrap_or(usize::MAX)
            .min(MAX_RESERVED_BODY)
    });
    let mut bytes = Vec::with_capacity(reserve);
    while let Some(chunk) = response.chunk().await? {
        bytes.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

fn date_of(headers: &reqwest::header::HeaderMap) -> Option<jiff::Timestamp> {
    headers
        .get(reqwest::header::DATE)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_http_date)
}

/// The `Accept` header for a module's requests. API calls ask for JSON (the `.json` suffix
/// does too). The `/oauth/*` token endpoints answer `application/x-www-form-urlencoded` or
/// plain text, never JSON, so a JSON-only Accept there invites a strict server's 406; they
/// get `*/*`, what Python's requests (pyetrade, E*TRADE's sample client) sends.
fn accept(module: Module) -> &'static str {
    match module {
        Module::OAuth => "*/*",
        Module::Accounts | Module::Market | Module::Orders | Module::Alerts => "application/json",
    }
}

fn transport(e: reqwest::Error) -> BrokerFailure {
    let kind = if e.is_connect() {
        TransportFailure::Connect
    } else if e.is_timeout() {
        TransportFailure::Timeout
    } else if e.is_body() || e.is_decode() {
        TransportFailure::BodyRead
    } else {
        TransportFailure::ConnectionReset
    };
    BrokerFailure::Transport(kind)
}

/// An HTTP `Date` header value (`Tue, 01 Dec 2026 12:00:00 GMT`).
pub fn parse_http_date(value: &str) -> Option<jiff::Timestamp> {
    static PARSER: jiff::fmt::rfc2822::DateTimeParser = jiff::fmt::rfc2822::DateTimeParser::new();
    PARSER.parse_timestamp(value.trim()).ok()
}

/// `{api}/v1/accounts/list.json?count=10`: the `.json` suffix asks for JSON and is signed.
fn token_pair(body: &str) -> Result<TokenPair, BrokerFailure> {
    let pairs = oauth::parse_form(body.trim());
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    match (get("oauth_token"), get("oauth_token_secret")) {
        (Some(token), Some(secret)) => Ok(TokenPair { token, secret }),
        _ => Err(BrokerFailure::Malformed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_parse() {
        let t = parse_http_date(" Tue, 01 Dec 2026 12:00:00 GMT").expect("a date");
        assert_eq!(t.as_second(), 1_796_126_400);
        assert_eq!(parse_http_date("yesterday"), None);
    }

    /// The clock probe reads `Date` from whatever the API host answers, sending no
    /// `Authorization` header.
    #[tokio::test]
    async fn server_date_reads_the_date_header_of_an_unsigned_request() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let server = tokio::spawn(async move {
            let (mut tcp, _) = listener.accept().await.expect("accept");
            let mut head = vec![0u8; 4096];
            let n = tcp.read(&mut head).await.expect("read");
            let head = String::from_utf8_lossy(&head[..n]).to_ascii_lowercase();
            let answer = "HTTP/1.1 401 Unauthorized\r\nDate: Tue, 01 Dec 2026 12:00:00 GMT\r\n\
                          Content-Length: 0\r\nConnection: close\r\n\r\n";
            tcp.write_all(answer.as_bytes()).await.expect("write");
            head
        });
        let base = format!("http://{addr}");
        let endpoints = Endpoints {
            api_base: base.clone(),
            oauth_base: base.clone(),
            authorize: format!("{base}/authorize"),
        };
        let http = EtradeHttp::new(endpoints, &ClientOptions::default()).expect("client");
        let date = http.server_date().await.expect("an answer");
        assert_eq!(date.map(|d| d.as_second()), Some(1_796_126_400));
        let head = server.await.expect("server");
        assert!(head.starts_with("get /v1/accounts/list.json "), "{head}");
        assert!(!head.contains("authorization"), "unsigned: {head}");
    }

    #[test]
    fn only_api_calls_ask_for_json() {
        assert_eq!(accept(Module::OAuth), "*/*");
        for m in [
            Module::Accounts,
            Module::Market,
            Module::Orders,
            Module::Alerts,
        ] {
            assert_eq!(accept(m), "application/json");
        }
    }

    #[test]
    fn token_pairs_are_decoded() {
        let t = token_pair(
            "oauth_token=a%2Fb%3D&oauth_token_secret=c%2Bd&oauth_callback_confirmed=true",
        )
        .expect("pair");
        assert_eq!((t.token.as_str(), t.secret.as_str()), ("a/b=", "c+d"));
        assert!(matches!(token_pair("nope"), Err(BrokerFailure::Malformed)));
        assert_eq!(format!("{t:?}"), "TokenPair([redacted])");
    }
}
