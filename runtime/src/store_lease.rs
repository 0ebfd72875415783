//! A redb file's handle, kept open between operations and handed to other processes when
//! idle. The trading store (`trading.redb`) and the paper book (`paper-PROFILE.redb`) both
//! go through it.
//!
//! redb lets one handle at a time have a file open (a second open, from this process or
//! another, fails with `DatabaseAlreadyOpen`), and several etrade processes share these
//! files: `etrade serve` per MCP client, `etrade approve`, `etrade paper`, doctor. Opening and
//! closing the file for every operation cost more than the operation itself, so the handle
//! stays open for [`IDLE_WINDOW`] after an operation and a closer thread then drops it; a
//! process that wants the file meanwhile retries its open (see [`open`]) until then.
//!
//! Why reads through a kept handle are never stale: while this process holds the handle no
//! other process can have the file open, so nothing else can commit; once the handle was
//! dropped, the next operation opens the file again and reads what is on disk. A caller
//! that caches what it read (the paper book keeps its whole state in memory) learns from
//! the `fresh` flag of [`DatabaseLease::with_fresh`] when it must look at the file again.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use redb::{Builder, Database, DatabaseError};

/// Why the lease could not get the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LeaseError {
    /// Another process kept the file open past the lock timeout.
    #[error("another etrade process has the file open")]
    Busy,
    /// redb's (or the file system's) error text.
    #[error("{0}")]
    Open(String),
}

/// How long the handle stays open after an operation. Bursts (a paper placement's claim and
/// outcome, a client paging the journal) then pay for one open; another process gets the
/// file at most about this long, plus one operation and one retry sleep, after this one goes
/// quiet. Shorter than the 200 ms a call waiting for an approval polls the store at, so such
/// a server still lets `etrade approve` in between two polls.
pub(crate) const IDLE_WINDOW: Duration = Duration::from_millis(100);

/// A process that never goes quiet for [`IDLE_WINDOW`] would keep every other one out past
/// its lock timeout, so a handle this old is closed by the next operation when another
/// process is waiting for the file (it says so with a marker file, see [`waiting_marker`]),
/// which then waits [`HANDOFF_PAUSE`] before opening again. With nobody waiting the handle is
/// kept: a busy server alone on its files pays no reopen and no pause.
const MAX_TENURE: Duration = Duration::from_secs(1);

/// Longer than the longest retry sleep, so a process waiting in [`open`] tries at least once
/// while the file is free. Paid at most once per [`MAX_TENURE`] of continuous use.
const HANDOFF_PAUSE: Duration = Duration::from_millis(60);

/// Open retries start short (the other process usually holds the file for one transaction
/// plus its idle window) and back off to this.
const MAX_RETRY_SLEEP: Duration = Duration::from_millis(50);

/// The file's one handle in this process. Operations run one at a time (the mutex), which
/// also means threads of one process never contend for the file lock.
pub(crate) struct DatabaseLease {
    path: PathBuf,
    lock_timeout: Duration,
    /// The closer thread's name, so a thread dump says which file it keeps.
    closer_name: &'static str,
    shared: Arc<Shared>,
}

/// What the closer thread shares with the lease.
struct Shared {
    slot: Mutex<Slot>,
    /// Wakes the closer early when the lease is dropped.
    wake: Condvar,
}

#[derive(Default)]
struct Slot {
    /// None while closed, and while an operation runs (it owns the handle meanwhile, so a
    /// panic in it drops the handle during unwinding: nothing is left half-used here).
    held: Option<Held>,
    /// A closer thread is waiting for `held` to go idle.
    closer: bool,
}

struct Held {
    db: Database,
    opened: Instant,
    last_used: Instant,
}

