//! Opening the book's redb file, and the plumbing every operation goes through: the lock,
//! the file (held for the operation, see [`crate::store_lease`]) and the in-memory book
//! brought up to date with it, simulated now, the catch-up, and one write transaction per
//! state change, undone in memory when it fails.

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use jiff::Timestamp;
use redb::Database;

use super::config::seed;
use super::engine::{self, Ctx};
use super::state::{self, Dirty, State, store_err};
use super::{Clock, Inner, PaperBook, PaperConfig, PaperError};
use crate::paper::touch::MarketData;
use crate::store_lease::DatabaseLease;

/// How long an operation waits for another process to let go of the file before it fails
/// with [`PaperError::Busy`]. The same as the trading store's: another process holds the
/// file for an operation and a 100 ms idle window, or 1 s at most when it never pauses.
const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(5);

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
        // The file is read at the first operation, not here: `etrade serve` starts listening
        // without waiting for the disk (see [`PaperBook::warm_up`]).
        let lease = DatabaseLease::new(path.to_path_buf(), DEFAULT_LOCK_TIMEOUT, "paper-db-closer");
        Ok(PaperBook {
            lease,
            inner: Mutex::new(Inner {
                state: State::default(),
                loaded: false,
                #[cfg(test)]
                reloads: 0,
                #[cfg(test)]
                fail_next_commit: false,
            }),
            config,
            market,
            clock,
        })
    }

    /// Reads the book (creating it when the file is new), so the first answer does not wait
    /// for the disk. A failure is the first operation's to report again.
    pub fn warm_up(&self) -> Result<(), PaperError> {
        self.with_book(|_, _| Ok(()))
    }

    /// How long an operation waits for another process to let go of the file before it
    /// fails with [`PaperError::Busy`].
    pub fn with_lock_timeout(mut self, timeout: Duration) -> PaperBook {
        self.lease.set_lock_timeout(timeout);
        self
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        // Memory is only replaced after a successful commit, so a poisoned lock still
        // guards a consistent state.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `op` while this process holds the file, on the in-memory book brought up to
    /// date with it. Only a store failure lets go of the file at once (the lease then opens
    /// it again for the next operation); a refusal is an answer like any other.
    pub(super) fn with_book<T>(
        &self,
        op: impl FnOnce(&Database, &mut Inner) -> Result<T, PaperError>,
    ) -> Result<T, PaperError> {
        let mut inner = self.lock();
        // Until the book was first read, the file may be the empty one `open` made: `create`
        // initializes it. Later operations only open it, so a file removed behind our back
        // is an error rather than a silently new book.
        let first = !inner.loaded;
        self.lease.with_fresh(first, |db, fresh| {
            if first {
                inner.state = load_or_seed(db, &self.config, &self.clock)?;
                inner.loaded = true;
            } else if fresh {
                sync(db, &mut inner)?;
            }
            match op(db, &mut inner) {
                Err(e @ PaperError::Store(_)) => Err(e),
                answer => Ok(answer),
            }
        })?
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
    /// transaction, with the generation bumped. On any error (of `f` or of the commit) the
    /// writes are undone, so nothing changes.
    pub(super) fn mutate<T>(
        &self,
        db: &Database,
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
        if !inner.state.dirty.is_empty() {
            inner.state.meta.generation = inner.state.meta.generation.wrapping_add(1);
            inner.state.touch_meta();
        }
        if let Err(e) = commit(db, inner) {
            inner.state.roll_back(meta);
            return Err(e);
        }
        inner.state.committed();
        Ok(out)
    }

    pub(super) fn catch_up_locked(
        &self,
        db: &Database,
        inner: &mut Inner,
    ) -> Result<Timestamp, PaperError> {
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
        self.mutate(db, inner, |s| engine::run_until(s, &ctx, now))?;
        Ok(now)
    }

    /// Catches up, then answers from the state.
    pub(super) fn read<T>(
        &self,
        f: impl FnOnce(&State, &Ctx<'_>, Timestamp) -> Result<T, PaperError>,
    ) -> Result<T, PaperError> {
        self.with_book(|db, inner| {
            let now = self.catch_up_locked(db, inner)?;
            f(&inner.state, &self.ctx(), now)
        })
    }

    /// Catches up, then applies one state change.
    pub(super) fn write<T>(
        &self,
        f: impl FnOnce(&mut State, &Ctx<'_>, Timestamp) -> Result<T, PaperError>,
    ) -> Result<T, PaperError> {
        self.with_book(|db, inner| {
            let now = self.catch_up_locked(db, inner)?;
            let ctx = self.ctx();
            self.mutate(db, inner, |s| f(s, &ctx, now))
        })
    }

    #[cfg(test)]
    pub(crate) fn snapshot(&self) -> State {
        self.with_book(|_, inner| Ok(inner.state.clone()))
            .unwrap_or_else(|e| panic!("snapshot: {e}"))
    }

    /// How many times this book read the whole state again from the file.
    #[cfg(test)]
    pub(crate) fn reloads(&self) -> usize {
        self.lock().reloads
    }

    /// Makes the next commit fail.
    #[cfg(test)]
    pub(crate) fn fail_next_commit(&self) {
        self.lock().fail_next_commit = true;
    }
}

/// The book in the file (migrated first when the file is in an older format), or a new one
/// with the configured accounts when the file has none.
fn load_or_seed(db: &Database, config: &PaperConfig, clock: &Clock) -> Result<State, PaperError> {
    state::prepare(db)?;
    match state::load(db)? {
        Some(s) => Ok(s),
        None => {
            let mut s = seed(config, None, clock(), state::Meta::default())?;
            state::save(db, &mut s, false)?;
            s.dirty = Dirty::default();
            Ok(s)
        }
    }
}

/// Brings the in-memory book up to date with a file opened anew: another process may have
/// committed while this one did not hold it. The generation tells, so a book nobody else
/// changed costs one small read, not a reload.
fn sync(db: &Database, inner: &mut Inner) -> Result<(), PaperError> {
    if state::stored_generation(db)? == Some(inner.state.meta.generation) {
        return Ok(());
    }
    inner.state = state::load(db)?
        .ok_or_else(|| PaperError::Store("the paper book's file has no book in it".into()))?;
    #[cfg(test)]
    {
        inner.reloads += 1;
    }
    Ok(())
}

fn commit(db: &Database, inner: &mut Inner) -> Result<(), PaperError> {
    #[cfg(test)]
    if std::mem::take(&mut inner.fail_next_commit) {
        return Err(PaperError::Store("the commit failed (test)".into()));
    }
    state::save(db, &mut inner.state, false)
}
