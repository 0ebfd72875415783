//! The `orders` tools with logic of their own: order entry and cancellation through the
//! runtime's [`OrderDesk`], and the journal. The desk's results become each tool's `data`.
//! (The order list is a generated read.)

use super::Handlers;
use super::journal_view::{journal_entry, journal_id};
use super::order_ticket::ticket;
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::mcp::dispatch::CallContext;
use runtime::outputs::{
    CancelOrderOutput, GetOrderTicketOutput, ListOrderJournalOutput, PlaceChangeOrderOutput,
    PlaceOrderOutput, PreviewChangeOrderOutput, PreviewOrderOutput,
};
use runtime::trading::desk::{OrderDesk, PreviewOutcome};

fn preview_data(p: PreviewOutcome) -> PreviewOrderOutput {
    PreviewOrderOutput {
        preview_id: p.record.preview_id,
        expires_at: runtime::time::rfc3339(p.record.expires_at),
        account_id_key: p.record.account_id_key,
        client_order_id: p.record.client_order_id,
        order_type: p.record.summary.order_type.as_str().to_string(),
        estimated_total_amount: p.broker.estimated_total(),
        broker_preview: p.broker,
    }
}

/// A change's preview: an order's preview and the order it would replace.
fn change_preview_data(p: PreviewOutcome, order_id: i64) -> PreviewChangeOrderOutput {
    let PreviewOrderOutput {
        preview_id,
        expires_at,
        account_id_key,
        client_order_id,
        order_type,
        estimated_total_amount,
        broker_preview,
    } = preview_data(p);
    PreviewChangeOrderOutput {
        preview_id,
        expires_at,
        account_id_key,
        order_id,
        client_order_id,
        order_type,
        estimated_total_amount,
        broker_preview,
    }
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
    ) -> Result<PreviewOrderOutput, ToolError> {
        let desk: &OrderDesk = &self.desk;
        let t = ticket(&input.request)?;
        let p = desk.preview(&input.account_id_key, &t, None).await?;
        Ok(preview_data(p))
    }

    async fn place_order(
        &self,
        ctx: &CallContext,
        input: generated::PlaceOrderInput,
    ) -> Result<PlaceOrderOutput, ToolError> {
        let desk: &OrderDesk = &self.desk;
        approve_first(desk, ctx, &input.preview_id).await?;
        let p = desk
            .place(&input.account_id_key, &input.preview_id, None)
            .await?;
        Ok(PlaceOrderOutput {
            order_id: p.order_id,
            client_order_id: p.client_order_id,
            journal_id: journal_id(p.journal_id)?,
            broker_response: p.broker,
        })
    }

    async fn cancel_order(
        &self,
        _ctx: &CallContext,
        input: generated::CancelOrderInput,
    ) -> Result<CancelOrderOutput, ToolError> {
        let desk: &OrderDesk = &self.desk;
        let c = desk.cancel(&input.account_id_key, input.order_id).await?;
        Ok(CancelOrderOutput {
            order_id: c.order_id,
            journal_id: journal_id(c.journal_id)?,
            broker_response: c.broker,
        })
    }

    async fn preview_change_order(
        &self,
        _ctx: &CallContext,
        input: generated::PreviewChangeOrderInput,
    ) -> Result<PreviewChangeOrderOutput, ToolError> {
        let desk: &OrderDesk = &self.desk;
        let t = ticket(&input.request)?;
        let p = desk
            .preview(&input.account_id_key, &t, Some(input.order_id))
            .await?;
        Ok(change_preview_data(p, input.order_id))
    }

    async fn place_change_order(
        &self,
        ctx: &CallContext,
        input: generated::PlaceChangeOrderInput,
    ) -> Result<PlaceChangeOrderOutput, ToolError> {
        let desk: &OrderDesk = &self.desk;
        approve_first(desk, ctx, &input.preview_id).await?;
        let p = desk
            .place(
                &input.account_id_key,
                &input.preview_id,
                Some(input.order_id),
            )
            .await?;
        Ok(PlaceChangeOrderOutput {
            order_id: p.order_id,
            replaced_order_id: input.order_id,
            client_order_id: p.client_order_id,
            journal_id: journal_id(p.journal_id)?,
            broker_response: p.broker,
        })
    }

    async fn get_order_ticket(
        &self,
        ctx: &CallContext,
        input: generated::GetOrderTicketInput,
    ) -> Result<GetOrderTicketOutput, ToolError> {
        super::app_ticket::get(&self.desk, ctx, input).await
    }

    async fn answer_order_ticket(
        &self,
        ctx: &CallContext,
        input: generated::AnswerOrderTicketInput,
    ) -> Result<runtime::outputs::AnswerOrderTicketOutput, ToolError> {
        super::app_ticket::answer(&self.desk, ctx, input).await
    }

    async fn list_order_journal(
        &self,
        _ctx: &CallContext,
        input: generated::ListOrderJournalInput,
    ) -> Result<ListOrderJournalOutput, ToolError> {
        let desk: &OrderDesk = &self.desk;
        // The schema bounds both (before ≥ 1, limit 1..=100).
        let before = input.before.and_then(|b| u64::try_from(b).ok());
        let limit = input
            .limit
            .and_then(|l| usize::try_from(l).ok())
            .unwrap_or(20);
        let page = desk.journal(before, limit).await?;
        Ok(ListOrderJournalOutput {
            entries: page
                .entries
                .iter()
                .map(journal_entry)
                .collect::<Result<_, _>>()?,
            next_before: page.next_before.map(journal_id).transpose()?,
        })
    }
}
