//! `GET /v1/accounts/{k}/orders` → `OrdersResponse` (`Order[]`, each with `OrderDetail[]`,
//! `Instrument[]` and `Events.Event[]`), paged by `marker` (present with `next` only when
//! more pages exist). An empty answer (204) is an empty page.

use super::contracts::NamesContracts;
pub use super::generated::{Order, OrderDetail, OrderEvent, OrderInstrument, OrderList};
use crate::etrade::BrokerBody;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct OrdersResponse {
    #[serde(rename = "OrdersResponse")]
    pub response: OrderList,
}

impl OrderList {
    /// `None` is E*TRADE's empty answer (204): no orders, no further page.
    pub fn from_wire(body: Option<impl Into<BrokerBody>>) -> Result<OrderList, serde_json::Error> {
        match body {
            None => Ok(OrderList::default()),
            Some(v) => {
                let mut page = v.into().read::<OrdersResponse>()?.response;
                if page.marker.as_deref().is_some_and(|m| m.trim().is_empty()) {
                    page.marker = None;
                }
                page.fill_osi_keys();
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
        assert_eq!(d.placed_time.as_deref(), Some("2023-11-14T22:13:21.456Z"));
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
        let none = OrderList::from_wire(None::<serde_json::Value>).expect("204");
        assert!(none.orders.is_empty() && none.marker.is_none());
        assert!(
            OrderList::from_wire(Some(
                json!({"OrdersResponse": {"Order": [{"orderId": "x"}]}})
            ))
            .is_err()
        );
    }
}
