//! Orders: list (filters, `count` ≤ 100, opaque `marker` paging with `next`, 204 when none)
//! over the order book (fixture orders and those placed through the API, newest first).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::json_number::to_f64;
use runtime::emulation::order_list::{self, OrderLinks, OrderListQuery};
use runtime::emulation::{NumberStyle, OrderStatus, codes};
use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::fixtures::round;
use crate::orders_state::FakeOrder;
use crate::responses::{api_error, no_content, ok_json, param_refusal};
use crate::state::Shared;

type Params = Query<HashMap<String, String>>;

fn order_json(base: &str, o: &FakeOrder, echo_client_order_id: bool) -> Value {
    let r = &o.request;
    let multiplier = r
        .legs
        .first()
        .map_or(1.0, |l| to_f64(l.instrument.multiplier()));
    let instruments: Vec<Value> = r
        .legs
        .iter()
        .zip(&o.leg_states)
        .map(|(l, state)| {
            let mut i = json!({"symbolDescription": state.symbol_description,
                "orderAction": l.action.as_str(), "quantityType": l.quantity_type.as_str(),
                "orderedQuantity": to_f64(l.quantity), "filledQuantity": state.filled_quantity,
                "estimatedCommission": if state.filled_quantity > 0.0 { o.commission } else { 0.0 },
                "estimatedFees": 0.0,
                "Product": l.instrument.product_json(NumberStyle::Float, false)});
            if let (Some(px), Some(m)) = (state.average_execution_price, i.as_object_mut()) {
                m.insert("averageExecutionPrice".into(), json!(px));
            }
            if let (Some(osi), Some(m)) = (l.instrument.osi_key(), i.as_object_mut()) {
                m.insert("osiKey".into(), json!(osi));
            }
            i
        })
        .collect();
    let price = |p: Option<Decimal>| p.map_or(0.0, to_f64);
    let mut detail = json!({"orderNumber": 1, "accountId": o.account_id, "placedTime": o.placed_time,
        "orderValue": round(o.order_value * if o.from_fixtures { multiplier } else { 1.0 }, 2),
        "status": o.status, "orderTerm": r.order_term.as_str(),
        "priceType": r.price_type.as_str(), "limitPrice": price(r.limit_price),
        "stopPrice": price(r.stop_price), "marketSession": r.market_session.as_str(),
        "allOrNone": r.all_or_none, "netPrice": 0, "netBid": 0, "netAsk": 0, "gcd": 0, "ratio": "",
        "Instrument": instruments.clone()});
    if let Some(m) = detail.as_object_mut() {
        if let Some(t) = o.executed_time {
            m.insert("executedTime".into(), json!(t));
        }
        if let Some(id) = o.preview_id {
            m.insert("previewId".into(), json!(id));
        }
        if let Some(id) = o.replaces_order_id {
            m.insert("replacesOrderId".into(), json!(id));
        }
        if let Some(id) = o.replaced_by_order_id {
            m.insert("replacedByOrderId".into(), json!(id));
        }
        if let (true, Some(c)) = (echo_client_order_id, o.client_order_id()) {
            m.insert("clientOrderId".into(), json!(c));
        }
    }
    let mut events = vec![
        json!({"name": "ORDER_PLACED", "dateTime": o.placed_time, "orderNumber": 1,
        "Instrument": instruments.clone()}),
    ];
    let last = match OrderStatus::parse(&o.status) {
        Some(OrderStatus::Executed) => Some("ORDER_EXECUTED"),
        Some(OrderStatus::Cancelled) => Some("ORDER_CANCELLED"),
        Some(OrderStatus::Rejected) => Some("ORDER_REJECTED"),
        Some(OrderStatus::Expired) => Some("ORDER_EXPIRED"),
        Some(OrderStatus::CancelRequested) => Some("CANCEL_REQUESTED"),
        _ => None,
    };
    if let Some(name) = last {
        let at = o
            .cancel_time
            .filter(|_| o.status == OrderStatus::Cancelled.as_str())
            .or(o.executed_time)
            .unwrap_or(o.placed_time + 60_000);
        events.push(
            json!({"name": name, "dateTime": at, "orderNumber": 1, "Instrument": instruments}),
        );
    }
    json!({"orderId": o.order_id,
        "details": format!("{base}/v1/accounts/{}/orders/{}.json", o.account_key, o.order_id),
        "orderType": r.order_type.as_str(), "totalOrderValue": round(o.order_value, 2),
        "totalCommission": o.commission, "OrderDetail": [detail],
        "Events": {"Event": events}})
}

/// What order endpoints need to know about an account.
#[derive(Debug, Clone)]
pub(crate) struct Acct {
    pub id: String,
    pub cash: f64,
    pub margin: bool,
    /// `optionLevelCd`: 0 for NO_OPTIONS, n for LEVEL_n.
    pub option_level: i64,
}

impl Acct {
    pub fn cash_margin(&self) -> &'static str {
        if self.margin { "MARGIN" } else { "CASH" }
    }
    pub fn margin_level(&self) -> &'static str {
        if self.margin {
            "MARGIN_TRADING_ALLOWED"
        } else {
            "MARGIN_TRADING_NOT_ALLOWED"
        }
    }
}

/// The account with this key, or E*TRADE's 400 code 100.
pub(crate) fn account(s: &Shared, key: &str) -> Result<Acct, Response> {
    let inner = s.lock();
    match inner.fixtures.account_by_key(key) {
        Some(a) => Ok(Acct {
            id: a.account_id.clone(),
            cash: a.cash_balance,
            margin: a.is_margin(),
            option_level: a
                .option_level
                .strip_prefix("LEVEL_")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
        }),
        None => Err(api_error(
            StatusCode::BAD_REQUEST,
            codes::ACCOUNT_KEY,
            codes::ACCOUNT_KEY_MESSAGE,
        )),
    }
}

/// `GET /v1/accounts/{key}/orders`
pub(crate) async fn list(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    Query(q): Params,
) -> Response {
    let account_id = match account(&s, &key) {
        Ok(a) => a.id,
        Err(r) => return r,
    };
    let query = match OrderListQuery::parse(|name| q.get(name).cloned()) {
        Ok(query) => query,
        Err(e) => return param_refusal(&e),
    };
    let tz = s.tz.clone();
    let orders: Vec<FakeOrder> = s
        .lock()
        .book()
        .for_account(&account_id)
        .filter(|o| {
            let day = jiff::Timestamp::from_millisecond(o.placed_time)
                .map(|t| t.to_zoned_datetime(tz.clone()).date())
                .ok();
            query.filter.admits(&o.request, &o.status, day)
        })
        .cloned()
        .collect();
    let links = OrderLinks {
        base_url: &s.base_url,
        account_key: &key,
    };
    let page = order_list::orders_page(
        orders,
        &query,
        |o| (o.placed_time, o.order_id),
        &links,
        |o| order_json(&s.base_url, o, s.config.echo_client_order_id),
    );
    page.map_or_else(no_content, |body| ok_json(&body))
}
