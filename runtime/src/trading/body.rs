//! E*TRADE request bodies. The preview body is one typed [`OrderMembers`] written once as
//! text; the place body is the same members, byte for byte, with E*TRADE's `PreviewIds`
//! wrapper added, so what is placed is exactly what was previewed. Decimals are written
//! from their exact text (never through a float).

use super::order::{OrderTicket, TicketLeg};
use super::types::BrokerPreviewId;
use crate::etrade::order_body::{
    ExactDecimal, InstrumentBody, OrderBody, OrderMembers, ProductBody,
};
use crate::etrade::vocabulary::QuantityType;

fn product(leg: &TicketLeg) -> ProductBody {
    let option = match (leg.call_put, leg.expiration, leg.strike_price) {
        (Some(cp), Some(exp), Some(strike)) => Some((cp, exp, strike)),
        _ => None,
    };
    ProductBody {
        security_type: leg.security_type,
        symbol: leg.symbol.to_ascii_uppercase(),
        call_put: option.map(|(cp, _, _)| cp),
        expiry_year: option.map(|(_, exp, _)| exp.year()),
        expiry_month: option.map(|(_, exp, _)| exp.month()),
        expiry_day: option.map(|(_, exp, _)| exp.day()),
        strike_price: option.map(|(_, _, strike)| ExactDecimal(strike)),
    }
}

/// The order as E*TRADE's request members.
pub fn order_members(ticket: &OrderTicket, client_order_id: &str) -> OrderMembers {
    OrderMembers {
        order_type: ticket.order_type,
        client_order_id: client_order_id.to_string(),
        order: vec![OrderBody {
            all_or_none: ticket.all_or_none,
            price_type: ticket.price_type,
            order_term: ticket.order_term,
            market_session: ticket.market_session,
            limit_price: ticket.limit_price.map(ExactDecimal),
            stop_price: ticket.stop_price.map(ExactDecimal),
            instrument: ticket
                .legs
                .iter()
                .map(|leg| InstrumentBody {
                    product: product(leg),
                    order_action: leg.order_action,
                    quantity_type: QuantityType::Quantity,
                    quantity: ExactDecimal(leg.quantity),
                })
                .collect(),
        }],
    }
}

/// The members of `PreviewOrderRequest` (and `PlaceOrderRequest`) without the braces.
pub fn order_fields(ticket: &OrderTicket, client_order_id: &str) -> String {
    order_members(ticket, client_order_id).members_text()
}

pub fn preview_body(order_fields: &str) -> String {
    format!("{{\"PreviewOrderRequest\":{{{order_fields}}}}}")
}

/// `PreviewIds` first, then the previewed members unchanged.
pub fn place_body(order_fields: &str, preview_ids: &[BrokerPreviewId]) -> String {
    let ids: Vec<String> = preview_ids
        .iter()
        .map(|p| format!("{{\"previewId\":{}}}", p.preview_id))
        .collect();
    format!(
        "{{\"PlaceOrderRequest\":{{\"PreviewIds\":[{}],{order_fields}}}}}",
        ids.join(",")
    )
}

pub fn cancel_body(order_id: i64) -> String {
    format!("{{\"CancelOrderRequest\":{{\"orderId\":{order_id}}}}}")
}

