//! The order journal as `list_order_journal` shows it.

use runtime::trading::{JournalEntry, OrderSummary, Outcome};
use serde_json::{Value, json};

/// An order as the journal and the order ticket show it.
pub(super) fn order_view(s: &OrderSummary) -> Value {
    json!({
        "order_type": s.order_type,
        "price_type": s.price_type,
        "order_term": s.order_term,
        "market_session": s.market_session,
        "limit_price": s.limit_price,
        "stop_price": s.stop_price,
        "all_or_none": s.all_or_none,
        "legs": s.legs.iter().map(|l| json!({
            "symbol": l.symbol,
            "security_type": l.security_type,
            "order_action": l.order_action,
            "quantity": l.quantity,
            "call_put": l.call_put,
            "expiration": l.expiration.map(|d| d.to_string()),
            "strike_price": l.strike_price,
        })).collect::<Vec<_>>(),
        "estimated_notional": s.estimated_notional,
    })
}

fn outcome_view(o: &Outcome) -> Value {
    let mut v = json!({
        "status": "pending", "at": null, "order_id": null, "code": null, "reason": null,
        "deleted_alert_ids": [], "failed_alert_ids": [],
    });
    match o {
        Outcome::Pending => {}
        Outcome::Succeeded {
            at,
            order_id,
            deleted_alert_ids,
        } => {
            v["status"] = json!("succeeded");
            v["at"] = json!(at.to_string());
            v["order_id"] = json!(order_id);
            v["deleted_alert_ids"] = json!(deleted_alert_ids);
        }
        Outcome::Failed {
            at,
            code,
            failed_alert_ids,
            deleted_alert_ids,
        } => {
            v["status"] = json!("failed");
            v["at"] = json!(at.to_string());
            v["code"] = json!(code);
            v["failed_alert_ids"] = json!(failed_alert_ids);
            v["deleted_alert_ids"] = json!(deleted_alert_ids);
        }
        Outcome::Uncertain { at, reason } => {
            v["status"] = json!("uncertain");
            v["at"] = json!(at.to_string());
            v["reason"] = json!(reason);
        }
    }
    v
}

pub fn journal_entry(e: &JournalEntry) -> Value {
    let i = &e.intent;
    json!({
        "id": e.id,
        "kind": i.kind.as_str(),
        "environment": i.environment,
        "profile": i.profile,
        "account_id_key": i.account_id_key,
        "preview_id": i.preview_id,
        "client_order_id": i.client_order_id,
        "target_order_id": i.target_order_id,
        "alert_ids": i.alert_ids,
        "intent_at": i.intent_at.to_string(),
        "order": i.summary.as_ref().map(order_view),
        "outcome": outcome_view(&e.outcome),
        "approval": e.approval.as_ref().map(|a| json!({
            "decision": a.decision.as_str(),
            "channel": a.channel.as_str(),
            "at": a.at.to_string(),
        })),
        "reconciliation": e.reconciliation.as_ref().map(|r| json!({
            "status": r.status.as_str(),
            "at": r.at.to_string(),
            "order_id": r.order_id,
            "order_status": r.order_status,
            "note": r.note,
        })),
    })
}
