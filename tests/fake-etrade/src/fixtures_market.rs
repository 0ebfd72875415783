//! Market, order and alert data the fake serves (static; mutations live in the server state).
//!
//! * The listings of the fixed market ([`market`]): [`QUOTES`] and the extra names product
//!   lookup finds ([`LOOKUP_EXTRA`]). What the market derives from them (other symbols,
//!   options, chains, expiries) is `runtime::emulation::fixed_market`'s.
//! * Orders per account number ([`orders_for`]), copied into the order book
//!   (`orders_state`) so they can be cancelled or changed; accounts without any → 204.
//! * The alert inbox ([`ALERTS`]); nothing DELETED until deleted through the API, so asking
//!   for DELETED alerts (or a search that matches nothing) is the empty inbox: HTTP 404
//!   code 53.

use jiff::civil::date;
use jiff::tz::TimeZone;
use runtime::emulation::alerts::Alert;
use runtime::emulation::fixed_book::{SeedLeg, SeedOrder};
use runtime::emulation::fixed_market::{FixedMarket, Listing, LookupExtra};
use runtime::emulation::json_number::from_f64;
use runtime::emulation::{
    CallPut, Instrument, MarketSession, OrderAction, OrderStatus, OrderTerm, OrderType, PriceType,
};
use rust_decimal::Decimal;

/// One equity / fund in the quote table.
struct QuoteFx {
    pub symbol: &'static str,
    pub name: &'static str,
    pub security_type: &'static str,
    pub exchange: &'static str,
    pub last: f64,
    pub previous_close: f64,
    pub volume: u64,
    pub eps: f64,
    pub dividend: f64,
    pub high52: f64,
    pub low52: f64,
    pub shares_outstanding: u64,
    pub beta: f64,
}

const QUOTES: &[QuoteFx] = &[
    QuoteFx {
        symbol: "AAPL",
        name: "APPLE INC COM",
        security_type: "EQ",
        exchange: "NSDQ",
        last: 174.56,
        previous_close: 173.33,
        volume: 51_234_567,
        eps: 6.13,
        dividend: 0.24,
        high52: 198.23,
        low52: 124.17,
        shares_outstanding: 15_552_750_000,
        beta: 1.29,
    },
    QuoteFx {
        symbol: "MSFT",
        name: "MICROSOFT CORP COM",
        security_type: "EQ",
        exchange: "NSDQ",
        last: 369.67,
        previous_close: 366.68,
        volume: 21_456_789,
        eps: 9.81,
        dividend: 0.75,
        high52: 384.3,
        low52: 219.35,
        shares_outstanding: 7_432_000_000,
        beta: 0.89,
    },
    QuoteFx {
        symbol: "GOOG",
        name: "ALPHABET INC CAP STK CL C",
        security_type: "EQ",
        exchange: "NSDQ",
        last: 135.43,
        previous_close: 134.99,
        volume: 18_765_432,
        eps: 5.22,
        dividend: 0.0,
        high52: 142.68,
        low52: 84.86,
        shares_outstanding: 5_922_000_000,
        beta: 1.05,
    },
    QuoteFx {
        symbol: "IBM",
        name: "INTERNATIONAL BUSINESS MACHS COM",
        security_type: "EQ",
        exchange: "NYSE",
        last: 199.52,
        previous_close: 198.1,
        volume: 4_321_987,
        eps: 8.14,
        dividend: 1.66,
        high52: 205.1,
        low52: 120.55,
        shares_outstanding: 913_000_000,
        beta: 0.71,
    },
    QuoteFx {
        symbol: "BR",
        name: "BROADRIDGE FINL SOLUTIONS INC COM",
        security_type: "EQ",
        exchange: "NYSE",
        last: 189.07,
        previous_close: 188.2,
        volume: 612_345,
        eps: 5.46,
        dividend: 0.8,
        high52: 195.77,
        low52: 131.0,
        shares_outstanding: 118_000_000,
        beta: 0.98,
    },
    QuoteFx {
        symbol: "GLD",
        name: "SPDR GOLD TR GOLD SHS",
        security_type: "EQ",
        exchange: "ARCA",
        last: 182.31,
        previous_close: 181.72,
        volume: 7_654_321,
        eps: 0.0,
        dividend: 0.0,
        high52: 193.12,
        low52: 150.57,
        shares_outstanding: 292_000_000,
        beta: 0.08,
    },
    QuoteFx {
        symbol: "VTSAX",
        name: "VANGUARD TOTAL STOCK MKT IDX ADM",
        security_type: "MF",
        exchange: "MF",
        last: 109.82,
        previous_close: 109.1,
        volume: 0,
        eps: 0.0,
        dividend: 1.52,
        high52: 113.5,
        low52: 90.24,
        shares_outstanding: 0,
        beta: 1.0,
    },
];

/// Matching words of these company names answer product lookup.
const LOOKUP_EXTRA: &[(&str, &str, &str)] = &[
    ("APLE", "APPLE HOSPITALITY REIT INC COM NEW", "EQUITY"),
    ("IBM", "INTERNATIONAL BUSINESS MACHS COM", "EQUITY"),
    ("SPY", "SPDR S&P 500 ETF TR TR UNIT", "ETF"),
];

