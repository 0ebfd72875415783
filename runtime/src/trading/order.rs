//! The order as the runtime sees it after schema validation: one shape for flat (EQ, OPTN)
//! and spread orders, so the domain rules, the broker body and the policy read one model.
//! The tool layer converts its generated input into a [`OrderTicket`].

use super::types::{LegSummary, OrderSummary};
use rust_decimal::Decimal;

/// Spread order types: they list legs instead of one flat instrument.
pub const SPREAD_TYPES: [&str; 6] = [
    "SPREADS",
    "BUY_WRITES",
    "BUTTERFLY",
    "IRON_BUTTERFLY",
    "CONDOR",
    "IRON_CONDOR",
];

/// One preview request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderTicket {
    pub order_type: &'static str,
    pub price_type: &'static str,
    /// GOOD_FOR_DAY when the request gave none.
    pub order_term: &'static str,
    /// REGULAR when the request gave none.
    pub market_session: &'static str,
    pub limit_price: Option<Decimal>,
    pub stop_price: Option<Decimal>,
    pub all_or_none: bool,
    pub client_order_id: Option<String>,
    /// A flat order has exactly one leg, built from the request's own fields.
    pub legs: Vec<TicketLeg>,
    /// Whether the request was flat (paths then name `request.<field>`, not a leg).
    pub flat: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketLeg {
    pub symbol: String,
    /// EQ or OPTN.
    pub security_type: &'static str,
    pub order_action: &'static str,
    pub quantity: Decimal,
    pub call_put: Option<&'static str>,
    pub expiration: Option<jiff::civil::Date>,
    pub strike_price: Option<Decimal>,
}

impl TicketLeg {
    pub fn is_option(&self) -> bool {
        self.security_type == "OPTN"
    }

    /// BUY, BUY_TO_COVER, BUY_OPEN, BUY_CLOSE.
    pub fn is_buy(&self) -> bool {
        self.order_action.starts_with("BUY")
    }

    /// Shares per unit of quantity: 100 for a standard option contract.
    pub fn multiplier(&self) -> Decimal {
        if self.is_option() {
            Decimal::ONE_HUNDRED
        } else {
            Decimal::ONE
        }
    }
}

impl OrderTicket {
    pub fn is_spread(&self) -> bool {
        SPREAD_TYPES.contains(&self.order_type)
    }

    /// price × quantity × multiplier of the first leg (for spreads the net price is per
    /// unit of the first leg). None without a price (MARKET, NET_EVEN).
    pub fn priced_notional(&self) -> Option<Decimal> {
        let price = self.limit_price.or(self.stop_price)?;
        let leg = self.legs.first()?;
        price
            .checked_mul(leg.quantity)?
            .checked_mul(leg.multiplier())
    }

    /// The policy's and the journal's view; `broker_estimate` is E*TRADE's own estimate
    /// (estimatedTotalAmount) when the preview gave one, which wins over our arithmetic.
    pub fn summary(&self, broker_estimate: Option<Decimal>) -> OrderSummary {
        OrderSummary {
            order_type: self.order_type.to_string(),
            price_type: self.price_type.to_string(),
            order_term: self.order_term.to_string(),
            market_session: self.market_session.to_string(),
            limit_price: self.limit_price,
            stop_price: self.stop_price,
            all_or_none: self.all_or_none,
            legs: self
                .legs
                .iter()
                .map(|l| LegSummary {
                    symbol: l.symbol.clone(),
                    security_type: l.security_type.to_string(),
                    order_action: l.order_action.to_string(),
                    quantity: l.quantity,
                    call_put: l.call_put.map(str::to_string),
                    expiration: l.expiration,
                    strike_price: l.strike_price,
                })
                .collect(),
            estimated_notional: broker_estimate
                .map(|d| d.abs())
                .or_else(|| self.priced_notional()),
        }
    }
}
