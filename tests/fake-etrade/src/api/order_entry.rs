//! Order entry: preview, place, change preview and change place.
//!
//! * Preview checks the account (400 code 100), the body (see `order_request`), funds (a
//!   debit estimated above the account's cash → 400 code 1021), and for a change that the
//!   order is this account's, OPEN, and keeps its order type, symbols and actions; it stores
//!   the canonical request under a new `previewId` (fake clock time).
//! * Place requires `PreviewIds:[{"previewId":N}]` naming an unused preview of the same kind
//!   (plain, or a change preview of that very order), account and canonical request, not
//!   older than `FakeConfig::preview_ttl` — else 400 code 101. A `clientOrderId` already
//!   placed in the account (other than by the order being changed) → 400 (invented code).
//!   Success stores an OPEN order; a change cancels the old order (`replacedByOrderId`) and
//!   the new one carries `replacesOrderId`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use jiff::{SignedDuration, Timestamp};
use runtime::emulation::NumberStyle;
use runtime::emulation::answers::order_entry::{
    BuyingPower, EntryAnswer, PlacedId, place_response, preview_response,
};
use runtime::emulation::entry_rules::{self, EntryRefusal, PlaceAttempt};
use runtime::emulation::fixed_book::{BookOrder, BookPreview};
use runtime::emulation::order_echo::{disclosure, message};
use runtime::emulation::order_estimate::Estimate;
use runtime::emulation::order_request::preview_id;
use runtime::emulation::{OrderRoot, codes};
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;

use crate::api::order_request::{CheckedOrder, echo_order, parse};
use crate::api::orders::{Acct, account};
use crate::config::PlacedIdLocation;
use crate::responses::{entry_refusal, ok_json};
use crate::state::Shared;

fn order_id_param(raw: &str) -> Result<i64, Response> {
    raw.parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| entry_refusal(EntryRefusal::OrderNotFound))
}

fn dst(s: &Shared) -> bool {
    s.tz.to_offset_info(s.now()).dst().is_dst()
}

fn preview_impl(s: &Shared, key: &str, change_of: Option<&str>, body: &[u8]) -> Response {
    let acct = match account(s, key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    let change_of = match change_of.map(order_id_param).transpose() {
        Ok(id) => id,
        Err(r) => return r,
    };
    let req = match parse(s, body, OrderRoot::Preview) {
        Ok(r) => r,
        Err(r) => return r,
    };
    let now = s.now();
    let est = s.market.estimate(&req.request, now);
    if est.debit && est.total() > acct.cash {
        return entry_refusal(EntryRefusal::InsufficientFunds);
    }
    let preview_id = {
        let mut inner = s.lock();
        let book = inner.book();
        if let Err(refusal) = entry_rules::check_preview(book, key, change_of, &req.request) {
            return entry_refusal(refusal);
        }
        book.add_preview(BookPreview {
            account_key: key.to_string(),
            canonical: req.canonical.clone(),
            created_at: now,
            used: false,
            change_of,
        })
    };
    let impact = if est.debit {
        est.total()
    } else {
        Decimal::ZERO
    };
    let answer = entry_answer(
        s,
        &acct,
        &req,
        &est,
        now,
        message(codes::PREVIEW_WARNING, codes::PREVIEW_WARNING_MESSAGE),
    );
    // The fake's buying power is the account's cash, with no orders held against it.
    let bp = BuyingPower {
        margin: false,
        current: acct.cash,
        reserve: Decimal::ZERO,
        order_impact: impact,
        net: (acct.cash - impact).round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero),
    };
    ok_json(&preview_response(
        answer,
        preview_id,
        acct.cash_margin(),
        &bp,
        NumberStyle::Float,
    ))
}

/// What preview and place answers say around the echoed order.
fn entry_answer<'a>(
    s: &Shared,
    acct: &'a Acct,
    req: &'a CheckedOrder,
    est: &Estimate,
    now: Timestamp,
    message: Value,
) -> EntryAnswer<'a> {
    EntryAnswer {
        order_type: req.request.order_type.as_str(),
        total_order_value: est.value,
        total_commission: est.commission,
        time_ms: now.as_millisecond(),
        dst: dst(s),
        account_id: &acct.id,
        option_level_cd: acct.option_level,
        margin_level_cd: acct.margin_level(),
        client_order_id: &req.request.client_order_id,
        commission_message: false,
        order: echo_order(req, est, &[message]),
        disclosure: disclosure(&req.request),
    }
}

fn place_impl(s: &Shared, key: &str, change_of: Option<&str>, body: &[u8]) -> Response {
    let acct = match account(s, key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    let change_of = match change_of.map(order_id_param).transpose() {
        Ok(id) => id,
        Err(r) => return r,
    };
    let req = match parse(s, body, OrderRoot::Place) {
        Ok(r) => r,
        Err(r) => return r,
    };
    let now = s.now();
    let est = s.market.estimate(&req.request, now);
    let preview_ttl = SignedDuration::try_from(s.config.preview_ttl).unwrap_or(SignedDuration::MAX);
    let order_id = {
        let mut inner = s.lock();
        let book = inner.book();
        let attempt = PlaceAttempt {
            account_key: key,
            preview_id: preview_id(req.preview_ids.as_ref()),
            change_of,
            request: &req.request,
            sent: &req.canonical,
            now,
            preview_ttl,
        };
        let pid = match entry_rules::check_place(book, &attempt) {
            Ok(pid) => pid,
            Err(refusal) => return entry_refusal(refusal),
        };
        let mut order = BookOrder::placed(
            (&acct.id, key),
            req.request.clone(),
            req.descriptions.clone(),
            (est.value, est.commission),
            now.as_millisecond(),
            pid,
        );
        order.replaces_order_id = change_of;
        book.place(pid, order, now.as_millisecond())
    };
    let answer = entry_answer(
        s,
        &acct,
        &req,
        &est,
        now,
        message(codes::PLACED, codes::PLACED_MESSAGE),
    );
    let placed = match s.lock().placed_id_location {
        PlacedIdLocation::OrderIds => PlacedId::OrderIds {
            order_id,
            cash_margin: acct.cash_margin(),
        },
        PlacedIdLocation::OrderOnly => PlacedId::InOrder(order_id),
        PlacedIdLocation::TopLevel => PlacedId::TopLevel(order_id),
        PlacedIdLocation::Nowhere => PlacedId::Nowhere,
    };
    ok_json(&place_response(answer, placed, NumberStyle::Float))
}

/// `POST /v1/accounts/{key}/orders/preview`
pub(crate) async fn preview(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    body: Bytes,
) -> Response {
    preview_impl(&s, &key, None, &body)
}

/// `POST /v1/accounts/{key}/orders/place`
pub(crate) async fn place(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    body: Bytes,
) -> Response {
    place_impl(&s, &key, None, &body)
}

/// `PUT /v1/accounts/{key}/orders/{order_id}/change/preview`
pub(crate) async fn change_preview(
    State(s): State<Arc<Shared>>,
    Path((key, order_id)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    preview_impl(&s, &key, Some(&order_id), &body)
}

/// `PUT /v1/accounts/{key}/orders/{order_id}/change/place`
pub(crate) async fn change_place(
    State(s): State<Arc<Shared>>,
    Path((key, order_id)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    place_impl(&s, &key, Some(&order_id), &body)
}
