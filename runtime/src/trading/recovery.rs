//! Reconciling uncertain mutations: one read of E*TRADE's order (or alert) list per entry,
//! matched by [`super::reconcile`]. Entries left pending by a stopped server, or marked
//! uncertain when a call was cancelled, are reconciled on the next call.

use super::desk::{OrderDesk, blocking};
use super::reconcile::{
    ABANDONED_AFTER, Matched, find_order, find_replacement, match_placement, status_of,
};
use super::store::JournalPage;
use super::types::*;
use crate::calendar;
use crate::contract::errors::ToolError;
use crate::etrade::answers::BrokerAnswer;
use crate::etrade::models::alerts::AlertList;
use crate::etrade::models::orders::{Order, OrderList};
use crate::etrade::{Endpoint, EtradeRequest};

/// At most this many outstanding entries are reconciled per call, so one call stays quick.
const RECOVER_PER_CALL: usize = 5;
/// Order-list pages read per reconciliation.
const MAX_PAGES: usize = 3;

impl OrderDesk {
    /// Reconcile what earlier calls left uncertain or abandoned (best effort).
    pub async fn recover(&self) {
        let (env, profile) = (self.environment.clone(), self.profile.clone());
        let Ok(Ok(mut outstanding)) = blocking(&self.store, move |s| {
            s.needing_reconciliation(&env, &profile)
        })
        .await
        else {
            return;
        };
        let (env, profile) = (self.environment.clone(), self.profile.clone());
        if let Ok(Ok(page)) = blocking(&self.store, move |s| {
            s.journal_page(&env, &profile, None, 100)
        })
        .await
        {
            let now = (self.clock)();
            let in_flight = self.in_flight.lock().map(|s| s.clone()).unwrap_or_default();
            for e in page.entries {
                let preview = matches!(
                    e.intent.kind,
                    MutationKind::PreviewOrder | MutationKind::PreviewChangeOrder
                );
                if e.outcome == Outcome::Pending
                    && !preview
                    && !in_flight.contains(&e.id)
                    && now.duration_since(e.intent.intent_at) > ABANDONED_AFTER
                {
                    let outcome = Outcome::Uncertain {
                        at: now,
                        reason: "No answer was recorded: the server stopped while the request was in flight.".into(),
                    };
                    let id = e.id;
                    let marked = blocking(&self.store, move |s| {
                        s.record_outcome_if_pending(id, &outcome)
                    })
                    .await;
                    if matches!(marked, Ok(Ok(true))) {
                        outstanding.push(e);
                    }
                }
            }
        }
        for e in outstanding.into_iter().take(RECOVER_PER_CALL) {
            self.reconcile_entry(e.id).await;
        }
    }

    /// Reconcile one journal entry and record the result; None if it could not be stored.
    pub async fn reconcile_entry(&self, journal_id: u64) -> Option<Reconciliation> {
        let entry = blocking(&self.store, move |s| s.journal_entry(journal_id))
            .await
            .ok()?
            .ok()??;
        let rec = self.reconciliation(&entry).await;
        let stored = rec.clone();
        match blocking(&self.store, move |s| {
            s.record_reconciliation(journal_id, &stored)
        })
        .await
        {
            Ok(Ok(())) => Some(rec),
            _ => {
                tracing::warn!(journal = journal_id, "could not journal a reconciliation");
                None
            }
        }
    }

    async fn reconciliation(&self, entry: &JournalEntry) -> Reconciliation {
        let at = (self.clock)();
        let unknown = |note: &str| Reconciliation::noted(ReconcileStatus::Unknown, at, note);
        let intent = &entry.intent;
        if intent.kind == MutationKind::DeleteAlerts {
            return self.reconcile_alerts(intent).await;
        }
        let Some(account) = intent.account_id_key.as_deref() else {
            return unknown("the journal entry names no account");
        };
        match intent.kind {
            MutationKind::PlaceOrder => {
                let Some(preview_id) = intent.preview_id.clone() else {
                    return unknown("the journal entry names no preview");
                };
                let Ok(Ok(Some(preview))) =
                    blocking(&self.store, move |s| s.preview(&preview_id)).await
                else {
                    return unknown("the stored preview could not be read");
                };
                // E*TRADE wants `toDate` after `fromDate` (pyetrade's documentation of the
                // order list) and does not say whether `toDate` is inclusive or which zone its
                // days are in. From the day before the attempt to the day after (New York)
                // certainly holds the order; the match below bounds it by time.
                let day = calendar::trading_day(intent.intent_at);
                let (Ok(from), Ok(to)) = (day.yesterday(), day.tomorrow()) else {
                    return unknown("the attempt's date is out of range");
                };
                let symbols: Vec<&str> = {
                    let mut v: Vec<&str> = preview
                        .summary
                        .legs
                        .iter()
                        .map(|l| l.symbol.as_str())
                        .collect();
                    v.dedup();
                    v
                };
                let query = orders_of(account)
                    .with("fromDate", from)
                    .with("toDate", to)
                    .with(
                        "symbol",
                        symbols.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                    )
                    .with("count", 100);
                let orders = match self.list_orders_paged(&query).await {
                    Ok(o) => o,
                    Err(_) => return unknown("E*TRADE's order list could not be read"),
                };
                let known = self.known_order_ids(entry.id).await;
                match match_placement(&preview, intent.intent_at, &orders, &known) {
                    Matched::One(o) => found(at, o, "an order matching the placement is listed"),
                    Matched::None => Reconciliation::noted(
                        ReconcileStatus::NotFound,
                        at,
                        "no matching order is listed from the day before the attempt to the day after",
                    ),
                    Matched::Ambiguous(_) => {
                        unknown("several listed orders match; check list_orders")
                    }
                }
            }
            MutationKind::PlaceChangeOrder | MutationKind::CancelOrder => {
                let Some(target) = intent.target_order_id else {
                    return unknown("the journal entry names no order");
                };
                let query = orders_of(account).with("count", 100);
                let orders = match self.list_orders_paged(&query).await {
                    Ok(o) => o,
                    Err(_) => return unknown("E*TRADE's order list could not be read"),
                };
                if intent.kind == MutationKind::PlaceChangeOrder {
                    if let Some(o) = find_replacement(&orders, target) {
                        return found(at, o, "a replacement order is listed");
                    }
                    return match find_order(&orders, target) {
                        Some(o) if status_of(o) == Some("OPEN") => Reconciliation::of_order(
                            ReconcileStatus::NotFound,
                            at,
                            o,
                            "the original order is still open and unchanged",
                        ),
                        _ => unknown("no replacement is listed and the original is not open"),
                    };
                }
                match find_order(&orders, target) {
                    Some(o) => match status_of(o) {
                        Some("CANCELLED") | Some("CANCEL_REQUESTED") => found(
                            at,
                            o,
                            "the order is cancelled or its cancellation is pending",
                        ),
                        _ => Reconciliation::of_order(
                            ReconcileStatus::NotFound,
                            at,
                            o,
                            "the order is listed and not cancelled",
                        ),
                    },
                    None => unknown("the order is not in the first pages of the order list"),
                }
            }
            MutationKind::DeleteAlerts
            | MutationKind::PreviewOrder
            | MutationKind::PreviewChangeOrder => unknown("nothing to reconcile for this entry"),
        }
    }

