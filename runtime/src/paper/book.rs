//! The paper broker's book: accounts, a cash ledger, positions with FIFO lots, orders with
//! their status history, transactions and the fill engine, all kept in one redb file.
//!
//! * Every answer is what E*TRADE's HTTP body would be (`serde_json::Value`), or
//!   [`PaperError::Rejected`] with E*TRADE's status, code and message, or
//!   [`PaperError::Empty`] for its 204.
//! * Simulated time is real time plus a stored offset ([`PaperBook::advance`] moves it; it
//!   keeps flowing). Before every answer the book catches up: working orders are evaluated
//!   at one-minute steps of simulated time since the last evaluation (stretches in which
//!   none of them can trade are skipped; at most [`engine::MAX_STEPS`] steps, then it jumps
//!   to now).
//! * Fills are at the touch: buys at the ask, sells at the bid, at most the displayed size
//!   per step (all-or-none and fill-or-kill only when it covers the whole remainder). Market
//!   orders trade only in the regular session; LIMIT/STOP/STOP_LIMIT in their session
//!   (EXTENDED adds pre-market and after-hours). Spreads fill all legs together, priced at
//!   the net of the legs' touches; a spread's limit is a net debit/credit per unit of the
//!   first leg. GOOD_FOR_DAY orders expire after the close of their trading day (the
//!   after-hours close for EXTENDED); IMMEDIATE_OR_CANCEL and FILL_OR_KILL are decided when
//!   placed.
//! * Buying power: cash accounts have cash minus the reserve of their working buy orders;
//!   margin accounts (simple Reg T) have 2 × equity − gross position value − reserve.
//!   Short sales and uncovered option writes need a margin account.
//! * Money: exact decimals; fills' amounts, commissions and fees are rounded to cents (as
//!   E*TRADE's transactions are), prices are kept as quoted.
//! * Durability: each state change (catch-up fills, preview, place, cancel, advance, reset)
//!   is one redb write transaction, committed before the answer is returned. The file is
//!   kept open for the life of the book (one process owns it).

mod answers;
mod engine;
mod request;
mod state;
#[cfg(test)]
mod tests;

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use base64::Engine as _;
use jiff::{SignedDuration, Timestamp};
use redb::Database;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use self::answers::num;
use self::engine::Ctx;
use self::request::OrderRequest;
use self::state::{
    AccountRec, Dirty, LedgerKind, LedgerRec, LegRec, OrderRec, PreviewRec, State, Status,
    TransactionRec, TxKind, store_err,
};
use super::touch::MarketData;
use crate::etrade::EtradeRequest;
use crate::trading::calendar::phase_at;

