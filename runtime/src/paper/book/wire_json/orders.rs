//! The order list answer (`GET /v1/accounts/{accountIdKey}/orders`): an order with its
//! legs and status history, the filters, the sort and the paging markers.

use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::{BASE_URL, account, ms, num};
use crate::calendar::time_zone;
use crate::emulation::order_list::{self, OrderLinks, OrderListQuery};
use crate::emulation::{NumberStyle, OrderStatus};
use crate::etrade::{EtradeRequest, Param};
use crate::paper::book::PaperError;
use crate::paper::book::state::{AccountRec, OrderRec, State};

fn order_instruments(o: &OrderRec) -> Vec<Value> {
    o.legs
        .iter()
        .map(|l| {
            let mut i = json!({
                "symbolDescription": l.instrument.display(),
                "orderAction": l.action.as_str(),
                "quantityType": "QUANTITY",
                "orderedQuantity": num(l.quantity),
                "filledQuantity": num(l.filled),
                "cancelQuantity": num(if matches!(o.status, OrderStatus::Cancelled | OrderStatus::Expired) { l.remaining() } else { Decimal::ZERO }),
                "estimatedCommission": num(if l.filled.is_zero() { o.est_commission } else { o.commission_paid }),
                "estimatedFees": num(o.fees_paid),
                "Product": l.instrument.product_json(NumberStyle::Exact, false),
            });
            if let Some(m) = i.as_object_mut() {
                if let Some(avg) = l.fill_value.checked_div(l.filled) {
                    m.insert("averageExecutionPrice".into(), num(avg.round_dp(4)));
                }
                if let Some(osi) = l.instrument.osi_key() {
                    m.insert("osiKey".into(), json!(osi));
                }
            }
            i
        })
        .collect()
}

pub(crate) fn order_json(a: &AccountRec, o: &OrderRec) -> Value {
    let r = &o.request;
    let instruments = order_instruments(o);
    let mut detail = json!({
        "orderNumber": 1,
        "accountId": a.id,
        "previewTime": ms(o.preview_at),
        "placedTime": ms(o.placed_at),
        "orderValue": num(o.est_value),
        "status": o.status.as_str(),
        "orderTerm": r.order_term.as_str(),
        "priceType": r.price_type.as_str(),
        "limitPrice": num(r.limit_price.unwrap_or_default()),
        "stopPrice": num(r.stop_price.unwrap_or_default()),
        "marketSession": r.market_session.as_str(),
        "allOrNone": r.all_or_none,
        "previewId": o.preview_id,
        "netPrice": 0, "netBid": 0, "netAsk": 0, "gcd": 0, "ratio": "",
        "Instrument": instruments.clone(),
    });
    if let Some(m) = detail.as_object_mut() {
        if let Some(t) = o.executed_at {
            m.insert("executedTime".into(), json!(ms(t)));
        }
        if let Some(id) = o.replaces {
            m.insert("replacesOrderId".into(), json!(id));
        }
        if let Some(id) = o.replaced_by {
            m.insert("replacedByOrderId".into(), json!(id));
        }
        if o.stop_triggered_at.is_some() {
            m.insert("triggerPrice".into(), num(r.stop_price.unwrap_or_default()));
        }
    }
    let events: Vec<Value> = o
        .events
        .iter()
        .map(|e| json!({"name": e.name, "dateTime": ms(e.at), "orderNumber": 1, "Instrument": instruments.clone()}))
        .collect();
    let commission = if o.commission_paid.is_zero() {
        o.est_commission
    } else {
        o.commission_paid
    };
    json!({
        "orderId": o.order_id,
        "details": format!("{BASE_URL}/v1/accounts/{}/orders/{}.json", a.key, o.order_id),
        "orderType": r.order_type.as_str(),
        "totalOrderValue": num(o.est_value),
        "totalCommission": num(commission),
        "OrderDetail": [detail],
        "Events": {"Event": events},
    })
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