impl DatabaseLease {
    pub(crate) fn new(
        path: PathBuf,
        lock_timeout: Duration,
        closer_name: &'static str,
    ) -> DatabaseLease {
        DatabaseLease {
            path,
            lock_timeout,
            closer_name,
            shared: Arc::new(Shared {
                slot: Mutex::new(Slot::default()),
                wake: Condvar::new(),
            }),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn set_lock_timeout(&mut self, timeout: Duration) {
        self.lock_timeout = timeout;
    }

    /// Runs `f` on the open database, opening it first (waiting up to the lock timeout for
    /// another process to let go) when this process does not hold it. `create` initializes
    /// an empty file. After an error the handle is closed rather than kept: redb refuses
    /// further work on a handle that hit an I/O error, and refusals are rare enough that
    /// reopening after them costs nothing that matters.
    pub(crate) fn with<T, E: From<LeaseError>>(
        &self,
        create: bool,
        f: impl FnOnce(&Database) -> Result<T, E>,
    ) -> Result<T, E> {
        self.with_fresh(create, |db, _| f(db))
    }

    /// [`DatabaseLease::with`], also telling `f` whether the handle was opened for this
    /// operation (`true`: another process may have committed since this one last had the
    /// file) or kept from an earlier one (`false`: nothing else can have written since).
    pub(crate) fn with_fresh<T, E: From<LeaseError>>(
        &self,
        create: bool,
        f: impl FnOnce(&Database, bool) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut slot = self.shared.lock();
        let (held, fresh) = match slot.held.take() {
            Some(held) if held.opened.elapsed() < MAX_TENURE => (held, false),
            Some(held) if !waiting_marker(&self.path).exists() => (
                Held {
                    opened: Instant::now(),
                    ..held
                },
                false,
            ),
            previous => {
                if let Some(previous) = previous {
                    drop(previous);
                    // Still holding the mutex: this process's other operations wait too.
                    thread::sleep(HANDOFF_PAUSE);
                }
                let db = open(&self.path, create, self.lock_timeout)?;
                let now = Instant::now();
                let held = Held {
                    db,
                    opened: now,
                    last_used: now,
                };
                (held, true)
            }
        };
        let result = f(&held.db, fresh);
        if result.is_ok() {
            slot.held = Some(Held {
                last_used: Instant::now(),
                ..held
            });
            self.start_closer(&mut slot);
        }
        result
    }

    /// One closer thread per lease while a handle is held; it ends when the handle closes, so
    /// an idle process (or a CLI between prompts) keeps no thread and no file open.
    fn start_closer(&self, slot: &mut MutexGuard<'_, Slot>) {
        if slot.closer {
            return;
        }
        let shared = Arc::clone(&self.shared);
        let spawned = thread::Builder::new()
            .name(self.closer_name.into())
            .spawn(move || shared.close_when_idle());
        slot.closer = spawned.is_ok();
        if !slot.closer {
            // Nothing would close the handle later, so it is closed now (the old behaviour).
            slot.held = None;
        }
    }
}

impl Shared {
    /// The slot is consistent whenever the mutex is free (see [`Slot::held`]), so a
    /// poisoned mutex is used as it is.
    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn close_when_idle(&self) {
        let mut slot = self.lock();
        while let Some(held) = &slot.held {
            let idle = held.last_used.elapsed();
            if idle >= IDLE_WINDOW {
                slot.held = None;
                break;
            }
            slot = self
                .wake
                .wait_timeout(slot, IDLE_WINDOW - idle)
                .map_or_else(|poisoned| poisoned.into_inner().0, |(slot, _)| slot);
        }
        slot.closer = false;
    }
}

impl Drop for DatabaseLease {
    /// Closes the file now, not when the closer next wakes (which then finds nothing to do).
    fn drop(&mut self) {
        let mut slot = self.shared.lock();
        slot.held = None;
        self.shared.wake.notify_all();
    }
}

impl fmt::Debug for DatabaseLease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseLease")
            .field("path", &self.path)
            .field("lock_timeout", &self.lock_timeout)
            .finish_non_exhaustive()
    }
}

/// The file a process waiting for `path` keeps beside it (`trading.redb.waiting`), so the
/// process holding `path` in constant use knows to hand it over (see [`MAX_TENURE`]). A
/// marker left by a process that died while waiting only costs the holder a hand-off per
/// tenure, as if somebody waited.
fn waiting_marker(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".waiting");
    PathBuf::from(name)
}