/// The `{"Error":{"code"}}` values and texts the paper broker answers with. Codes marked
/// *invented* have no known E*TRADE counterpart; they match the fake E*TRADE server's.
pub mod codes {
    /// 400 (invented): a query parameter has an invalid value.
    pub const INVALID_PARAMETER: i64 = 1;
    pub const ACCOUNT_KEY: i64 = 100;
    pub const ACCOUNT_KEY_MESSAGE: &str = "Account key does not belong to user.";
    pub const PREVIEW_TIMED_OUT: i64 = 101;
    pub const PREVIEW_TIMED_OUT_MESSAGE: &str = "For your protection, we have timed out your original order request. If you would like to place this order, please resubmit it now.";
    pub const INVALID_SYMBOL: i64 = 1019;
    pub const INVALID_SYMBOL_MESSAGE: &str = "Invalid symbol.";
    pub const INSUFFICIENT_FUNDS: i64 = 1021;
    pub const INSUFFICIENT_FUNDS_MESSAGE: &str =
        "We cannot accept this order because there are insufficient funds in your account.";
    pub const PLACED: i64 = 1026;
    pub const PLACED_MESSAGE: &str = "200|Your order was successfully entered during market hours.";
    pub const PLACED_OUTSIDE_MESSAGE: &str = "200|Your order was successfully entered. The market is closed; it will be worked in its next trading session.";
    /// 400: selling more than the account holds (less what open sell orders already use).
    pub const NOT_ENOUGH_SHARES: i64 = 1037;
    pub const NOT_ENOUGH_SHARES_MESSAGE: &str = "We did not find enough available shares of this security in your account. Shares that are reserved by other open sell orders cannot be sold again.";
    pub const NOT_CANCELLABLE: i64 = 5001;
    pub const NOT_CANCELLABLE_MESSAGE: &str =
        "This order is currently being executed or rejected. It cannot be cancelled.";
    pub const CANCEL_REQUESTED: i64 = 5011;
    pub const CANCEL_REQUESTED_MESSAGE: &str =
        "200|Your request to cancel your order is being processed.";
    pub const INVALID_INSTITUTION_TYPE: i64 = 7002;
    pub const INVALID_ORDER_REQUEST: i64 = 9001;
    pub const INVALID_CLIENT_ORDER_ID: i64 = 9002;
    pub const INVALID_CLIENT_ORDER_ID_MESSAGE: &str =
        "The client order id must be 1 to 20 letters and digits.";
    pub const DUPLICATE_CLIENT_ORDER_ID: i64 = 9003;
    pub const DUPLICATE_CLIENT_ORDER_ID_MESSAGE: &str = "Duplicate client order id.";
    pub const ORDER_NOT_FOUND: i64 = 9004;
    pub const ORDER_NOT_FOUND_MESSAGE: &str = "The order you requested was not found.";
    pub const NOT_CHANGEABLE: i64 = 9005;
    pub const NOT_CHANGEABLE_MESSAGE: &str =
        "This order cannot be changed because it is no longer open.";
    pub const CHANGE_NOT_ALLOWED: i64 = 9006;
    pub const CHANGE_NOT_ALLOWED_MESSAGE: &str = "The order type, symbols and order actions of an order cannot be changed; cancel it and place a new order.";
    pub const EXTENDED_HOURS_LIMIT_ONLY: i64 = 9007;
    pub const EXTENDED_HOURS_LIMIT_ONLY_MESSAGE: &str =
        "Only limit orders can be placed for the extended hours session.";
    /// 400 (invented): a short sale in a cash account.
    pub const SHORT_IN_CASH_ACCOUNT: i64 = 9008;
    pub const SHORT_IN_CASH_ACCOUNT_MESSAGE: &str = "Short sales are not permitted in a cash account. A margin account is required to sell short.";
    /// 400 (invented): an option contract the market does not list.
    pub const OPTION_NOT_FOUND: i64 = 9009;
    pub const OPTION_NOT_FOUND_MESSAGE: &str = "The option contract you entered is not available for trading. Please check the expiration date, strike price and call/put type.";
    /// 400 (invented): writing options (sell to open) in a cash account.
    pub const UNCOVERED_IN_CASH_ACCOUNT: i64 = 9010;
    pub const UNCOVERED_IN_CASH_ACCOUNT_MESSAGE: &str = "Selling options to open is not permitted in a cash account except as a covered call (buy-write).";
    /// 400 (invented): buy to cover / buy to close more than the short position.
    pub const NO_SHORT_POSITION: i64 = 9011;
    pub const NO_SHORT_POSITION_MESSAGE: &str = "We did not find a short position large enough to cover in your account (other open orders may already cover it).";
    /// 400 (invented): selling short a security held long in the same account.
    pub const SHORT_WHILE_LONG: i64 = 9012;
    pub const SHORT_WHILE_LONG_MESSAGE: &str =
        "You hold this security long in this account; sell the long position before selling short.";
    /// 400 (invented): something E*TRADE offers that the paper account does not.
    pub const NOT_SUPPORTED: i64 = 9013;
    /// 400 (invented): `advance` with a negative duration.
    pub const TIME_BACKWARDS: i64 = 9014;
}

