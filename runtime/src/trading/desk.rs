//! The order desk: every order and alert mutation of one environment/profile goes through
//! here. It previews and stores exactly what was previewed, applies the trading policy,
//! journals each mutation before and after it is sent, sends it once (never retried), and
//! on an uncertain outcome reconciles against E*TRADE's own lists (see [`super::recovery`]).

use super::approval;
use super::body;
use super::halt::HaltSwitch;
use super::order::OrderTicket;
use super::policy::TradingPolicy;
use super::store::{ClaimError, PreviewClaim, StoreError, TradingStore};
use super::types::*;
use super::validate::check_ticket;
use crate::broker::Broker;
use crate::calendar;
use crate::contract::error_mapping::Operation;
use crate::contract::errors::{AlertDeletionResult, ErrorCode, ToolError};
use crate::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use crate::etrade::models::order_entry::{
    AlertDeletion, BrokerCancellation, BrokerPlacement, BrokerPreview,
};
use crate::etrade::{Clock, Endpoint, EtradeRequest};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// A stored preview and E*TRADE's answer.
#[derive(Debug, Clone)]
pub struct PreviewOutcome {
    pub record: PreviewRecord,
    pub broker: BrokerPreview,
}

#[derive(Debug, Clone)]
pub struct Placement {
    pub order_id: i64,
    pub client_order_id: String,
    pub journal_id: u64,
    pub broker: BrokerPlacement,
}

#[derive(Debug, Clone)]
pub struct Cancellation {
    pub order_id: i64,
    pub journal_id: u64,
    pub broker: BrokerCancellation,
}

#[derive(Debug, Clone)]
pub struct AlertsDeleted {
    pub deleted: Vec<i64>,
    pub journal_id: u64,
}

pub struct OrderDesk {
    pub(super) store: Arc<TradingStore>,
    pub(super) policy: TradingPolicy,
    pub(super) environment: String,
    pub(super) profile: String,
    pub(super) session: Arc<dyn Broker>,
    pub(super) clock: Clock,
    /// Journal ids of mutations this process is sending right now (not abandoned).
    pub(super) in_flight: Arc<Mutex<HashSet<u64>>>,
    /// `etrade halt`: checked before every mutation (see [`OrderDesk::with_halt`]).
    pub(super) halt: Option<HaltSwitch>,
    /// The local approval page, offered in refusals of unapproved placements.
    pub(super) approval_links: Option<Arc<dyn approval::ApprovalLinks>>,
    /// The approval PIN the order ticket app must give when one is set; without it the app
    /// approves nothing.
    pub(super) approval_pin: Option<Arc<crate::trading::approval_pin::ApprovalPin>>,
    /// How a person runs `etrade` in a terminal here: `etrade` when that is on PATH, else
    /// the running binary's full path (a host starts the server by path).
    pub(super) approve_program: String,
}

impl OrderDesk {
    /// The environment this desk trades in (`sandbox`, `production`, `paper`).
    pub fn environment(&self) -> &str {
        &self.environment
    }

    pub fn profile(&self) -> &str {
        &self.profile
    }
}

/// Run a store operation off the async workers (opening may wait for another process).
pub(super) async fn blocking<T: Send + 'static>(
    store: &Arc<TradingStore>,
    f: impl FnOnce(&TradingStore) -> T + Send + 'static,
) -> Result<T, ToolError> {
    let store = store.clone();
    tokio::task::spawn_blocking(move || f(&store))
        .await
        .map_err(|_| ToolError::internal())
}

pub(super) fn store_error(e: &StoreError) -> ToolError {
    // The store's texts carry no record contents, only what went wrong with the file.
    ToolError {
        message: format!(
            "{} The local trading database: {e}.",
            ErrorCode::InternalError.summary()
        ),
        ..ToolError::internal()
    }
}

fn refusal(r: &PolicyRefusal) -> ToolError {
    ToolError::execution_disabled(&r.message)
}

fn preview_problem(code: &'static str, message: &'static str) -> ToolError {
    client_validation_error([ClientProblem {
        path: vec![PathSegment::Key("preview_id")],
        reason: ClientReason::Rule { code, message },
    }])
}

