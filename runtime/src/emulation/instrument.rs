//! What a leg or a position trades ([`Instrument`]), and the `Product` block E*TRADE
//! describes an instrument with.

use jiff::civil::Date;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::json_number::NumberStyle;
use crate::etrade::osi::OptionSymbol;
pub use crate::etrade::vocabulary::{CallPut, SecurityType};

/// What a leg or a position trades.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Instrument {
    Equity {
        symbol: String,
    },
    Option {
        underlying: String,
        expiry: Date,
        right: CallPut,
        strike: Decimal,
    },
    /// A mutual fund, or a money market fund (`MMF`).
    Fund {
        symbol: String,
        money_market: bool,
    },
}

impl Instrument {
    /// The symbol (the underlier's for an option).
    pub fn symbol(&self) -> &str {
        match self {
            Instrument::Equity { symbol } | Instrument::Fund { symbol, .. } => symbol,
            Instrument::Option { underlying, .. } => underlying,
        }
    }

    pub fn is_option(&self) -> bool {
        matches!(self, Instrument::Option { .. })
    }

    pub fn security_type(&self) -> SecurityType {
        match self {
            Instrument::Equity { .. } => SecurityType::Equity,
            Instrument::Option { .. } => SecurityType::Option,
            Instrument::Fund {
                money_market: false,
                ..
            } => SecurityType::MutualFund,
            Instrument::Fund {
                money_market: true, ..
            } => SecurityType::MoneyMarketFund,
        }
    }

    /// Shares per unit: 100 for an option contract.
    pub fn multiplier(&self) -> Decimal {
        if self.is_option() {
            Decimal::ONE_HUNDRED
        } else {
            Decimal::ONE
        }
    }

    /// An option's underlier, expiry, right and strike.
    fn option_terms(&self) -> Option<(&str, Date, CallPut, Decimal)> {
        match self {
            Instrument::Option {
                underlying,
                expiry,
                right,
                strike,
            } => Some((underlying, *expiry, *right, *strike)),
            Instrument::Equity { .. } | Instrument::Fund { .. } => None,
        }
    }

    /// The strike of an option.
    pub fn strike(&self) -> Option<Decimal> {
        self.option_terms().map(|(_, _, _, strike)| strike)
    }

    /// The option as one contract of [`OptionSymbol`], the spellings' one home; None for
    /// anything else.
    pub fn option_symbol(&self) -> Option<OptionSymbol> {
        let (underlying, expiry, right, strike) = self.option_terms()?;
        Some(OptionSymbol {
            root: underlying.to_string(),
            expiry,
            call_put: right,
            strike,
        })
    }

    /// The OSI key of an option (`AAPL--250620C00150000`), None for anything else.
    pub fn osi_key(&self) -> Option<String> {
        self.option_symbol().map(|o| o.osi_key())
    }

    /// The symbol a quote request names it by: `IBM:2018:8:17:CALL:200.000000` for an
    /// option.
    pub fn quote_symbol(&self) -> String {
        match self.option_symbol() {
            Some(o) => o.quote_symbol(),
            None => self.symbol().to_string(),
        }
    }

    /// How E*TRADE displays the security (`AAPL Jun 20 '25 $150 Call`).
    pub fn display(&self) -> String {
        let Some((underlying, expiry, right, strike)) = self.option_terms() else {
            return self.symbol().to_string();
        };
        format!(
            "{underlying} {} '{:02} ${} {}",
            expiry.strftime("%b %d"),
            expiry.year() % 100,
            strike.normalize(),
            if right == CallPut::Put { "Put" } else { "Call" }
        )
    }

    /// The `Product` block of an order instrument, or with `with_ids` of a position or a
    /// transaction (which add the product id and, for an equity, zeroed option terms).
    pub fn product_json(&self, numbers: NumberStyle, with_ids: bool) -> Value {
        let mut p = Map::new();
        p.insert("symbol".into(), json!(self.symbol()));
        p.insert("securityType".into(), json!(self.security_type().as_str()));
        match self {
            Instrument::Equity { symbol } | Instrument::Fund { symbol, .. } => {
                if with_ids {
                    for k in ["expiryYear", "expiryMonth", "expiryDay", "strikePrice"] {
                        p.insert(k.into(), json!(0));
                    }
                    p.insert(
                        "productId".into(),
                        json!({"symbol": symbol, "typeCode": "EQUITY"}),
                    );
                }
            }
            Instrument::Option {
                expiry,
                right,
                strike,
                ..
            } => {
                p.insert("callPut".into(), json!(right.as_str()));
                p.insert("expiryYear".into(), json!(expiry.year()));
                p.insert("expiryMonth".into(), json!(expiry.month()));
                p.insert("expiryDay".into(), json!(expiry.day()));
                p.insert("strikePrice".into(), numbers.json(*strike));
                if with_ids {
                    p.insert("expiryType".into(), json!("MONTHLY"));
                    p.insert(
                        "productId".into(),
                        json!({"symbol": self.osi_key(), "typeCode": "OPTION"}),
                    );
                }
            }
        }
        Value::Object(p)
    }
}
