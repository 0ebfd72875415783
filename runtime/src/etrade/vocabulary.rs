//! E*TRADE's order words, once, as types: `orderType`, `priceType`, `orderTerm`,
//! `marketSession`, `quantityType`, `orderAction`, `securityType` and `callPut`. Each
//! serializes as E*TRADE spells it. The spec names them (`type: etrade::OrderAction` with the
//! values a tool accepts), so the generated inputs, the order desk, the request body and both
//! emulators read the same enums, and a value added or renamed here is a compile error
//! wherever it must be handled.

mod wire_enum;

pub(crate) use wire_enum::wire_enum;

use rust_decimal::Decimal;

/// Byte-wise string equality for `const` contexts (`str::eq` is not `const`).
pub const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

wire_enum! {
    /// `orderType`.
    pub enum OrderType {
        Equity = "EQ",
        Option = "OPTN",
        Spreads = "SPREADS",
        BuyWrites = "BUY_WRITES",
        Butterfly = "BUTTERFLY",
        IronButterfly = "IRON_BUTTERFLY",
        Condor = "CONDOR",
        IronCondor = "IRON_CONDOR",
        MutualFund = "MF",
        MoneyMarketFund = "MMF",
    }
}

impl OrderType {
    /// A multi-leg order priced as a whole (by a net debit or credit).
    pub fn is_spread(self) -> bool {
        match self {
            OrderType::Spreads
            | OrderType::BuyWrites
            | OrderType::Butterfly
            | OrderType::IronButterfly
            | OrderType::Condor
            | OrderType::IronCondor => true,
            OrderType::Equity
            | OrderType::Option
            | OrderType::MutualFund
            | OrderType::MoneyMarketFund => false,
        }
    }

    pub fn is_fund(self) -> bool {
        matches!(self, OrderType::MutualFund | OrderType::MoneyMarketFund)
    }
}

wire_enum! {
    /// `priceType`.
    pub enum PriceType {
        Market = "MARKET",
        Limit = "LIMIT",
        Stop = "STOP",
        StopLimit = "STOP_LIMIT",
        TrailingStopConstantByLowerTrigger = "TRAILING_STOP_CNST_BY_LOWER_TRIGGER",
        UpperTriggerByTrailingStopConstant = "UPPER_TRIGGER_BY_TRAILING_STOP_CNST",
        TrailingStopPercentByLowerTrigger = "TRAILING_STOP_PRCT_BY_LOWER_TRIGGER",
        UpperTriggerByTrailingStopPercent = "UPPER_TRIGGER_BY_TRAILING_STOP_PRCT",
        TrailingStopConstant = "TRAILING_STOP_CNST",
        TrailingStopPercent = "TRAILING_STOP_PRCT",
        HiddenStop = "HIDDEN_STOP",
        HiddenStopByLowerTrigger = "HIDDEN_STOP_BY_LOWER_TRIGGER",
        UpperTriggerByHiddenStop = "UPPER_TRIGGER_BY_HIDDEN_STOP",
        NetDebit = "NET_DEBIT",
        NetCredit = "NET_CREDIT",
        NetEven = "NET_EVEN",
        MarketOnOpen = "MARKET_ON_OPEN",
        MarketOnClose = "MARKET_ON_CLOSE",
        LimitOnOpen = "LIMIT_ON_OPEN",
        LimitOnClose = "LIMIT_ON_CLOSE",
    }
}

/// The prices an order of a price type must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PricesCarried {
    /// `limitPrice` (a net price for the NET_* types).
    pub limit: bool,
    /// `stopPrice` (the trail for a trailing stop).
    pub stop: bool,
}

impl PriceType {
    /// E*TRADE's grammar: which prices an order of this type carries.
    pub fn prices_carried(self) -> PricesCarried {
        let (limit, stop) = match self {
            PriceType::Market
            | PriceType::NetEven
            | PriceType::MarketOnOpen
            | PriceType::MarketOnClose
            | PriceType::HiddenStop
            | PriceType::HiddenStopByLowerTrigger
            | PriceType::UpperTriggerByHiddenStop
            | PriceType::TrailingStopConstantByLowerTrigger
            | PriceType::UpperTriggerByTrailingStopConstant
            | PriceType::TrailingStopPercentByLowerTrigger
            | PriceType::UpperTriggerByTrailingStopPercent => (false, false),
            PriceType::Limit
            | PriceType::NetDebit
            | PriceType::NetCredit
            | PriceType::LimitOnOpen
            | PriceType::LimitOnClose => (true, false),
            PriceType::Stop | PriceType::TrailingStopConstant | PriceType::TrailingStopPercent => {
                (false, true)
            }
            PriceType::StopLimit => (true, true),
        };
        PricesCarried { limit, stop }
    }

    /// The order must carry a `limitPrice`.
    pub fn needs_limit(self) -> bool {
        self.prices_carried().limit
    }

    /// The order must carry a `stopPrice`.
    pub fn needs_stop(self) -> bool {
        self.prices_carried().stop
    }

    /// A trailing stop: its `stopPrice` is the trail (dollars for TRAILING_STOP_CNST,
    /// percent for TRAILING_STOP_PRCT), not a price, so it never prices the order.
    pub fn trail(self) -> Option<Trail> {
        match self {
            PriceType::TrailingStopConstant => Some(Trail::Dollars),
            PriceType::TrailingStopPercent => Some(Trail::Percent),
            _ => None,
        }
    }