fn claim_error(e: ClaimError) -> ToolError {
    match e {
        ClaimError::NotFound => preview_problem(
            "preview_unknown",
            "No stored preview has this id; preview the order first.",
        ),
        ClaimError::OtherEnvironment => preview_problem(
            "preview_other_environment",
            "This preview was made in another environment or profile; preview the order here.",
        ),
        ClaimError::OtherAccount => preview_problem(
            "preview_other_account",
            "This preview was made for another account.",
        ),
        ClaimError::WrongKind => preview_problem(
            "preview_wrong_kind",
            "This preview is for another kind of request or another order (use place_order for preview_order and place_change_order for preview_change_order, with the same order_id).",
        ),
        ClaimError::Expired => preview_problem(
            "preview_expired",
            "This preview has expired; preview the order again.",
        ),
        ClaimError::AlreadyUsed => preview_problem(
            "preview_used",
            "This preview was already placed; a preview places at most one order. Preview again for another order.",
        ),
        ClaimError::NotApproved => ToolError::execution_disabled("The order was not approved."),
        ClaimError::Rejected => ToolError::execution_disabled(
            "A person rejected this order; it will not be placed. Preview it again if it should change.",
        ),
        ClaimError::Policy(r) => refusal(&r),
        ClaimError::Store(s) => store_error(&s),
    }
}

/// Marks an in-flight mutation uncertain if its future is dropped (an MCP cancellation)
/// before an outcome was recorded; the next call reconciles it.
struct InFlight {
    id: u64,
    store: Arc<TradingStore>,
    in_flight: Arc<Mutex<HashSet<u64>>>,
    clock: Clock,
    armed: bool,
}

impl InFlight {
    fn new(desk: &OrderDesk, id: u64) -> InFlight {
        if let Ok(mut s) = desk.in_flight.lock() {
            s.insert(id);
        }
        InFlight {
            id,
            store: desk.store.clone(),
            in_flight: desk.in_flight.clone(),
            clock: desk.clock.clone(),
            armed: true,
        }
    }

    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.armed {
            let outcome = Outcome::Uncertain {
                at: (self.clock)(),
                reason: "The call was cancelled before E*TRADE's answer arrived; the request may have reached E*TRADE.".into(),
            };
            if self
                .store
                .record_outcome_if_pending(self.id, &outcome)
                .is_err()
            {
                tracing::warn!(journal = self.id, "could not journal a cancelled mutation");
            }
        }
        if let Ok(mut s) = self.in_flight.lock() {
            s.remove(&self.id);
        }
    }
}

mod app_ticket;
mod approvals;

pub use app_ticket::{TicketStatus, TicketView};
pub use approvals::approve_command;

impl OrderDesk {
    pub fn new(
        store: Arc<TradingStore>,
        policy: TradingPolicy,
        environment: &str,
        profile: &str,
        session: Arc<dyn Broker>,
        clock: Clock,
    ) -> OrderDesk {
        OrderDesk {
            store,
            policy,
            environment: environment.to_string(),
            profile: profile.to_string(),
            session,
            clock,
            in_flight: Arc::new(Mutex::new(HashSet::new())),
            halt: None,
            approval_links: None,
            approval_pin: None,
            approve_program: "etrade".to_string(),
        }
    }

    /// Refuse every mutation (place, change, cancel, delete alerts) while a person has
    /// halted trading with `etrade halt`, before anything is sent or journaled. Previews
    /// still work.
    pub fn with_halt(mut self, halt: HaltSwitch) -> OrderDesk {
        self.halt = Some(halt);
        self
    }

    pub fn halt(&self) -> Option<&HaltSwitch> {
        self.halt.as_ref()
    }

    /// `execution_disabled` while halted, saying who halted, when, why and how to resume.
    fn check_halt(&self) -> Result<(), ToolError> {
        match &self.halt {
            Some(halt) => halt
                .check()
                .map_err(|h| ToolError::execution_disabled(&h.to_string())),
            None => Ok(()),
        }
    }

    pub fn policy(&self) -> &TradingPolicy {
        &self.policy
    }

    pub fn store(&self) -> &Arc<TradingStore> {
        &self.store
    }

