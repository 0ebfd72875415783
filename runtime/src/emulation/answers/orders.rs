//! One order as list orders answers it (`OrdersResponse.Order[]`): its detail, one
//! `Instrument` per leg and its status history (`Events`). The page around it (sort,
//! filters, markers) is `emulation::order_list`'s.

use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::super::order_request::OrderRequest;
use super::super::order_status::OrderStatus;
use super::Style;

/// What an emulator knows about one leg of a listed order, beside what was ordered.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedLeg {
    pub description: String,
    pub filled: Decimal,
    /// `cancelQuantity`, for an emulator that tracks it.
    pub cancelled: Option<Decimal>,
    pub estimated_commission: Decimal,
    pub estimated_fees: Decimal,
    pub average_execution_price: Option<Decimal>,
}

/// What list orders says about one order. Times are epoch milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedOrder<'a> {
    pub order_id: i64,
    pub account_id: &'a str,
    pub account_key: &'a str,
    pub request: &'a OrderRequest,
    /// One per leg of `request`, in its order.
    pub legs: Vec<ListedLeg>,
    pub status: OrderStatus,
    /// The detail's `orderValue`.
    pub order_value: Decimal,
    pub total_order_value: Decimal,
    pub total_commission: Decimal,
    pub preview_time: Option<i64>,
    pub placed_time: i64,
    pub executed_time: Option<i64>,
    pub preview_id: Option<i64>,
    pub replaces_order_id: Option<i64>,
    pub replaced_by_order_id: Option<i64>,
    /// `triggerPrice`, once a stop has triggered.
    pub trigger_price: Option<Decimal>,
    /// Echoed only by an emulator configured to (E*TRADE's documentation lists it; recorded
    /// answers do not always carry it).
    pub client_order_id: Option<&'a str>,
    /// The status history, oldest first: an event's name and time.
    pub events: Vec<(&'a str, i64)>,
}

fn insert_some(m: &mut Map<String, Value>, key: &str, v: Option<Value>) {
    if let Some(v) = v {
        m.insert(key.into(), v);
    }
}

fn instruments(o: &ListedOrder<'_>, style: Style<'_>) -> Vec<Value> {
    let num = |d: Decimal| style.numbers.json(d);
    o.request
        .legs
        .iter()
        .zip(&o.legs)
        .map(|(l, fig)| {
            let mut i = Map::new();
            i.insert("symbolDescription".into(), json!(fig.description));
            i.insert("orderAction".into(), json!(l.action.as_str()));
            i.insert("quantityType".into(), json!(l.quantity_type.as_str()));
            i.insert("orderedQuantity".into(), num(l.quantity));
            i.insert("filledQuantity".into(), num(fig.filled));
            insert_some(&mut i, "cancelQuantity", fig.cancelled.map(num));
            i.insert("estimatedCommission".into(), num(fig.estimated_commission));
            i.insert("estimatedFees".into(), num(fig.estimated_fees));
            i.insert(
                "Product".into(),
                l.instrument.product_json(style.numbers, false),
            );
            insert_some(
                &mut i,
                "averageExecutionPrice",
                fig.average_execution_price.map(num),
            );
            insert_some(&mut i, "osiKey", l.instrument.osi_key().map(Value::from));
            Value::Object(i)
        })
        .collect()
}

/// The `Order[]` entry for `o`.
pub fn listed_order(o: &ListedOrder<'_>, style: Style<'_>) -> Value {
    let num = |d: Decimal| style.numbers.json(d);
    let r = o.request;
    let instruments = instruments(o, style);
    let mut detail = json!({
        "orderNumber": 1,
        "accountId": o.account_id,
        "placedTime": o.placed_time,
        "orderValue": num(o.order_value),
        "status": o.status.as_str(),
        "orderTerm": r.order_term.as_str(),
        "priceType": r.price_type.as_str(),
        "limitPrice": num(r.limit_price.unwrap_or_default()),
        "stopPrice": num(r.stop_price.unwrap_or_default()),
        "marketSession": r.market_session.as_str(),
        "allOrNone": r.all_or_none,
        "netPrice": 0, "netBid": 0, "netAsk": 0, "gcd": 0, "ratio": "",
        "Instrument": instruments.clone(),
    });
    if let Some(m) = detail.as_object_mut() {
        insert_some(m, "previewTime", o.preview_time.map(Value::from));
        insert_some(m, "executedTime", o.executed_time.map(Value::from));
        insert_some(m, "previewId", o.preview_id.map(Value::from));
        insert_some(m, "replacesOrderId", o.replaces_order_id.map(Value::from));
        insert_some(
            m,
            "replacedByOrderId",
            o.replaced_by_order_id.map(Value::from),
        );
        insert_some(m, "triggerPrice", o.trigger_price.map(num));
        insert_some(m, "clientOrderId", o.client_order_id.map(Value::from));
    }
    let events: Vec<Value> = o
        .events
        .iter()
        .map(|(name, at)| {
            json!({"name": name, "dateTime": at, "orderNumber": 1,
                "Instrument": instruments.clone()})
        })
        .collect();
    json!({
        "orderId": o.order_id,
        "details": format!("{}/v1/accounts/{}/orders/{}.json", style.base_url, o.account_key, o.order_id),
        "orderType": r.order_type.as_str(),
        "totalOrderValue": num(o.total_order_value),
        "totalCommission": num(o.total_commission),
        "OrderDetail": [detail],
        "Events": {"Event": events},
    })
}

/// The event E*TRADE lists when an order reaches `status`, if that status ends or pauses it.
pub fn closing_event(status: OrderStatus) -> Option<&'static str> {
    match status {
        OrderStatus::Executed => Some("ORDER_EXECUTED"),
        OrderStatus::Cancelled => Some("ORDER_CANCELLED"),
        OrderStatus::Rejected => Some("ORDER_REJECTED"),
        OrderStatus::Expired => Some("ORDER_EXPIRED"),
        OrderStatus::CancelRequested => Some("CANCEL_REQUESTED"),
        OrderStatus::Open | OrderStatus::IndividualFills => None,
    }
}