    /// An order that trades only in an opening or closing auction.
    pub fn auction(self) -> Option<Auction> {
        match self {
            PriceType::MarketOnOpen | PriceType::LimitOnOpen => Some(Auction::Open),
            PriceType::MarketOnClose | PriceType::LimitOnClose => Some(Auction::Close),
            _ => None,
        }
    }

    /// The `stopPrice` is a trigger price (STOP, STOP_LIMIT): what the order is worth
    /// when no limit price says otherwise.
    pub fn stop_is_a_price(self) -> bool {
        matches!(self, PriceType::Stop | PriceType::StopLimit)
    }

    /// Once triggered (or in its auction) the order takes the market: no limit applies.
    pub fn takes_the_market(self) -> bool {
        matches!(
            self,
            PriceType::Market
                | PriceType::Stop
                | PriceType::TrailingStopConstant
                | PriceType::TrailingStopPercent
                | PriceType::MarketOnOpen
                | PriceType::MarketOnClose
        )
    }
}

/// What a trailing stop's `stopPrice` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trail {
    Dollars,
    Percent,
}

impl Trail {
    /// The trigger for a trail of `trail` behind `mark` (the best price since placement:
    /// the highest for a sell, the lowest for a buy). None when the arithmetic overflows.
    pub fn trigger(self, mark: Decimal, trail: Decimal, buy: bool) -> Option<Decimal> {
        let distance = match self {
            Trail::Dollars => trail,
            Trail::Percent => mark.checked_mul(trail)?.checked_div(Decimal::ONE_HUNDRED)?,
        };
        if buy {
            mark.checked_add(distance)
        } else {
            mark.checked_sub(distance)
        }
    }
}

/// The auction an on-open or on-close order trades in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auction {
    Open,
    Close,
}

wire_enum! {
    /// `orderTerm`.
    pub enum OrderTerm {
        GoodUntilCancel = "GOOD_UNTIL_CANCEL",
        GoodForDay = "GOOD_FOR_DAY",
        GoodTillDate = "GOOD_TILL_DATE",
        ImmediateOrCancel = "IMMEDIATE_OR_CANCEL",
        FillOrKill = "FILL_OR_KILL",
    }
}

impl OrderTerm {
    /// Filled (as far as it can be) when placed, the rest cancelled.
    pub fn decided_when_placed(self) -> bool {
        matches!(self, OrderTerm::ImmediateOrCancel | OrderTerm::FillOrKill)
    }
}

wire_enum! {
    /// `marketSession`: EXTENDED adds pre-market and after-hours trading.
    pub enum MarketSession {
        Regular = "REGULAR",
        Extended = "EXTENDED",
    }
}

wire_enum! {
    /// `quantityType`: a leg's quantity is shares or contracts, a dollar amount (funds), or
    /// the whole position.
    #[derive(Default)]
    pub enum QuantityType {
        #[default]
        Quantity = "QUANTITY",
        Dollar = "DOLLAR",
        AllIOwn = "ALL_I_OWN",
    }
}

impl QuantityType {
    pub fn is_quantity(&self) -> bool {
        *self == QuantityType::Quantity
    }
}

wire_enum! {
    /// `securityType` of an order leg.
    pub enum SecurityType {
        Equity = "EQ",
        Option = "OPTN",
        MutualFund = "MF",
        MoneyMarketFund = "MMF",
    }
}

impl SecurityType {
    /// Shares per unit of quantity: 100 for a standard option contract.
    pub fn multiplier(self) -> Decimal {
        match self {
            SecurityType::Option => Decimal::ONE_HUNDRED,
            SecurityType::Equity | SecurityType::MutualFund | SecurityType::MoneyMarketFund => {
                Decimal::ONE
            }
        }
    }
}

wire_enum! {
    /// `callPut`.
    pub enum CallPut {
        Call = "CALL",
        Put = "PUT",
    }
}

wire_enum! {
    /// `orderAction`.
    pub enum OrderAction {
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

impl OrderAction {
    pub fn is_buy(self) -> bool {
        match self {
            OrderAction::Buy
            | OrderAction::BuyToCover
            | OrderAction::BuyOpen
            | OrderAction::BuyClose => true,
            OrderAction::Sell
            | OrderAction::SellShort
            | OrderAction::SellOpen
            | OrderAction::SellClose
            | OrderAction::Exchange => false,
        }
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
            OrderAction::BuyOpen
                | OrderAction::BuyClose
                | OrderAction::SellOpen
                | OrderAction::SellClose
        )
    }

    /// The action can be ordered for a security of this type.
    pub fn fits(self, security: SecurityType) -> bool {
        match security {
            SecurityType::Equity => {
                matches!(
                    self,
                    OrderAction::Buy
                        | OrderAction::Sell
                        | OrderAction::BuyToCover
                        | OrderAction::SellShort
                )
            }
            SecurityType::Option => self.for_option(),
            SecurityType::MutualFund | SecurityType::MoneyMarketFund => {
                matches!(
                    self,
                    OrderAction::Buy | OrderAction::Sell | OrderAction::Exchange
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_reads_back_and_is_wire() {
        for t in PriceType::ALL {
            assert_eq!(PriceType::parse(t.as_str()), Some(*t));
            assert!(PriceType::is_wire(t.as_str()));
            let json = serde_json::to_string(t).unwrap();
            assert_eq!(json, format!("\"{}\"", t.as_str()));
        }
        assert!(!PriceType::is_wire("market"));
        assert!(!PriceType::is_wire("MARKET "));
        assert!(!OrderAction::is_wire(""));
        assert!(OrderAction::is_wire("SELL_SHORT"));
    }
}