    fn intent(&self, kind: MutationKind, account: Option<&str>) -> JournalIntent {
        JournalIntent {
            kind,
            environment: self.environment.clone(),
            profile: self.profile.clone(),
            account_id_key: account.map(str::to_string),
            preview_id: None,
            client_order_id: None,
            target_order_id: None,
            alert_ids: Vec::new(),
            summary: None,
            intent_at: (self.clock)(),
            peer: self.store.peer().map(str::to_string),
        }
    }

    /// preview_order (`change: None`) and preview_change_order (`change: Some(order_id)`).
    pub async fn preview(
        &self,
        account_id_key: &str,
        ticket: &OrderTicket,
        change: Option<i64>,
    ) -> Result<PreviewOutcome, ToolError> {
        let now = (self.clock)();
        let problems = check_ticket(ticket, calendar::trading_day(now));
        if !problems.is_empty() {
            return Err(client_validation_error(problems));
        }
        self.policy
            .check_account(account_id_key)
            .map_err(|r| refusal(&r))?;
        // A priced order can be judged before anything is sent; a MARKET order's size is
        // known only from E*TRADE's estimate, so it is judged after the preview.
        let priced = ticket.summary(None);
        if priced.estimated_notional.is_some() {
            self.policy.check_order(&priced).map_err(|r| refusal(&r))?;
        }
        let client_order_id = ticket
            .client_order_id
            .clone()
            .unwrap_or_else(body::new_client_order_id);
        let fields = body::order_fields(ticket, &client_order_id);
        let (request, kind) = match change {
            None => (
                EtradeRequest::new(Operation::Preview, Endpoint::PreviewOrder),
                PreviewKind::New,
            ),
            Some(order_id) => (
                EtradeRequest::new(Operation::Preview, Endpoint::PreviewChangeOrder)
                    .at("orderId", order_id),
                PreviewKind::Change { order_id },
            ),
        };
        let request = request
            .at("accountIdKey", account_id_key)
            .with_body(body::preview_body(&fields));
        let answer = self.session.call(&request).await?;
        let broker = BrokerPreview::from_wire(answer)
            .map_err(|_| ToolError::new(ErrorCode::InvalidBrokerResponse))?;
        let summary = ticket.summary(broker.estimated_total());
        self.policy.check_order(&summary).map_err(|r| refusal(&r))?;
        let created_at = (self.clock)();
        let record = PreviewRecord {
            preview_id: new_preview_id(),
            kind,
            environment: self.environment.clone(),
            profile: self.profile.clone(),
            account_id_key: account_id_key.to_string(),
            arguments_hash: arguments_hash(account_id_key, kind, &fields),
            order_fields: fields,
            broker_preview_ids: broker
                .preview_ids
                .iter()
                .map(|p| BrokerPreviewId {
                    preview_id: p.preview_id,
                    cash_margin: p.cash_margin.clone(),
                })
                .collect(),
            client_order_id,
            summary,
            created_at,
            expires_at: created_at + self.policy.preview_ttl(),
            used_at: None,
            used_by: None,
            journal_id: None,
            approval: None,
            context: self.preview_context(account_id_key, &broker).await,
        };
        let mut intent = self.intent(
            match change {
                None => MutationKind::PreviewOrder,
                Some(_) => MutationKind::PreviewChangeOrder,
            },
            Some(account_id_key),
        );
        intent.intent_at = created_at;
        intent.preview_id = Some(record.preview_id.clone());
        intent.client_order_id = Some(record.client_order_id.clone());
        intent.target_order_id = change;
        intent.summary = Some(record.summary.clone());
        let outcome = Outcome::Succeeded {
            at: created_at,
            order_id: None,
            deleted_alert_ids: Vec::new(),
        };
        let mut stored = record;
        let record = blocking(&self.store, move |s| {
            let id = s.append_intent(&intent)?;
            stored.journal_id = Some(id);
            s.insert_preview(&stored)?;
            s.record_outcome(id, &outcome)?;
            Ok::<_, StoreError>(stored)
        })
        .await?
        .map_err(|e| store_error(&e))?;
        Ok(PreviewOutcome { record, broker })
    }

