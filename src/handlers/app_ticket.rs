//! The order ticket app's tools (app-only): a stored preview as the ticket shows it, and the
//! person's Approve or Reject. The desk holds the rules; this shapes the tools' `data`.

use super::journal_view::order_view;
use crate::generated;
use runtime::mcp::dispatch::{CallContext, ToolResult};
use runtime::trading::approval::{Decision, summary};
use runtime::trading::desk::{OrderDesk, TicketView};
use serde_json::{Value, json};

pub async fn get(
    desk: &OrderDesk,
    ctx: &CallContext,
    input: generated::GetOrderTicketInput,
) -> ToolResult {
    let view = desk.ticket(&input.preview_id, ctx.client_trust).await?;
    Ok(ticket_data(&view, desk))
}

pub async fn answer(
    desk: &OrderDesk,
    ctx: &CallContext,
    input: generated::AnswerOrderTicketInput,
) -> ToolResult {
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
            ctx.client_trust,
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
    json!({
        "preview_id": p.preview_id,
        "preview_hash": p.arguments_hash,
        "status": v.status.as_str(),
        "approval_required": v.approval_required,
        "pin_required": v.pin_required,
        "app_approval": v.app_approval,
        "approve_command": desk.approve_command(&p.preview_id),
        "expires_at": p.expires_at.to_string(),
        "account": {
            "name": p.context.account_name,
            "last4": p.context.account_last4,
        },
        "order": order_view(&p.summary),
        "estimated_total": p.context.estimated_total,
        "commission": p.context.commission,
        "messages": p.context.warnings,
        "summary": summary(p),
    })
}
