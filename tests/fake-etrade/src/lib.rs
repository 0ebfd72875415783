//! A faithful fake of E*TRADE's v1 API for etrade-mcp's tests, listening on loopback only.
//!
//! * OAuth 1.0a exactly as E*TRADE does it: `GET /oauth/request_token` (callback `oob`),
//!   the authorize page `GET /e/t/etws/authorize?key=&token=` (auto-approves and shows the
//!   verification code), `GET /oauth/access_token`, `GET /oauth/renew_access_token`,
//!   `GET /oauth/revoke_access_token`; HMAC-SHA1 signatures, a ±300 s timestamp window and
//!   nonce replay checks on a controllable clock.
//! * Token lifecycle: request tokens live 5 minutes; access tokens expire at the next
//!   midnight America/New_York after issue (`token_expired`), go inactive after 2 hours
//!   without a request (`token_rejected` until renewed) and are rejected once revoked.
//! * E*TRADE-shaped JSON under `/v1/...` (both `/v1/x` and `/v1/x.json`, JSON whatever the
//!   `Accept`): accounts list, balance, portfolio (paged by `count`/`pageNumber`, views,
//!   sorting, totals, lots) and position lots, transactions, quotes, lookup, option chains and
//!   expiry dates, list orders, alerts list/details; unknown paths → 404 JSON. The router
//!   table is `src/api/mod.rs`, one module per API area. This crate is the emulation's HTTP
//!   door: every answer is written by the runtime's emulation (`runtime::emulation::answers`,
//!   the alert inbox `runtime::emulation::alerts`, options priced by
//!   `runtime::emulation::option_model`), the same code the paper broker answers with; the
//!   fake brings the figures, from its data in `src/fixtures.rs` and `src/fixtures_market.rs`.
//! * Mutations: order preview / place / cancel / change preview / change place and alert
//!   delete, on a mutable order book (fixture orders included) with a preview table:
//!   place needs `PreviewIds:[{"previewId":N}]` of an unused, same-account, identical
//!   (canonical JSON) preview younger than [`FakeConfig::preview_ttl`], else 400 code 101;
//!   duplicate `clientOrderId` per account, unknown orders and the like answer the codes in
//!   [`codes`] (several invented, marked so). Every preview carries the broker warning
//!   [`codes::PREVIEW_WARNING_MESSAGE`]. Inspect and drive with [`FakeEtrade::orders`],
//!   [`FakeEtrade::placed_orders`], [`FakeEtrade::set_order_status`],
//!   [`FakeEtrade::previews_count`], [`FakeEtrade::alert_ids`]. Faults apply to mutations
//!   like any request: `ResetBeforeResponse`, `Timeout` and `MalformedJson` apply the
//!   mutation first; `Refuse` and `ResetWithoutProcessing` apply nothing.
//! * Fault injection per endpoint pattern ([`Fault`], [`EndpointPattern`]), including
//!   [`Fault::EchoAuthorization`], a success whose text echoes the request's credentials.
//! * Canned answers ([`FakeEtrade::serve_answer`]): an exact body in place of an endpoint's
//!   own, after the OAuth check, for replaying answers recorded from the real E*TRADE.
//! * A request log ([`RecordedRequest`]) without secrets.
//! * The same controls over HTTP under `/__fake/...` for the `fake-etrade` binary (JSON;
//!   control requests are never recorded nor hit by faults):
//!
//! | Method | Path | Body / query | Answer |
//! | --- | --- | --- | --- |
//! | GET | `/__fake/clock` | | `{"now": "…Z"}` |
//! | POST | `/__fake/clock/advance` | `{"seconds": 7200}` or `{"ms": 1500}` | `{"now"}` |
//! | POST | `/__fake/clock/set` | `{"time": "2026-10-17T12:00:00Z"}` | `{"now"}` |
//! | GET | `/__fake/faults` | | `[{"id","pattern","fault","remaining"}]` |
//! | POST | `/__fake/faults` | `{"pattern": "POST /v1/accounts/*/orders/place", "fault": {"kind": "reset_before_response"}, "times": 1}` | `{"id"}` |
//! | DELETE | `/__fake/faults` | | `{}` |
//! | POST | `/__fake/answers` | `{"pattern": "GET /v1/accounts/*/portfolio", "body": "{…}", "times": 1}` | `{}` |
//! | DELETE | `/__fake/answers` | | `{}` |
//! | GET | `/__fake/requests` | | `[RecordedRequest]` |
//! | DELETE | `/__fake/requests` | | `{}` |
//! | GET | `/__fake/count` | `?method=GET&prefix=/v1/accounts` | `{"count"}` |
//! | GET | `/__fake/verifier` | `?token=REQUEST_TOKEN` | `{"verifier"}` or 404 |
//! | POST | `/__fake/access_token` | `{"consumer_key": "…"}` | `{"oauth_token","oauth_token_secret"}` |
//! | GET | `/__fake/token_state` | `?token=ACCESS_TOKEN` | `{"state"}` or 404 |
//! | POST | `/__fake/consumer_rejected` | `{"consumer_key": "…", "rejected": true}` | `{}` or 404 |
//! | GET | `/__fake/orders` | | `[FakeOrder]` (snake_case fields) |
//! | POST | `/__fake/order_status` | `{"order_id": 1001, "status": "EXECUTED"}` | `{}` or 404 |
//! | GET | `/__fake/alerts` | | `{"alert_ids": [..], "deleted": [..]}` |
//!
//! ```no_run
//! # async fn demo() {
//! use fake_etrade::{Fault, FakeConfig, FakeEtrade};
//! let fake = FakeEtrade::start(FakeConfig::default()).await;
//! fake.inject_fault("POST /v1/accounts/*/orders/place", Fault::ResetBeforeResponse, Some(1));
//! // ... point the client at fake.base_url() ...
//! assert_eq!(fake.count("POST", "/v1/accounts"), 0);
//! fake.shutdown().await;
//! # }
//! ```

