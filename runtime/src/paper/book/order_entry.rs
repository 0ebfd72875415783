//! Order entry: the state changes behind E*TRADE's preview, place (new or change) and
//! cancel, and their answers.

use jiff::{SignedDuration, Timestamp};
use rust_decimal::Decimal;
use serde_json::Value;

use super::PaperError;
use super::engine::{self, Ctx, Estimate};
use super::state::{AccountRec, LegRec, OrderRec, PreviewRec, State};
use super::wire_json;
use crate::calendar::phase_at;
use crate::emulation::NumberStyle;
use crate::emulation::answers::order_entry::{
    BuyingPower, EntryAnswer, PlacedId, cancel_response, place_response, preview_response,
};
use crate::emulation::cancel_request::cancel_order_id;
use crate::emulation::entry_rules::{self, EntryBook, EntryRefusal, PlaceAttempt, StoredPreview};
use crate::emulation::order_echo::{disclosure, message};
use crate::emulation::order_request::{self, ParsedOrder};
use crate::emulation::{OrderRequest, OrderRoot, OrderScope, OrderStatus, OrderTerm, codes};

/// How long a preview can be placed (simulated time).
const PREVIEW_TTL: SignedDuration = SignedDuration::from_mins(15);
/// Previews older than this are dropped (with the next preview).
const PREVIEW_RETENTION: SignedDuration = SignedDuration::from_hours(24);

/// The account's order `order_id`, if it has one.
fn account_order<'a>(s: &'a State, account_key: &str, order_id: i64) -> Option<&'a OrderRec> {
    s.orders
        .get(&order_id)
        .filter(|o| o.account_key == account_key)
}

impl EntryBook for State {
    /// Place must repeat the preview's request, as parsed.
    type Sent = OrderRequest;

    fn stored_preview(&self, preview_id: i64) -> Option<StoredPreview<'_, OrderRequest>> {
        self.previews.get(&preview_id).map(|p| StoredPreview {
            account_key: &p.account_key,
            change_of: p.change_of,
            sent: &p.request,
            created_at: p.created_at,
            used: p.used,
        })
    }

    fn account_order(
        &self,
        account_key: &str,
        order_id: i64,
    ) -> Option<(OrderStatus, &OrderRequest)> {
        account_order(self, account_key, order_id).map(|o| (o.status, &o.request))
    }

    fn replaces(&self, order_id: i64) -> Option<i64> {
        self.orders.get(&order_id).and_then(|o| o.replaces)
    }

    fn client_order_id_used(
        &self,
        account_key: &str,
        client_order_id: &str,
        except: &[i64],
    ) -> bool {
        self.orders_with_client_id(account_key, client_order_id)
            .any(|id| !except.contains(&id))
    }
}

/// What preview and place answers say around the echoed order.
fn entry_answer<'a>(
    a: &'a AccountRec,
    req: &'a OrderRequest,
    est: &Estimate,
    now: Timestamp,
    message: Value,
) -> EntryAnswer<'a> {
    EntryAnswer {
        order_type: req.order_type.as_str(),
        total_order_value: est.value,
        total_commission: est.commission,
        time_ms: now.as_millisecond(),
        dst: wire_json::dst(now),
        account_id: &a.id,
        option_level_cd: wire_json::option_level(a).1,
        margin_level_cd: wire_json::margin_level(a),
        client_order_id: &req.client_order_id,
        commission_message: true,
        order: wire_json::echo_order(req, est, &[message]),
        disclosure: disclosure(req),
    }
}

pub(super) fn preview_op(
    s: &mut State,
    ctx: &Ctx<'_>,
    now: Timestamp,
    account_key: &str,
    body: &Value,
    change_of: Option<i64>,
) -> Result<Value, PaperError> {
    let a = wire_json::account(s, account_key)?.clone();
    let req = order_request::parse(body, OrderRoot::Preview, OrderScope::PaperAccount)?.request;
    entry_rules::check_preview(s, account_key, change_of, &req)?;
    let (est, _) = engine::check_order(s, ctx, account_key, &req, change_of, now)?;
    let bp = engine::buying_power(s, ctx, account_key, change_of, now);
    let reserve = engine::reserved(s, account_key, change_of);
    // Within a day of the earliest time there is, no preview can be a day old.
    let stale = match now.checked_sub(PREVIEW_RETENTION) {
        Ok(cutoff) => s.previews_created_before(cutoff),
        Err(_) => Vec::new(),
    };
    for id in stale {
        s.remove_preview(id);
    }
    let preview_id = s.new_preview_id();
    s.put_preview(PreviewRec {
        preview_id,
        account_key: account_key.to_string(),
        request: req.clone(),
        created_at: now,
        used: false,
        change_of,
    });
    let impact = if est.debit {
        est.total()
    } else {
        Decimal::ZERO
    };
    let answer = entry_answer(
        &a,
        &req,
        &est,
        now,
        message(codes::PREVIEW_WARNING, codes::PREVIEW_WARNING_MESSAGE),
    );
    let bp = BuyingPower {
        margin: a.margin,
        current: bp,
        reserve,
        order_impact: impact,
        net: engine::cents(bp - impact),
    };
    Ok(preview_response(
        answer,
        preview_id,
        a.mode(),
        &bp,
        NumberStyle::Exact,
    ))
}

