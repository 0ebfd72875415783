//! What a fake server accepts and serves.

use std::time::Duration;

use jiff::Timestamp;

use crate::fixtures::Fixtures;

/// The consumer key the `fake-etrade` binary and [`FakeConfig::default`] accept.
pub const DEFAULT_CONSUMER_KEY: &str = "fakeConsumerKey0123456789abcdef";
/// Its secret; like real E*TRADE secrets it contains `/`, `+` and `=`.
pub const DEFAULT_CONSUMER_SECRET: &str = "fAk3/c0nSuMeR+s3cReT/kEy=";

/// A consumer key the fake accepts.
#[derive(Debug, Clone)]
pub struct Consumer {
    pub key: String,
    pub secret: String,
    /// Answer `consumer_key_rejected` for this key (an expired key, as E*TRADE does).
    pub rejected: bool,
}

impl Consumer {
    pub fn new(key: impl Into<String>, secret: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            secret: secret.into(),
            rejected: false,
        }
    }
}

/// How the OAuth endpoints (`/oauth/...`) report failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OauthErrorStyle {
    /// Tomcat's HTML error report: `<h1>HTTP Status 401 - oauth_problem=...</h1>` (typical).
    #[default]
    TomcatHtml,
    /// Plain text `oauth_problem=...`.
    Text,
}

/// Where a placement answer (place and change place) names the new order's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlacedIdLocation {
    /// `OrderIds[].orderId`, as E*TRADE documents and recorded answers show.
    #[default]
    OrderIds,
    /// Only `Order[].orderId` (seen by sblattj/etrade-mcp).
    OrderOnly,
    /// Only a top-level `orderId` (rs-etrade's model).
    TopLevel,
    /// Nowhere: a 200 answer that names no order.
    Nowhere,
}

#[derive(Debug, Clone)]
pub struct FakeConfig {
    pub consumers: Vec<Consumer>,
    /// Check HMAC-SHA1 signatures (default true). Timestamps, nonces and tokens are always
    /// checked.
    pub verify_signatures: bool,
    pub fixtures: Fixtures,
    /// Largest accepted |oauth_timestamp - now| (E*TRADE: 5 minutes).
    pub timestamp_window: Duration,
    /// Request-token lifetime (E*TRADE: 5 minutes).
    pub request_token_ttl: Duration,
    /// An access token idle this long becomes inactive until renewed (E*TRADE: 2 hours).
    pub idle_timeout: Duration,
    /// Access tokens expire at the next midnight of this IANA zone after they were issued.
    pub expiry_time_zone: String,
    pub oauth_error_style: OauthErrorStyle,
    /// The fake clock's start; `None` = the real time now.
    pub start_time: Option<Timestamp>,
    /// How long (fake clock) a preview can be placed; older → 400 code 101. E*TRADE's real
    /// lifetime is undocumented. Default 5 minutes.
    pub preview_ttl: Duration,
    /// Echo `clientOrderId` in list orders' `OrderDetail` (default false: recorded E*TRADE
    /// list payloads do not carry it).
    pub echo_client_order_id: bool,
    /// Where placement answers carry the new order's id (changeable at run time with
    /// [`crate::FakeEtrade::set_placed_id_location`]).
    pub placed_id_location: PlacedIdLocation,
}

impl Default for FakeConfig {
    fn default() -> Self {
        Self {
            consumers: vec![Consumer::new(DEFAULT_CONSUMER_KEY, DEFAULT_CONSUMER_SECRET)],
            verify_signatures: true,
            fixtures: Fixtures::default(),
            timestamp_window: Duration::from_secs(300),
            request_token_ttl: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(2 * 3600),
            expiry_time_zone: "America/New_York".into(),
            oauth_error_style: OauthErrorStyle::default(),
            start_time: None,
            preview_ttl: Duration::from_secs(300),
            echo_client_order_id: false,
            placed_id_location: PlacedIdLocation::default(),
        }
    }
}

impl FakeConfig {
    /// A config accepting exactly this consumer key, with the default fixtures.
    pub fn new(consumer_key: impl Into<String>, consumer_secret: impl Into<String>) -> Self {
        Self {
            consumers: vec![Consumer::new(consumer_key, consumer_secret)],
            ..Self::default()
        }
    }

    pub fn with_consumer(mut self, consumer: Consumer) -> Self {
        self.consumers.push(consumer);
        self
    }

    pub fn verify_signatures(mut self, on: bool) -> Self {
        self.verify_signatures = on;
        self
    }

    pub fn with_fixtures(mut self, fixtures: Fixtures) -> Self {
        self.fixtures = fixtures;
        self
    }

    pub fn start_time(mut self, t: Timestamp) -> Self {
        self.start_time = Some(t);
        self
    }

    pub fn preview_ttl(mut self, ttl: Duration) -> Self {
        self.preview_ttl = ttl;
        self
    }

    pub fn echo_client_order_id(mut self, on: bool) -> Self {
        self.echo_client_order_id = on;
        self
    }
}
