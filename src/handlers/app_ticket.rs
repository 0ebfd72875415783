//! The order ticket app's tools (app-only): a stored preview as the ticket shows it, and the
//! person's Approve or Reject. The desk holds the rules; this shapes the tools' `data`.

use super::journal_view::ticket_order;
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::mcp::dispatch::CallContext;
use runtime::outputs::{
    AnswerOrderTicketOutput, AnswerOrderTicketOutputChannel, AnswerOrderTicketOutputDecision,
    GetOrderTicketOutput, GetOrderTicketOutputAccount, GetOrderTicketOutputStatus,
};
use runtime::trading::approval::{Decision, summary};
use runtime::trading::desk::{OrderDesk, TicketStatus, TicketView};

pub async fn get(
    desk: &OrderDesk,
    ctx: &CallContext,
    input: generated::GetOrderTicketInput,
) -> Result<GetOrderTicketOutput, ToolError> {
    let view = desk.ticket(&input.preview_id, ctx.client_trust).await?;
    Ok(ticket_data(&view, desk))
}

pub async fn answer(
    desk: &OrderDesk,
    ctx: &CallContext,
    input: generated::AnswerOrderTicketInput,
) -> Result<AnswerOrderTicketOutput, ToolError> {
    let (decision, decided) = match input.decision {
        generated::AnswerOrderTicketInputDecision::Approve => (
            Decision::Approved,
            AnswerOrderTicketOutputDecision::Approved,
        ),
        generated::AnswerOrderTicketInputDecision::Reject => (
            Decision::Rejected,
            AnswerOrderTicketOutputDecision::Rejected,
        ),
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
    Ok(AnswerOrderTicketOutput {
        preview_id: p.preview_id,
        decision: decided,
        channel: AnswerOrderTicketOutputChannel::App,
        expires_at: runtime::time::rfc3339(p.expires_at),
    })
}

fn ticket_data(v: &TicketView, desk: &OrderDesk) -> GetOrderTicketOutput {
    let p = &v.preview;
    GetOrderTicketOutput {
        preview_id: p.preview_id.clone(),
        preview_hash: p.arguments_hash.clone(),
        status: match v.status {
            TicketStatus::AwaitingApproval => GetOrderTicketOutputStatus::AwaitingApproval,
            TicketStatus::Approved => GetOrderTicketOutputStatus::Approved,
            TicketStatus::Rejected => GetOrderTicketOutputStatus::Rejected,
            TicketStatus::Placed => GetOrderTicketOutputStatus::Placed,
            TicketStatus::Expired => GetOrderTicketOutputStatus::Expired,
            TicketStatus::NotRequired => GetOrderTicketOutputStatus::NotRequired,
        },
        approval_required: v.approval_required,
        pin_required: v.pin_required,
        app_approval: v.app_approval,
        approve_command: desk.approve_command(&p.preview_id),
        expires_at: runtime::time::rfc3339(p.expires_at),
        account: GetOrderTicketOutputAccount {
            name: p.context.account_name.clone(),
            last4: p.context.account_last4.clone(),
        },
        order: ticket_order(&p.summary),
        estimated_total: p.context.estimated_total,
        commission: p.context.commission,
        messages: p.context.warnings.clone(),
        summary: summary(p),
    }
}
