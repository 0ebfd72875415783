//! The fake user's data: accounts, cash, positions. Shared by every API area so later areas
//! (transactions, orders, quotes) can build on the same holdings.

use jiff::civil::Date;
use runtime::emulation::fixed_book::{FixedAccount, FixedPosition, FixedTransaction, Fundamentals};
use runtime::emulation::json_number::from_f64;
use runtime::emulation::{CallPut, Instrument};

/// Everything the fake serves for its one user (all consumers see the same user).
#[derive(Debug, Clone)]
pub struct Fixtures {
    pub accounts: Vec<AccountFixture>,
}

#[derive(Debug, Clone)]
pub struct AccountFixture {
    /// Digits, as a string (`"84010429"`).
    pub account_id: String,
    /// Opaque, URL-safe, ~22 chars; used in every per-account path.
    pub account_id_key: String,
    /// CASH | MARGIN | IRA | ...
    pub account_mode: String,
    pub account_desc: String,
    /// The nickname; may be empty.
    pub account_name: String,
    pub account_type: String,
    pub institution_type: String,
    /// ACTIVE | CLOSED
    pub account_status: String,
    /// Epoch seconds; 0 while open.
    pub closed_date: i64,
    pub inst_no: i64,
    /// NO_OPTIONS | LEVEL_1 .. LEVEL_4
    pub option_level: String,
    pub day_trader_status: String,
    pub cash_balance: f64,
    pub money_market_balance: f64,
    pub positions: Vec<PositionFixture>,
    /// Newest last (ascending `transaction_date`).
    pub transactions: Vec<TransactionFixture>,
}

/// One account transaction (a trade, a dividend, a deposit or a fee).
#[derive(Debug, Clone)]
pub struct TransactionFixture {
    /// Digits, served as a JSON string (as E*TRADE does).
    pub transaction_id: String,
    /// Epoch milliseconds.
    pub transaction_date: i64,
    /// Epoch milliseconds; 0 when not posted.
    pub post_date: i64,
    /// Signed: negative is cash out.
    pub amount: f64,
    pub description: String,
    /// Free text: Bought, Sold, Dividend, Deposit, Fee, ...
    pub transaction_type: String,
    pub symbol: Option<String>,
    pub security_type: Option<String>,
    /// Signed (a sale is negative); 0 for cash movements.
    pub quantity: f64,
    pub price: f64,
    pub fee: f64,
    pub order_no: i64,
}

#[derive(Debug, Clone)]
pub struct PositionFixture {
    pub position_id: i64,
    pub symbol: String,
    /// EQ | OPTN | MF | MMF
    pub security_type: String,
    pub symbol_description: String,
    /// Negative for a short position.
    pub quantity: f64,
    pub price_paid: f64,
    pub commissions: f64,
    pub last_trade: f64,
    pub previous_close: f64,
    pub volume: i64,
    /// Epoch milliseconds.
    pub date_acquired: i64,
    pub option: Option<OptionFixture>,
    /// Fundamentals for the FUNDAMENTAL view.
    pub pe_ratio: f64,
    pub eps: f64,
    pub dividend: f64,
    pub div_yield: f64,
    pub market_cap: f64,
    pub week52_low: f64,
    pub week52_high: f64,
}

#[derive(Debug, Clone)]
pub struct OptionFixture {
    /// CALL | PUT
    pub call_put: String,
    pub expiry_year: i32,
    pub expiry_month: i32,
    pub expiry_day: i32,
    pub strike_price: f64,
    pub underlier_price: f64,
}

impl OptionFixture {
    /// The contract on `root` as an instrument (None for an impossible expiry date).
    pub fn instrument(&self, root: &str) -> Option<Instrument> {
        let expiry = Date::new(
            i16::try_from(self.expiry_year).ok()?,
            i8::try_from(self.expiry_month).ok()?,
            i8::try_from(self.expiry_day).ok()?,
        )
        .ok()?;
        Some(Instrument::Option {
            underlying: root.to_string(),
            expiry,
            right: if self.call_put == "PUT" {
                CallPut::Put
            } else {
                CallPut::Call
            },
            strike: from_f64(self.strike_price),
        })
    }

