//! Order entry, cancellation, alert deletion and the journal: the typed inputs become an
//! [`OrderTicket`] and calls on the runtime's [`OrderDesk`]; the desk's results become
//! each tool's `data`.

use super::{Handlers, data};
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::mcp::dispatch::ToolResult;
use runtime::trading::desk::{OrderDesk, PreviewOutcome};
use runtime::trading::order::{OrderTicket, TicketLeg};
use runtime::trading::{JournalEntry, OrderSummary, Outcome};
use serde_json::{Value, json};

fn missing(field: &'static str) -> ClientProblem {
    ClientProblem {
        path: vec![PathSegment::Key("request"), PathSegment::Key(field)],
        reason: ClientReason::Missing,
    }
}

/// The schema's rules already require the flat fields for EQ/OPTN and legs for spreads;
/// this only refuses (never panics) if a request slipped past them.
pub fn ticket(r: &generated::OrderRequest) -> Result<OrderTicket, ToolError> {
    let order_type = r.order_type.as_str();
    let legs = match &r.legs {
        Some(legs) => legs
            .iter()
            .map(|l| TicketLeg {
                symbol: l.symbol.to_ascii_uppercase(),
                security_type: l.security_type.as_str(),
                order_action: l.order_action.as_str(),
                quantity: l.quantity,
                call_put: l.call_put.map(|c| c.as_str()),
                expiration: l.expiration,
                strike_price: l.strike_price,
            })
            .collect(),
        None => {
            let mut problems = Vec::new();
            if r.symbol.is_none() {
                problems.push(missing("symbol"));
            }
            if r.order_action.is_none() {
                problems.push(missing("order_action"));
            }
            if r.quantity.is_none() {
                problems.push(missing("quantity"));
            }
            let (Some(symbol), Some(action), Some(quantity)) =
                (&r.symbol, r.order_action, r.quantity)
            else {
                return Err(client_validation_error(problems));
            };
            vec![TicketLeg {
                symbol: symbol.to_ascii_uppercase(),
                security_type: if order_type == "OPTN" { "OPTN" } else { "EQ" },
                order_action: action.as_str(),
                quantity,
                call_put: r.call_put.map(|c| c.as_str()),
                expiration: r.expiration,
                strike_price: r.strike_price,
            }]
        }
    };
    Ok(OrderTicket {
        order_type,
        price_type: r.price_type.as_str(),
        order_term: r.order_term.map_or("GOOD_FOR_DAY", |t| t.as_str()),
        market_session: r.market_session.map_or("REGULAR", |m| m.as_str()),
        limit_price: r.limit_price,
        stop_price: r.stop_price,
        all_or_none: r.all_or_none.unwrap_or(false),
        client_order_id: r.client_order_id.clone(),
        flat: r.legs.is_none(),
        legs,
    })
}

fn preview_data(p: &PreviewOutcome, order_id: Option<i64>) -> ToolResult {
    let mut v = json!({
        "preview_id": p.record.preview_id,
        "expires_at": p.record.expires_at.to_string(),
        "account_id_key": p.record.account_id_key,
        "client_order_id": p.record.client_order_id,
        "order_type": p.record.summary.order_type,
        "estimated_total_amount": p.broker.estimated_total(),
        "broker_preview": data(&p.broker)?,
    });
    if let Some(id) = order_id {
        v["order_id"] = json!(id);
    }
    Ok(v)
}

pub async fn preview_order(h: &Handlers, input: generated::PreviewOrderInput) -> ToolResult {
    let desk: &OrderDesk = &h.desk;
    let t = ticket(&input.request)?;
    let p = desk.preview(&input.account_id_key, &t, None).await?;
    preview_data(&p, None)
}

pub async fn preview_change_order(
    h: &Handlers,
    input: generated::PreviewChangeOrderInput,
) -> ToolResult {
    let desk: &OrderDesk = &h.desk;
    let t = ticket(&input.request)?;
    let p = desk
        .preview(&input.account_id_key, &t, Some(input.order_id))
        .await?;
    preview_data(&p, Some(input.order_id))
}

pub async fn place_order(h: &Handlers, input: generated::PlaceOrderInput) -> ToolResult {
    let desk: &OrderDesk = &h.desk;
    let p = desk
        .place(&input.account_id_key, &input.preview_id, None)
        .await?;
    Ok(json!({
        "order_id": p.order_id,
        "client_order_id": p.client_order_id,
        "journal_id": p.journal_id,
        "broker_response": data(&p.broker)?,
    }))
}

pub async fn place_change_order(
    h: &Handlers,
    input: generated::PlaceChangeOrderInput,
) -> ToolResult {
    let desk: &OrderDesk = &h.desk;
    let p = desk
        .place(
            &input.account_id_key,
            &input.preview_id,
            Some(input.order_id),
        )
        .await?;
    Ok(json!({
        "order_id": p.order_id,
        "replaced_order_id": input.order_id,
        "client_order_id": p.client_order_id,
        "journal_id": p.journal_id,
        "broker_response": data(&p.broker)?,
    }))
}

pub async fn cancel_order(h: &Handlers, input: generated::CancelOrderInput) -> ToolResult {
    let desk: &OrderDesk = &h.desk;
    let c = desk.cancel(&input.account_id_key, input.order_id).await?;
    Ok(json!({
        "order_id": c.order_id,
        "journal_id": c.journal_id,
        "broker_response": data(&c.broker)?,
    }))
}

pub async fn delete_alerts(h: &Handlers, input: generated::DeleteAlertsInput) -> ToolResult {
    let desk: &OrderDesk = &h.desk;
    let d = desk.delete_alerts(&input.alert_ids).await?;
    Ok(json!({ "deleted": d.deleted, "journal_id": d.journal_id }))
}

pub async fn list_order_journal(
    h: &Handlers,
    input: generated::ListOrderJournalInput,
) -> ToolResult {
    let desk: &OrderDesk = &h.desk;
    // The schema bounds both (before ≥ 1, limit 1..=100).
    let before = input.before.and_then(|b| u64::try_from(b).ok());
    let limit = input
        .limit
        .and_then(|l| usize::try_from(l).ok())
        .unwrap_or(20);
    let page = desk.journal(before, limit).await?;
    let entries: Vec<Value> = page.entries.iter().map(journal_entry).collect();
    Ok(json!({ "entries": entries, "next_before": page.next_before }))
}

fn order_view(s: &OrderSummary) -> Value {
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

fn journal_entry(e: &JournalEntry) -> Value {
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
        "reconciliation": e.reconciliation.as_ref().map(|r| json!({
            "status": r.status.as_str(),
            "at": r.at.to_string(),
            "order": r.order,
            "note": r.note,
        })),
    })
}