/// How long a preview can be placed (simulated time).
const PREVIEW_TTL: SignedDuration = SignedDuration::from_mins(15);
/// Previews older than this are dropped (with the next preview).
const PREVIEW_RETENTION: SignedDuration = SignedDuration::from_hours(24);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaperConfig {
    pub accounts: Vec<PaperAccountConfig>,
    pub commission_per_trade: Decimal,
    pub commission_per_contract: Decimal,
    /// Charged on sales: rate × principal, rounded to cents.
    pub fee_per_sale_rate: Decimal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaperAccountConfig {
    pub name: String,
    pub starting_cash: Decimal,
    pub margin: bool,
}

impl Default for PaperConfig {
    fn default() -> Self {
        PaperConfig {
            accounts: vec![
                PaperAccountConfig {
                    name: "Paper Margin".into(),
                    starting_cash: Decimal::new(10_000_000, 2),
                    margin: true,
                },
                PaperAccountConfig {
                    name: "Paper IRA".into(),
                    starting_cash: Decimal::new(2_500_000, 2),
                    margin: false,
                },
            ],
            commission_per_trade: Decimal::ZERO,
            commission_per_contract: Decimal::new(65, 2),
            fee_per_sale_rate: Decimal::ZERO,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PaperError {
    /// E*TRADE would answer with this HTTP status and Error{code,message}.
    #[error("{message}")]
    Rejected {
        status: u16,
        code: i64,
        message: String,
    },
    /// 204-style empty answer (no records).
    #[error("no content")]
    Empty,
    #[error("paper store: {0}")]
    Store(String),
}

impl PaperError {
    /// A 400 refusal.
    pub(crate) fn rejected(code: i64, message: &str) -> PaperError {
        PaperError::Rejected {
            status: 400,
            code,
            message: message.to_string(),
        }
    }

    pub(crate) fn unknown_account() -> PaperError {
        PaperError::rejected(codes::ACCOUNT_KEY, codes::ACCOUNT_KEY_MESSAGE)
    }

    fn timed_out() -> PaperError {
        PaperError::rejected(codes::PREVIEW_TIMED_OUT, codes::PREVIEW_TIMED_OUT_MESSAGE)
    }
}

/// The real clock simulated time is offset from (injectable for tests).
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

struct Inner {
    db: Database,
    state: State,
}

pub struct PaperBook {
    inner: Mutex<Inner>,
    config: PaperConfig,
    market: Arc<dyn MarketData>,
    clock: Clock,
}

impl std::fmt::Debug for PaperBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaperBook")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// `accountIdKey`: 22 URL-safe characters, deterministic from the name.
fn account_key(name: &str) -> String {
    let h = Sha256::digest(format!("etrade-paper account key\x1f{name}").as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&h[..16])
}

/// `accountId`: 8 digits, deterministic from the name.
fn account_number(name: &str) -> u64 {
    let h = Sha256::digest(format!("etrade-paper account id\x1f{name}").as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&h[..8]);
    10_000_000 + u64::from_be_bytes(b) % 90_000_000
}

/// A fresh book: the configured accounts, each with its opening deposit.
fn seed(
    config: &PaperConfig,
    cash: Option<Decimal>,
    now: Timestamp,
    mut meta: state::Meta,
) -> Result<State, PaperError> {
    meta.last_eval = Some(now);
    let mut s = State {
        meta,
        ..State::default()
    };
    let mut numbers = Vec::new();
    for (seq, a) in config.accounts.iter().enumerate() {
        let key = account_key(&a.name);
        if s.accounts.contains_key(&key) {
            return Err(PaperError::Store(format!(
                "two paper accounts are named {:?}",
                a.name
            )));
        }
        let mut number = account_number(&a.name);
        while numbers.contains(&number) {
            number = if number >= 99_999_999 {
                10_000_000
            } else {
                number + 1
            };
        }
        numbers.push(number);
        let starting_cash = cash.unwrap_or(a.starting_cash);
        s.put_account(AccountRec {
            key: key.clone(),
            id: number.to_string(),
            name: a.name.clone(),
            margin: a.margin,
            starting_cash,
            cash: starting_cash,
            created_at: now,
            seq: u32::try_from(seq).unwrap_or(u32::MAX),
        });
        if !starting_cash.is_zero() {
            let transaction_id = s.new_transaction_id();
            s.put_transaction(TransactionRec {
                transaction_id,
                account_key: key.clone(),
                at: now,
                amount: starting_cash,
                kind: TxKind::Deposit,
                description: "OPENING DEPOSIT".into(),
                instrument: None,
                quantity: Decimal::ZERO,
                price: Decimal::ZERO,
                fee: Decimal::ZERO,
                order_id: None,
            });
            let entry_id = s.new_ledger_id();
            s.put_ledger(LedgerRec {
                entry_id,
                account_key: key,
                at: now,
                amount: starting_cash,
                kind: LedgerKind::Deposit,
                transaction_id: Some(transaction_id),
                order_id: None,
            });
        }
    }
    s.mark_all();
    Ok(s)
}

fn create_private_file(path: &Path) -> Result<(), PaperError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(store_err)?;
    }
    crate::platform::create_private_file(path).map_err(store_err)
}

impl PaperBook {
    /// Opens (or creates) the book at `path`; a new book gets the configured accounts. An
    /// existing book keeps its accounts (the configuration's accounts and cash apply when
    /// the book is created or reset); commissions always follow `config`.
    pub fn open(
        path: &Path,
        config: PaperConfig,
        market: Arc<dyn MarketData>,
    ) -> Result<PaperBook, PaperError> {
        Self::open_with_clock(path, config, market, Arc::new(Timestamp::now))
    }

    /// [`PaperBook::open`] with the real clock replaced (tests).
    pub fn open_with_clock(
        path: &Path,
        config: PaperConfig,
        market: Arc<dyn MarketData>,
        clock: Clock,
    ) -> Result<PaperBook, PaperError> {
        create_private_file(path)?;
        let db = Database::create(path).map_err(store_err)?;
        state::create_tables(&db)?;
        let state = match state::load(&db)? {
            Some(s) => s,
            None => {
                let mut s = seed(&config, None, clock(), state::Meta::default())?;
                state::save(&db, &s, false)?;
                s.dirty = Dirty::default();
                s
            }
        };
        Ok(PaperBook {
            inner: Mutex::new(Inner { db, state }),
            config,
            market,
            clock,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Memory is only replaced after a successful commit, so a poisoned lock still
        // guards a consistent state.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            config: &self.config,
            market: self.market.as_ref(),
        }
    }

    fn now_of(&self, s: &State) -> Timestamp {
        (self.clock)()
            .checked_add(s.meta.offset())
            .unwrap_or(Timestamp::MAX)
    }

    /// Applies `f` to the state, recording what it overwrote; commits what it wrote in one
    /// transaction. On any error (of `f` or of the commit) the writes are undone, so
    /// nothing changes.
    fn mutate<T>(
        &self,
        inner: &mut Inner,
        f: impl FnOnce(&mut State) -> Result<T, PaperError>,
    ) -> Result<T, PaperError> {
        let meta = inner.state.meta.clone();
        inner.state.dirty = Dirty::default();
        inner.state.begin();
        let out = match f(&mut inner.state) {
            Ok(out) => out,
            Err(e) => {
                inner.state.roll_back(meta);
                return Err(e);
            }
        };
        if let Err(e) = state::save(&inner.db, &inner.state, false) {
            inner.state.roll_back(meta);
            return Err(e);
        }
        inner.state.committed();
        Ok(out)
    }

    fn catch_up_locked(&self, inner: &mut Inner) -> Result<Timestamp, PaperError> {
        let now = self.now_of(&inner.state);
        if inner.state.open_orders().next().is_none() {
            // Nothing can fill: only the evaluation mark moves (in memory; orders placed
            // later are never evaluated before their placement).
            if inner.state.meta.last_eval.is_some_and(|t| t < now) {
                inner.state.meta.last_eval = Some(now);
            }
            return Ok(now);
        }
        let ctx = self.ctx();
        self.mutate(inner, |s| engine::run_until(s, &ctx, now))?;
        Ok(now)
    }

    /// Catches up, then answers from the state.
    fn read<T>(
        &self,
        f: impl FnOnce(&State, &Ctx<'_>, Timestamp) -> Result<T, PaperError>,
    ) -> Result<T, PaperError> {
        let mut inner = self.lock();
        let now = self.catch_up_locked(&mut inner)?;
        f(&inner.state, &self.ctx(), now)
    }

    /// Catches up, then applies one state change.
    fn write<T>(
        &self,
        f: impl FnOnce(&mut State, &Ctx<'_>, Timestamp) -> Result<T, PaperError>,
    ) -> Result<T, PaperError> {
        let mut inner = self.lock();
        let now = self.catch_up_locked(&mut inner)?;
        let ctx = self.ctx();
        self.mutate(&mut inner, |s| f(s, &ctx, now))
    }

    /// Wipes everything and recreates the accounts (`cash` overrides every account's
    /// starting cash). Simulated time returns to real time; id counters keep counting so
    /// ids from before the reset are never reused.
    pub fn reset(&self, cash: Option<Decimal>) -> Result<(), PaperError> {
        let mut inner = self.lock();
        let mut meta = inner.state.meta.clone();
        meta.offset_seconds = 0;
        meta.offset_nanos = 0;
        let mut fresh = seed(&self.config, cash, (self.clock)(), meta)?;
        state::save(&inner.db, &fresh, true)?;
        fresh.dirty = Dirty::default();
        inner.state = fresh;
        Ok(())
    }

    /// Simulated time: real time plus the stored offset.
    pub fn now(&self) -> Timestamp {
        let inner = self.lock();
        self.now_of(&inner.state)
    }

    /// Moves simulated time forward by `by`, then runs fills up to the new now (one
    /// transaction).
    pub fn advance(&self, by: SignedDuration) -> Result<Timestamp, PaperError> {
        if by.is_negative() {
            return Err(PaperError::rejected(
                codes::TIME_BACKWARDS,
                "Simulated time can only move forward.",
            ));
        }
        let mut inner = self.lock();
        self.catch_up_locked(&mut inner)?;
        let ctx = self.ctx();
        let clock = (self.clock)();
        self.mutate(&mut inner, |s| {
            let offset = s.meta.offset().checked_add(by).ok_or_else(|| {
                PaperError::rejected(
                    codes::TIME_BACKWARDS,
                    "Simulated time cannot move that far.",
                )
            })?;
            s.meta.offset_seconds = offset.as_secs();
            s.meta.offset_nanos = offset.subsec_nanos();
            s.touch_meta();
            let now = clock.checked_add(offset).unwrap_or(Timestamp::MAX);
            engine::run_until(s, &ctx, now)?;
            Ok(now)
        })
    }

    /// Runs fills for resting orders from the last evaluation up to now (every answer does
    /// this first).
    pub fn catch_up(&self) -> Result<(), PaperError> {
        let mut inner = self.lock();
        self.catch_up_locked(&mut inner).map(drop)
    }

    /// For `etrade paper status`: simulated time, accounts (cash, positions, open orders),
    /// order and transaction counts.
    pub fn status(&self) -> Result<Value, PaperError> {
        self.read(|s, ctx, now| {
            let mut accounts: Vec<&AccountRec> = s.accounts.values().collect();
            accounts.sort_by_key(|a| a.seq);
            let list: Vec<Value> = accounts
                .iter()
                .map(|a| {
                    let (long, short) = engine::market_values(s, ctx, &a.key, now);
                    json!({
                        "name": a.name,
                        "accountId": a.id,
                        "accountIdKey": a.key,
                        "accountMode": a.mode(),
                        "startingCash": num(a.starting_cash),
                        "cash": num(a.cash),
                        "totalAccountValue": num(engine::cents(a.cash + long + short)),
                        "positions": s.positions.values().filter(|p| p.account_key == a.key).count(),
                        "openOrders": s.open_orders().filter(|o| o.account_key == a.key).count(),
                    })
                })
                .collect();
            let offset = s.meta.offset();
            Ok(json!({
                "simulatedTime": now.to_string(),
                "offsetSeconds": offset.as_secs(),
                "session": format!("{:?}", phase_at(now)),
                "marketSource": ctx.market.source(),
                "accounts": list,
                "orders": s.orders.len(),
                "openOrders": s.open_orders().count(),
                "transactions": s.transactions.len(),
            }))
        })
    }

    pub fn accounts_list(&self) -> Result<Value, PaperError> {
        self.read(|s, _, _| answers::accounts_list(s))
    }

    /// `BalanceResponse` as for `?instType=BROKERAGE&realTimeNAV=true`.
    pub fn balance(&self, account_key: &str) -> Result<Value, PaperError> {
        self.read(|s, ctx, now| answers::balance(s, ctx, account_key, now))
    }

    pub fn portfolio(&self, account_key: &str, query: &EtradeRequest) -> Result<Value, PaperError> {
        self.read(|s, ctx, now| answers::portfolio(s, ctx, account_key, query, now))
    }

    pub fn position_lots(&self, account_key: &str, position_id: i64) -> Result<Value, PaperError> {
        self.read(|s, ctx, now| answers::position_lots(s, ctx, account_key, position_id, now))
    }

    pub fn transactions(
        &self,
        account_key: &str,
        query: &EtradeRequest,
    ) -> Result<Value, PaperError> {
        self.read(|s, _, _| answers::transactions(s, account_key, query))
    }

    pub fn transaction_details(
        &self,
        account_key: &str,
        transaction_id: i64,
    ) -> Result<Value, PaperError> {
        self.read(|s, _, _| answers::transaction_details(s, account_key, transaction_id))
    }

    pub fn orders(&self, account_key: &str, query: &EtradeRequest) -> Result<Value, PaperError> {
        self.read(|s, _, _| answers::orders(s, account_key, query))
    }

    /// `PreviewOrderRequest` → `PreviewOrderResponse` (`change_of`: the order a change
    /// preview is for).
    pub fn preview(
        &self,
        account_key: &str,
        body: &Value,
        change_of: Option<i64>,
    ) -> Result<Value, PaperError> {
        self.write(|s, ctx, now| preview_op(s, ctx, now, account_key, body, change_of))
    }

    /// `PlaceOrderRequest` → `PlaceOrderResponse`.
    pub fn place(
        &self,
        account_key: &str,
        body: &Value,
        change_of: Option<i64>,
    ) -> Result<Value, PaperError> {
        self.write(|s, ctx, now| place_op(s, ctx, now, account_key, body, change_of))
    }

    /// `CancelOrderRequest` → `CancelOrderResponse`.
    pub fn cancel(&self, account_key: &str, body: &Value) -> Result<Value, PaperError> {
        self.write(|s, _, now| cancel_op(s, now, account_key, body))
    }

    #[cfg(test)]
    pub(crate) fn snapshot(&self) -> State {
        self.lock().state.clone()
    }
}

/// The order being changed must be this account's, OPEN, and keep its shape.
fn check_changeable(
    s: &State,
    account_key: &str,
    order_id: i64,
    r: &OrderRequest,
) -> Result<(), PaperError> {
    let Some(old) = s
        .orders
        .get(&order_id)
        .filter(|o| o.account_key == account_key)
    else {
        return Err(PaperError::rejected(
            codes::ORDER_NOT_FOUND,
            codes::ORDER_NOT_FOUND_MESSAGE,
        ));
    };
    if old.status != Status::Open {
        return Err(PaperError::rejected(
            codes::NOT_CHANGEABLE,
            codes::NOT_CHANGEABLE_MESSAGE,
        ));
    }
    let same_legs = old.legs.len() == r.legs.len()
        && old
            .legs
            .iter()
            .zip(&r.legs)
            .all(|(a, b)| a.instrument == b.instrument && a.action == b.action);
    if old.request.order_type != r.order_type || !same_legs {
        return Err(PaperError::rejected(
            codes::CHANGE_NOT_ALLOWED,
            codes::CHANGE_NOT_ALLOWED_MESSAGE,
        ));
    }
    Ok(())
}

fn bp_details(a: &AccountRec, current: Decimal, reserve: Decimal, impact: Decimal) -> Value {
    let figures = json!({
        "currentBp": num(current + reserve),
        "currentOor": num(reserve),
        "currentNetBp": num(current),
        "currentOrderImpact": num(impact),
        "netBp": num(engine::cents(current - impact)),
    });
    if a.margin {
        json!({"marginable": figures})
    } else {
        json!({"settled": figures})
    }
}

fn preview_op(
    s: &mut State,
    ctx: &Ctx<'_>,
    now: Timestamp,
    account_key: &str,
    body: &Value,
    change_of: Option<i64>,
) -> Result<Value, PaperError> {
    let a = answers::account(s, account_key)?.clone();
    let (req, _) = request::parse(body, "PreviewOrderRequest")?;
    if let Some(id) = change_of {
        check_changeable(s, account_key, id, &req)?;
    }
    let (est, _) = engine::check_order(s, ctx, account_key, &req, change_of, now)?;
    let bp = engine::buying_power(s, ctx, account_key, change_of, now);
    let reserve = engine::reserved(s, account_key, change_of);
    let stale: Vec<i64> = s
        .previews
        .values()
        .filter(|p| now.duration_since(p.created_at) > PREVIEW_RETENTION)
        .map(|p| p.preview_id)
        .collect();
    for id in stale {
        s.remove_preview(id);
    }
    let preview_id = s.new_preview_id();
    s.put_preview(PreviewRec {
        preview_id,
        account_key: account_key.to_string(),
        request: req.clone(),
        created_at: now,
        used: false,
        change_of,
    });
    let impact = if est.debit {
        est.total()
    } else {
        Decimal::ZERO
    };
    let mut body = json!({
        "orderType": req.order_type,
        "totalOrderValue": num(est.value),
        "totalCommission": num(est.commission),
        "previewTime": now.as_millisecond(),
        "dstFlag": answers::dst(now),
        "accountId": a.id,
        "optionLevelCd": answers::option_level(&a).1,
        "marginLevelCd": answers::margin_level(&a),
        "isEmployee": false,
        "commissionMessage": "",
        "clientOrderId": req.client_order_id,
        "Order": [answers::echo_order(&req, &est, &[answers::message(9020, "The estimated commission and total amount may differ from the actual amounts when your order executes.")])],
        "PreviewIds": [{"previewId": preview_id, "cashMargin": a.mode()}],
        "Disclosure": answers::disclosure(&req),
    });
    if let Some(m) = body.as_object_mut() {
        let key = if a.margin {
            "marginBpDetails"
        } else {
            "cashBpDetails"
        };
        m.insert(key.into(), bp_details(&a, bp, reserve, impact));
    }
    Ok(json!({ "PreviewOrderResponse": body }))
}

/// The ids of this order and of every order it (transitively) replaced.
fn lineage(s: &State, order_id: i64) -> Vec<i64> {
    let mut ids = vec![order_id];
    let mut cur = s.orders.get(&order_id).and_then(|o| o.replaces);
    while let Some(id) = cur {
        if ids.contains(&id) {
            break;
        }
        ids.push(id);
        cur = s.orders.get(&id).and_then(|o| o.replaces);
    }
    ids
}

fn place_op(
    s: &mut State,
    ctx: &Ctx<'_>,
    now: Timestamp,
    account_key: &str,
    body: &Value,
    change_of: Option<i64>,
) -> Result<Value, PaperError> {
    let a = answers::account(s, account_key)?.clone();
    let (req, ids) = request::parse(body, "PlaceOrderRequest")?;
    let preview_id = request::preview_id(ids.as_ref()).ok_or_else(PaperError::timed_out)?;
    let Some(preview) = s.previews.get(&preview_id).cloned() else {
        return Err(PaperError::timed_out());
    };
    let fresh = !preview.used
        && preview.account_key == account_key
        && preview.change_of == change_of
        && preview.request == req
        && now.duration_since(preview.created_at) <= PREVIEW_TTL;
    if !fresh {
        return Err(PaperError::timed_out());
    }
    if let Some(id) = change_of {
        check_changeable(s, account_key, id, &req)?;
    }
    let exempt = change_of.map(|id| lineage(s, id)).unwrap_or_default();
    let duplicate = s.orders.values().any(|o| {
        o.account_key == account_key
            && o.client_order_id == req.client_order_id
            && !exempt.contains(&o.order_id)
    });
    if duplicate {
        return Err(PaperError::rejected(
            codes::DUPLICATE_CLIENT_ORDER_ID,
            codes::DUPLICATE_CLIENT_ORDER_ID_MESSAGE,
        ));
    }
    let (est, _) = engine::check_order(s, ctx, account_key, &req, change_of, now)?;
    s.put_preview(PreviewRec {
        used: true,
        ..preview.clone()
    });
    let order_id = s.new_order_id();
    if let Some(old_id) = change_of
        && let Some(mut old) = s.orders.get(&old_id).cloned()
    {
        old.status = Status::Cancelled;
        old.cancel_at = Some(now);
        old.replaced_by = Some(order_id);
        old.push_event("ORDER_CANCELLED", now);
        s.put_order(old);
    }
    let expires_at = (req.order_term == "GOOD_FOR_DAY")
        .then(|| engine::day_end(now, req.extended()))
        .flatten();
    let mut order = OrderRec {
        order_id,
        account_key: account_key.to_string(),
        client_order_id: req.client_order_id.clone(),
        preview_id,
        request: req.clone(),
        legs: req
            .legs
            .iter()
            .map(|l| LegRec {
                instrument: l.instrument.clone(),
                action: l.action,
                quantity: l.quantity,
                filled: Decimal::ZERO,
                fill_value: Decimal::ZERO,
            })
            .collect(),
        status: Status::Open,
        preview_at: preview.created_at,
        placed_at: now,
        executed_at: None,
        cancel_at: None,
        expires_at,
        stop_triggered_at: None,
        replaces: change_of,
        replaced_by: None,
        est_value: est.value,
        est_commission: est.commission,
        debit: est.debit,
        commission_paid: Decimal::ZERO,
        fees_paid: Decimal::ZERO,
        events: Vec::new(),
    };
    order.push_event("ORDER_PLACED", now);
    s.put_order(order);
    engine::evaluate(s, ctx, order_id, now)?;
    if matches!(
        req.order_term.as_str(),
        "IMMEDIATE_OR_CANCEL" | "FILL_OR_KILL"
    ) && let Some(mut o) = s.orders.get(&order_id).cloned()
        && o.status.is_open()
    {
        o.status = Status::Cancelled;
        o.cancel_at = Some(now);
        o.push_event("ORDER_CANCELLED", now);
        s.put_order(o);
    }
    let in_session = engine::tradable(&req, phase_at(now));
    let text = if in_session {
        codes::PLACED_MESSAGE
    } else {
        codes::PLACED_OUTSIDE_MESSAGE
    };
    Ok(json!({"PlaceOrderResponse": {
        "orderType": req.order_type,
        "totalOrderValue": num(est.value),
        "totalCommission": num(est.commission),
        "placedTime": now.as_millisecond(),
        "dstFlag": answers::dst(now),
        "accountId": a.id,
        "optionLevelCd": answers::option_level(&a).1,
        "marginLevelCd": answers::margin_level(&a),
        "isEmployee": false,
        "commissionMsg": "",
        "clientOrderId": req.client_order_id,
        "Order": [answers::echo_order(&req, &est, &[answers::message(codes::PLACED, text)])],
        "OrderIds": [{"orderId": order_id, "cashMargin": a.mode()}],
        "Disclosure": answers::disclosure(&req),
    }}))
}

fn cancel_op(
    s: &mut State,
    now: Timestamp,
    account_key: &str,
    body: &Value,
) -> Result<Value, PaperError> {
    let a = answers::account(s, account_key)?.clone();
    let id = request::cancel_order_id(body)?;
    let Some(mut o) = s
        .orders
        .get(&id)
        .filter(|o| o.account_key == account_key)
        .cloned()
    else {
        return Err(PaperError::rejected(
            codes::ORDER_NOT_FOUND,
            codes::ORDER_NOT_FOUND_MESSAGE,
        ));
    };
    if !o.status.is_open() {
        return Err(PaperError::rejected(
            codes::NOT_CANCELLABLE,
            codes::NOT_CANCELLABLE_MESSAGE,
        ));
    }
    o.status = Status::Cancelled;
    o.cancel_at = Some(now);
    o.push_event("ORDER_CANCELLED", now);
    s.put_order(o);
    Ok(json!({"CancelOrderResponse": {
        "accountId": a.id,
        "orderId": id,
        "cancelTime": now.as_millisecond(),
        "Messages": {"Message": [answers::message(codes::CANCEL_REQUESTED, codes::CANCEL_REQUESTED_MESSAGE)]},
    }}))
}
