//! How many MCP sessions streamable HTTP keeps at once, and which one gives way at the cap.
//!
//! A session costs a worker task, its channels and a server handler, and one `initialize`
//! opens it, so without a cap a client that loops on `initialize` (or one that reconnects
//! without ever sending DELETE) grows the process until it is killed.
//!
//! At the cap a new session takes the place of one that gives way, or is refused with 503.
//! Which gives way is unfair to a flood rather than to a person:
//! - a session gives way only after no work for a fifth of the idle timeout (60 s by
//!   default), and never while it has an answer or a GET stream open;
//! - only work counts: a request or answer other than `ping`, `notifications/initialized`
//!   or a GET stream, so pinging every slot holds none of them;
//! - of the sessions that may give way, those that never did any work (opened, perhaps
//!   pinged, nothing else) go first, then the one idle longest: a flood that opens sessions
//!   in a loop ends its own before a person's that did work.
//!
//! Refusing alone would lock a person out for a whole idle timeout after some client leaked
//! sessions; evicting the oldest regardless would let whoever opens sessions fastest end a
//! person's session while it is in use. A determined local client can still hold every slot
//! by doing real work in each: the cap bounds memory, it cannot tell one local caller from
//! another. A bearer token can: with one configured, a client without it gets 401 before
//! the table sees it.
//!
//! The table sits in the HTTP middleware rather than behind rmcp's `SessionManager`, as
//! that is where each session is born (the `Mcp-Session-Id` of an admitted `initialize`
//! answer), used (a request carrying the id) and ended by the client (a DELETE answered
//! 2xx). Sessions rmcp ends itself (the idle timeout) leave the table the next time the
//! cap is reached, when it is checked against rmcp's own session map.

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

pub const DEFAULT_MAX_SESSIONS: usize = 256;
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// A session idle this fraction of the idle timeout may give way to a new one at the cap.
const EVICTABLE_AFTER_FRACTION: u32 = 5;

/// What a request does for its session's standing at the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// A request or answer that does something for the client.
    Work,
    /// `ping`, `notifications/initialized`, or a GET stream: keeps a connection and does no
    /// work, so it does not count as activity (an open GET stream still keeps the session
    /// in use while it lasts).
    KeepAlive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Sessions kept at once (at least 1).
    pub max_sessions: usize,
    /// A session with no request for this long is ended by rmcp.
    pub idle_timeout: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits {
            max_sessions: DEFAULT_MAX_SESSIONS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
        }
    }
}

impl SessionLimits {
    /// How long a session must have been idle before a new one may take its place.
    pub fn evictable_after(&self) -> Duration {
        self.idle_timeout / EVICTABLE_AFTER_FRACTION
    }
}

/// A refused `initialize`: the cap is reached and no session may give way yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub max_sessions: usize,
    /// When a slot may free up at the earliest (at least a second).
    pub retry_after: Duration,
}

impl Refusal {
    /// `retry_after` in whole seconds, rounded up (for `Retry-After`).
    pub fn retry_after_secs(&self) -> u64 {
        self.retry_after.as_secs() + u64::from(self.retry_after.subsec_nanos() > 0)
    }
}

pub struct SessionTable {
    manager: Arc<LocalSessionManager>,
    limits: SessionLimits,
    book: Mutex<Book>,
}

#[derive(Default)]
struct Book {
    live: HashMap<SessionId, Use>,
    /// `initialize` requests let in whose session id is not known yet.
    admitting: usize,
}

struct Use {
    /// The map's key again, so a request can borrow the id without allocating one.
    id: SessionId,
    /// The end of its last work (or when it opened, if it has done none).
    last_active: Instant,
    /// It has done work since it opened.
    worked: bool,
    /// Answers and GET streams still open: while any is, the session is in use.
    open: usize,
}

impl SessionTable {
    pub fn new(limits: SessionLimits) -> Arc<SessionTable> {
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(limits.idle_timeout);
        Arc::new(SessionTable {
            manager: Arc::new(manager),
            limits: SessionLimits {
                max_sessions: limits.max_sessions.max(1),
                ..limits
            },
            book: Mutex::default(),
        })
    }

    /// The session manager to hand to rmcp's `StreamableHttpService`.
    pub fn manager(&self) -> Arc<LocalSessionManager> {
        self.manager.clone()
    }