pub(super) fn place_op(
    s: &mut State,
    ctx: &Ctx<'_>,
    now: Timestamp,
    account_key: &str,
    body: &Value,
    change_of: Option<i64>,
) -> Result<Value, PaperError> {
    let a = wire_json::account(s, account_key)?.clone();
    let ParsedOrder {
        request: req,
        preview_ids,
    } = order_request::parse(body, OrderRoot::Place, OrderScope::PaperAccount)?;
    let preview_id = entry_rules::check_place(
        s,
        &PlaceAttempt {
            account_key,
            preview_id: order_request::preview_id(preview_ids.as_ref()),
            change_of,
            request: &req,
            sent: &req,
            now,
            preview_ttl: PREVIEW_TTL,
        },
    )?;
    let Some(preview) = s.previews.get(&preview_id).cloned() else {
        return Err(EntryRefusal::PreviewTimedOut.into());
    };
    let (est, touches) = engine::check_order(s, ctx, account_key, &req, change_of, now)?;
    s.put_preview(PreviewRec {
        used: true,
        ..preview.clone()
    });
    let order_id = s.new_order_id();
    if let Some(old_id) = change_of
        && let Some(mut old) = s.orders.get(&old_id).cloned()
    {
        old.status = OrderStatus::Cancelled;
        old.cancel_at = Some(now);
        old.replaced_by = Some(order_id);
        old.push_event("ORDER_CANCELLED", now);
        s.put_order(old);
    }
    let expires_at = match req.price_type.auction() {
        Some(auction) => engine::auction_at(auction, now),
        None => (req.order_term == OrderTerm::GoodForDay)
            .then(|| engine::day_end(now, req.extended()))
            .flatten(),
    };
    // A trailing stop trails from the price at placement (the last trade, else the mid).
    let trail_mark = req
        .price_type
        .trail()
        .and(touches.first())
        .and_then(engine::mark);
    let mut order = OrderRec {
        order_id,
        account_key: account_key.to_string(),
        client_order_id: req.client_order_id.clone(),
        preview_id,
        request: req.clone(),
        legs: req
            .legs
            .iter()
            .map(|l| LegRec {
                instrument: l.instrument.clone(),
                action: l.action,
                quantity: l.quantity,
                filled: Decimal::ZERO,
                fill_value: Decimal::ZERO,
            })
            .collect(),
        status: OrderStatus::Open,
        preview_at: preview.created_at,
        placed_at: now,
        executed_at: None,
        cancel_at: None,
        expires_at,
        stop_triggered_at: None,
        trail_mark,
        replaces: change_of,
        replaced_by: None,
        est_value: est.value,
        est_commission: est.commission,
        debit: est.debit,
        commission_paid: Decimal::ZERO,
        fees_paid: Decimal::ZERO,
        events: Vec::new(),
    };
    order.push_event("ORDER_PLACED", now);
    s.put_order(order);
    engine::evaluate(s, ctx, order_id, now)?;
    if req.order_term.decided_when_placed()
        && let Some(mut o) = s.orders.get(&order_id).cloned()
        && o.status.is_open()
    {
        o.status = OrderStatus::Cancelled;
        o.cancel_at = Some(now);
        o.push_event("ORDER_CANCELLED", now);
        s.put_order(o);
    }
    let in_session = engine::tradable(&req, phase_at(now));
    let text = if in_session {
        codes::PLACED_MESSAGE
    } else {
        codes::PLACED_OUTSIDE_MESSAGE
    };
    let answer = entry_answer(&a, &req, &est, now, message(codes::PLACED, text));
    let placed = PlacedId::OrderIds {
        order_id,
        cash_margin: a.mode(),
    };
    Ok(place_response(answer, placed, NumberStyle::Exact))
}

pub(super) fn cancel_op(
    s: &mut State,
    now: Timestamp,
    account_key: &str,
    body: &Value,
) -> Result<Value, PaperError> {
    let a = wire_json::account(s, account_key)?.clone();
    let id = cancel_order_id(body)?;
    let order = account_order(s, account_key, id);
    entry_rules::check_cancel(order.map(|o| o.status))?;
    let Some(mut o) = order.cloned() else {
        return Err(EntryRefusal::OrderNotFound.into());
    };
    o.status = OrderStatus::Cancelled;
    o.cancel_at = Some(now);
    o.push_event("ORDER_CANCELLED", now);
    s.put_order(o);
    Ok(cancel_response(&a.id, id, now.as_millisecond()))
}
