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
//!   is one redb write transaction, committed before the answer is returned.
//! * Sharing: several processes use one book (an `etrade serve` per MCP client, `etrade
//!   paper`, doctor). The file is held only during an operation and a moment after it
//!   ([`crate::store_lease`]), and every operation — reading the file when needed, the
//!   catch-up, the change, its commit — runs while this process holds it, so a
//!   read-check-modify-write is atomic across processes. The whole book stays in memory;
//!   every commit bumps a generation number stored with it, and when the file was opened
//!   anew for an operation the book reloads only if the stored generation is not the one
//!   in memory (another process committed meanwhile).

mod commands;
mod config;
mod durable;
mod engine;
mod error;
mod order_entry;
mod serve;
mod state;
#[cfg(test)]
mod tests;
mod wire_json;

use std::sync::{Arc, Mutex};

use jiff::Timestamp;

use self::state::State;
use super::touch::MarketData;
use crate::store_lease::DatabaseLease;

pub use self::config::{PaperAccountConfig, PaperConfig};
pub use self::error::PaperError;

/// The real clock simulated time is offset from (injectable for tests).
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

struct Inner {
    /// As of the last time this process had the file (see [`State::meta`]'s generation).
    state: State,
    /// `state` was read from the file (or seeded into it) at least once.
    loaded: bool,
    /// How many times the state was read again from the file.
    #[cfg(test)]
    reloads: usize,
    /// Make the next commit fail, as a full disk would.
    #[cfg(test)]
    fail_next_commit: bool,
}

pub struct PaperBook {
    /// Taken after `inner`, never before.
    lease: DatabaseLease,
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
