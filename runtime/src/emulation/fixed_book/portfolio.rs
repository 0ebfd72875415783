//! The fixed book's portfolio answers: positions valued at their given prices, one lot
//! each, fixed greeks for options.

use rust_decimal::Decimal;
use serde_json::Value;

use super::{FixedAccount, FixedPosition, pct, round};
use crate::emulation::answers::Style;
pub use crate::emulation::answers::portfolio::Fundamentals;
use crate::emulation::answers::portfolio::{
    LotFigures, PortfolioPage, PositionFigures, PositionGreeks, QuoteExtras, TotalsFigures,
    portfolio, position_lots,
};
use crate::emulation::{CallPut, Instrument, NumberStyle};

/// The portfolio query, checked (see [`PortfolioPage`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortfolioRequest {
    pub view: String,
    pub sort_by: Option<String>,
    pub descending: bool,
    pub count: usize,
    pub page: usize,
    pub lots: bool,
    pub totals: bool,
}

impl FixedPosition {
    fn lot(&self, now_s: i64) -> LotFigures {
        let qty = self.quantity;
        LotFigures {
            position_id: self.position_id,
            lot_id: self.position_id * 100 + 1,
            price: self.price_paid,
            long_term: now_s * 1000 - self.date_acquired_ms > 365 * 86_400_000,
            days_gain: self.days_gain(),
            days_gain_pct: self.change_pct(),
            market_value: self.market_value(),
            total_cost: self.total_cost(),
            total_cost_for_gain_pct: self.total_cost(),
            total_gain: self.total_gain(),
            original_qty: qty,
            remaining_qty: qty,
            order_no: 0,
            leg_no: 0,
            acquired_ms: self.date_acquired_ms,
            comm_per_share: self
                .commissions
                .checked_div(qty.abs())
                .map(|c| round(c, 4))
                .unwrap_or_default(),
        }
    }

    /// An option's greeks. The delta is a fixed figure by moneyness (in the money ±0.65, out
    /// ±0.35): tests need a delta, not a model.
    fn greeks(&self) -> Option<PositionGreeks> {
        let Instrument::Option { right, strike, .. } = &self.instrument else {
            return None;
        };
        let underlier = self.underlier_price.unwrap_or_default();
        let in_the_money = match right {
            CallPut::Call => underlier > *strike,
            CallPut::Put => underlier < *strike,
        };
        let size = if in_the_money {
            Decimal::new(65, 2)
        } else {
            Decimal::new(35, 2)
        };
        Some(PositionGreeks {
            delta: if *right == CallPut::Call { size } else { -size },
            gamma: Decimal::new(2, 2),
            theta: Decimal::new(-5, 2),
            vega: Decimal::new(11, 2),
            rho: None,
            iv_pct: Decimal::new(275, 1),
        })
    }

    fn figures<'a>(
        &self,
        a: &'a FixedAccount,
        total_mv: Decimal,
        now_s: i64,
    ) -> PositionFigures<'a> {
        let five = Decimal::new(5, 2);
        let base_price = self.underlier_price.unwrap_or(self.last);
        PositionFigures {
            position_id: self.position_id,
            account_id: &a.id,
            account_key: &a.key,
            instrument: self.instrument.clone(),
            symbol_description: self.description.clone(),
            date_acquired_ms: self.date_acquired_ms,
            quantity: self.quantity,
            price_paid: self.price_paid,
            last: self.last,
            prev_close: self.previous_close,
            volume: self.volume,
            commissions: self.commissions,
            change: self.change(),
            change_pct: self.change_pct(),
            days_gain: self.days_gain(),
            market_value: self.market_value(),
            total_cost: self.total_cost(),
            total_gain: self.total_gain(),
            total_gain_pct: pct(self.total_gain(), self.total_cost()),
            pct_of_portfolio: pct(self.market_value(), total_mv),
            base_symbol_and_price: format!(
                "{} {:.2}",
                self.instrument.symbol(),
                round(base_price, 2)
            ),
            greeks: self.greeks(),
            quote: Some(QuoteExtras {
                bid: round(self.last - five, 2),
                ask: round(self.last + five, 2),
                fundamentals: self.fundamentals,
            }),
            lots: vec![self.lot(now_s)],
        }
    }
}

impl FixedAccount {
    fn totals(&self) -> TotalsFigures {
        let todays: Decimal = self.positions.iter().map(FixedPosition::days_gain).sum();
        let mv = self.net_market_value();
        let cost: Decimal = self.positions.iter().map(FixedPosition::total_cost).sum();
        let gain = round(mv - cost, 2);
        TotalsFigures {
            todays_gain_loss: round(todays, 2),
            todays_gain_loss_pct: pct(todays, mv - todays),
            total_market_value: mv,
            total_gain_loss: gain,
            total_gain_loss_pct: pct(gain, cost),
            total_price_paid: round(cost, 2),
            cash_balance: self.cash,
        }
    }

    /// `PortfolioResponse`; None when there is no position or no such page (E*TRADE's 204).
    pub fn portfolio(
        &self,
        q: &PortfolioRequest,
        now_s: i64,
        style: Style<'_>,
        next_link: impl Fn(usize) -> String,
    ) -> Option<Value> {
        let total_mv: Decimal = self.positions.iter().map(|p| p.market_value().abs()).sum();
        let figures: Vec<PositionFigures<'_>> = self
            .positions
            .iter()
            .map(|p| p.figures(self, total_mv, now_s))
            .collect();
        let page = PortfolioPage {
            view: &q.view,
            sort_by: q.sort_by.as_deref(),
            descending: q.descending,
            count: q.count,
            page: q.page,
            lots: q.lots,
        };
        let totals = q.totals.then(|| self.totals());
        portfolio(
            &self.id,
            figures,
            &page,
            totals.as_ref(),
            now_s,
            style,
            next_link,
        )
    }

    /// `PositionLotsResponse`; None for a position id the account does not hold.
    pub fn position_lots(
        &self,
        position_id: i64,
        now_s: i64,
        numbers: NumberStyle,
    ) -> Option<Value> {
        let p = self
            .positions
            .iter()
            .find(|p| p.position_id == position_id)?;
        Some(position_lots(&[p.lot(now_s)], numbers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn an_option_position_is_valued_with_its_multiplier() {
        let call = FixedPosition {
            position_id: 1,
            instrument: Instrument::Option {
                underlying: "AAPL".into(),
                expiry: date(2027, 1, 15),
                right: CallPut::Call,
                strike: Decimal::from(180),
            },
            description: "AAPL Jan 15 '27 $180 Call".into(),
            quantity: Decimal::TWO,
            price_paid: Decimal::new(1405, 2),
            commissions: Decimal::new(13, 1),
            last: Decimal::new(164, 1),
            previous_close: Decimal::new(1585, 2),
            volume: 1834,
            date_acquired_ms: 1_698_840_000_000,
            underlier_price: Some(Decimal::new(17456, 2)),
            fundamentals: Fundamentals::default(),
        };
        assert_eq!(
            call.instrument.osi_key().as_deref(),
            Some("AAPL--270115C00180000")
        );
        assert_eq!(call.instrument.display(), "AAPL Jan 15 '27 $180 Call");
        assert_eq!(call.market_value(), Decimal::from(3280));
        assert_eq!(call.total_cost(), Decimal::new(28113, 1));
        assert_eq!(call.greeks().map(|g| g.delta), Some(Decimal::new(35, 2)));
    }
}
