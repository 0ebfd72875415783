//! `orderAction`: what a leg does.

use rust_decimal::Decimal;

use super::instrument::SecurityType;
use super::wire_enum::wire_enum;

wire_enum! {
    /// `orderAction`.
    pub enum Action {
        Buy = "BUY",
        Sell = "SELL",
        BuyToCover = "BUY_TO_COVER",
        SellShort = "SELL_SHORT",
        BuyOpen = "BUY_OPEN",
        BuyClose = "BUY_CLOSE",
        SellOpen = "SELL_OPEN",
        SellClose = "SELL_CLOSE",
        /// A mutual fund exchange (from one fund into another).
        Exchange = "EXCHANGE",
    }
}

impl Action {
    pub fn is_buy(self) -> bool {
        matches!(
            self,
            Action::Buy | Action::BuyToCover | Action::BuyOpen | Action::BuyClose
        )
    }

    /// +1 for a buy, −1 for anything else.
    pub fn sign(self) -> Decimal {
        if self.is_buy() {
            Decimal::ONE
        } else {
            Decimal::NEGATIVE_ONE
        }
    }

    /// An action on option contracts (opening or closing).
    pub fn for_option(self) -> bool {
        matches!(
            self,
            Action::BuyOpen | Action::BuyClose | Action::SellOpen | Action::SellClose
        )
    }

    /// The action can be ordered for a security of this type.
    pub fn fits(self, security: SecurityType) -> bool {
        match security {
            SecurityType::Equity => {
                matches!(
                    self,
                    Action::Buy | Action::Sell | Action::BuyToCover | Action::SellShort
                )
            }
            SecurityType::Option => self.for_option(),
            SecurityType::MutualFund | SecurityType::MoneyMarketFund => {
                matches!(self, Action::Buy | Action::Sell | Action::Exchange)
            }
        }
    }
}