// Handlers return an early `Response` as their error: it is built at most once per request.
#![allow(clippy::result_large_err)]

mod api;
mod auth;
mod canned;
mod clock;
mod config;
mod control;
mod faults;
mod fixtures;
mod fixtures_market;
mod record;
mod responses;
mod server;
mod state;
mod tokens;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use config::{
    Consumer, DEFAULT_CONSUMER_KEY, DEFAULT_CONSUMER_SECRET, FakeConfig, OauthErrorStyle,
    PlacedIdLocation,
};
pub use faults::{ECHO_FIELDS, EndpointPattern, Fault, FaultEntry, OauthProblem};
pub use fixtures::{AccountFixture, Fixtures, OptionFixture, PositionFixture};
pub use record::RecordedRequest;
pub use runtime::emulation::codes;
/// One leg's progress in the fake's book.
pub use runtime::emulation::fixed_book::BookLeg as FakeLegState;
/// An order in the fake's book (the emulation's fixed book).
pub use runtime::emulation::fixed_book::BookOrder as FakeOrder;
pub use state::TokenPair;
pub use tokens::TokenState;

use state::Shared;

/// A running fake server. Dropping it stops the server (without waiting).
pub struct FakeEtrade {
    shared: Arc<Shared>,
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

impl FakeEtrade {
    /// Starts on `127.0.0.1` with an ephemeral port, on the current Tokio runtime.
    ///
    /// # Panics
    /// If the loopback socket cannot be bound (test-support code).
    pub async fn start(config: FakeConfig) -> FakeEtrade {
        Self::start_on(config, 0)
            .await
            .expect("bind the fake E*TRADE server on 127.0.0.1")
    }

    /// Starts on `127.0.0.1:port` (0 = ephemeral).
    pub async fn start_on(config: FakeConfig, port: u16) -> std::io::Result<FakeEtrade> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let shared = Shared::new(config, format!("http://{addr}"))
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let shared = Arc::new(shared);
        let app = api::router(shared.clone());
        let control = control::router(shared.clone());
        let (shutdown, rx) = watch::channel(false);
        let task = tokio::spawn(server::serve(listener, shared.clone(), app, control, rx));
        Ok(FakeEtrade {
            shared,
            addr,
            shutdown,
            task: Some(task),
        })
    }