/// A fresh clientOrderId: 16 random letters and digits (E*TRADE allows up to 20).
pub fn new_client_order_id() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No entropy source: fall back to the clock, still unique per call in practice.
        let nanos = jiff::Timestamp::now().as_nanosecond();
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (nanos >> (i * 4)) as u8;
        }
    }
    bytes
        .iter()
        .map(|b| ALPHABET[(*b as usize) % ALPHABET.len()] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etrade::vocabulary::{
        CallPut, MarketSession, OrderAction, OrderTerm, OrderType, PriceType, SecurityType,
    };
    use rust_decimal::Decimal;
    use std::str::FromStr;

    fn eq_ticket() -> OrderTicket {
        OrderTicket {
            order_type: OrderType::Equity,
            price_type: PriceType::Limit,
            order_term: OrderTerm::GoodForDay,
            market_session: MarketSession::Regular,
            limit_price: Decimal::from_str("170.00").ok(),
            stop_price: None,
            all_or_none: false,
            client_order_id: None,
            legs: vec![TicketLeg {
                symbol: "aapl".into(),
                security_type: SecurityType::Equity,
                order_action: OrderAction::Buy,
                quantity: Decimal::from(10),
                call_put: None,
                expiration: None,
                strike_price: None,
                osi: false,
            }],
            flat: true,
        }
    }

    #[test]
    fn preview_and_place_share_the_members_byte_for_byte() {
        let fields = order_fields(&eq_ticket(), "4829173650");
        let preview = preview_body(&fields);
        assert_eq!(
            preview,
            r#"{"PreviewOrderRequest":{"orderType":"EQ","clientOrderId":"4829173650","Order":[{"allOrNone":false,"priceType":"LIMIT","orderTerm":"GOOD_FOR_DAY","marketSession":"REGULAR","limitPrice":170.00,"Instrument":[{"Product":{"securityType":"EQ","symbol":"AAPL"},"orderAction":"BUY","quantityType":"QUANTITY","quantity":10}]}]}}"#
        );
        let ids = [BrokerPreviewId {
            preview_id: 266606056106,
            cash_margin: Some("MARGIN".into()),
        }];
        let place = place_body(&fields, &ids);
        assert!(
            place
                .starts_with(r#"{"PlaceOrderRequest":{"PreviewIds":[{"previewId":266606056106}],"#)
        );
        assert!(place.contains(&fields));
        let v: serde_json::Value = serde_json::from_str(&place).expect("json");
        assert_eq!(
            v["PlaceOrderRequest"]["Order"][0]["limitPrice"],
            serde_json::json!(170.0)
        );
    }

    #[test]
    fn options_carry_their_contract() {
        let mut t = eq_ticket();
        t.order_type = OrderType::Option;
        t.legs[0].security_type = SecurityType::Option;
        t.legs[0].order_action = OrderAction::BuyOpen;
        t.legs[0].call_put = Some(CallPut::Call);
        t.legs[0].expiration = Some(jiff::civil::date(2099, 1, 16));
        t.legs[0].strike_price = Decimal::from_str("182.5").ok();
        let v: serde_json::Value =
            serde_json::from_str(&preview_body(&order_fields(&t, "X1"))).expect("json");
        let p = &v["PreviewOrderRequest"]["Order"][0]["Instrument"][0]["Product"];
        assert_eq!(p["expiryMonth"], 1);
        assert_eq!(p["strikePrice"], serde_json::json!(182.5));
        assert_eq!(p["callPut"], "CALL");
    }

    #[test]
    fn client_order_ids_fit_etrade_rules() {
        let a = new_client_order_id();
        let b = new_client_order_id();
        assert_eq!(a.len(), 16);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
        assert_eq!(
            cancel_body(677),
            r#"{"CancelOrderRequest":{"orderId":677}}"#
        );
    }

    /// Both emulators read the body the desk writes back into the same order: the words,
    /// the exact prices and the contract.
    #[test]
    fn the_emulation_reads_back_the_order_the_desk_wrote() {
        use crate::emulation::{Instrument, OrderRoot, OrderScope, order_request};
        let mut t = eq_ticket();
        t.order_type = OrderType::Option;
        t.legs[0].security_type = SecurityType::Option;
        t.legs[0].order_action = OrderAction::SellOpen;
        t.legs[0].call_put = Some(CallPut::Put);
        t.legs[0].expiration = Some(jiff::civil::date(2099, 1, 16));
        t.legs[0].strike_price = Decimal::from_str("182.5").ok();
        let body: serde_json::Value =
            serde_json::from_str(&preview_body(&order_fields(&t, "X1"))).expect("json");
        let parsed = order_request::parse(&body, OrderRoot::Preview, OrderScope::Etrade)
            .expect("the emulation takes the desk's body");
        let r = parsed.request;
        assert_eq!(
            (r.order_type, r.price_type, r.order_term, r.market_session),
            (t.order_type, t.price_type, t.order_term, t.market_session)
        );
        assert_eq!(r.limit_price, t.limit_price);
        assert_eq!(r.client_order_id, "X1");
        let [leg] = r.legs.as_slice() else {
            panic!("one leg")
        };
        assert_eq!(leg.action, OrderAction::SellOpen);
        assert_eq!(leg.quantity, Decimal::from(10));
        assert_eq!(
            leg.instrument,
            Instrument::Option {
                underlying: "AAPL".into(),
                expiry: jiff::civil::date(2099, 1, 16),
                right: CallPut::Put,
                strike: Decimal::from_str("182.5").unwrap_or_default(),
            }
        );
    }
}