/// Opens the file, retrying while another process has it open, until the lock timeout.
/// While it retries, the [`waiting_marker`] says so; it is removed when the wait ends.
fn open(path: &Path, create: bool, lock_timeout: Duration) -> Result<Database, LeaseError> {
    let marker = waiting_marker(path);
    let mut marked = false;
    let opened = open_retrying(path, create, lock_timeout, || {
        // Made again at each retry: another waiter that got the file removed it.
        if !marker.exists() {
            marked |= std::fs::File::create(&marker).is_ok();
        }
    });
    if marked {
        let _ = std::fs::remove_file(&marker);
    }
    opened
}

fn open_retrying(
    path: &Path,
    create: bool,
    lock_timeout: Duration,
    mut waiting: impl FnMut(),
) -> Result<Database, LeaseError> {
    let deadline = Instant::now() + lock_timeout;
    let mut sleep = Duration::from_millis(2);
    loop {
        let builder = Builder::new();
        let opened = if create {
            builder.create(path)
        } else {
            builder.open(path)
        };
        match opened {
            Ok(db) => return Ok(db),
            Err(DatabaseError::DatabaseAlreadyOpen) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(LeaseError::Busy);
                }
                waiting();
                thread::sleep(sleep.min(deadline - now));
                sleep = (sleep * 2).min(MAX_RETRY_SLEEP);
            }
            Err(err) => return Err(LeaseError::Open(err.to_string())),
        }
    }
}

/// Opens the file directly once every lease has let go of it (a closer runs after the idle
/// window; on a loaded machine it can run late).
#[cfg(test)]
pub(crate) fn open_when_released(path: &Path) -> Database {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match Database::open(path) {
            Ok(db) => return db,
            Err(DatabaseError::DatabaseAlreadyOpen) if Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(5));
            }
            Err(err) => panic!("a lease kept the file: {err}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs operations back to back for `run`; returns how many found the handle opened anew
    /// and how many gaps between operations were long enough for the closer to drop it.
    fn busy(lease: &DatabaseLease, run: Duration) -> (usize, usize) {
        let (mut reopened, mut gaps) = (0, 0);
        let started = Instant::now();
        let mut last = Instant::now();
        while started.elapsed() < run {
            gaps += usize::from(last.elapsed() >= IDLE_WINDOW);
            lease
                .with_fresh(true, |_, fresh| {
                    reopened += usize::from(fresh);
                    Ok::<_, LeaseError>(())
                })
                .expect("the file");
            last = Instant::now();
        }
        (reopened, gaps)
    }

    #[test]
    fn a_busy_handle_is_handed_over_only_when_somebody_waits() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("l.redb");
        let lease = DatabaseLease::new(path.clone(), Duration::from_secs(5), "test-closer");
        let run = MAX_TENURE * 2 + MAX_TENURE / 2;
        // Alone: opened once, kept past its tenure (a descheduled thread may let the closer
        // drop it, and each such gap may cost one more open).
        let (reopened, gaps) = busy(&lease, run);
        assert!(
            reopened >= 1 && reopened <= 1 + gaps,
            "{reopened} opens, {gaps} gaps"
        );
        // A waiter's marker: handed over at every tenure's end.
        std::fs::write(waiting_marker(&path), b"").expect("marker");
        let (reopened, gaps) = busy(&lease, run);
        assert!(reopened >= 2, "{reopened} opens, {gaps} gaps");
    }

    #[test]
    fn a_waiter_marks_its_wait_and_clears_the_mark() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("l.redb");
        let holder = DatabaseLease::new(path.clone(), Duration::from_secs(5), "test-closer");
        holder
            .with(true, |_| Ok::<_, LeaseError>(()))
            .expect("the file");
        let marker = waiting_marker(&path);
        thread::scope(|s| {
            let waiter = s.spawn(|| open(&path, false, Duration::from_secs(5)).map(drop));
            // The holder keeps the file busy until the waiter has marked its wait.
            let deadline = Instant::now() + Duration::from_secs(5);
            while !marker.exists() && Instant::now() < deadline {
                holder
                    .with(false, |_| Ok::<_, LeaseError>(()))
                    .expect("the file");
                thread::sleep(Duration::from_millis(5));
            }
            assert!(marker.exists(), "the waiter marked its wait");
            waiter
                .join()
                .expect("waiter")
                .expect("opened once the holder went quiet");
        });
        assert!(!marker.exists(), "the mark is cleared");
    }
}
