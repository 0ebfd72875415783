//! `GET /v1/accounts/{k}/orders` → `OrdersResponse` (`Order[]`, each with `OrderDetail[]`,
//! `Instrument[]` and `Events.Event[]`), paged by `marker` (present with `next` only when
//! more pages exist). An empty answer (204) is an empty page.

use super::money::decimal_opt;
use super::quotes::{BrokerMessage, SecurityProduct, messages};
use super::scalars::{flag_opt, int_opt, text_opt};
use super::{epoch_auto_opt, epoch_millis_opt};
use crate::etrade::one_or_many;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
pub struct OrdersResponse {
    #[serde(rename = "OrdersResponse")]
    pub response: OrderList,
}

/// The `list_orders` data object: one broker page.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderList {
    #[serde(rename = "orders", alias = "Order", deserialize_with = "one_or_many")]
    pub orders: Vec<Order>,
    /// The cursor for the next page; None on the last page.
    #[serde(default, deserialize_with = "text_opt")]
    pub marker: Option<String>,
    #[serde(default, deserialize_with = "text_opt")]
    pub next: Option<String>,
    #[serde(
        rename = "messages",
        alias = "Messages",
        default,
        deserialize_with = "messages"
    )]
    pub messages: Vec<BrokerMessage>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    #[serde(default, deserialize_with = "int_opt")]
    pub order_id: Option<i64>,
    #[serde(default)]
    pub details: Option<String>,
    #[serde(default)]
    pub order_type: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_order_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_commission: Option<Decimal>,
    #[serde(
        rename = "orderDetail",
        alias = "OrderDetail",
        default,
        deserialize_with = "one_or_many"
    )]
    pub order_detail: Vec<OrderDetail>,
    #[serde(
        rename = "events",
        alias = "Events",
        default,
        deserialize_with = "events"
    )]
    pub events: Vec<OrderEvent>,
}

#[derive(Debug, Default, Deserialize)]
struct EventsContainer {
    #[serde(
        rename = "Event",
        alias = "event",
        default,
        deserialize_with = "one_or_many"
    )]
    event: Vec<OrderEvent>,
}

/// `Events` → `{"Event": [...]}`; also accepts a bare list.
fn events<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<OrderEvent>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum E {
        Wrapped(EventsContainer),
        List(Vec<OrderEvent>),
    }
    Ok(match Option::<E>::deserialize(d)? {
        None => Vec::new(),
        Some(E::Wrapped(c)) => c.event,
        Some(E::List(v)) => v,
    })
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderEvent {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "epoch_millis_opt")]
    pub date_time: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub order_number: Option<i64>,
    #[serde(
        rename = "instrument",
        alias = "Instrument",
        default,
        deserialize_with = "one_or_many"
    )]
    pub instrument: Vec<OrderInstrument>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetail {
    #[serde(default, deserialize_with = "int_opt")]
    pub order_number: Option<i64>,
    #[serde(default, deserialize_with = "text_opt")]
    pub account_id: Option<String>,
    #[serde(default, deserialize_with = "epoch_millis_opt")]
    pub preview_time: Option<String>,
    #[serde(default, deserialize_with = "epoch_millis_opt")]
    pub placed_time: Option<String>,
    /// Milliseconds once executed; orders not executed have been recorded with a 10-digit
    /// value, so the unit is read from the magnitude.
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub executed_time: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub order_value: Option<Decimal>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub order_term: Option<String>,
    #[serde(default)]
    pub price_type: Option<String>,
    #[serde(default, deserialize_with = "text_opt")]
    pub price_value: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub limit_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub stop_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub stop_limit_price: Option<Decimal>,
    #[serde(default)]
    pub offset_type: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub offset_value: Option<Decimal>,
    #[serde(default)]
    pub market_session: Option<String>,
    #[serde(default)]
    pub routing_destination: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bracketed_limit_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub initial_stop_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub trail_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub trigger_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub condition_price: Option<Decimal>,
    #[serde(default)]
    pub condition_symbol: Option<String>,
    #[serde(default)]
    pub condition_type: Option<String>,
    #[serde(default)]
    pub condition_follow_price: Option<String>,
    #[serde(default)]
    pub condition_security_type: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub replaced_by_order_id: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub replaces_order_id: Option<i64>,
    #[serde(default, deserialize_with = "flag_opt")]
    pub all_or_none: Option<bool>,
    #[serde(default, deserialize_with = "int_opt")]
    pub preview_id: Option<i64>,
    #[serde(
        rename = "instrument",
        alias = "Instrument",
        default,
        deserialize_with = "one_or_many"
    )]
    pub instrument: Vec<OrderInstrument>,
    #[serde(
        rename = "messages",
        alias = "Messages",
        default,
        deserialize_with = "messages"
    )]
    pub messages: Vec<BrokerMessage>,
    #[serde(default, deserialize_with = "text_opt")]
    pub pre_clearance_code: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub override_restricted_cd: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub investment_amount: Option<Decimal>,
    #[serde(default)]
    pub position_quantity: Option<String>,
    #[serde(default, deserialize_with = "flag_opt")]
    pub aip_flag: Option<bool>,
    #[serde(default)]
    pub eg_qual: Option<String>,
    #[serde(default)]
    pub re_invest_option: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub estimated_commission: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub estimated_fees: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub estimated_total_amount: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_bid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_ask: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub gcd: Option<i64>,
    #[serde(default, deserialize_with = "text_opt")]
    pub ratio: Option<String>,
    #[serde(default)]
    pub mfprice_type: Option<String>,
}