/// The fixed market of [`QUOTES`] and [`LOOKUP_EXTRA`], its day in `tz`.
pub(crate) fn market(tz: TimeZone) -> FixedMarket {
    let d = from_f64;
    let listings = QUOTES
        .iter()
        .map(|q| Listing {
            symbol: q.symbol.into(),
            name: q.name.into(),
            security_type: q.security_type.into(),
            exchange: q.exchange.into(),
            last: d(q.last),
            previous_close: d(q.previous_close),
            volume: q.volume,
            eps: d(q.eps),
            dividend: d(q.dividend),
            high52: d(q.high52),
            low52: d(q.low52),
            shares_outstanding: q.shares_outstanding,
            beta: d(q.beta),
        })
        .collect();
    let extra = LOOKUP_EXTRA
        .iter()
        .map(|&(symbol, name, kind)| LookupExtra {
            symbol: symbol.into(),
            name: name.into(),
            kind: kind.into(),
        })
        .collect();
    FixedMarket::new(listings, extra, tz)
}

/// One order leg.
pub(crate) struct LegFx {
    pub instrument: Instrument,
    pub description: &'static str,
    pub action: OrderAction,
    pub quantity: f64,
    pub filled: f64,
    pub fill_price: Option<f64>,
}

impl LegFx {
    fn seed(&self) -> SeedLeg {
        SeedLeg {
            instrument: self.instrument.clone(),
            description: self.description.into(),
            action: self.action,
            quantity: from_f64(self.quantity),
            filled: from_f64(self.filled),
            fill_price: self.fill_price.map(from_f64),
        }
    }
}

fn eq(symbol: &'static str, description: &'static str, action: OrderAction, qty: f64) -> LegFx {
    LegFx {
        instrument: Instrument::Equity {
            symbol: symbol.to_string(),
        },
        description,
        action,
        quantity: qty,
        filled: 0.0,
        fill_price: None,
    }
}

fn filled(mut l: LegFx, price: f64) -> LegFx {
    l.filled = l.quantity;
    l.fill_price = Some(price);
    l
}

/// 2026-10-01T14:30:00Z in epoch ms, and a day.
const T0: i64 = 1_790_865_000_000;
const DAY: i64 = 86_400_000;

#[allow(clippy::too_many_arguments)]
fn order(
    id: i64,
    status: OrderStatus,
    price_type: PriceType,
    limit: f64,
    day: i64,
    legs: Vec<LegFx>,
    order_type: OrderType,
    session: MarketSession,
) -> SeedOrder {
    let placed = T0 + day * DAY + id * 60_000;
    let executed = (status == OrderStatus::Executed).then_some(placed + 1_500);
    let limit = (limit > 0.0).then(|| from_f64(limit));
    SeedOrder {
        order_id: id,
        order_type,
        status,
        price_type,
        order_term: if price_type == PriceType::Market {
            OrderTerm::GoodForDay
        } else {
            OrderTerm::GoodUntilCancel
        },
        limit_price: limit,
        stop_price: limit.filter(|_| price_type == PriceType::Stop),
        market_session: session,
        placed_time: placed,
        executed_time: executed,
        commission: if status == OrderStatus::Executed {
            from_f64(0.65)
        } else {
            Decimal::ZERO
        },
        legs: legs.iter().map(LegFx::seed).collect(),
    }
}