    /// place_order (`change: None`) and place_change_order (`change: Some(order_id)`).
    pub async fn place(
        &self,
        account_id_key: &str,
        preview_id: &str,
        change: Option<i64>,
    ) -> Result<Placement, ToolError> {
        self.check_halt()?;
        self.recover().await;
        let now = (self.clock)();
        let id = preview_id.to_string();
        let found = blocking(&self.store, move |s| s.preview(&id))
            .await?
            .map_err(|e| store_error(&e))?;
        // The claim below re-checks everything in one transaction; these early checks only
        // keep the policy from judging a preview that cannot be placed anyway.
        let preview = found.ok_or_else(|| claim_error(ClaimError::NotFound))?;
        if preview.environment != self.environment || preview.profile != self.profile {
            return Err(claim_error(ClaimError::OtherEnvironment));
        }
        self.policy
            .check_account(account_id_key)
            .map_err(|r| refusal(&r))?;
        self.policy
            .check_order(&preview.summary)
            .map_err(|r| refusal(&r))?;
        self.policy
            .check_session(&preview.summary, now)
            .map_err(|r| refusal(&r))?;
        let approval_required = self.policy.approval_required();
        if approval_required
            && !approval::approves(preview.approval.as_ref(), &preview)
            && preview.used_at.is_none()
        {
            return Err(match preview.approval.as_ref().map(|a| a.decision) {
                Some(approval::Decision::Rejected) => claim_error(ClaimError::Rejected),
                _ => self.not_approved(&preview),
            });
        }

        let kind = match change {
            None => PreviewKind::New,
            Some(order_id) => PreviewKind::Change { order_id },
        };
        let mut intent = self.intent(
            match change {
                None => MutationKind::PlaceOrder,
                Some(_) => MutationKind::PlaceChangeOrder,
            },
            Some(account_id_key),
        );
        intent.preview_id = Some(preview_id.to_string());
        intent.client_order_id = Some(preview.client_order_id.clone());
        intent.target_order_id = change;
        intent.summary = Some(preview.summary.clone());
        let policy = self.policy.clone();
        let (env, profile, account, pid) = (
            self.environment.clone(),
            self.profile.clone(),
            account_id_key.to_string(),
            preview_id.to_string(),
        );
        let claimed = blocking(&self.store, move |s| {
            let check = move |u: &DailyUsage, o: &OrderSummary| policy.check_daily(u, o);
            s.claim_preview(&PreviewClaim {
                preview_id: &pid,
                environment: &env,
                profile: &profile,
                account_id_key: &account,
                kind,
                now,
                trading_day: calendar::trading_day(now),
                daily_check: &check,
                intent: &intent,
                approval_required,
            })
        })
        .await?
        .map_err(claim_error)?;
        let journal_id = claimed.journal_id;
        let mut guard = InFlight::new(self, journal_id);

        let request = match change {
            None => EtradeRequest::new(Operation::Mutation, Endpoint::PlaceOrder),
            Some(order_id) => EtradeRequest::new(Operation::Mutation, Endpoint::PlaceChangeOrder)
                .at("orderId", order_id),
        }
        .at("accountIdKey", account_id_key)
        .with_body(body::place_body(
            &claimed.preview.order_fields,
            &claimed.preview.broker_preview_ids,
        ));
        let sent = self
            .send_journaled(
                journal_id,
                &request,
                "The placement may have reached E*TRADE and an order may exist.",
            )
            .await;
        let result = match sent {
            Err(e) => Err(e),
            Ok(answer) => match BrokerPlacement::from_wire(answer) {
                Ok(placed) => {
                    let (order_id, broker) = (placed.order_id, placed.answer);
                    self.finish(
                        journal_id,
                        Outcome::Succeeded {
                            at: (self.clock)(),
                            order_id: Some(order_id),
                            deleted_alert_ids: Vec::new(),
                        },
                    )
                    .await;
                    Ok(Placement {
                        order_id,
                        client_order_id: claimed.preview.client_order_id.clone(),
                        journal_id,
                        broker,
                    })
                }
                Err(_) => Err(self
                    .uncertain(
                        journal_id,
                        "E*TRADE answered, but the answer could not be read (no order id); the order may have been placed.",
                    )
                    .await),
            },
        };
        guard.disarm();
        result
    }

