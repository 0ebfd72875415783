//! Orders: list (filters, `count` ≤ 100, opaque `marker` paging with `next`, 204 when none)
//! over the order book (fixture orders and those placed through the API, newest first).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use jiff::civil::Date;
use serde_json::{Value, json};

use crate::codes;
use crate::fixtures::round;
use crate::orders_state::{FakeOptionLeg, FakeOrder, FakeOrderLeg, STATUSES};
use crate::responses::{api_error, no_content, ok_json};
use crate::state::Shared;

type Params = Query<HashMap<String, String>>;

const MAX_COUNT: usize = 100;

fn invalid_param(name: &str) -> Response {
    api_error(
        StatusCode::BAD_REQUEST,
        1,
        &format!("Invalid value for the parameter {name}."),
    )
}

/// Opaque-looking cursor for an offset into the sorted list.
fn marker(offset: usize) -> String {
    format!("eNp{:06x}Q", offset ^ 0x5a5a5)
}

fn offset(marker: &str) -> Option<usize> {
    let hex = marker.strip_prefix("eNp")?.strip_suffix('Q')?;
    usize::from_str_radix(hex, 16).ok().map(|x| x ^ 0x5a5a5)
}

fn mmddyyyy(v: &str) -> Option<Date> {
    if v.len() != 8 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (m, d, y) = (
        v[0..2].parse().ok()?,
        v[2..4].parse().ok()?,
        v[4..8].parse().ok()?,
    );
    Date::new(y, m, d).ok()
}

fn transaction_type(o: &FakeOrder) -> &'static str {
    match o.action() {
        "SELL" | "SELL_CLOSE" | "SELL_OPEN" => "SELL",
        "SELL_SHORT" => "SELL_SHORT",
        "BUY_TO_COVER" => "BUY_TO_COVER",
        _ => "BUY",
    }
}

fn osi_key(l: &FakeOrderLeg, o: &FakeOptionLeg) -> String {
    format!(
        "{:-<6}{:02}{:02}{:02}{}{:08}",
        l.symbol,
        o.expiry_year % 100,
        o.expiry_month,
        o.expiry_day,
        if o.call_put == "PUT" { 'P' } else { 'C' },
        (o.strike_price * 1000.0).round() as i64
    )
}

