//! Shared server state: consumers, tokens, nonces, faults, the request log, the fixtures and
//! what mutations changed (the order book, the alert inbox).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use jiff::{Timestamp, tz::TimeZone};
use runtime::emulation::OrderStatus;
use runtime::emulation::alerts::AlertInbox;
use runtime::emulation::fixed_book::{BookOrder, FixedOrders};
use runtime::emulation::fixed_market::FixedMarket;

use crate::canned::CannedTable;
use crate::clock::{FakeClock, lock};
use crate::config::{Consumer, FakeConfig, PlacedIdLocation};
use crate::faults::{EndpointPattern, Fault, FaultEntry, FaultTable};
use crate::fixtures::Fixtures;
use crate::record::RecordedRequest;
use crate::tokens::{AccessToken, RequestToken, Rng, TokenState, next_midnight};

/// A token and its secret, as handed to a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenPair {
    pub token: String,
    pub secret: String,
}

pub(crate) struct Shared {
    pub config: FakeConfig,
    /// The quotes, lookup and options the fake serves.
    pub market: FixedMarket,
    pub clock: FakeClock,
    pub tz: TimeZone,
    pub base_url: String,
    inner: Mutex<Inner>,
}

pub(crate) struct Inner {
    pub consumers: HashMap<String, Consumer>,
    pub request_tokens: HashMap<String, RequestToken>,
    pub access_tokens: HashMap<String, AccessToken>,
    /// (consumer key, nonce) → when it was first seen (fake clock).
    pub nonces: HashMap<(String, String), Timestamp>,
    pub faults: FaultTable,
    pub canned: CannedTable,
    pub log: Vec<RecordedRequest>,
    pub next_seq: u64,
    pub rng: Rng,
    pub fixtures: Fixtures,
    /// Use through [`Inner::book`], which copies in the fixture orders first.
    orders: FixedOrders,
    /// The alert inbox and what was deleted from it.
    pub alerts: AlertInbox,
    pub placed_id_location: PlacedIdLocation,
}

impl Inner {
    /// The order book, with the fixture orders of every current fixture account in it.
    pub fn book(&mut self) -> &mut FixedOrders {
        for a in &self.fixtures.accounts {
            self.orders.seed(&a.account_id, &a.account_id_key, || {
                crate::fixtures_market::orders_for(&a.account_id)
            });
        }
        &mut self.orders
    }

    pub fn record_mut(&mut self, seq: u64) -> Option<&mut RecordedRequest> {
        let i = self.log.binary_search_by_key(&seq, |r| r.seq).ok()?;
        self.log.get_mut(i)
    }
}

impl Shared {
    pub fn new(config: FakeConfig, base_url: String) -> Result<Self, String> {
        let tz = TimeZone::get(&config.expiry_time_zone).map_err(|e| {
            format!(
                "FakeConfig::expiry_time_zone {:?}: {e}",
                config.expiry_time_zone
            )
        })?;
        let clock = FakeClock::default();
        if let Some(t) = config.start_time {
            clock.set(t);
        }
        let inner = Inner {
            consumers: config
                .consumers
                .iter()
                .map(|c| (c.key.clone(), c.clone()))
                .collect(),
            request_tokens: HashMap::new(),
            access_tokens: HashMap::new(),
            nonces: HashMap::new(),
            faults: FaultTable::default(),
            canned: CannedTable::default(),
            log: Vec::new(),
            next_seq: 0,
            rng: Rng::seeded(),
            fixtures: config.fixtures.clone(),
            orders: FixedOrders::default(),
            alerts: AlertInbox::new(crate::fixtures_market::alerts()),
            placed_id_location: config.placed_id_location,
        };
        let market = crate::fixtures_market::market(tz.clone());
        Ok(Self {
            market,
            config,
            clock,
            tz,
            base_url,
            inner: Mutex::new(inner),
        })
    }

    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        lock(&self.inner)
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Appends a record (its `seq` is assigned here) and returns the seq.
    pub fn record(&self, mut r: RecordedRequest) -> u64 {
        let mut inner = self.lock();
        inner.next_seq += 1;
        r.seq = inner.next_seq;
        inner.log.push(r);
        inner.next_seq
    }

