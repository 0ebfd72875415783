//! The order journal and a stored order as the tools show them: the desk's records turned
//! into the generated outputs of `list_order_journal` and `get_order_ticket`.

use runtime::contract::errors::ToolError;
use runtime::outputs::{
    GetOrderTicketOutputOrder, GetOrderTicketOutputOrderLegsItem, JournalEntry as EntryView,
    JournalEntryApproval, JournalEntryApprovalChannel, JournalEntryApprovalDecision,
    JournalEntryKind, JournalLeg, JournalOrder, JournalOutcome, JournalOutcomeStatus,
    JournalReconciliation, JournalReconciliationStatus,
};
use runtime::time::rfc3339;
use runtime::trading::{
    ApprovalRecord, Channel, Decision, JournalEntry, LegSummary, MutationKind, OrderSummary,
    Outcome, ReconcileStatus, Reconciliation,
};

/// A journal id as the outputs write it; ids count up from 1, far below `i64::MAX`.
pub(super) fn journal_id(id: u64) -> Result<i64, ToolError> {
    i64::try_from(id).map_err(|_| ToolError::internal())
}

/// An order as the order ticket shows it.
pub(super) fn ticket_order(s: &OrderSummary) -> GetOrderTicketOutputOrder {
    GetOrderTicketOutputOrder {
        order_type: s.order_type.as_str().to_string(),
        price_type: s.price_type.as_str().to_string(),
        limit_price: s.limit_price,
        stop_price: s.stop_price,
        order_term: s.order_term.as_str().to_string(),
        market_session: s.market_session.as_str().to_string(),
        all_or_none: s.all_or_none,
        legs: s
            .legs
            .iter()
            .map(|l| GetOrderTicketOutputOrderLegsItem {
                symbol: l.symbol.clone(),
                security_type: l.security_type.as_str().to_string(),
                order_action: l.order_action.as_str().to_string(),
                quantity: l.quantity,
                call_put: l.call_put.map(|c| c.as_str().to_string()),
                expiration: l.expiration,
                strike_price: l.strike_price,
                osi_key: l.osi_key(),
            })
            .collect(),
        estimated_notional: s.estimated_notional,
    }
}

/// An order as the journal shows it.
fn journal_order(s: &OrderSummary) -> JournalOrder {
    JournalOrder {
        order_type: s.order_type.as_str().to_string(),
        price_type: s.price_type.as_str().to_string(),
        order_term: s.order_term.as_str().to_string(),
        market_session: s.market_session.as_str().to_string(),
        limit_price: s.limit_price,
        stop_price: s.stop_price,
        all_or_none: s.all_or_none,
        legs: s.legs.iter().map(journal_leg).collect(),
        estimated_notional: s.estimated_notional,
    }
}

fn journal_leg(l: &LegSummary) -> JournalLeg {
    JournalLeg {
        symbol: l.symbol.clone(),
        security_type: l.security_type.as_str().to_string(),
        order_action: l.order_action.as_str().to_string(),
        quantity: l.quantity,
        call_put: l.call_put.map(|c| c.as_str().to_string()),
        expiration: l.expiration,
        strike_price: l.strike_price,
        osi_key: l.osi_key(),
    }
}

fn outcome_view(o: &Outcome) -> JournalOutcome {
    let none = JournalOutcome {
        status: JournalOutcomeStatus::Pending,
        at: None,
        order_id: None,
        code: None,
        reason: None,
        deleted_alert_ids: Vec::new(),
        failed_alert_ids: Vec::new(),
    };
    match o {
        Outcome::Pending => none,
        Outcome::Succeeded {
            at,
            order_id,
            deleted_alert_ids,
        } => JournalOutcome {
            status: JournalOutcomeStatus::Succeeded,
            at: Some(rfc3339(*at)),
            order_id: *order_id,
            deleted_alert_ids: deleted_alert_ids.clone(),
            ..none
        },
        Outcome::Failed {
            at,
            code,
            failed_alert_ids,
            deleted_alert_ids,
        } => JournalOutcome {
            status: JournalOutcomeStatus::Failed,
            at: Some(rfc3339(*at)),
            code: Some(code.clone()),
            failed_alert_ids: failed_alert_ids.clone(),
            deleted_alert_ids: deleted_alert_ids.clone(),
            ..none
        },
        Outcome::Uncertain { at, reason } => JournalOutcome {
            status: JournalOutcomeStatus::Uncertain,
            at: Some(rfc3339(*at)),
            reason: Some(reason.clone()),
            ..none
        },
    }
}

fn approval_view(a: &ApprovalRecord) -> JournalEntryApproval {
    JournalEntryApproval {
        decision: match a.decision {
            Decision::Approved => JournalEntryApprovalDecision::Approved,
            Decision::Rejected => JournalEntryApprovalDecision::Rejected,
        },
        channel: match a.channel {
            Channel::Elicitation => JournalEntryApprovalChannel::Elicitation,
            Channel::Terminal => JournalEntryApprovalChannel::Terminal,
            Channel::Page => JournalEntryApprovalChannel::Page,
            Channel::App => JournalEntryApprovalChannel::App,
        },
        at: rfc3339(a.at),
    }
}

fn reconciliation_view(r: &Reconciliation) -> JournalReconciliation {
    JournalReconciliation {
        status: match r.status {
            ReconcileStatus::Found => JournalReconciliationStatus::Found,
            ReconcileStatus::NotFound => JournalReconciliationStatus::NotFound,
            ReconcileStatus::Unknown => JournalReconciliationStatus::Unknown,
        },
        at: rfc3339(r.at),
        order_id: r.order_id,
        order_status: r.order_status.clone(),
        note: r.note.clone(),
    }
}

pub fn journal_entry(e: &JournalEntry) -> Result<EntryView, ToolError> {
    let i = &e.intent;
    Ok(EntryView {
        id: journal_id(e.id)?,
        kind: match i.kind {
            MutationKind::PreviewOrder => JournalEntryKind::PreviewOrder,
            MutationKind::PreviewChangeOrder => JournalEntryKind::PreviewChangeOrder,
            MutationKind::PlaceOrder => JournalEntryKind::PlaceOrder,
            MutationKind::CancelOrder => JournalEntryKind::CancelOrder,
            MutationKind::PlaceChangeOrder => JournalEntryKind::PlaceChangeOrder,
            MutationKind::DeleteAlerts => JournalEntryKind::DeleteAlerts,
        },
        environment: i.environment.clone(),
        profile: i.profile.clone(),
        account_id_key: i.account_id_key.clone(),
        preview_id: i.preview_id.clone(),
        client_order_id: i.client_order_id.clone(),
        target_order_id: i.target_order_id,
        alert_ids: i.alert_ids.clone(),
        intent_at: rfc3339(i.intent_at),
        order: i.summary.as_ref().map(journal_order),
        outcome: outcome_view(&e.outcome),
        reconciliation: e.reconciliation.as_ref().map(reconciliation_view),
        approval: e.approval.as_ref().map(approval_view),
    })
}
