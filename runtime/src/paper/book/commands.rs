//! The `etrade paper` command operations: reset, simulated now, advance, catch-up and
//! status.

use jiff::{SignedDuration, Timestamp};
use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::config::seed;
use super::engine;
use super::state::{self, AccountRec, Dirty};
use super::wire_json::num;
use super::{PaperBook, PaperError};
use crate::calendar::phase_at;
use crate::emulation::codes;

impl PaperBook {
    /// Wipes everything and recreates the accounts (`cash` overrides every account's
    /// starting cash). Simulated time returns to real time; id counters keep counting so
    /// ids from before the reset are never reused.
    pub fn reset(&self, cash: Option<Decimal>) -> Result<(), PaperError> {
        self.with_book(|db, inner| {
            let mut meta = inner.state.meta.clone();
            meta.offset_seconds = 0;
            meta.offset_nanos = 0;
            meta.generation = meta.generation.wrapping_add(1);
            let mut fresh = seed(&self.config, cash, (self.clock)(), meta)?;
            state::save(db, &mut fresh, true)?;
            fresh.dirty = Dirty::default();
            inner.state = fresh;
            Ok(())
        })
    }

    /// Simulated time: real time plus the stored offset. When the file cannot be had (see
    /// [`PaperBook::try_now`]), the offset this process last saw.
    pub fn now(&self) -> Timestamp {
        self.try_now()
            .unwrap_or_else(|_| self.now_of(&self.lock().state))
    }

    /// Simulated time with the offset as the file has it now (another process may have
    /// advanced it).
    pub fn try_now(&self) -> Result<Timestamp, PaperError> {
        self.with_book(|_, inner| Ok(self.now_of(&inner.state)))
    }

    /// Moves simulated time forward by `by`, then runs fills up to the new now (one
    /// transaction).
    pub fn advance(&self, by: SignedDuration) -> Result<Timestamp, PaperError> {
        if by.is_negative() {
            return Err(PaperError::rejected(
                codes::TIME_BACKWARDS,
                codes::TIME_BACKWARDS_MESSAGE,
            ));
        }
        self.with_book(|db, inner| {
            self.catch_up_locked(db, inner)?;
            let ctx = self.ctx();
            let clock = (self.clock)();
            self.mutate(db, inner, |s| {
                let offset = s.meta.offset().checked_add(by).ok_or_else(|| {
                    PaperError::rejected(codes::TIME_BACKWARDS, codes::TIME_TOO_FAR_MESSAGE)
                })?;
                s.meta.offset_seconds = offset.as_secs();
                s.meta.offset_nanos = offset.subsec_nanos();
                s.touch_meta();
                let now = clock.checked_add(offset).unwrap_or(Timestamp::MAX);
                engine::run_until(s, &ctx, now)?;
                Ok(now)
            })
        })
    }

    /// Runs fills for resting orders from the last evaluation up to now (every answer does
    /// this first).
    pub fn catch_up(&self) -> Result<(), PaperError> {
        self.with_book(|db, inner| self.catch_up_locked(db, inner).map(drop))
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
                "simulatedTime": crate::time::rfc3339(now),
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
}