/// The orders of an account (by account number), unsorted.
pub(crate) fn orders_for(account_id: &str) -> Vec<SeedOrder> {
    match account_id {
        "84010429" => vec![
            order(
                501,
                OrderStatus::Executed,
                PriceType::Market,
                0.0,
                0,
                vec![filled(
                    eq("AAPL", "APPLE INC COM", OrderAction::Buy, 10.0),
                    170.105,
                )],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                502,
                OrderStatus::Executed,
                PriceType::Limit,
                360.0,
                2,
                vec![filled(
                    eq("MSFT", "MICROSOFT CORP COM", OrderAction::Buy, 5.0),
                    359.98,
                )],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                503,
                OrderStatus::Cancelled,
                PriceType::Limit,
                120.5,
                4,
                vec![eq(
                    "GOOG",
                    "ALPHABET INC CAP STK CL C",
                    OrderAction::Buy,
                    20.0,
                )],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                504,
                OrderStatus::Open,
                PriceType::Limit,
                205.0,
                6,
                vec![eq(
                    "IBM",
                    "INTERNATIONAL BUSINESS MACHS COM",
                    OrderAction::Sell,
                    15.0,
                )],
                OrderType::Equity,
                MarketSession::Extended,
            ),
            order(
                505,
                OrderStatus::Executed,
                PriceType::Limit,
                1.35,
                8,
                vec![LegFx {
                    instrument: Instrument::Option {
                        underlying: "IBM".to_string(),
                        expiry: date(2027, 1, 15),
                        right: CallPut::Call,
                        strike: Decimal::from(200),
                    },
                    description: "IBM Jan 15 '27 $200 Call",
                    action: OrderAction::BuyOpen,
                    quantity: 2.0,
                    filled: 2.0,
                    fill_price: Some(1.3275),
                }],
                OrderType::Option,
                MarketSession::Regular,
            ),
            order(
                506,
                OrderStatus::Open,
                PriceType::Stop,
                160.0,
                10,
                vec![eq("AAPL", "APPLE INC COM", OrderAction::Sell, 10.0)],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                507,
                OrderStatus::Rejected,
                PriceType::Limit,
                10.0,
                12,
                vec![eq(
                    "BR",
                    "BROADRIDGE FINL SOLUTIONS INC COM",
                    OrderAction::Buy,
                    1000.0,
                )],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                508,
                OrderStatus::Executed,
                PriceType::Market,
                0.0,
                14,
                vec![filled(
                    eq("GLD", "SPDR GOLD TR GOLD SHS", OrderAction::Sell, 3.0),
                    181.9,
                )],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                509,
                OrderStatus::Expired,
                PriceType::Limit,
                150.0,
                16,
                vec![eq("AAPL", "APPLE INC COM", OrderAction::Buy, 7.0)],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                510,
                OrderStatus::Open,
                PriceType::Limit,
                99.5,
                18,
                vec![LegFx {
                    instrument: Instrument::Fund {
                        symbol: "VTSAX".to_string(),
                        money_market: false,
                    },
                    description: "VANGUARD TOTAL STOCK MKT IDX ADM",
                    action: OrderAction::Buy,
                    quantity: 12.345,
                    filled: 0.0,
                    fill_price: None,
                }],
                OrderType::MutualFund,
                MarketSession::Regular,
            ),
            order(
                511,
                OrderStatus::IndividualFills,
                PriceType::Limit,
                370.0,
                20,
                vec![LegFx {
                    filled: 2.0,
                    fill_price: Some(369.5),
                    ..eq("MSFT", "MICROSOFT CORP COM", OrderAction::Buy, 6.0)
                }],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                512,
                OrderStatus::CancelRequested,
                PriceType::Limit,
                190.0,
                22,
                vec![eq(
                    "BR",
                    "BROADRIDGE FINL SOLUTIONS INC COM",
                    OrderAction::Sell,
                    4.0,
                )],
                OrderType::Equity,
                MarketSession::Regular,
            ),
        ],
        "45249801" => vec![
            order(
                601,
                OrderStatus::Executed,
                PriceType::Market,
                0.0,
                3,
                vec![filled(
                    eq("MSFT", "MICROSOFT CORP COM", OrderAction::Buy, 1.0),
                    366.0,
                )],
                OrderType::Equity,
                MarketSession::Regular,
            ),
            order(
                602,
                OrderStatus::Open,
                PriceType::Limit,
                180.0,
                9,
                vec![eq("GLD", "SPDR GOLD TR GOLD SHS", OrderAction::Buy, 2.0)],
                OrderType::Equity,
                MarketSession::Regular,
            ),
        ],
        _ => Vec::new(),
    }
}

struct AlertFx {
    pub id: i64,
    /// Epoch seconds.
    pub create_time: i64,
    pub category: &'static str,
    pub status: &'static str,
    pub subject: &'static str,
    pub symbol: &'static str,
    pub text: &'static str,
}

/// 2026-10-01T14:30:00Z in epoch seconds.
const S0: i64 = 1_790_865_000;

/// The inbox the fake starts with.
pub(crate) fn alerts() -> Vec<Alert> {
    ALERTS
        .iter()
        .map(|a| Alert {
            id: a.id,
            create_time: a.create_time,
            category: a.category.into(),
            status: a.status.into(),
            subject: a.subject.into(),
            symbol: a.symbol.into(),
            text: a.text.into(),
        })
        .collect()
}

const ALERTS: &[AlertFx] = &[
    AlertFx {
        id: 1101,
        create_time: S0,
        category: "STOCK",
        status: "READ",
        subject: "AAPL rose above $170.00",
        symbol: "AAPL",
        text: "AAPL last traded at 170.12, above your target of 170.00.",
    },
    AlertFx {
        id: 1102,
        create_time: S0 + 3_600,
        category: "ACCOUNT",
        status: "UNREAD",
        subject: "Order executed: BUY 10 AAPL",
        symbol: "",
        text: "Your order to buy 10 AAPL was executed at 170.105.",
    },
    AlertFx {
        id: 1103,
        create_time: S0 + 86_400,
        category: "STOCK",
        status: "UNREAD",
        subject: "MSFT fell below $360.00",
        symbol: "MSFT",
        text: "MSFT last traded at 359.90, below your target of 360.00.",
    },
    AlertFx {
        id: 1104,
        create_time: S0 + 2 * 86_400,
        category: "ACCOUNT",
        status: "READ",
        subject: "Your statement is ready",
        symbol: "",
        text: "Your October statement is ready to view.",
    },
    AlertFx {
        id: 1105,
        create_time: S0 + 3 * 86_400,
        category: "STOCK",
        status: "UNREAD",
        subject: "IBM earnings date announced",
        symbol: "IBM",
        text: "IBM reports earnings on 01/21/2027.",
    },
];
