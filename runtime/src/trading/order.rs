//! The order as the runtime sees it after schema validation: one shape for flat (EQ, OPTN)
//! and spread orders, so the domain rules, the broker body and the policy read one model.
//! The tool layer converts its generated input into a [`OrderTicket`]; every word in it is
//! E*TRADE's vocabulary type.

use super::types::{LegSummary, OrderSummary};
use crate::etrade::vocabulary::{
    CallPut, MarketSession, OrderAction, OrderTerm, OrderType, PriceType, SecurityType,
};
use rust_decimal::Decimal;

/// One preview request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderTicket {
    pub order_type: OrderType,
    pub price_type: PriceType,
    /// GOOD_FOR_DAY when the request gave none.
    pub order_term: OrderTerm,
    /// REGULAR when the request gave none.
    pub market_session: MarketSession,
    pub limit_price: Option<Decimal>,
    /// E*TRADE's `stopPrice`: the stop price, or for a trailing stop the trail (dollars
    /// for TRAILING_STOP_CNST, percent for TRAILING_STOP_PRCT), as E*TRADE carries it.
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
    pub security_type: SecurityType,
    pub order_action: OrderAction,
    pub quantity: Decimal,
    pub call_put: Option<CallPut>,
    pub expiration: Option<jiff::civil::Date>,
    pub strike_price: Option<Decimal>,
    /// The request named this option by its OSI symbol: a problem with its expiration or
    /// strike is reported at `osi`, the field the caller gave.
    pub osi: bool,
}

impl TicketLeg {
    pub fn is_option(&self) -> bool {
        self.security_type == SecurityType::Option
    }

    /// BUY, BUY_TO_COVER, BUY_OPEN, BUY_CLOSE.
    pub fn is_buy(&self) -> bool {
        self.order_action.is_buy()
    }

    /// Shares per unit of quantity: 100 for a standard option contract.
    pub fn multiplier(&self) -> Decimal {
        self.security_type.multiplier()
    }
}

impl OrderTicket {
    pub fn is_spread(&self) -> bool {
        self.order_type.is_spread()
    }

    /// price × quantity × multiplier of the first leg (for spreads the net price is per
    /// unit of the first leg). None without a price (MARKET, NET_EVEN, MARKET_ON_OPEN,
    /// MARKET_ON_CLOSE, and the trailing stops, whose `stopPrice` is a trail, not a price):
    /// those are judged on E*TRADE's preview estimate.
    pub fn priced_notional(&self) -> Option<Decimal> {
        let stop = self
            .stop_price
            .filter(|_| self.price_type.stop_is_a_price());
        let price = self.limit_price.or(stop)?;
        let leg = self.legs.first()?;
        price
            .checked_mul(leg.quantity)?
            .checked_mul(leg.multiplier())
    }

    /// The policy's and the journal's view; `broker_estimate` is E*TRADE's own estimate
    /// (estimatedTotalAmount) when the preview gave one, which wins over our arithmetic.
    pub fn summary(&self, broker_estimate: Option<Decimal>) -> OrderSummary {
        OrderSummary {
            order_type: self.order_type,
            price_type: self.price_type,
            order_term: self.order_term,
            market_session: self.market_session,
            limit_price: self.limit_price,
            stop_price: self.stop_price,
            all_or_none: self.all_or_none,
            legs: self
                .legs
                .iter()
                .map(|l| LegSummary {
                    symbol: l.symbol.clone(),
                    security_type: l.security_type,
                    order_action: l.order_action,
                    quantity: l.quantity,
                    call_put: l.call_put,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ticket(price_type: PriceType, limit: Option<i64>, stop: Option<i64>) -> OrderTicket {
        OrderTicket {
            order_type: OrderType::Equity,
            price_type,
            order_term: OrderTerm::GoodForDay,
            market_session: MarketSession::Regular,
            limit_price: limit.map(Decimal::from),
            stop_price: stop.map(Decimal::from),
            all_or_none: false,
            client_order_id: None,
            legs: vec![TicketLeg {
                symbol: "AAPL".into(),
                security_type: SecurityType::Equity,
                order_action: OrderAction::Sell,
                quantity: Decimal::from(100),
                call_put: None,
                expiration: None,
                strike_price: None,
                osi: false,
            }],
            flat: true,
        }
    }

    /// A trail is not a price: a trailing stop, like a MARKET, MARKET_ON_OPEN or
    /// MARKET_ON_CLOSE order, is judged on E*TRADE's preview estimate, never on
    /// quantity × trail.
    #[test]
    fn only_named_prices_price_an_order() {
        let n = |t: OrderTicket| t.priced_notional();
        assert_eq!(
            n(ticket(PriceType::TrailingStopConstant, None, Some(2))),
            None
        );
        assert_eq!(
            n(ticket(PriceType::TrailingStopPercent, None, Some(5))),
            None
        );
        assert_eq!(n(ticket(PriceType::MarketOnClose, None, None)), None);
        assert_eq!(n(ticket(PriceType::MarketOnOpen, None, None)), None);
        assert_eq!(
            n(ticket(PriceType::LimitOnClose, Some(170), None)),
            Some(Decimal::from(17_000))
        );
        assert_eq!(
            n(ticket(PriceType::Stop, None, Some(160))),
            Some(Decimal::from(16_000))
        );
        let trailing = ticket(PriceType::TrailingStopConstant, None, Some(2));
        assert_eq!(
            trailing
                .summary(Some(Decimal::from(-17_050)))
                .estimated_notional,
            Some(Decimal::from(17_050))
        );
    }
}