    /// `http://127.0.0.1:PORT` — the API and OAuth base URL (no trailing slash).
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// The authorize page, to which a client appends `?key=…&token=…`.
    pub fn authorize_url(&self) -> String {
        format!("{}/e/t/etws/authorize", self.shared.base_url)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The fake clock's current time.
    pub fn now(&self) -> Timestamp {
        self.shared.now()
    }

    pub fn advance_clock(&self, by: Duration) {
        self.shared.clock.advance(by);
    }

    pub fn set_time(&self, to: Timestamp) {
        self.shared.clock.set(to);
    }

    /// Hits the next `times` requests matching `pattern` (`None` = until cleared) with
    /// `fault`. Patterns: see [`EndpointPattern`]; a `&str` converts (panicking if invalid).
    /// Returns the fault's id.
    pub fn inject_fault(
        &self,
        pattern: impl Into<EndpointPattern>,
        fault: Fault,
        times: Option<u32>,
    ) -> u64 {
        self.shared.inject_fault(pattern.into(), fault, times)
    }

    pub fn clear_faults(&self) {
        self.shared.clear_faults();
    }

    /// Answers the next `times` requests matching `pattern` (`None` = until cleared) with
    /// `body`, exactly, status 200, once they pass the OAuth check: for replaying answers
    /// recorded from the real E*TRADE. The endpoint still runs (its answer is discarded).
    pub fn serve_answer(
        &self,
        pattern: impl Into<EndpointPattern>,
        body: impl Into<String>,
        times: Option<u32>,
    ) {
        self.shared
            .lock()
            .canned
            .add(pattern.into(), body.into(), times);
    }

    pub fn clear_answers(&self) {
        self.shared.lock().canned.clear();
    }

    /// The faults still armed.
    pub fn faults(&self) -> Vec<FaultEntry> {
        self.shared.faults()
    }

    /// Every request received (control requests excluded), oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests()
    }

    pub fn clear_requests(&self) {
        self.shared.clear_requests();
    }

    /// How many recorded requests have this method (`"*"` = any) and a path starting with
    /// `path_prefix` (compared with and without `.json` suffixes).
    pub fn count(&self, method: &str, path_prefix: &str) -> usize {
        self.shared.count(method, path_prefix)
    }

    /// The verification code the authorize page shows for this request token.
    pub fn verifier_for(&self, request_token: &str) -> Option<String> {
        self.shared.verifier_for(request_token)
    }

    /// An access token issued as if the user had just logged in (skips the OAuth dance).
    pub fn issue_access_token(&self, consumer_key: &str) -> TokenPair {
        self.shared.issue_access_token(consumer_key)
    }

    pub fn access_token_state(&self, access_token: &str) -> Option<TokenState> {
        self.shared.token_state(access_token)
    }

    /// Makes a consumer key answer `consumer_key_rejected` (E*TRADE expiring a key).
    /// Returns false if the key is unknown.
    pub fn set_consumer_rejected(&self, consumer_key: &str, rejected: bool) -> bool {
        self.shared.set_consumer_rejected(consumer_key, rejected)
    }

    /// Accepts another consumer key from now on.
    pub fn add_consumer(&self, consumer: Consumer) {
        self.shared.add_consumer(consumer);
    }

    /// The data currently served.
    pub fn fixtures(&self) -> Fixtures {
        self.shared.lock().fixtures.clone()
    }

    /// Replaces the data served.
    pub fn set_fixtures(&self, fixtures: Fixtures) {
        self.shared.lock().fixtures = fixtures;
    }

    /// Every order in the book (fixture orders and placed ones), in creation order.
    pub fn orders(&self) -> Vec<FakeOrder> {
        self.shared.orders()
    }

    /// The orders placed through the API (place and change place), oldest first.
    pub fn placed_orders(&self) -> Vec<FakeOrder> {
        self.shared
            .orders()
            .into_iter()
            .filter(|o| !o.from_fixtures)
            .collect()
    }

    pub fn order(&self, order_id: i64) -> Option<FakeOrder> {
        self.shared
            .orders()
            .into_iter()
            .find(|o| o.order_id == order_id)
    }

    /// Sets an order's status (`OPEN`, `EXECUTED`, `CANCELLED`, `INDIVIDUAL_FILLS`,
    /// `CANCEL_REQUESTED`, `EXPIRED`, `REJECTED`). `EXECUTED` fills every leg (at the limit or
    /// stop price, else the estimate) and sets `executedTime`; `CANCELLED` sets the cancel
    /// time. Returns false for an unknown order or status.
    pub fn set_order_status(&self, order_id: i64, status: &str) -> bool {
        self.shared.set_order_status(order_id, status)
    }

    /// Where later placement answers name the new order's id.
    pub fn set_placed_id_location(&self, at: PlacedIdLocation) {
        self.shared.lock().placed_id_location = at;
    }

    /// How many previews (plain and change) have been stored, used or not.
    pub fn previews_count(&self) -> usize {
        self.shared.lock().book().preview_count()
    }

    /// The ids of the alerts not deleted, ascending.
    pub fn alert_ids(&self) -> Vec<i64> {
        self.shared.alert_ids(false)
    }

    /// The ids of the alerts deleted through the API, ascending.
    pub fn deleted_alert_ids(&self) -> Vec<i64> {
        self.shared.alert_ids(true)
    }

    /// Stops accepting, drops every open connection and waits for the server task.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// Runs until the server stops (for the binary).
    pub async fn wait(mut self) {
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for FakeEtrade {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}