fn order_json(base: &str, o: &FakeOrder, echo_client_order_id: bool) -> Value {
    let multiplier = o.legs.first().map_or(1.0, FakeOrderLeg::multiplier);
    let instruments: Vec<Value> = o
        .legs
        .iter()
        .map(|l| {
            let mut product = json!({"symbol": l.symbol, "securityType": l.security_type});
            if let (Some(opt), Some(p)) = (&l.option, product.as_object_mut()) {
                p.insert("callPut".into(), json!(opt.call_put));
                p.insert("expiryYear".into(), json!(opt.expiry_year));
                p.insert("expiryMonth".into(), json!(opt.expiry_month));
                p.insert("expiryDay".into(), json!(opt.expiry_day));
                p.insert("strikePrice".into(), json!(opt.strike_price));
            }
            let mut i = json!({"symbolDescription": l.symbol_description, "orderAction": l.action,
                "quantityType": l.quantity_type, "orderedQuantity": l.quantity,
                "filledQuantity": l.filled_quantity,
                "estimatedCommission": if l.filled_quantity > 0.0 { o.commission } else { 0.0 },
                "estimatedFees": 0.0, "Product": product});
            if let (Some(px), Some(m)) = (l.average_execution_price, i.as_object_mut()) {
                m.insert("averageExecutionPrice".into(), json!(px));
            }
            if let (Some(opt), Some(m)) = (&l.option, i.as_object_mut()) {
                m.insert("osiKey".into(), json!(osi_key(l, opt)));
            }
            i
        })
        .collect();
    let mut detail = json!({"orderNumber": 1, "accountId": o.account_id, "placedTime": o.placed_time,
        "orderValue": round(o.order_value * if o.from_fixtures { multiplier } else { 1.0 }, 2),
        "status": o.status, "orderTerm": o.order_term, "priceType": o.price_type,
        "limitPrice": o.limit_price.unwrap_or(0.0), "stopPrice": o.stop_price.unwrap_or(0.0),
        "marketSession": o.market_session,
        "allOrNone": o.all_or_none, "netPrice": 0, "netBid": 0, "netAsk": 0, "gcd": 0, "ratio": "",
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
        if let (true, Some(c)) = (echo_client_order_id, &o.client_order_id) {
            m.insert("clientOrderId".into(), json!(c));
        }
    }
    let mut events = vec![
        json!({"name": "ORDER_PLACED", "dateTime": o.placed_time, "orderNumber": 1,
        "Instrument": instruments.clone()}),
    ];
    let last = match o.status.as_str() {
        "EXECUTED" => Some("ORDER_EXECUTED"),
        "CANCELLED" => Some("ORDER_CANCELLED"),
        "REJECTED" => Some("ORDER_REJECTED"),
        "EXPIRED" => Some("ORDER_EXPIRED"),
        "CANCEL_REQUESTED" => Some("CANCEL_REQUESTED"),
        _ => None,
    };
    if let Some(name) = last {
        let at = o
            .cancel_time
            .filter(|_| o.status == "CANCELLED")
            .or(o.executed_time)
            .unwrap_or(o.placed_time + 60_000);
        events.push(
            json!({"name": name, "dateTime": at, "orderNumber": 1, "Instrument": instruments}),
        );
    }
    json!({"orderId": o.order_id,
        "details": format!("{base}/v1/accounts/{}/orders/{}.json", o.account_key, o.order_id),
        "orderType": o.order_type, "totalOrderValue": round(o.order_value, 2),
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
            "Account key does not belong to user.",
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
    let count = match q.get("count") {
        None => 25,
        Some(v) => match v.parse::<usize>() {
            Ok(0) | Err(_) => return invalid_param("count"),
            Ok(n) if n > MAX_COUNT => {
                return api_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    100,
                    "Request could not be completed.",
                );
            }
            Ok(n) => n,
        },
    };
    let start = match q.get("marker") {
        None => 0,
        Some(m) => match offset(m) {
            Some(o) => o,
            None => return invalid_param("marker"),
        },
    };
    if let Some(st) = q.get("status")
        && !STATUSES.contains(&st.as_str())
    {
        return invalid_param("status");
    }
    let from = q.get("fromDate").map(|v| mmddyyyy(v));
    let to = q.get("toDate").map(|v| mmddyyyy(v));
    // The stricter reading of E*TRADE's rule (pyetrade: "toDate should be greater than
    // fromDate"): equal dates are refused too, so a client that sends them is caught here.
    let (from, to) = match (from, to) {
        (None, None) => (None, None),
        (Some(Some(f)), Some(Some(t))) if f < t => (Some(f), Some(t)),
        (Some(Some(_)), Some(Some(_))) => return invalid_param("toDate"),
        (Some(_), _) => return invalid_param("fromDate"),
        (None, _) => return invalid_param("toDate"),
    };
    let symbols: Option<Vec<String>> = q.get("symbol").map(|v| {
        v.split(',')
            .map(|x| x.trim().to_ascii_uppercase())
            .collect()
    });
    if symbols.as_ref().is_some_and(|s| s.len() > 25) {
        return invalid_param("symbol");
    }
    let sec_type = q.get("securityType");
    if sec_type.is_some_and(|v| !["EQ", "OPTN", "MF", "MMF"].contains(&v.as_str())) {
        return invalid_param("securityType");
    }
    let tx = q.get("transactionType");
    if tx.is_some_and(|v| {
        ![
            "ATNM",
            "BUY",
            "SELL",
            "SELL_SHORT",
            "BUY_TO_COVER",
            "MF_EXCHANGE",
        ]
        .contains(&v.as_str())
    }) {
        return invalid_param("transactionType");
    }
    let session = q.get("marketSession");
    if session.is_some_and(|v| !["REGULAR", "EXTENDED"].contains(&v.as_str())) {
        return invalid_param("marketSession");
    }
    let tz = s.tz.clone();
    let all: Vec<FakeOrder> = s.lock().book().for_account(&account_id).cloned().collect();
    let mut orders: Vec<FakeOrder> = all
        .into_iter()
        .filter(|o| q.get("status").is_none_or(|st| &o.status == st))
        .filter(|o| {
            let day = jiff::Timestamp::from_millisecond(o.placed_time)
                .map(|t| t.to_zoned_datetime(tz.clone()).date())
                .ok();
            from.is_none_or(|f| day.is_some_and(|d| d >= f))
                && to.is_none_or(|t| day.is_some_and(|d| d <= t))
        })
        .filter(|o| {
            symbols
                .as_ref()
                .is_none_or(|syms| o.legs.iter().any(|l| syms.contains(&l.symbol)))
        })
        .filter(|o| sec_type.is_none_or(|t| o.legs.iter().any(|l| &l.security_type == t)))
        .filter(|o| tx.is_none_or(|t| t == "ATNM" || transaction_type(o) == t))
        .filter(|o| session.is_none_or(|m| &o.market_session == m))
        .collect();
    orders.sort_by_key(|o| {
        (
            std::cmp::Reverse(o.placed_time),
            std::cmp::Reverse(o.order_id),
        )
    });
    if start >= orders.len() {
        return no_content();
    }
    let end = (start + count).min(orders.len());
    let page: Vec<Value> = orders[start..end]
        .iter()
        .map(|o| order_json(&s.base_url, o, s.config.echo_client_order_id))
        .collect();
    let mut body = json!({"Order": page});
    if end < orders.len()
        && let Some(m) = body.as_object_mut()
    {
        let next = marker(end);
        m.insert(
            "next".into(),
            json!(format!(
                "{}/v1/accounts/{key}/orders?count={count}&marker={next}",
                s.base_url
            )),
        );
        m.insert("marker".into(), json!(next));
    }
    ok_json(&json!({"OrdersResponse": body}))
}