    async fn reconcile_alerts(&self, intent: &JournalIntent) -> Reconciliation {
        let at = (self.clock)();
        let listed = self
            .session
            .call(&EtradeRequest::read(Endpoint::Alerts).with("count", 300))
            .await;
        let alerts = match listed {
            Ok(body) => AlertList::from_wire(body).ok(),
            // An empty inbox is E*TRADE's 404 with code 53 and nothing else: any other
            // refusal leaves the outcome unknown.
            Err(e) => AlertList::from_refusal(&e),
        };
        let Some(alerts) = alerts else {
            return Reconciliation::noted(
                ReconcileStatus::Unknown,
                at,
                "E*TRADE's alert list could not be read",
            );
        };
        let remaining = intent
            .alert_ids
            .iter()
            .filter(|id| alerts.alerts.iter().any(|a| a.id == **id))
            .count();
        let (status, note) = if remaining == 0 {
            (
                ReconcileStatus::Found,
                "none of the alerts is listed any more: deleted",
            )
        } else if remaining == intent.alert_ids.len() {
            (
                ReconcileStatus::NotFound,
                "all of the alerts are still listed: not deleted",
            )
        } else {
            (
                ReconcileStatus::Unknown,
                "some of the alerts are still listed",
            )
        };
        Reconciliation::noted(status, at, note)
    }

    /// One page of E*TRADE's order list.
    async fn order_page(&self, request: &EtradeRequest) -> Result<OrderList, ToolError> {
        let body = self.session.call(request).await?;
        OrderList::from_wire(body)
            .map_err(|_| ToolError::new(crate::contract::errors::ErrorCode::InvalidBrokerResponse))
    }

    /// Up to [`MAX_PAGES`] pages of E*TRADE's order list for one query.
    async fn list_orders_paged(&self, query: &EtradeRequest) -> Result<Vec<Order>, ToolError> {
        let mut all = Vec::new();
        let mut marker: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let page = self
                .order_page(&query.clone().with_opt("marker", marker.take()))
                .await?;
            all.extend(page.orders);
            match page.marker {
                Some(m) => marker = Some(m),
                None => break,
            }
        }
        Ok(all)
    }

    /// Order ids other journal entries already account for (so a twin order placed
    /// earlier is not mistaken for this one).
    async fn known_order_ids(&self, except: u64) -> Vec<i64> {
        let (env, profile) = (self.environment.clone(), self.profile.clone());
        let Ok(Ok(page)) = blocking(&self.store, move |s| {
            s.journal_page(&env, &profile, None, 100)
        })
        .await
        else {
            return Vec::new();
        };
        page.entries
            .iter()
            .filter(|e| e.id != except && e.intent.kind != MutationKind::CancelOrder)
            .filter_map(|e| match &e.outcome {
                Outcome::Succeeded { order_id, .. } => *order_id,
                _ => None,
            })
            .chain(
                page.entries
                    .iter()
                    .filter(|e| e.id != except)
                    .filter_map(|e| {
                        e.reconciliation
                            .as_ref()
                            .filter(|r| r.status == ReconcileStatus::Found)
                            .and_then(|r| r.order_id)
                    }),
            )
            .collect()
    }

    /// list_order_journal: reconcile what is outstanding, then one page, newest first.
    pub async fn journal(
        &self,
        before: Option<u64>,
        limit: usize,
    ) -> Result<JournalPage, ToolError> {
        self.recover().await;
        let (env, profile) = (self.environment.clone(), self.profile.clone());
        blocking(&self.store, move |s| {
            s.journal_page(&env, &profile, before, limit)
        })
        .await?
        .map_err(|e| super::desk::store_error(&e))
    }
}

fn found(at: jiff::Timestamp, o: &Order, note: &str) -> Reconciliation {
    Reconciliation::of_order(ReconcileStatus::Found, at, o, note)
}

/// E*TRADE's order list of one account, before its query parameters.
fn orders_of(account: &str) -> EtradeRequest {
    EtradeRequest::read(Endpoint::Orders).at("accountIdKey", account)
}