    /// The OSI key: root padded with `-` to 6, `YYMMDD`, `C|P`, strike × 1000 in 8 digits.
    pub fn osi_key(&self, root: &str) -> String {
        self.instrument(root)
            .and_then(|i| i.osi_key())
            .unwrap_or_default()
    }
}

impl PositionFixture {
    /// What the position holds, as the emulation names it.
    pub fn instrument(&self) -> Instrument {
        if let Some(i) = self
            .option
            .as_ref()
            .and_then(|o| o.instrument(&self.symbol))
        {
            return i;
        }
        match self.security_type.as_str() {
            "MF" | "MMF" => Instrument::Fund {
                symbol: self.symbol.clone(),
                money_market: self.security_type == "MMF",
            },
            _ => Instrument::Equity {
                symbol: self.symbol.clone(),
            },
        }
    }
}

impl AccountFixture {
    pub fn is_margin(&self) -> bool {
        self.account_mode == "MARGIN"
    }

    /// The account as the emulation's fixed book holds it.
    pub(crate) fn book(&self) -> FixedAccount {
        FixedAccount {
            id: self.account_id.clone(),
            key: self.account_id_key.clone(),
            mode: self.account_mode.clone(),
            desc: self.account_desc.clone(),
            name: self.account_name.clone(),
            account_type: self.account_type.clone(),
            institution_type: self.institution_type.clone(),
            status: self.account_status.clone(),
            closed_date: self.closed_date,
            inst_no: self.inst_no,
            option_level: self.option_level.clone(),
            day_trader_status: self.day_trader_status.clone(),
            cash: from_f64(self.cash_balance),
            money_market: from_f64(self.money_market_balance),
            positions: self.positions.iter().map(PositionFixture::book).collect(),
            transactions: self
                .transactions
                .iter()
                .map(TransactionFixture::book)
                .collect(),
        }
    }
}

impl PositionFixture {
    fn book(&self) -> FixedPosition {
        let d = from_f64;
        FixedPosition {
            position_id: self.position_id,
            instrument: self.instrument(),
            description: self.symbol_description.clone(),
            quantity: d(self.quantity),
            price_paid: d(self.price_paid),
            commissions: d(self.commissions),
            last: d(self.last_trade),
            previous_close: d(self.previous_close),
            volume: u64::try_from(self.volume).unwrap_or(0),
            date_acquired_ms: self.date_acquired,
            underlier_price: self.option.as_ref().map(|o| d(o.underlier_price)),
            fundamentals: Fundamentals {
                pe_ratio: d(self.pe_ratio),
                eps: d(self.eps),
                dividend: d(self.dividend),
                div_yield: d(self.div_yield),
                market_cap: d(self.market_cap),
                week52_low: d(self.week52_low),
                week52_high: d(self.week52_high),
            },
        }
    }
}

impl TransactionFixture {
    fn book(&self) -> FixedTransaction {
        let d = from_f64;
        FixedTransaction {
            id: self.transaction_id.clone(),
            date_ms: self.transaction_date,
            post_ms: self.post_date,
            amount: d(self.amount),
            description: self.description.clone(),
            kind: self.transaction_type.clone(),
            instrument: match (&self.symbol, &self.security_type) {
                (Some(symbol), Some(_)) => Some(Instrument::Equity {
                    symbol: symbol.clone(),
                }),
                _ => None,
            },
            quantity: d(self.quantity),
            price: d(self.price),
            fee: d(self.fee),
            order_no: (self.order_no != 0).then_some(self.order_no),
        }
    }
}

pub(crate) fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

