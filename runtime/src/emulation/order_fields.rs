//! The enumerated members of an order request: `orderType`, `priceType`, `orderTerm`,
//! `marketSession` and `quantityType`.

use super::wire_enum::wire_enum;

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
        matches!(
            self,
            OrderType::Spreads
                | OrderType::BuyWrites
                | OrderType::Butterfly
                | OrderType::IronButterfly
                | OrderType::Condor
                | OrderType::IronCondor
        )
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

impl PriceType {
    /// The order must carry a `limitPrice`.
    pub fn needs_limit(self) -> bool {
        matches!(
            self,
            PriceType::Limit
                | PriceType::StopLimit
                | PriceType::NetDebit
                | PriceType::NetCredit
                | PriceType::LimitOnOpen
                | PriceType::LimitOnClose
        )
    }

    /// The order must carry a `stopPrice`.
    pub fn needs_stop(self) -> bool {
        matches!(
            self,
            PriceType::Stop
                | PriceType::StopLimit
                | PriceType::TrailingStopConstant
                | PriceType::TrailingStopPercent
        )
    }

    /// The price types the paper account works: market, limit and stop orders, and for
    /// spreads market and net prices.
    pub fn paper_supports(self, spread: bool) -> bool {
        if spread {
            matches!(
                self,
                PriceType::Market | PriceType::NetDebit | PriceType::NetCredit | PriceType::NetEven
            )
        } else {
            matches!(
                self,
                PriceType::Market | PriceType::Limit | PriceType::Stop | PriceType::StopLimit
            )
        }
    }
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
