//! The order ticket app's tools (app-only): a stored preview as the ticket shows it, and the
//! person's Approve or Reject. The desk holds the rules; this shapes the tools' `data`.

use crate::generated;
use runtime::mcp::dispatch::ToolResult;
use runtime::trading::approval::{Decision, summary};
use runtime::trading::desk::{OrderDesk, TicketView, approve_command};
use serde_json::{Value, json};

pub async fn get(desk: &OrderDesk, input: generated::GetOrderTicketInput) -> ToolResult {
    let view = desk.ticket(&input.preview_id).await?;
    Ok(ticket_data(&view, desk))
}

pub async fn answer(desk: &OrderDesk, input: generated::AnswerOrderTicketInput) -> ToolResult {
    let decision = match input.decision {
        generated::AnswerOrderTicketInputDecision::Approve => Decision::Approved,
        generated::AnswerOrderTicketInputDecision::Reject => Decision::Rejected,
    };
    let p = desk
        .answer_ticket(
            &input.preview_id,
            &input.preview_hash,
            decision,
            input.pin.as_deref(),
        )
        .await?;
    Ok(json!({
        "preview_id": p.preview_id,
        "decision": decision.as_str(),
        "channel": "app",
        "expires_at": p.expires_at.to_string(),
    }))
}

fn ticket_data(v: &TicketView, desk: &OrderDesk) -> Value {
    let p = &v.preview;
    let s = &p.summary;
    let legs: Vec<Value> = s
        .legs
        .iter()
        .map(|l| {
            json!({
                "symbol": l.symbol,
                "security_type": l.security_type,
                "order_action": l.order_action,
                "quantity": l.quantity,
                "call_put": l.call_put,
                "expiration": l.expiration.map(|d| d.to_string()),
                "strike_price": l.strike_price,
            })
        })
        .collect();
    json!({
        "preview_id": p.preview_id,
        "preview_hash": p.arguments_hash,
        "status": v.status.as_str(),
        "approval_required": v.approval_required,
        "pin_required": v.pin_required,
        "app_approval": v.app_approval,
        "approve_command": approve_command(&p.preview_id, desk.environment(), desk.profile()),
        "expires_at": p.expires_at.to_string(),
        "account": {
            "name": p.context.account_name,
            "last4": p.context.account_last4,
        },
        "order": {
            "order_type": s.order_type,
            "price_type": s.price_type,
            "limit_price": s.limit_price,
            "stop_price": s.stop_price,
            "order_term": s.order_term,
            "market_session": s.market_session,
            "all_or_none": s.all_or_none,
            "legs": legs,
        },
        "estimated_total": p.context.estimated_total,
        "commission": p.context.commission,
        "messages": p.context.warnings,
        "summary": summary(p),
    })
}