/// An `Instrument` of an order (response side).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderInstrument {
    #[serde(rename = "product", alias = "Product", default)]
    pub product: Option<SecurityProduct>,
    #[serde(default)]
    pub symbol_description: Option<String>,
    #[serde(default)]
    pub order_action: Option<String>,
    #[serde(default)]
    pub quantity_type: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub quantity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cancel_quantity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ordered_quantity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub filled_quantity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub average_execution_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub estimated_commission: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub estimated_fees: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ask: Option<Decimal>,
    #[serde(
        rename = "lastprice",
        alias = "lastPrice",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub lastprice: Option<Decimal>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub osi_key: Option<String>,
    #[serde(default)]
    pub mf_transaction: Option<String>,
    #[serde(default, deserialize_with = "flag_opt")]
    pub reserve_order: Option<bool>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub reserve_quantity: Option<Decimal>,
}

impl OrderList {
    /// `None` is E*TRADE's empty answer (204): no orders, no further page.
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<OrderList, serde_json::Error> {
        match body {
            None => Ok(OrderList::default()),
            Some(v) => {
                let mut page = serde_json::from_value::<OrdersResponse>(v)?.response;
                if page.marker.as_deref().is_some_and(|m| m.trim().is_empty()) {
                    page.marker = None;
                }
                Ok(page)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_with_a_marker_from_the_wire() {
        let wire = json!({"OrdersResponse":{"marker":"eNp1kM1uwjAQhO95Ch8","next":"https://api.etrade.com/v1/accounts/JIdOIAcSpwR1Jva7RQBraQ/orders?marker=eNp1kM1uwjAQhO95Ch8",
         "Order":[{"orderId":677,"details":"https://api.etrade.com/v1/accounts/JIdOIAcSpwR1Jva7RQBraQ/orders/677.json",
          "orderType":"EQ","OrderDetail":[{"placedTime":1700000001456_i64,"orderValue":1700.0,
           "status":"OPEN","orderTerm":"GOOD_FOR_DAY","priceType":"LIMIT","limitPrice":170.0,
           "stopPrice":0,"marketSession":"REGULAR","allOrNone":false,"netPrice":0,"netBid":0,
           "netAsk":0,"gcd":0,"ratio":"",
           "Instrument":[{"symbolDescription":"APPLE INC COM","orderAction":"BUY",
            "quantityType":"QUANTITY","orderedQuantity":10,"filledQuantity":0.0,
            "estimatedCommission":0,"estimatedFees":0.0,"averageExecutionPrice":170.105,"lastprice":170.2,
            "Product":{"symbol":"AAPL","securityType":"EQ"}}]}],
          "Events":{"Event":[{"name":"ORDER_PLACED","dateTime":1700000001456_i64,"orderNumber":1,
            "Instrument":{"orderAction":"BUY","quantity":10}}]}}]}});
        let page = OrderList::from_wire(Some(wire)).expect("parses");
        assert_eq!(page.marker.as_deref(), Some("eNp1kM1uwjAQhO95Ch8"));
        let o = &page.orders[0];
        assert_eq!(o.order_id, Some(677));
        assert_eq!(o.events.len(), 1);
        assert_eq!(o.events[0].instrument.len(), 1);
        let d = &o.order_detail[0];
        assert_eq!(d.placed_time.as_deref(), Some("2023-11-14T22:13:21Z"));
        assert_eq!(d.ratio, None);
        let out = serde_json::to_value(&page).expect("serializes");
        assert_eq!(out["orders"][0]["orderDetail"][0]["limitPrice"], "170");
        assert_eq!(
            out["orders"][0]["orderDetail"][0]["instrument"][0]["filledQuantity"],
            "0"
        );
        assert_eq!(
            out["orders"][0]["orderDetail"][0]["instrument"][0]["averageExecutionPrice"],
            "170.105"
        );
        assert_eq!(
            out["orders"][0]["orderDetail"][0]["instrument"][0]["product"]["symbol"],
            "AAPL"
        );
        assert_eq!(out["orders"][0]["events"][0]["name"], "ORDER_PLACED");
        assert!(out["orders"][0].get("OrderDetail").is_none());
    }

    #[test]
    fn last_page_and_empty_answers() {
        let wire = json!({"OrdersResponse":{"Order":{"orderId":1,"OrderDetail":{"status":"EXECUTED",
            "executedTime":1700000009000_i64,"messages":{"Message":[{"code":1026,"type":"WARNING","description":"200|ok"}]}}}}});
        let page = OrderList::from_wire(Some(wire)).expect("parses");
        assert_eq!(page.marker, None);
        assert_eq!(
            page.orders[0].order_detail[0].messages[0].code.as_deref(),
            Some("1026")
        );
        let none = OrderList::from_wire(None).expect("204");
        assert!(none.orders.is_empty() && none.marker.is_none());
        assert!(
            OrderList::from_wire(Some(
                json!({"OrdersResponse": {"Order": [{"orderId": "x"}]}})
            ))
            .is_err()
        );
    }
}