#[allow(clippy::too_many_arguments)]
fn equity(
    position_id: i64,
    symbol: &str,
    description: &str,
    quantity: f64,
    price_paid: f64,
    last_trade: f64,
    previous_close: f64,
    date_acquired: i64,
    volume: i64,
) -> PositionFixture {
    PositionFixture {
        position_id,
        symbol: symbol.into(),
        security_type: "EQ".into(),
        symbol_description: description.into(),
        quantity,
        price_paid,
        commissions: 0.0,
        last_trade,
        previous_close,
        volume,
        date_acquired,
        option: None,
        pe_ratio: 24.5,
        eps: round(last_trade / 24.5, 2),
        dividend: 0.24,
        div_yield: 0.55,
        market_cap: 0.0,
        week52_low: round(last_trade * 0.72, 2),
        week52_high: round(last_trade * 1.13, 2),
    }
}

/// `n` transactions for account number `seed`, one every three days from 2023-01-03
/// 15:00 UTC, cycling through buys, sales, dividends, deposits and fees.
pub fn generated_transactions(seed: i64, n: usize) -> Vec<TransactionFixture> {
    const START_MS: i64 = 1_672_758_000_000; // 2023-01-03T15:00:00Z
    const DAY_MS: i64 = 86_400_000;
    const SYMBOLS: [(&str, f64); 5] = [
        ("AAPL", 150.25),
        ("MSFT", 301.1),
        ("VTI", 198.42),
        ("KO", 55.12),
        ("SPY", 410.07),
    ];
    (0..n)
        .map(|i| {
            let k = i as i64;
            let date = START_MS + k * 3 * DAY_MS;
            let (sym, base) = SYMBOLS[i % SYMBOLS.len()];
            let price = round(base + (k % 7) as f64 * 1.37, 2);
            let qty = (k % 4 + 1) as f64 * 5.0;
            let fee = if i % 3 == 0 { 0.65 } else { 0.0 };
            let (kind, amount, symbol, quantity, price) = match i % 5 {
                0 => (
                    "Bought",
                    -round(qty * price + fee, 2),
                    Some(sym),
                    qty,
                    price,
                ),
                1 => ("Sold", round(qty * price - fee, 2), Some(sym), -qty, price),
                2 => ("Dividend", round(qty * 0.24, 2), Some(sym), 0.0, 0.0),
                3 => ("Deposit", round(500.0 + k as f64 * 2.5, 2), None, 0.0, 0.0),
                _ => ("Fee", -1.5, None, 0.0, 0.0),
            };
            let description = match (kind, symbol) {
                ("Dividend", Some(s)) => format!("ORDINARY DIVIDEND {s}"),
                (_, Some(s)) => format!("{} {s}", kind.to_ascii_uppercase()),
                ("Deposit", None) => "ACH DEPOSIT".to_string(),
                _ => "ADR CUSTODY FEE".to_string(),
            };
            TransactionFixture {
                transaction_id: format!("{}{:012}", 2 + seed, 23_003_000_000 + k * 1_009),
                transaction_date: date,
                post_date: if i % 4 == 3 { 0 } else { date + DAY_MS },
                amount,
                description,
                transaction_type: kind.to_string(),
                symbol: symbol.map(str::to_string),
                security_type: symbol.map(|_| "EQ".to_string()),
                quantity,
                price,
                fee: if symbol.is_some() && quantity != 0.0 {
                    fee
                } else {
                    0.0
                },
                order_no: if quantity != 0.0 { 5_000 + k } else { 0 },
            }
        })
        .collect()
}

