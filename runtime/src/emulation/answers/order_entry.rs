//! The answers of order entry: `PreviewOrderResponse` (preview and change preview),
//! `PlaceOrderResponse` (place and change place) and `CancelOrderResponse`. The order
//! itself is echoed by [`crate::emulation::order_echo`].

use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::super::NumberStyle;
use super::super::codes;
use super::super::order_echo::message;
use super::{map, object};

/// What preview and place answers both say around the echoed order.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryAnswer<'a> {
    pub order_type: &'a str,
    pub total_order_value: Decimal,
    pub total_commission: Decimal,
    /// Epoch milliseconds (`previewTime` or `placedTime`).
    pub time_ms: i64,
    pub dst: bool,
    pub account_id: &'a str,
    pub option_level_cd: i64,
    pub margin_level_cd: &'a str,
    pub client_order_id: &'a str,
    /// Write the (empty) commission message member, as recorded answers have it.
    pub commission_message: bool,
    /// The echoed order ([`crate::emulation::order_echo::OrderEcho`]).
    pub order: Value,
    pub disclosure: Value,
}

impl EntryAnswer<'_> {
    fn body(self, time_name: &str, message_name: &str, numbers: NumberStyle) -> Map<String, Value> {
        let mut body = map([
            ("orderType", Value::from(self.order_type)),
            ("totalOrderValue", numbers.json(self.total_order_value)),
            ("totalCommission", numbers.json(self.total_commission)),
            (time_name, Value::from(self.time_ms)),
            ("dstFlag", Value::from(self.dst)),
            ("accountId", Value::from(self.account_id)),
            ("optionLevelCd", Value::from(self.option_level_cd)),
            ("marginLevelCd", Value::from(self.margin_level_cd)),
            ("isEmployee", Value::from(false)),
            ("clientOrderId", Value::from(self.client_order_id)),
            ("Order", Value::Array(vec![self.order])),
            ("Disclosure", self.disclosure),
        ]);
        if self.commission_message {
            body.insert(message_name.to_owned(), Value::from(""));
        }
        body
    }
}

/// The buying power a preview reports (`marginBpDetails.marginable` for a margin account,
/// `cashBpDetails.settled` otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuyingPower {
    pub margin: bool,
    /// Buying power left after the working orders' reserve.
    pub current: Decimal,
    /// Held back for working orders.
    pub reserve: Decimal,
    /// What this order would use.
    pub order_impact: Decimal,
    /// What would be left after it.
    pub net: Decimal,
}

pub fn preview_response(
    a: EntryAnswer<'_>,
    preview_id: i64,
    cash_margin: &str,
    bp: &BuyingPower,
    numbers: NumberStyle,
) -> Value {
    let n = |d: Decimal| numbers.json(d);
    let mut body = a.body("previewTime", "commissionMessage", numbers);
    body.insert(
        "PreviewIds".into(),
        json!([{"previewId": preview_id, "cashMargin": cash_margin}]),
    );
    let figures = object([
        ("currentBp", n(bp.current + bp.reserve)),
        ("currentOor", n(bp.reserve)),
        ("currentNetBp", n(bp.current)),
        ("currentOrderImpact", n(bp.order_impact)),
        ("netBp", n(bp.net)),
    ]);
    if bp.margin {
        body.insert("marginBpDetails".into(), object([("marginable", figures)]));
    } else {
        body.insert("cashBpDetails".into(), object([("settled", figures)]));
    }
    object([("PreviewOrderResponse", Value::Object(body))])
}

/// Where a placement answer names the new order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacedId<'a> {
    /// `OrderIds[].orderId`, as E*TRADE documents and recorded answers show.
    OrderIds { order_id: i64, cash_margin: &'a str },
    /// Only the echoed `Order[].orderId`.
    InOrder(i64),
    /// Only a top-level `orderId`.
    TopLevel(i64),
    /// Nowhere.
    Nowhere,
}

pub fn place_response(a: EntryAnswer<'_>, placed: PlacedId<'_>, numbers: NumberStyle) -> Value {
    let mut body = a.body("placedTime", "commissionMsg", numbers);
    match placed {
        PlacedId::OrderIds {
            order_id,
            cash_margin,
        } => {
            body.insert(
                "OrderIds".into(),
                json!([{"orderId": order_id, "cashMargin": cash_margin}]),
            );
        }
        PlacedId::InOrder(id) => {
            if let Some(Value::Array(orders)) = body.get_mut("Order")
                && let Some(Value::Object(order)) = orders.first_mut()
            {
                order.insert("orderId".into(), Value::from(id));
            }
        }
        PlacedId::TopLevel(id) => {
            body.insert("orderId".into(), Value::from(id));
        }
        PlacedId::Nowhere => {}
    }
    object([("PlaceOrderResponse", Value::Object(body))])
}

/// A cancel request taken (`cancel_ms`: epoch milliseconds).
pub fn cancel_response(account_id: &str, order_id: i64, cancel_ms: i64) -> Value {
    json!({"CancelOrderResponse": {
        "accountId": account_id,
        "orderId": order_id,
        "cancelTime": cancel_ms,
        "Messages": {"Message": [message(codes::CANCEL_REQUESTED, codes::CANCEL_REQUESTED_MESSAGE)]},
    }})
}