    pub async fn cancel(
        &self,
        account_id_key: &str,
        order_id: i64,
    ) -> Result<Cancellation, ToolError> {
        self.check_halt()?;
        self.recover().await;
        self.policy
            .check_account(account_id_key)
            .map_err(|r| refusal(&r))?;
        let mut intent = self.intent(MutationKind::CancelOrder, Some(account_id_key));
        intent.target_order_id = Some(order_id);
        let journal_id = blocking(&self.store, move |s| s.append_intent(&intent))
            .await?
            .map_err(|e| store_error(&e))?;
        let mut guard = InFlight::new(self, journal_id);
        let request = EtradeRequest::new(Operation::Mutation, Endpoint::CancelOrder)
            .at("accountIdKey", account_id_key)
            .with_body(body::cancel_body(order_id));
        let sent = self
            .send_journaled(
                journal_id,
                &request,
                "The cancel request may have reached E*TRADE; the order may be cancelled.",
            )
            .await;
        let result = match sent {
            Err(e) => Err(e),
            Ok(answer) => match BrokerCancellation::from_wire(answer) {
                Ok(broker) => {
                    self.finish(
                        journal_id,
                        Outcome::Succeeded {
                            at: (self.clock)(),
                            order_id: Some(order_id),
                            deleted_alert_ids: Vec::new(),
                        },
                    )
                    .await;
                    Ok(Cancellation {
                        order_id,
                        journal_id,
                        broker,
                    })
                }
                Err(_) => Err(self
                    .uncertain(
                        journal_id,
                        "E*TRADE answered, but the answer could not be read; the order may have been cancelled.",
                    )
                    .await),
            },
        };
        guard.disarm();
        result
    }

    pub async fn delete_alerts(&self, alert_ids: &[i64]) -> Result<AlertsDeleted, ToolError> {
        self.check_halt()?;
        self.recover().await;
        let mut ids: Vec<i64> = Vec::new();
        for id in alert_ids {
            if !ids.contains(id) {
                ids.push(*id);
            }
        }
        let mut intent = self.intent(MutationKind::DeleteAlerts, None);
        intent.alert_ids = ids.clone();
        let journal_id = blocking(&self.store, move |s| s.append_intent(&intent))
            .await?
            .map_err(|e| store_error(&e))?;
        let mut guard = InFlight::new(self, journal_id);
        let list: Vec<String> = ids.iter().map(i64::to_string).collect();
        let request =
            EtradeRequest::new(Operation::Mutation, Endpoint::DeleteAlerts).at("alertIds", list);
        let sent = self
            .send_journaled(
                journal_id,
                &request,
                "The deletion may have reached E*TRADE; the alerts may be deleted.",
            )
            .await;
        let result = match sent {
            Err(e) => Err(e),
            Ok(answer) => match AlertDeletion::from_wire(answer) {
                Ok(d) if d.success => {
                    self.finish(
                        journal_id,
                        Outcome::Succeeded {
                            at: (self.clock)(),
                            order_id: None,
                            deleted_alert_ids: ids.clone(),
                        },
                    )
                    .await;
                    Ok(AlertsDeleted {
                        deleted: ids,
                        journal_id,
                    })
                }
                Ok(d) => {
                    // E*TRADE may say ERROR without naming the failures: then none is
                    // counted as deleted (re-deleting an alert is harmless).
                    let failed: Vec<i64> = if d.failed.is_empty() {
                        ids.clone()
                    } else {
                        ids.iter().copied().filter(|i| d.failed.contains(i)).collect()
                    };
                    let deleted: Vec<i64> =
                        ids.iter().copied().filter(|i| !failed.contains(i)).collect();
                    let error = ToolError {
                        message: format!(
                            "{} E*TRADE did not delete every alert; alert_deletion_result lists which were deleted and which failed.",
                            ErrorCode::BrokerRejection.summary()
                        ),
                        status_code: Some(200),
                        alert_deletion_result: Some(AlertDeletionResult {
                            deleted: deleted.clone(),
                            failed: failed.clone(),
                        }),
                        ..ToolError::new(ErrorCode::BrokerRejection)
                    };
                    self.finish(
                        journal_id,
                        Outcome::Failed {
                            at: (self.clock)(),
                            code: error.code.as_str().to_string(),
                            failed_alert_ids: failed,
                            deleted_alert_ids: deleted,
                        },
                    )
                    .await;
                    Err(error)
                }
                Err(_) => Err(self
                    .uncertain(
                        journal_id,
                        "E*TRADE answered, but the answer could not be read; the alerts may have been deleted.",
                    )
                    .await),
            },
        };
        guard.disarm();
        result
    }

