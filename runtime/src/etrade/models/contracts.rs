//! The one field every answer row that names a contract carries it in: `osiKey`, E*TRADE's
//! OSI key form. E*TRADE sends it on positions, listed order legs and chain contracts, but not
//! on preview or placement legs, quotes or transactions; those rows get it from their
//! `Product` (the same spelling, [`OptionSymbol::osi_key`]), so a model reads one field
//! whatever the answer.

use jiff::civil::Date;

use super::generated::{
    BrokerPlacement, BrokerPreview, OrderDetail, OrderInstrument, OrderList, Position, Product,
    Quote, TransactionBrokerage,
};
use crate::etrade::osi::OptionSymbol;
use crate::etrade::vocabulary::CallPut;

impl Product {
    /// The OSI key of the option this product is, from its terms (or its product id, which
    /// E*TRADE writes as the OSI key on option legs); None for anything else or when a term is
    /// missing.
    pub fn osi_key(&self) -> Option<String> {
        let id = self.product_id.as_ref().and_then(|id| id.symbol.as_deref());
        if let Some(o) = id.and_then(|s| OptionSymbol::parse_osi(s.trim()).ok()) {
            return Some(o.osi_key());
        }
        if !self
            .security_type
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("OPTN"))
        {
            return None;
        }
        let call_put = match self.call_put.as_deref()?.to_ascii_uppercase().as_str() {
            "CALL" => CallPut::Call,
            "PUT" => CallPut::Put,
            _ => return None,
        };
        let expiry = Date::new(
            i16::try_from(self.expiry_year?).ok()?,
            i8::try_from(self.expiry_month?).ok()?,
            i8::try_from(self.expiry_day?).ok()?,
        )
        .ok()?;
        let root = self.symbol.as_deref()?.trim();
        let strike = self
            .strike_price
            .filter(|s| s.is_sign_positive() && !s.is_zero())?;
        (!root.is_empty()).then(|| {
            OptionSymbol {
                root: root.to_ascii_uppercase(),
                expiry,
                call_put,
                strike,
            }
            .osi_key()
        })
    }
}

/// A blank key is no key (E*TRADE writes `""` on equity quotes).
fn given(key: &Option<String>) -> Option<String> {
    key.as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string)
}

/// Fills every `osiKey` an answer's rows leave out from what they say about the contract.
/// Each answer root calls it from its `from_wire`.
pub trait NamesContracts {
    fn fill_osi_keys(&mut self);
}

impl NamesContracts for OrderInstrument {
    fn fill_osi_keys(&mut self) {
        self.osi_key = given(&self.osi_key).or_else(|| self.product.as_ref()?.osi_key());
    }
}

impl NamesContracts for Position {
    fn fill_osi_keys(&mut self) {
        self.osi_key = given(&self.osi_key).or_else(|| self.product.as_ref()?.osi_key());
    }
}

impl NamesContracts for TransactionBrokerage {
    fn fill_osi_keys(&mut self) {
        self.osi_key = given(&self.osi_key).or_else(|| self.product.as_ref()?.osi_key());
    }
}

impl NamesContracts for Quote {
    fn fill_osi_keys(&mut self) {
        self.osi_key = given(&self.osi_key)
            .or_else(|| given(&self.all.as_ref()?.osi_key))
            .or_else(|| given(&self.option.as_ref()?.osi_key))
            .or_else(|| self.product.as_ref()?.osi_key());
    }
}

impl NamesContracts for OrderDetail {
    fn fill_osi_keys(&mut self) {
        self.instrument.iter_mut().for_each(|i| i.fill_osi_keys());
    }
}

impl NamesContracts for OrderList {
    fn fill_osi_keys(&mut self) {
        for o in &mut self.orders {
            o.order_detail.iter_mut().for_each(|d| d.fill_osi_keys());
            for e in &mut o.events {
                e.instrument.iter_mut().for_each(|i| i.fill_osi_keys());
            }
        }
    }
}

impl NamesContracts for BrokerPreview {
    fn fill_osi_keys(&mut self) {
        self.order.iter_mut().for_each(|d| d.fill_osi_keys());
    }
}

impl NamesContracts for BrokerPlacement {
    fn fill_osi_keys(&mut self) {
        self.order.iter_mut().for_each(|d| d.fill_osi_keys());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::Decimal;

    fn option() -> Product {
        Product {
            symbol: Some("AAPL".into()),
            security_type: Some("OPTN".into()),
            call_put: Some("CALL".into()),
            expiry_year: Some(2026),
            expiry_month: Some(12),
            expiry_day: Some(24),
            strike_price: Some(Decimal::from(240)),
            ..Default::default()
        }
    }

    #[test]
    fn a_product_names_its_contract_by_osi_key() {
        assert_eq!(option().osi_key().as_deref(), Some("AAPL--261224C00240000"));
        let stock = Product {
            symbol: Some("AAPL".into()),
            security_type: Some("EQ".into()),
            expiry_year: Some(0),
            strike_price: Some(Decimal::ZERO),
            ..Default::default()
        };
        assert_eq!(stock.osi_key(), None);
        let no_strike = Product {
            strike_price: None,
            ..option()
        };
        assert_eq!(no_strike.osi_key(), None);
    }

    #[test]
    fn rows_keep_the_key_e_trade_gave_and_fill_the_one_it_left_out() {
        let mut leg = OrderInstrument {
            product: Some(Box::new(option())),
            ..Default::default()
        };
        leg.fill_osi_keys();
        assert_eq!(leg.osi_key.as_deref(), Some("AAPL--261224C00240000"));
        let mut given = OrderInstrument {
            product: Some(Box::new(option())),
            osi_key: Some("AAPL--261224C00245000".into()),
            ..Default::default()
        };
        given.fill_osi_keys();
        assert_eq!(given.osi_key.as_deref(), Some("AAPL--261224C00245000"));
        let wire = serde_json::json!({"Product": {"symbol": "AAPL", "securityType": "OPTN",
            "callPut": "CALL", "expiryYear": 2026, "expiryMonth": 12, "expiryDay": 24,
            "strikePrice": 240}, "All": {"osiKey": ""}});
        let mut quote: Quote = serde_json::from_value(wire).expect("a quote");
        quote.fill_osi_keys();
        assert_eq!(quote.osi_key.as_deref(), Some("AAPL--261224C00240000"));
    }
}
