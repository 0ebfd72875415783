//! The `orders` tools with logic of their own: order entry and cancellation through the
//! runtime's [`OrderDesk`], and the journal. The desk's results become each tool's `data`.
//! (The order list is a generated read.)

use super::journal_view::journal_entry;
use super::order_ticket::ticket;
use super::{Handlers, data};
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::mcp::dispatch::{CallContext, ToolResult};
use runtime::trading::desk::{OrderDesk, PreviewOutcome};
use serde_json::{Value, json};

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

/// When the profile wants a person's approval and the preview has none yet, ask for it
/// (or say how to give it) before placing.
async fn approve_first(
    desk: &OrderDesk,
    ctx: &CallContext,
    preview_id: &str,
) -> Result<(), ToolError> {
    match desk.awaiting_approval(preview_id).await? {
        Some(preview) => desk.ask_approval(&preview, ctx.ask.as_deref()).await,
        None => Ok(()),
    }
}

impl generated::OrdersHandlers for Handlers {
    async fn preview_order(
        &self,
        _ctx: &CallContext,
        input: generated::PreviewOrderInput,
    ) -> ToolResult {
        let desk: &OrderDesk = &self.desk;
        let t = ticket(&input.request)?;
        let p = desk.preview(&input.account_id_key, &t, None).await?;
        preview_data(&p, None)
    }

    async fn place_order(
        &self,
        ctx: &CallContext,
        input: generated::PlaceOrderInput,
    ) -> ToolResult {
        let desk: &OrderDesk = &self.desk;
        approve_first(desk, ctx, &input.preview_id).await?;
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

    async fn cancel_order(
        &self,
        _ctx: &CallContext,
        input: generated::CancelOrderInput,
    ) -> ToolResult {
        let desk: &OrderDesk = &self.desk;
        let c = desk.cancel(&input.account_id_key, input.order_id).await?;
        Ok(json!({
            "order_id": c.order_id,
            "journal_id": c.journal_id,
            "broker_response": data(&c.broker)?,
        }))
    }

    async fn preview_change_order(
        &self,
        _ctx: &CallContext,
        input: generated::PreviewChangeOrderInput,
    ) -> ToolResult {
        let desk: &OrderDesk = &self.desk;
        let t = ticket(&input.request)?;
        let p = desk
            .preview(&input.account_id_key, &t, Some(input.order_id))
            .await?;
        preview_data(&p, Some(input.order_id))
    }

    async fn place_change_order(
        &self,
        ctx: &CallContext,
        input: generated::PlaceChangeOrderInput,
    ) -> ToolResult {
        let desk: &OrderDesk = &self.desk;
        approve_first(desk, ctx, &input.preview_id).await?;
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

    async fn get_order_ticket(
        &self,
        ctx: &CallContext,
        input: generated::GetOrderTicketInput,
    ) -> ToolResult {
        super::app_ticket::get(&self.desk, ctx, input).await
    }

    async fn answer_order_ticket(
        &self,
        ctx: &CallContext,
        input: generated::AnswerOrderTicketInput,
    ) -> ToolResult {
        super::app_ticket::answer(&self.desk, ctx, input).await
    }

    async fn list_order_journal(
        &self,
        _ctx: &CallContext,
        input: generated::ListOrderJournalInput,
    ) -> ToolResult {
        let desk: &OrderDesk = &self.desk;
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
}
