//! The order list answer (`GET /v1/accounts/{accountIdKey}/orders`): an order with its
//! legs and status history, the filters, the sort and the paging markers.

use crate::etrade::{EtradeRequest, Param};
use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::{
    BASE_URL, account, count_param, date_param, invalid_param, ms, num, product_json, query,
};
use crate::paper::book::PaperError;
use crate::paper::book::state::{AccountRec, Action, OrderRec, State, Status};
use crate::trading::calendar::time_zone;

/// Cursor of an offset into the sorted order list.
fn order_marker(offset: usize) -> String {
    format!("eNp{:06x}Q", offset ^ 0x5a5a5)
}

fn order_offset(marker: &str) -> Option<usize> {
    let hex = marker.strip_prefix("eNp")?.strip_suffix('Q')?;
    usize::from_str_radix(hex, 16).ok().map(|x| x ^ 0x5a5a5)
}

fn list_transaction_type(o: &OrderRec) -> &'static str {
    match o.legs.first().map(|l| l.action) {
        Some(Action::Sell | Action::SellClose | Action::SellOpen) => "SELL",
        Some(Action::SellShort) => "SELL_SHORT",
        Some(Action::BuyToCover) => "BUY_TO_COVER",
        _ => "BUY",
    }
}

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
                "cancelQuantity": num(if matches!(o.status, Status::Cancelled | Status::Expired) { l.remaining() } else { Decimal::ZERO }),
                "estimatedCommission": num(if l.filled.is_zero() { o.est_commission } else { o.commission_paid }),
                "estimatedFees": num(o.fees_paid),
                "Product": product_json(&l.instrument, false),
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
        "orderTerm": r.order_term,
        "priceType": r.price_type,
        "limitPrice": num(r.limit_price.unwrap_or_default()),
        "stopPrice": num(r.stop_price.unwrap_or_default()),
        "marketSession": r.market_session,
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
        "orderType": r.order_type,
        "totalOrderValue": num(o.est_value),
        "totalCommission": num(commission),
        "OrderDetail": [detail],
        "Events": {"Event": events},
    })
}

const ORDER_STATUSES: &[&str] = &[
    "OPEN",
    "EXECUTED",
    "CANCELLED",
    "INDIVIDUAL_FILLS",
    "CANCEL_REQUESTED",
    "EXPIRED",
    "REJECTED",
];

pub(crate) fn orders(state: &State, key: &str, q: &EtradeRequest) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let count = count_param(q, 25, 100)?;
    let start = match query(q, "marker") {
        None => 0,
        Some(m) => order_offset(m).ok_or_else(|| invalid_param("marker"))?,
    };
    let status = query(q, "status");
    if status.is_some_and(|s| !ORDER_STATUSES.contains(&s)) {
        return Err(invalid_param("status"));
    }
    let from = date_param(q, "fromDate")?;
    let to = date_param(q, "toDate")?;
    match (from, to) {
        (None, None) => {}
        (Some(f), Some(t)) if f <= t => {}
        (Some(_), _) => return Err(invalid_param("fromDate")),
        (None, _) => return Err(invalid_param("toDate")),
    }
    let symbols: Option<Vec<String>> = q.query_param("symbol").and_then(Param::as_list).map(|v| {
        v.iter()
            .map(|x| x.trim().to_ascii_uppercase())
            .filter(|x| !x.is_empty())
            .collect()
    });
    if symbols.as_ref().is_some_and(|s| s.len() > 25) {
        return Err(invalid_param("symbol"));
    }
    let sec_type = query(q, "securityType");
    if sec_type.is_some_and(|v| !["EQ", "OPTN", "MF", "MMF"].contains(&v)) {
        return Err(invalid_param("securityType"));
    }
    let tx = query(q, "transactionType");
    if tx.is_some_and(|v| {
        ![
            "ATNM",
            "BUY",
            "SELL",
            "SELL_SHORT",
            "BUY_TO_COVER",
            "MF_EXCHANGE",
        ]
        .contains(&v)
    }) {
        return Err(invalid_param("transactionType"));
    }
    let session = query(q, "marketSession");
    if session.is_some_and(|v| !["REGULAR", "EXTENDED"].contains(&v)) {
        return Err(invalid_param("marketSession"));
    }
    let tz = time_zone();
    let mut list: Vec<&OrderRec> = state
        .orders
        .values()
        .filter(|o| o.account_key == key)
        .filter(|o| status.is_none_or(|s| o.status.as_str() == s))
        .filter(|o| {
            let day = tz.to_datetime(o.placed_at).date();
            from.is_none_or(|f| day >= f) && to.is_none_or(|t| day <= t)
        })
        .filter(|o| {
            symbols.as_ref().is_none_or(|syms| {
                o.legs
                    .iter()
                    .any(|l| syms.iter().any(|s| s == l.instrument.symbol()))
            })
        })
        .filter(|o| {
            sec_type.is_none_or(|t| o.legs.iter().any(|l| l.instrument.security_type() == t))
        })
        .filter(|o| tx.is_none_or(|t| t == "ATNM" || list_transaction_type(o) == t))
        .filter(|o| session.is_none_or(|m| o.request.market_session == m))
        .collect();
    list.sort_by_key(|o| {
        (
            std::cmp::Reverse(o.placed_at),
            std::cmp::Reverse(o.order_id),
        )
    });
    if start >= list.len() {
        return Err(PaperError::Empty);
    }
    let end = (start + count).min(list.len());
    let page: Vec<Value> = list
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .map(|o| order_json(a, o))
        .collect();
    let mut body = json!({ "Order": page });
    if end < list.len()
        && let Some(m) = body.as_object_mut()
    {
        let next = order_marker(end);
        m.insert(
            "next".into(),
            json!(format!(
                "{BASE_URL}/v1/accounts/{}/orders?count={count}&marker={next}",
                a.key
            )),
        );
        m.insert("marker".into(), json!(next));
    }
    Ok(json!({ "OrdersResponse": body }))
}
