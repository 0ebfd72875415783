//! The members of E*TRADE's `PreviewOrderRequest` and `PlaceOrderRequest`, as one typed
//! value: the words are the vocabulary's enums and every decimal is written from its exact
//! text (`170.00` stays `170.00`, never a float). The member order is E*TRADE's documented
//! one, so the text is stable byte for byte.

use super::vocabulary::{
    CallPut, MarketSession, OrderAction, OrderTerm, OrderType, PriceType, QuantityType,
    SecurityType,
};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::str::FromStr;

/// A decimal that is a JSON number with exactly its own digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExactDecimal(pub Decimal);

impl Serialize for ExactDecimal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // A decimal's text is always a valid JSON number.
        let raw = serde_json::value::RawValue::from_string(self.0.to_string())
            .map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ExactDecimal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(deserializer)?;
        let text = raw.get().trim_matches('"');
        Decimal::from_str(text)
            .or_else(|_| Decimal::from_scientific(text))
            .map(ExactDecimal)
            .map_err(|_| serde::de::Error::custom("not a decimal number"))
    }
}

/// `orderType`, `clientOrderId` and the one `Order`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderMembers {
    pub order_type: OrderType,
    pub client_order_id: String,
    #[serde(rename = "Order")]
    pub order: Vec<OrderBody>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderBody {
    pub all_or_none: bool,
    pub price_type: PriceType,
    pub order_term: OrderTerm,
    pub market_session: MarketSession,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_price: Option<ExactDecimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_price: Option<ExactDecimal>,
    #[serde(rename = "Instrument")]
    pub instrument: Vec<InstrumentBody>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstrumentBody {
    #[serde(rename = "Product")]
    pub product: ProductBody,
    pub order_action: OrderAction,
    pub quantity_type: QuantityType,
    pub quantity: ExactDecimal,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductBody {
    pub security_type: SecurityType,
    pub symbol: String,
    /// The option's contract (all four, or none for a stock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_put: Option<CallPut>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry_year: Option<i16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry_month: Option<i8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry_day: Option<i8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strike_price: Option<ExactDecimal>,
}

impl OrderMembers {
    /// The members without the braces, as the stored preview keeps them (the place body
    /// repeats them unchanged).
    pub fn members_text(&self) -> String {
        // Every member serializes (enums, strings, integers, decimals' own text).
        let object = serde_json::to_string(self).unwrap_or_else(|_| "{}".into());
        object[1..object.len() - 1].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_keep_their_text_and_read_back() {
        let body = OrderBody {
            all_or_none: false,
            price_type: PriceType::Limit,
            order_term: OrderTerm::GoodForDay,
            market_session: MarketSession::Regular,
            limit_price: Some(ExactDecimal(Decimal::from_str("170.00").unwrap())),
            stop_price: None,
            instrument: vec![InstrumentBody {
                product: ProductBody {
                    security_type: SecurityType::Option,
                    symbol: "AAPL".into(),
                    call_put: Some(CallPut::Call),
                    expiry_year: Some(2099),
                    expiry_month: Some(1),
                    expiry_day: Some(16),
                    strike_price: Some(ExactDecimal(Decimal::from_str("182.500").unwrap())),
                },
                order_action: OrderAction::BuyOpen,
                quantity_type: QuantityType::Quantity,
                quantity: ExactDecimal(Decimal::ONE),
            }],
        };
        let text = serde_json::to_string(&body).unwrap();
        assert_eq!(
            text,
            r#"{"allOrNone":false,"priceType":"LIMIT","orderTerm":"GOOD_FOR_DAY","marketSession":"REGULAR","limitPrice":170.00,"Instrument":[{"Product":{"securityType":"OPTN","symbol":"AAPL","callPut":"CALL","expiryYear":2099,"expiryMonth":1,"expiryDay":16,"strikePrice":182.500},"orderAction":"BUY_OPEN","quantityType":"QUANTITY","quantity":1}]}"#
        );
        let back: OrderBody = serde_json::from_str(&text).unwrap();
        assert_eq!(back, body);
        let price = back.limit_price.unwrap().0;
        assert_eq!(price.to_string(), "170.00");
    }
}
