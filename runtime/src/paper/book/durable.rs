//! Opening the book's redb file, and the plumbing every operation goes through: the lock,
//! simulated now, the catch-up, and one write transaction per state change, undone in
//! memory when it fails.

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use jiff::Timestamp;
use redb::Database;

use super::config::seed;
use super::engine::{self, Ctx};
use super::state::{self, Dirty, State, store_err};
use super::{Clock, Inner, PaperBook, PaperConfig, PaperError};
use crate::paper::touch::MarketData;

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

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        // Memory is only replaced after a successful commit, so a poisoned lock still
        // guards a consistent state.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn ctx(&self) -> Ctx<'_> {
        Ctx {
            config: &self.config,
            market: self.market.as_ref(),
        }
    }

    pub(super) fn now_of(&self, s: &State) -> Timestamp {
        (self.clock)()
            .checked_add(s.meta.offset())
            .unwrap_or(Timestamp::MAX)
    }

    /// Applies `f` to the state, recording what it overwrote; commits what it wrote in one
    /// transaction. On any error (of `f` or of the commit) the writes are undone, so
    /// nothing changes.
    pub(super) fn mutate<T>(
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

    pub(super) fn catch_up_locked(&self, inner: &mut Inner) -> Result<Timestamp, PaperError> {
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
    pub(super) fn read<T>(
        &self,
        f: impl FnOnce(&State, &Ctx<'_>, Timestamp) -> Result<T, PaperError>,
    ) -> Result<T, PaperError> {
        let mut inner = self.lock();
        let now = self.catch_up_locked(&mut inner)?;
        f(&inner.state, &self.ctx(), now)
    }

    /// Catches up, then applies one state change.
    pub(super) fn write<T>(
        &self,
        f: impl FnOnce(&mut State, &Ctx<'_>, Timestamp) -> Result<T, PaperError>,
    ) -> Result<T, PaperError> {
        let mut inner = self.lock();
        let now = self.catch_up_locked(&mut inner)?;
        let ctx = self.ctx();
        self.mutate(&mut inner, |s| f(s, &ctx, now))
    }

    #[cfg(test)]
    pub(crate) fn snapshot(&self) -> State {
        self.lock().state.clone()
    }
}