impl Default for Fixtures {
    /// Four accounts: a margin brokerage account with ten positions (stocks, ETFs, a short,
    /// an option), a Roth IRA with three funds, an empty joint cash account and a closed one.
    fn default() -> Self {
        let mut aapl = equity(
            10002345678,
            "AAPL",
            "APPLE INC COM",
            10.0,
            150.25,
            174.56,
            173.33,
            1582520400000,
            51234567,
        );
        aapl.pe_ratio = 28.47;
        aapl.eps = 6.13;
        aapl.market_cap = 2712345678900.0;
        let mut msft = equity(
            10002345679,
            "MSFT",
            "MICROSOFT CORP COM",
            25.0,
            301.1,
            378.85,
            376.17,
            1625112000000,
            22187345,
        );
        msft.market_cap = 2815000000000.0;
        msft.dividend = 0.75;
        msft.div_yield = 0.79;
        let mut tsla_short = equity(
            10002345685,
            "TSLA",
            "TESLA INC COM",
            -5.0,
            251.3,
            237.41,
            242.84,
            1696348800000,
            104553210,
        );
        tsla_short.dividend = 0.0;
        tsla_short.div_yield = 0.0;
        let aapl_call = PositionFixture {
            position_id: 10002345686,
            symbol: "AAPL".into(),
            security_type: "OPTN".into(),
            symbol_description: "AAPL Jan 15 '27 $180 Call".into(),
            quantity: 2.0,
            price_paid: 14.05,
            commissions: 1.3,
            last_trade: 16.4,
            previous_close: 15.85,
            volume: 1834,
            date_acquired: 1698840000000,
            option: Some(OptionFixture {
                call_put: "CALL".into(),
                expiry_year: 2027,
                expiry_month: 1,
                expiry_day: 15,
                strike_price: 180.0,
                underlier_price: 174.56,
            }),
            pe_ratio: 0.0,
            eps: 0.0,
            dividend: 0.0,
            div_yield: 0.0,
            market_cap: 0.0,
            week52_low: 9.1,
            week52_high: 22.75,
        };
        let trading = AccountFixture {
            account_id: "84010429".into(),
            account_id_key: "JIdOIAcSpwR1Jva7RQBraQ".into(),
            account_mode: "MARGIN".into(),
            account_desc: "INDIVIDUAL".into(),
            account_name: "Trading".into(),
            account_type: "INDIVIDUAL".into(),
            institution_type: "BROKERAGE".into(),
            account_status: "ACTIVE".into(),
            closed_date: 0,
            inst_no: 1,
            option_level: "LEVEL_2".into(),
            day_trader_status: "NO_PDT".into(),
            cash_balance: 12500.11,
            money_market_balance: 0.0,
            positions: vec![
                aapl,
                msft,
                equity(
                    10002345680,
                    "VTI",
                    "VANGUARD TOTAL STOCK MARKET ETF",
                    40.0,
                    198.42,
                    231.88,
                    230.95,
                    1609770000000,
                    3456789,
                ),
                equity(
                    10002345681,
                    "NVDA",
                    "NVIDIA CORP COM",
                    8.0,
                    420.5,
                    495.22,
                    488.88,
                    1688659200000,
                    41234987,
                ),
                equity(
                    10002345682,
                    "SPY",
                    "SPDR S&P 500 ETF TRUST",
                    15.0,
                    410.07,
                    450.23,
                    448.73,
                    1677628800000,
                    72345123,
                ),
                equity(
                    10002345683,
                    "GLD",
                    "SPDR GOLD TR GOLD SHS",
                    12.0,
                    171.9,
                    182.64,
                    183.1,
                    1662004800000,
                    7123456,
                ),
                equity(
                    10002345684,
                    "BR",
                    "BROADRIDGE FINL SOLUTIONS INC COM",
                    30.0,
                    142.77,
                    185.31,
                    184.02,
                    1643716800000,
                    612345,
                ),
                tsla_short,
                aapl_call,
                equity(
                    10002345687,
                    "KO",
                    "COCA COLA CO COM",
                    100.0,
                    55.12,
                    57.49,
                    57.61,
                    1580515200000,
                    11987654,
                ),
            ],
            transactions: generated_transactions(1, 120),
        };
        let roth = AccountFixture {
            account_id: "45249801".into(),
            account_id_key: "idU1aBkPvD5n46JI_7S_2A".into(),
            account_mode: "IRA".into(),
            account_desc: "ROTH IRA".into(),
            account_name: "Retirement".into(),
            account_type: "ROTHIRA".into(),
            institution_type: "BROKERAGE".into(),
            account_status: "ACTIVE".into(),
            closed_date: 0,
            inst_no: 1,
            option_level: "LEVEL_1".into(),
            day_trader_status: "NO_PDT".into(),
            cash_balance: 3210.45,
            money_market_balance: 3210.45,
            positions: vec![
                equity(
                    20007654321,
                    "VTI",
                    "VANGUARD TOTAL STOCK MARKET ETF",
                    55.0,
                    176.3,
                    231.88,
                    230.95,
                    1546837200000,
                    3456789,
                ),
                equity(
                    20007654322,
                    "BND",
                    "VANGUARD TOTAL BOND MARKET ETF",
                    80.0,
                    81.05,
                    72.14,
                    72.22,
                    1554091200000,
                    6543210,
                ),
                equity(
                    20007654323,
                    "SCHD",
                    "SCHWAB US DIVIDEND EQUITY ETF",
                    100.0,
                    70.33,
                    74.02,
                    73.87,
                    1614574800000,
                    2987654,
                ),
            ],
            transactions: generated_transactions(2, 7),
        };
        let joint = AccountFixture {
            account_id: "63817420".into(),
            account_id_key: "4Wq1Lm9ZcT7nYbRk2XsHvA".into(),
            account_mode: "CASH".into(),
            account_desc: "JOINT".into(),
            account_name: String::new(),
            account_type: "JOINT".into(),
            institution_type: "BROKERAGE".into(),
            account_status: "ACTIVE".into(),
            closed_date: 0,
            inst_no: 1,
            option_level: "NO_OPTIONS".into(),
            day_trader_status: "NO_PDT".into(),
            cash_balance: 845.0,
            money_market_balance: 0.0,
            positions: vec![],
            transactions: vec![],
        };
        let closed = AccountFixture {
            account_id: "19283746".into(),
            account_id_key: "Pz3Kd8sQw0VfGh5JtY7uNe".into(),
            account_mode: "CASH".into(),
            account_desc: "INDIVIDUAL".into(),
            account_name: "Old account".into(),
            account_type: "INDIVIDUAL".into(),
            institution_type: "BROKERAGE".into(),
            account_status: "CLOSED".into(),
            closed_date: 1651204800,
            inst_no: 1,
            option_level: "NO_OPTIONS".into(),
            day_trader_status: "NO_PDT".into(),
            cash_balance: 0.0,
            money_market_balance: 0.0,
            positions: vec![],
            transactions: vec![],
        };
        Self {
            accounts: vec![trading, roth, joint, closed],
        }
    }
}

