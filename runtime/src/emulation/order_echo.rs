//! The order as E*TRADE's preview and place answers repeat it (`Order[]`), their broker
//! messages and their `Disclosure` flags.

use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::PriceType;
use super::answers::object;
use super::json_number::NumberStyle;
use super::order_request::OrderRequest;

/// A `Message` entry of an answer: a broker WARNING.
pub fn message(code: i64, description: &str) -> Value {
    json!({"description": description, "code": code, "type": "WARNING"})
}

/// The `Disclosure` member of preview and place answers.
pub fn disclosure(r: &OrderRequest) -> Value {
    json!({"ehDisclosureFlag": r.extended(), "ahDisclosureFlag": false,
        "conditionalDisclosureFlag": true, "aoDisclosureFlag": r.all_or_none})
}

/// What an echoed order adds to its request: the estimate, the messages and how each leg's
/// security is described.
#[derive(Debug, Clone)]
pub struct OrderEcho<'a> {
    pub numbers: NumberStyle,
    /// One per leg, in order.
    pub descriptions: Vec<String>,
    pub estimated_commission: Value,
    pub estimated_total: Value,
    pub messages: &'a [Value],
}

impl OrderEcho<'_> {
    /// The `Order[]` entry of a preview or place answer.
    pub fn json(&self, r: &OrderRequest) -> Value {
        let num = |d: Decimal| self.numbers.json(d);
        let instruments: Vec<Value> = r
            .legs
            .iter()
            .zip(&self.descriptions)
            .map(|(l, description)| {
                object([
                    ("symbolDescription", Value::from(description.as_str())),
                    ("orderAction", Value::from(l.action.as_str())),
                    ("quantityType", Value::from(l.quantity_type.as_str())),
                    ("quantity", num(l.quantity)),
                    ("cancelQuantity", num(Decimal::ZERO)),
                    ("reserveOrder", Value::from(true)),
                    ("reserveQuantity", num(Decimal::ZERO)),
                    ("Product", l.instrument.product_json(self.numbers, false)),
                ])
            })
            .collect();
        let mut o = Map::new();
        o.insert("orderTerm".into(), json!(r.order_term.as_str()));
        o.insert("priceType".into(), json!(r.price_type.as_str()));
        if let Some(p) = r.limit_price {
            o.insert("limitPrice".into(), num(p));
        }
        if let Some(p) = r.stop_price {
            o.insert("stopPrice".into(), num(p));
        }
        o.insert("marketSession".into(), json!(r.market_session.as_str()));
        o.insert("allOrNone".into(), json!(r.all_or_none));
        o.insert(
            "egQual".into(),
            json!(if r.price_type == PriceType::Market {
                "EG_QUAL_QUALIFIED"
            } else {
                "EG_QUAL_NOT_A_MARKET_ORDER"
            }),
        );
        if !self.messages.is_empty() {
            o.insert(
                "messages".into(),
                object([("Message", Value::Array(self.messages.to_vec()))]),
            );
        }
        o.insert(
            "estimatedCommission".into(),
            self.estimated_commission.clone(),
        );
        o.insert("estimatedTotalAmount".into(), self.estimated_total.clone());
        for k in ["netPrice", "netBid", "netAsk", "gcd"] {
            o.insert(k.into(), json!(0));
        }
        o.insert("ratio".into(), json!(""));
        o.insert("Instrument".into(), Value::Array(instruments));
        Value::Object(o)
    }
}
