//! E*TRADE request bodies. The preview body is built once as text; the place body is the
//! same members, byte for byte, with E*TRADE's `PreviewIds` wrapper added, so what is
//! placed is exactly what was previewed. Decimals are written from their exact text
//! (never through a float).

use super::order::{OrderTicket, TicketLeg};
use super::types::BrokerPreviewId;
use rust_decimal::Decimal;
use std::fmt::Write;

fn text(s: &str) -> String {
    // A &str always serializes; the fallback is never used.
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn product(leg: &TicketLeg) -> String {
    let mut p = format!(
        "{{\"securityType\":{},\"symbol\":{}",
        text(leg.security_type),
        text(&leg.symbol.to_ascii_uppercase())
    );
    if let (Some(cp), Some(exp), Some(strike)) = (leg.call_put, leg.expiration, leg.strike_price) {
        let _ = write!(
            p,
            ",\"callPut\":{},\"expiryYear\":{},\"expiryMonth\":{},\"expiryDay\":{},\"strikePrice\":{}",
            text(cp),
            exp.year(),
            exp.month(),
            exp.day(),
            number(strike)
        );
    }
    p.push('}');
    p
}

fn number(d: Decimal) -> String {
    d.to_string()
}

/// The members of `PreviewOrderRequest` (and `PlaceOrderRequest`) without the braces.
pub fn order_fields(ticket: &OrderTicket, client_order_id: &str) -> String {
    let mut order = format!(
        "{{\"allOrNone\":{},\"priceType\":{},\"orderTerm\":{},\"marketSession\":{}",
        ticket.all_or_none,
        text(ticket.price_type),
        text(ticket.order_term),
        text(ticket.market_session)
    );
    if let Some(p) = ticket.limit_price {
        let _ = write!(order, ",\"limitPrice\":{}", number(p));
    }
    if let Some(p) = ticket.stop_price {
        let _ = write!(order, ",\"stopPrice\":{}", number(p));
    }
    order.push_str(",\"Instrument\":[");
    for (i, leg) in ticket.legs.iter().enumerate() {
        if i > 0 {
            order.push(',');
        }
        let _ = write!(
            order,
            "{{\"Product\":{},\"orderAction\":{},\"quantityType\":\"QUANTITY\",\"quantity\":{}}}",
            product(leg),
            text(leg.order_action),
            number(leg.quantity)
        );
    }
    order.push_str("]}");
    format!(
        "\"orderType\":{},\"clientOrderId\":{},\"Order\":[{order}]",
        text(ticket.order_type),
        text(client_order_id)
    )
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
    use std::str::FromStr;

    fn eq_ticket() -> OrderTicket {
        OrderTicket {
            order_type: "EQ",
            price_type: "LIMIT",
            order_term: "GOOD_FOR_DAY",
            market_session: "REGULAR",
            limit_price: Decimal::from_str("170.00").ok(),
            stop_price: None,
            all_or_none: false,
            client_order_id: None,
            legs: vec![TicketLeg {
                symbol: "aapl".into(),
                security_type: "EQ",
                order_action: "BUY",
                quantity: Decimal::from(10),
                call_put: None,
                expiration: None,
                strike_price: None,
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
        t.order_type = "OPTN";
        t.legs[0].security_type = "OPTN";
        t.legs[0].order_action = "BUY_OPEN";
        t.legs[0].call_put = Some("CALL");
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
}