    fn book(&self) -> MutexGuard<'_, Book> {
        // The book holds counts and instants only; one left half-updated by a panic is
        // still better than refusing every request from then on.
        self.book.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Room for one more session, making it if the cap is reached and a session may give
    /// way. The ticket holds the slot until the answer names the new session.
    pub async fn admit(&self) -> Result<Ticket<'_>, Refusal> {
        if let Some(ticket) = self.reserve() {
            return Ok(ticket);
        }
        self.forget_ended().await;
        let (ticket, evicted) = self.reserve_or_evict()?;
        if let Some(id) = evicted {
            tracing::info!(
                max_sessions = self.limits.max_sessions,
                "MCP session cap reached: ending the longest-idle session for a new one"
            );
            if let Err(e) = self.manager.close_session(&id).await {
                tracing::debug!(error = %e, "closing an evicted session");
            }
        }
        Ok(ticket)
    }

    fn reserve(&self) -> Option<Ticket<'_>> {
        let mut book = self.book();
        if book.live.len() + book.admitting >= self.limits.max_sessions {
            return None;
        }
        book.admitting += 1;
        Some(Ticket { table: self })
    }

    /// Drop the sessions rmcp has ended on its own (idle timeout, a failed handshake).
    async fn forget_ended(&self) {
        let sessions = self.manager.sessions.read().await;
        self.book().live.retain(|id, _| sessions.contains_key(id));
    }

    fn reserve_or_evict(&self) -> Result<(Ticket<'_>, Option<SessionId>), Refusal> {
        let mut book = self.book();
        if book.live.len() + book.admitting < self.limits.max_sessions {
            book.admitting += 1;
            return Ok((Ticket { table: self }, None));
        }
        let now = Instant::now();
        // Sessions that never worked go first, then the longest idle.
        let grace = self.limits.evictable_after();
        let mut victim: Option<(&SessionId, (bool, Instant))> = None;
        let mut soonest = grace;
        for (id, u) in book.live.iter().filter(|(_, u)| u.open == 0) {
            let idle = now.saturating_duration_since(u.last_active);
            soonest = soonest.min(grace.saturating_sub(idle));
            let rank = (u.worked, u.last_active);
            if idle >= grace && victim.is_none_or(|(_, best)| rank < best) {
                victim = Some((id, rank));
            }
        }
        let Some(id) = victim.map(|(id, _)| id.clone()) else {
            tracing::debug!(
                max_sessions = self.limits.max_sessions,
                "MCP session cap reached: refusing a new session"
            );
            return Err(Refusal {
                max_sessions: self.limits.max_sessions,
                retry_after: soonest.max(Duration::from_secs(1)),
            });
        };
        book.live.remove(&id);
        book.admitting += 1;
        Ok((Ticket { table: self }, Some(id)))
    }

    /// A request in session `id`: the table's own id for it, if the session is known.
    pub fn touch(&self, id: &str, activity: Activity) -> Option<SessionId> {
        let mut book = self.book();
        let u = book.live.get_mut(id)?;
        if activity == Activity::Work {
            u.last_active = Instant::now();
            u.worked = true;
        }
        Some(u.id.clone())
    }

    /// The session's answer (or GET stream) is open until the returned value is dropped
    /// with the answer's body.
    pub fn hold(self: &Arc<Self>, id: SessionId, activity: Activity) -> InUse {
        if let Some(u) = self.book().live.get_mut(&id) {
            u.open += 1;
        }
        InUse {
            table: self.clone(),
            id,
            activity,
        }
    }

    /// Whether rmcp still serves session `id` (it ends sessions itself at the idle timeout).
    pub async fn is_live(&self, id: &str) -> bool {
        self.manager
            .sessions
            .read()
            .await
            .contains_key(&SessionId::from(id))
    }

    /// The client ended session `id` (DELETE).
    pub fn forget(&self, id: &str) {
        self.book().live.remove(id);
    }

    /// Sessions the table counts (for tests and logs).
    pub fn len(&self) -> usize {
        self.book().live.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A slot held for an admitted `initialize` until its answer names the session.
pub struct Ticket<'a> {
    table: &'a SessionTable,
}

impl Ticket<'_> {
    /// The answer created session `id`: it takes the slot.
    pub fn register(self, id: SessionId) {
        // Both under one lock: in between, the session would count twice and a concurrent
        // `initialize` could be refused below the cap.
        let mut book = self.table.book();
        let u = Use {
            id: id.clone(),
            last_active: Instant::now(),
            worked: false,
            open: 0,
        };
        book.live.insert(id, u);
        book.admitting = book.admitting.saturating_sub(1);
        drop(book);
        // The slot is taken over, not released: skip the release in `drop`.
        std::mem::forget(self);
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let mut book = self.table.book();
        book.admitting = book.admitting.saturating_sub(1);
    }
}

/// An open answer or stream of a session; the session counts as in use while it lives.
pub struct InUse {
    table: Arc<SessionTable>,
    id: SessionId,
    activity: Activity,
}

