//! The building blocks of the order-entry answers (preview, place, cancel): the echoed
//! order, its messages, the disclosure flags and the DST flag.

use jiff::Timestamp;
use serde_json::{Map, Value, json};

use super::{num, product_json};
use crate::paper::book::engine::Estimate;
use crate::paper::book::request::OrderRequest;
use crate::trading::calendar::time_zone;

pub(crate) fn message(code: i64, description: &str) -> Value {
    json!({"description": description, "code": code, "type": "WARNING"})
}

/// The `Order[]` entry of a preview or place answer.
pub(crate) fn echo_order(r: &OrderRequest, est: &Estimate, messages: &[Value]) -> Value {
    let instruments: Vec<Value> = r
        .legs
        .iter()
        .map(|l| {
            json!({"symbolDescription": l.instrument.display(), "orderAction": l.action.as_str(),
                "quantityType": "QUANTITY", "quantity": num(l.quantity), "cancelQuantity": 0,
                "reserveOrder": true, "reserveQuantity": 0,
                "Product": product_json(&l.instrument, false)})
        })
        .collect();
    let mut o = Map::new();
    o.insert("orderTerm".into(), json!(r.order_term));
    o.insert("priceType".into(), json!(r.price_type));
    if let Some(p) = r.limit_price {
        o.insert("limitPrice".into(), num(p));
    }
    if let Some(p) = r.stop_price {
        o.insert("stopPrice".into(), num(p));
    }
    o.insert("marketSession".into(), json!(r.market_session));
    o.insert("allOrNone".into(), json!(r.all_or_none));
    o.insert(
        "egQual".into(),
        json!(if r.price_type == "MARKET" {
            "EG_QUAL_QUALIFIED"
        } else {
            "EG_QUAL_NOT_A_MARKET_ORDER"
        }),
    );
    if !messages.is_empty() {
        o.insert("messages".into(), json!({ "Message": messages }));
    }
    o.insert("estimatedCommission".into(), num(est.commission));
    o.insert("estimatedTotalAmount".into(), num(est.total()));
    for k in ["netPrice", "netBid", "netAsk", "gcd"] {
        o.insert(k.into(), json!(0));
    }
    o.insert("ratio".into(), json!(""));
    o.insert("Instrument".into(), Value::Array(instruments));
    Value::Object(o)
}

pub(crate) fn dst(now: Timestamp) -> bool {
    time_zone().to_offset_info(now).dst().is_dst()
}

pub(crate) fn disclosure(r: &OrderRequest) -> Value {
    json!({"ehDisclosureFlag": r.extended(), "ahDisclosureFlag": false,
        "conditionalDisclosureFlag": true, "aoDisclosureFlag": r.all_or_none})
}
