//! The order list answer (`GET /v1/accounts/{accountIdKey}/orders`): an order with its
//! legs and status history, the filters, the sort and the paging markers.

use rust_decimal::Decimal;
use serde_json::Value;

use super::{BASE_URL, account, ms};
use crate::calendar::time_zone;
use crate::emulation::answers::Style;
use crate::emulation::answers::orders::{ListedLeg, ListedOrder, listed_order};
use crate::emulation::order_list::{self, OrderLinks, OrderListQuery};
use crate::emulation::{NumberStyle, OrderStatus};
use crate::etrade::{EtradeRequest, Param};
use crate::paper::book::PaperError;
use crate::paper::book::state::{AccountRec, OrderRec, State};

pub(crate) fn order_json(a: &AccountRec, o: &OrderRec) -> Value {
    let closed = matches!(o.status, OrderStatus::Cancelled | OrderStatus::Expired);
    let legs = o
        .legs
        .iter()
        .map(|l| ListedLeg {
            description: l.instrument.display(),
            filled: l.filled,
            cancelled: Some(if closed { l.remaining() } else { Decimal::ZERO }),
            estimated_commission: if l.filled.is_zero() {
                o.est_commission
            } else {
                o.commission_paid
            },
            estimated_fees: o.fees_paid,
            average_execution_price: l.fill_value.checked_div(l.filled).map(|p| p.round_dp(4)),
        })
        .collect();
    let commission = if o.commission_paid.is_zero() {
        o.est_commission
    } else {
        o.commission_paid
    };
    let listed = ListedOrder {
        order_id: o.order_id,
        account_id: &a.id,
        account_key: &a.key,
        request: &o.request,
        legs,
        status: o.status,
        order_value: o.est_value,
        total_order_value: o.est_value,
        total_commission: commission,
        preview_time: Some(ms(o.preview_at)),
        placed_time: ms(o.placed_at),
        executed_time: o.executed_at.map(ms),
        preview_id: Some(o.preview_id),
        replaces_order_id: o.replaces,
        replaced_by_order_id: o.replaced_by,
        trigger_price: o.stop_triggered_at.map(|_| {
            if o.request.price_type.trail().is_some() {
                o.trail_trigger().unwrap_or_default()
            } else {
                o.request.stop_price.unwrap_or_default()
            }
        }),
        client_order_id: None,
        events: o
            .events
            .iter()
            .map(|e| (e.name.as_str(), ms(e.at)))
            .collect(),
    };
    let style = Style {
        numbers: NumberStyle::Exact,
        base_url: BASE_URL,
    };
    listed_order(&listed, style)
}

pub(crate) fn orders(state: &State, key: &str, q: &EtradeRequest) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let query = OrderListQuery::parse(|name| q.query_param(name).map(Param::wire))?;
    let tz = time_zone();
    let list: Vec<&OrderRec> = state
        .orders
        .values()
        .filter(|o| o.account_key == key)
        .filter(|o| {
            let day = tz.to_datetime(o.placed_at).date();
            query
                .filter
                .admits(&o.request, o.status.as_str(), Some(day))
        })
        .collect();
    let links = OrderLinks {
        base_url: BASE_URL,
        account_key: &a.key,
    };
    order_list::orders_page(
        list,
        &query,
        |o| (o.placed_at, o.order_id),
        &links,
        |o| order_json(a, o),
    )
    .ok_or(PaperError::Empty)
}