impl Drop for InUse {
    fn drop(&mut self) {
        if let Some(u) = self.table.book().live.get_mut(&self.id) {
            u.open = u.open.saturating_sub(1);
            if self.activity == Activity::Work {
                u.last_active = Instant::now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(max: usize, idle_secs: u64) -> Arc<SessionTable> {
        SessionTable::new(SessionLimits {
            max_sessions: max,
            idle_timeout: Duration::from_secs(idle_secs),
        })
    }

    fn idle_for(table: &SessionTable, id: &str, d: Duration) {
        let mut book = table.book();
        if let Some(u) = book.live.get_mut(id) {
            u.last_active = Instant::now() - d;
        }
    }

    /// Mark `id` as having worked, keeping how long it has been idle.
    fn worked(table: &SessionTable, id: &str) {
        if let Some(u) = table.book().live.get_mut(id) {
            u.worked = true;
        }
    }

    // The table is checked against rmcp's map at the cap; these ids must be in it.
    async fn fake_session(table: &SessionTable, id: &str) {
        let (handle, _worker) =
            rmcp::transport::streamable_http_server::session::local::create_local_session(
                id,
                Default::default(),
            );
        table
            .manager
            .sessions
            .write()
            .await
            .insert(id.into(), handle);
    }

    async fn open(table: &SessionTable, id: &str) {
        fake_session(table, id).await;
        table.admit().await.expect("admitted").register(id.into());
    }

    #[tokio::test]
    async fn refuses_at_the_cap_while_nothing_is_idle() {
        let t = table(2, 300);
        open(&t, "a").await;
        open(&t, "b").await;
        let refusal = t.admit().await.err().expect("refused");
        assert_eq!(refusal.max_sessions, 2);
        assert!(
            refusal.retry_after >= Duration::from_secs(59),
            "{refusal:?}"
        );
        t.forget("a");
        assert!(t.admit().await.is_ok(), "a DELETE frees a slot");
    }

    #[tokio::test]
    async fn an_unused_ticket_frees_its_slot() {
        let t = table(1, 300);
        let ticket = t.admit().await.expect("admitted");
        assert!(t.admit().await.is_err(), "the ticket holds the slot");
        drop(ticket);
        assert!(t.admit().await.is_ok());
    }

    #[tokio::test]
    async fn evicts_the_longest_idle_session_not_one_in_use() {
        let t = table(3, 300);
        for id in ["busy", "old", "older"] {
            open(&t, id).await;
        }
        idle_for(&t, "busy", Duration::from_secs(1000));
        idle_for(&t, "old", Duration::from_secs(100));
        idle_for(&t, "older", Duration::from_secs(200));
        for id in ["busy", "old", "older"] {
            worked(&t, id);
        }
        let key = t.touch("busy", Activity::Work).expect("known");
        idle_for(&t, "busy", Duration::from_secs(1000));
        let held = t.hold(key, Activity::Work);
        open(&t, "new").await;
        let live = |t: &SessionTable| {
            let mut ids: Vec<String> = t.book().live.keys().map(|k| k.to_string()).collect();
            ids.sort();
            ids
        };
        assert_eq!(live(&t), ["busy", "new", "old"]);
        assert!(!t.manager.sessions.read().await.contains_key("older"));
        worked(&t, "new");
        open(&t, "newer").await;
        assert_eq!(live(&t), ["busy", "new", "newer"]);
        worked(&t, "newer");
        // Only the held session has been idle long enough, and it is in use.
        assert!(t.admit().await.is_err());
        drop(held);
        // Released just now: idle again only after the grace period.
        assert!(t.admit().await.is_err());
    }

    /// A flood that pings every slot holds none of them: pings are not work.
    #[tokio::test]
    async fn pings_do_not_keep_a_session_from_giving_way() {
        let t = table(2, 300);
        open(&t, "person").await;
        open(&t, "flood").await;
        let person = t.touch("person", Activity::Work).expect("known");
        drop(t.hold(person, Activity::Work));
        idle_for(&t, "person", Duration::from_secs(30));
        idle_for(&t, "flood", Duration::from_secs(60));
        let ping = t.touch("flood", Activity::KeepAlive).expect("known");
        drop(t.hold(ping, Activity::KeepAlive));
        // The flood's session pinged just now and still gives way; the person's, which
        // worked 30 s ago, stays.
        open(&t, "new").await;
        let live: Vec<String> = t.book().live.keys().map(|k| k.to_string()).collect();
        assert!(live.contains(&"person".to_string()), "{live:?}");
        assert!(!live.contains(&"flood".to_string()), "{live:?}");
    }

    /// Of the sessions that may give way, one that never worked goes before one that did,
    /// however long the other has been idle.
    #[tokio::test]
    async fn sessions_that_never_worked_give_way_first() {
        let t = table(3, 300);
        for id in ["worker", "opener-1", "opener-2"] {
            open(&t, id).await;
        }
        worked(&t, "worker");
        idle_for(&t, "worker", Duration::from_secs(250));
        idle_for(&t, "opener-1", Duration::from_secs(61));
        idle_for(&t, "opener-2", Duration::from_secs(62));
        open(&t, "a").await;
        open(&t, "b").await;
        let mut live: Vec<String> = t.book().live.keys().map(|k| k.to_string()).collect();
        live.sort();
        assert_eq!(live, ["a", "b", "worker"]);
        open(&t, "c").await;
        let mut live: Vec<String> = t.book().live.keys().map(|k| k.to_string()).collect();
        live.sort();
        assert_eq!(
            live,
            ["a", "b", "c"],
            "then the one that worked, idle past the grace"
        );
    }

    #[tokio::test]
    async fn sessions_rmcp_ended_are_forgotten_at_the_cap() {
        let t = table(1, 300);
        open(&t, "gone").await;
        t.manager.sessions.write().await.remove("gone");
        assert_eq!(t.len(), 1);
        assert!(t.admit().await.is_ok());
        assert!(t.is_empty());
    }
}