impl Fixtures {
    pub fn account_by_key(&self, key: &str) -> Option<&AccountFixture> {
        self.accounts.iter().find(|a| a.account_id_key == key)
    }

    /// No accounts at all (list accounts answers 204).
    pub fn empty() -> Self {
        Self { accounts: vec![] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osi_and_display() {
        let f = Fixtures::default();
        let call = &f.accounts[0].positions[8];
        let o = call.option.as_ref().unwrap();
        assert_eq!(o.osi_key("AAPL"), "AAPL--270115C00180000");
        assert_eq!(call.instrument().display(), "AAPL Jan 15 '27 $180 Call");
        let booked = &f.accounts[0].book().positions[8];
        assert_eq!(booked.market_value(), from_f64(3280.0));
        assert_eq!(booked.total_cost(), from_f64(2811.3));
    }

    #[test]
    fn transactions_are_unique_and_ascending() {
        let f = Fixtures::default();
        let t = &f.accounts[0].transactions;
        assert_eq!(t.len(), 120);
        let ids: std::collections::BTreeSet<&str> =
            t.iter().map(|x| x.transaction_id.as_str()).collect();
        assert_eq!(ids.len(), t.len());
        assert!(
            t.windows(2)
                .all(|w| w[0].transaction_date < w[1].transaction_date)
        );
        assert!(f.accounts[2].transactions.is_empty());
    }
}
