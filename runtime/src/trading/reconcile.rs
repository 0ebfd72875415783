//! Matching an uncertain mutation against E*TRADE's order list. E*TRADE may not echo
//! clientOrderId in listings, so a placement is recognised by E*TRADE's previewId when the
//! listing carries it, else by its terms (legs: symbol, action, quantity; price type and
//! prices) placed from shortly before our attempt to the latest it can have been accepted.
//! More than one candidate is ambiguous: the answer is then `unknown`, never a guess.

use super::types::{OrderSummary, PreviewRecord, ReconcileStatus};
use crate::etrade::models::orders::{Order, OrderDetail, OrderInstrument};
use jiff::{SignedDuration, Timestamp};
use rust_decimal::Decimal;

/// Clock skew tolerated between this machine and E*TRADE when comparing placed times.
pub const CLOCK_SLACK: SignedDuration = SignedDuration::from_secs(120);
/// A pending entry older than this, not sent by this process, was abandoned by a server
/// that stopped mid-call (longer than any request deadline).
pub const ABANDONED_AFTER: SignedDuration = SignedDuration::from_secs(300);
/// How long after the attempt E*TRADE can have accepted the placement: the request is given
/// up within its deadline, shorter than [`ABANDONED_AFTER`], plus the clock skew. An
/// identical order placed later is not this one.
pub const LATEST_ACCEPTANCE: SignedDuration =
    SignedDuration::from_secs(ABANDONED_AFTER.as_secs() + CLOCK_SLACK.as_secs());

#[derive(Debug, PartialEq)]
pub enum Matched<'a> {
    One(&'a Order),
    None,
    Ambiguous(usize),
}

fn placed_at(d: &OrderDetail) -> Option<Timestamp> {
    d.placed_time.as_deref()?.parse().ok()
}

fn same_decimal(ours: Option<Decimal>, theirs: Option<Decimal>) -> bool {
    match ours {
        // E*TRADE lists 0 for a price an order does not have.
        None => theirs.is_none_or(|t| t.is_zero()),
        Some(p) => theirs == Some(p),
    }
}

fn instrument_matches(leg: &super::types::LegSummary, i: &OrderInstrument) -> bool {
    let symbol_ok = i
        .product
        .as_ref()
        .and_then(|p| p.symbol.as_deref())
        .is_some_and(|s| s.eq_ignore_ascii_case(&leg.symbol));
    let action_ok = i.order_action.as_deref() == Some(leg.order_action.as_str());
    let quantity_ok = i.ordered_quantity.or(i.quantity) == Some(leg.quantity);
    let contract_ok = match (&leg.call_put, i.product.as_ref()) {
        (None, _) => true,
        (Some(cp), Some(p)) => {
            p.call_put.as_deref() == Some(cp.as_str())
                && leg.strike_price.is_none_or(|s| p.strike_price == Some(s))
        }
        (Some(_), None) => false,
    };
    symbol_ok && action_ok && quantity_ok && contract_ok
}

fn detail_matches(
    summary: &OrderSummary,
    d: &OrderDetail,
    (not_before, not_after): (Timestamp, Timestamp),
) -> bool {
    let time_ok = placed_at(d).is_some_and(|t| t >= not_before && t <= not_after);
    let price_ok = d.price_type.as_deref() == Some(summary.price_type.as_str())
        && same_decimal(summary.limit_price, d.limit_price)
        && same_decimal(summary.stop_price, d.stop_price);
    let legs_ok = summary.legs.len() == d.instrument.len()
        && summary
            .legs
            .iter()
            .all(|leg| d.instrument.iter().any(|i| instrument_matches(leg, i)));
    time_ok && price_ok && legs_ok
}

/// The order a placement created, if the listing shows it. `known` are order ids this
/// server already attributes to other journal entries.
pub fn match_placement<'a>(
    preview: &PreviewRecord,
    attempted_at: Timestamp,
    orders: &'a [Order],
    known: &[i64],
) -> Matched<'a> {
    let ids: Vec<i64> = preview
        .broker_preview_ids
        .iter()
        .map(|p| p.preview_id)
        .collect();
    let fresh = |o: &&Order| o.order_id.is_none_or(|id| !known.contains(&id));
    // E*TRADE's previewId is decisive when the listing carries it.
    let by_preview: Vec<&Order> = orders
        .iter()
        .filter(fresh)
        .filter(|o| {
            o.order_detail
                .iter()
                .any(|d| d.preview_id.is_some_and(|p| ids.contains(&p)))
        })
        .collect();
    if by_preview.len() == 1 {
        return Matched::One(by_preview[0]);
    }
    let window = (attempted_at - CLOCK_SLACK, attempted_at + LATEST_ACCEPTANCE);
    let candidates: Vec<&Order> = orders
        .iter()
        .filter(fresh)
        .filter(|o| {
            o.order_type
                .as_deref()
                .is_none_or(|t| t == preview.summary.order_type.as_str())
                && o.order_detail
                    .iter()
                    .any(|d| detail_matches(&preview.summary, d, window))
        })
        .collect();
    match candidates.len() {
        0 => Matched::None,
        1 => Matched::One(candidates[0]),
        n => Matched::Ambiguous(n),
    }
}