    pub fn update_record(&self, seq: u64, f: impl FnOnce(&mut RecordedRequest)) {
        if let Some(r) = self.lock().record_mut(seq) {
            f(r);
        }
    }

    pub fn issue_request_token(&self, consumer_key: &str) -> (TokenPair, String) {
        let now = self.now();
        let mut inner = self.lock();
        let token = inner.rng.token();
        let secret = inner.rng.token();
        let verifier = inner.rng.verifier();
        inner.request_tokens.insert(
            token.clone(),
            RequestToken {
                secret: secret.clone(),
                consumer_key: consumer_key.to_string(),
                created_at: now,
                verifier: verifier.clone(),
                used: false,
            },
        );
        (TokenPair { token, secret }, verifier)
    }

    pub fn issue_access_token(&self, consumer_key: &str) -> TokenPair {
        let now = self.now();
        let expires_at = next_midnight(now, &self.tz);
        let mut inner = self.lock();
        let token = inner.rng.token();
        let secret = inner.rng.token();
        inner.access_tokens.insert(
            token.clone(),
            AccessToken {
                secret: secret.clone(),
                consumer_key: consumer_key.to_string(),
                expires_at,
                last_used: now,
                inactive: false,
                revoked: false,
            },
        );
        TokenPair { token, secret }
    }
}

/// Control operations shared by [`crate::FakeEtrade`] and the `/__fake/` HTTP API.
impl Shared {
    pub fn inject_fault(&self, pattern: EndpointPattern, fault: Fault, times: Option<u32>) -> u64 {
        self.lock().faults.add(pattern, fault, times)
    }

    pub fn clear_faults(&self) {
        self.lock().faults.clear();
    }

    pub fn faults(&self) -> Vec<FaultEntry> {
        self.lock().faults.list()
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().log.clone()
    }

    pub fn clear_requests(&self) {
        self.lock().log.clear();
    }

    pub fn count(&self, method: &str, path_prefix: &str) -> usize {
        let prefix = crate::server::normalize_path(path_prefix);
        self.lock()
            .log
            .iter()
            .filter(|r| {
                (method == "*" || r.method.eq_ignore_ascii_case(method))
                    && (r.endpoint.starts_with(&prefix) || r.path.starts_with(path_prefix))
            })
            .count()
    }

    pub fn verifier_for(&self, request_token: &str) -> Option<String> {
        self.lock()
            .request_tokens
            .get(request_token)
            .map(|t| t.verifier.clone())
    }

    pub fn token_state(&self, access_token: &str) -> Option<TokenState> {
        let now = self.now();
        let idle = self.config.idle_timeout;
        self.lock()
            .access_tokens
            .get_mut(access_token)
            .map(|t| t.state(now, idle))
    }

    /// Returns false if the consumer key is unknown.
    pub fn set_consumer_rejected(&self, consumer_key: &str, rejected: bool) -> bool {
        match self.lock().consumers.get_mut(consumer_key) {
            Some(c) => {
                c.rejected = rejected;
                true
            }
            None => false,
        }
    }

    pub fn add_consumer(&self, consumer: Consumer) {
        self.lock().consumers.insert(consumer.key.clone(), consumer);
    }

    pub fn orders(&self) -> Vec<BookOrder> {
        self.lock().book().all().to_vec()
    }

    /// False for an unknown order or status.
    pub fn set_order_status(&self, order_id: i64, status: &str) -> bool {
        let Some(status) = OrderStatus::parse(status) else {
            return false;
        };
        let now_ms = self.now().as_millisecond();
        self.lock().book().set_status(order_id, status, now_ms)
    }

    pub fn alert_ids(&self, deleted: bool) -> Vec<i64> {
        self.lock().alerts.ids(deleted)
    }
}