    /// Send one journaled mutation, once. A definite failure is journaled `failed`, an
    /// unclear one `uncertain` and reconciled (`may_have` says what may have happened);
    /// reading a success's answer is the caller's part.
    async fn send_journaled(
        &self,
        journal_id: u64,
        request: &EtradeRequest,
        may_have: &str,
    ) -> Result<Option<serde_json::Value>, ToolError> {
        // Checked again here, after the claim and any reconciliation (which may wait on
        // E*TRADE): a halt that lands meanwhile still stops the order. It is journaled as
        // refused, and the claimed preview stays used.
        if let Err(e) = self.check_halt() {
            self.failed(journal_id, &e).await;
            return Err(e);
        }
        match self.session.call(request).await.map_err(ToolError::from) {
            Ok(answer) => Ok(answer),
            Err(e) if e.code == ErrorCode::UncertainExecution => {
                Err(self.uncertain_from(journal_id, e, may_have).await)
            }
            Err(e) => {
                self.failed(journal_id, &e).await;
                Err(e)
            }
        }
    }

    pub(super) async fn finish(&self, journal_id: u64, outcome: Outcome) {
        let r = blocking(&self.store, move |s| s.record_outcome(journal_id, &outcome)).await;
        if !matches!(r, Ok(Ok(()))) {
            tracing::warn!(journal = journal_id, "could not journal a mutation outcome");
        }
    }

    async fn failed(&self, journal_id: u64, e: &ToolError) {
        self.finish(
            journal_id,
            Outcome::Failed {
                at: (self.clock)(),
                code: e.code.as_str().to_string(),
                failed_alert_ids: Vec::new(),
                deleted_alert_ids: Vec::new(),
            },
        )
        .await;
    }

    /// Journal an uncertain outcome, reconcile once, and build the error that says both.
    async fn uncertain(&self, journal_id: u64, what: &str) -> ToolError {
        self.uncertain_from(
            journal_id,
            ToolError::new(ErrorCode::UncertainExecution),
            what,
        )
        .await
    }

    async fn uncertain_from(&self, journal_id: u64, base: ToolError, what: &str) -> ToolError {
        self.finish(
            journal_id,
            Outcome::Uncertain {
                at: (self.clock)(),
                reason: what.to_string(),
            },
        )
        .await;
        let rec = self.reconcile_entry(journal_id).await;
        let found = match &rec {
            Some(r) => format!(
                " The server reconciled against E*TRADE: {}{}.",
                r.status.as_str(),
                r.note
                    .as_deref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default()
            ),
            None => " The server could not reconcile it yet; list_order_journal retries.".into(),
        };
        ToolError {
            message: format!(
                "{} {what} Journal entry {journal_id}.{found}",
                ErrorCode::UncertainExecution.summary()
            ),
            ..base
        }
    }
}

fn new_preview_id() -> String {
    let mut bytes = [0u8; 12];
    if getrandom::fill(&mut bytes).is_err() {
        let n = jiff::Timestamp::now().as_nanosecond();
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (n >> ((i % 8) * 8)) as u8 ^ (i as u8);
        }
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("pv-{hex}")
}

fn arguments_hash(account: &str, kind: PreviewKind, fields: &str) -> String {
    let mut h = Sha256::new();
    h.update(account.as_bytes());
    h.update([0x1f]);
    if let PreviewKind::Change { order_id } = kind {
        h.update(order_id.to_string().as_bytes());
    }
    h.update([0x1f]);
    h.update(fields.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