/// The listed order with this id.
pub fn find_order(orders: &[Order], order_id: i64) -> Option<&Order> {
    orders.iter().find(|o| o.order_id == Some(order_id))
}

/// The order that replaced `order_id` (a change creates a new order that names it).
pub fn find_replacement(orders: &[Order], order_id: i64) -> Option<&Order> {
    orders.iter().find(|o| {
        o.order_detail
            .iter()
            .any(|d| d.replaces_order_id == Some(order_id))
    })
}

impl super::types::Reconciliation {
    /// A check that looked at `order` in E*TRADE's list.
    pub fn of_order(status: ReconcileStatus, at: Timestamp, order: &Order, note: &str) -> Self {
        Self {
            status,
            at,
            order_id: order.order_id,
            order_status: status_of(order).map(str::to_string),
            note: Some(note.to_string()),
        }
    }
}

/// The status E*TRADE lists for an order (from its first detail).
pub fn status_of(order: &Order) -> Option<&str> {
    order.order_detail.first()?.status.as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn preview() -> PreviewRecord {
        serde_json::from_value(json!({
            "preview_id": "p1", "kind": {"kind": "new"}, "environment": "sandbox",
            "profile": "default", "account_id_key": "k", "order_fields": "",
            "broker_preview_ids": [{"preview_id": 9, "cash_margin": null}],
            "arguments_hash": "", "client_order_id": "c1",
            "summary": {"order_type": "EQ", "price_type": "LIMIT", "order_term": "GOOD_FOR_DAY",
                "market_session": "REGULAR", "limit_price": "170", "stop_price": null,
                "all_or_none": false, "estimated_notional": null,
                "legs": [{"symbol": "AAPL", "security_type": "EQ", "order_action": "BUY",
                    "quantity": "10", "call_put": null, "expiration": null,
                    "strike_price": null}]},
            "created_at": "2026-10-14T15:00:00Z", "expires_at": "2026-10-14T15:05:00Z",
            "used_at": null, "used_by": null
        }))
        .expect("preview record")
    }

    /// A listed order with our terms (no previewId), placed at `placed`.
    fn listed(id: i64, placed: Timestamp) -> Order {
        serde_json::from_value(json!({"orderId": id, "orderType": "EQ",
            "OrderDetail": [{"placedTime": placed.as_millisecond(), "priceType": "LIMIT",
                "limitPrice": 170, "Instrument": [{"orderAction": "BUY", "orderedQuantity": 10,
                    "Product": {"symbol": "AAPL", "securityType": "EQ"}}]}]}))
        .expect("order")
    }

    /// With a listing that spans several days, only an order placed while our attempt can
    /// have reached E*TRADE is ours: not one from before it, nor an identical one placed later.
    #[test]
    fn placements_match_only_within_the_attempts_window() {
        let at: Timestamp = "2026-10-14T15:00:00Z".parse().expect("time");
        let p = preview();
        let within = [
            at - CLOCK_SLACK,
            at,
            at + SignedDuration::from_secs(20),
            at + LATEST_ACCEPTANCE,
        ];
        for t in within {
            let orders = [listed(1, t)];
            assert_eq!(
                match_placement(&p, at, &orders, &[]),
                Matched::One(&orders[0]),
                "{t}"
            );
        }
        let outside = [
            at - CLOCK_SLACK - SignedDuration::from_secs(1),
            at + LATEST_ACCEPTANCE + SignedDuration::from_secs(1),
            at + SignedDuration::from_hours(20),
            at - SignedDuration::from_hours(20),
        ];
        for t in outside {
            assert_eq!(
                match_placement(&p, at, &[listed(1, t)], &[]),
                Matched::None,
                "{t}"
            );
        }
        // Yesterday's and tomorrow's twins around ours: still exactly one.
        let orders = [
            listed(1, at - SignedDuration::from_hours(20)),
            listed(2, at + SignedDuration::from_secs(3)),
            listed(3, at + SignedDuration::from_hours(20)),
        ];
        assert_eq!(
            match_placement(&p, at, &orders, &[]),
            Matched::One(&orders[1])
        );
    }
}
