//! `GET /v1/market/quote/{symbols}` → `QuoteResponse.QuoteData[]` plus the per-symbol
//! problems E*TRADE reports next to good quotes in `QuoteResponse.Messages.Message[]`.
//!
//! Also the small wire helpers the market, order and alert models share: integers that may
//! arrive as numbers or strings, flags sent as `"true"`/`"y"`, broker messages.

use super::epoch_seconds_opt;
use super::money::decimal_opt;
use super::scalars::{flag_opt, int_opt, text_opt};
use crate::etrade::one_or_many;
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize};

/// One E*TRADE `Message` (`description`, `code`, `type` WARNING|INFO|INFO_HOLD|ERROR).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BrokerMessage {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "text_opt")]
    pub code: Option<String>,
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

fn etrade_source() -> String {
    "etrade".to_string()
}

/// `Messages` / `messages` → `{"Message": [...]}` (one or many).
#[derive(Debug, Default, Deserialize)]
pub struct MessagesContainer {
    #[serde(
        rename = "Message",
        alias = "message",
        default,
        deserialize_with = "one_or_many"
    )]
    pub message: Vec<BrokerMessage>,
}

/// `Messages` → the list of its messages (an absent container → empty).
pub fn messages<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<BrokerMessage>, D::Error> {
    Ok(Option::<MessagesContainer>::deserialize(d)?
        .map(|m| m.message)
        .unwrap_or_default())
}

/// `Product` of a quote or an order leg: the same shape as a position's.
pub use super::portfolio::Product as SecurityProduct;

#[derive(Debug, Deserialize)]
pub struct QuoteResponse {
    #[serde(rename = "QuoteResponse")]
    pub response: QuoteBody,
}

#[derive(Debug, Default, Deserialize)]
pub struct QuoteBody {
    #[serde(
        rename = "QuoteData",
        alias = "quoteData",
        default,
        deserialize_with = "present_quotes"
    )]
    pub quote_data: Option<Vec<Quote>>,
    #[serde(
        rename = "Messages",
        alias = "messages",
        default,
        deserialize_with = "present_messages"
    )]
    pub messages: Option<Vec<BrokerMessage>>,
}

// Present-or-absent readers: a quote answer must carry quotes or messages (one of them may
// be missing), and an answer with neither is not read as "no quotes".
fn present_quotes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Quote>>, D::Error> {
    Ok(Some(one_or_many(d)?))
}

fn present_messages<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<BrokerMessage>>, D::Error> {
    Ok(Some(messages(d)?))
}

/// One `QuoteData`, serialized as the `get_quotes` output's `Quote` type.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Quote {
    /// Where the quote comes from: "etrade" (E*TRADE's market data) or "simulated" (the
    /// paper broker's simulator). E*TRADE does not send it; the client fills it in.
    #[serde(default = "etrade_source")]
    pub source: String,
    #[serde(default)]
    pub date_time: Option<String>,
    #[serde(
        rename = "dateTimeUTC",
        alias = "dateTimeUtc",
        default,
        deserialize_with = "epoch_seconds_opt"
    )]
    pub date_time_utc: Option<String>,
    #[serde(default)]
    pub quote_status: Option<String>,
    #[serde(default, deserialize_with = "flag_opt")]
    pub ah_flag: Option<bool>,
    #[serde(default, deserialize_with = "flag_opt")]
    pub has_mini_options: Option<bool>,
    #[serde(default)]
    pub error_message: Option<String>,
    #[serde(default)]
    pub time_zone: Option<String>,
    #[serde(default, deserialize_with = "flag_opt")]
    pub dst_flag: Option<bool>,
    #[serde(rename = "product", alias = "Product", default)]
    pub product: Option<SecurityProduct>,
    #[serde(rename = "all", alias = "All", default)]
    pub all: Option<QuoteAll>,
    #[serde(rename = "fundamental", alias = "Fundamental", default)]
    pub fundamental: Option<QuoteFundamental>,
    #[serde(rename = "intraday", alias = "Intraday", default)]
    pub intraday: Option<QuoteIntraday>,
    #[serde(rename = "option", alias = "Option", default)]
    pub option: Option<QuoteOption>,
    #[serde(rename = "week52", alias = "Week52", default)]
    pub week52: Option<QuoteWeek52>,
    #[serde(rename = "mutualFund", alias = "MutualFund", default)]
    pub mutual_fund: Option<QuoteMutualFund>,
}

/// `OptionGreeks` (quotes and option chains).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionGreeks {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub rho: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub vega: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub theta: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub delta: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub gamma: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub iv: Option<Decimal>,
    #[serde(default, deserialize_with = "flag_opt")]
    pub current_value: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtendedHourQuote {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub percent_change: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bid: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub bid_size: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ask: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub ask_size: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub volume: Option<i64>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub time_of_last_trade: Option<String>,
    #[serde(default)]
    pub time_zone: Option<String>,
    #[serde(default)]
    pub quote_status: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionDeliverable {
    #[serde(default)]
    pub root_symbol: Option<String>,
    #[serde(default)]
    pub deliverable_symbol: Option<String>,
    #[serde(default)]
    pub deliverable_type_code: Option<String>,
    #[serde(default)]
    pub deliverable_exchange_code: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub deliverable_strike_percent: Option<Decimal>,
    #[serde(
        rename = "deliverableCILShares",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub deliverable_cil_shares: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub deliverable_whole_shares: Option<Decimal>,
}

/// The `All` detail block (detailFlag ALL, the default).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuoteAll {
    #[serde(default, deserialize_with = "flag_opt")]
    pub adjusted_flag: Option<bool>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub annual_dividend: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ask: Option<Decimal>,
    #[serde(default)]
    pub ask_exchange: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub ask_size: Option<i64>,
    #[serde(default)]
    pub ask_time: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bid: Option<Decimal>,
    #[serde(default)]
    pub bid_exchange: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub bid_size: Option<i64>,
    #[serde(default)]
    pub bid_time: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_close: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_close_percentage: Option<Decimal>,
    #[serde(default)]
    pub company_name: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub days_to_expiration: Option<i64>,
    #[serde(default, deserialize_with = "text_opt")]
    pub dir_last: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dividend: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub eps: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub est_earnings: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub ex_dividend_date: Option<String>,
    #[serde(default)]
    pub exchg_last_trade: Option<String>,
    #[serde(default)]
    pub fsi: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub high: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub high52: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub high_ask: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub high_bid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub low: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub low52: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub low_ask: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub low_bid: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub number_of_trades: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub open: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub open_interest: Option<i64>,
    #[serde(default)]
    pub option_style: Option<String>,
    #[serde(default)]
    pub option_underlier: Option<String>,
    #[serde(default, deserialize_with = "text_opt")]
    pub option_underlier_exchange: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub option_previous_ask_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub option_previous_bid_price: Option<Decimal>,
    #[serde(default, deserialize_with = "text_opt")]
    pub osi_key: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub previous_close: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub previous_day_volume: Option<i64>,
    #[serde(default)]
    pub primary_exchange: Option<String>,
    #[serde(default)]
    pub symbol_description: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub today_close: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub total_volume: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub upc: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub volume10_day: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cash_deliverable: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub market_cap: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub shares_outstanding: Option<Decimal>,
    #[serde(default)]
    pub next_earning_date: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub beta: Option<Decimal>,
    #[serde(rename = "yield", default, deserialize_with = "decimal_opt")]
    pub dividend_yield: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub declared_dividend: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub dividend_payable_date: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub pe: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub market_close_bid_size: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub market_close_ask_size: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub market_close_volume: Option<i64>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub week52_low_date: Option<String>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub week52_hi_date: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub intrinsic_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub time_premium: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub option_multiplier: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub contract_size: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub expiration_date: Option<String>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub time_of_last_trade: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub average_volume: Option<i64>,
    #[serde(
        rename = "extendedHourQuoteDetail",
        alias = "ExtendedHourQuoteDetail",
        default
    )]
    pub extended_hour_quote_detail: Option<ExtendedHourQuote>,
    #[serde(
        rename = "optionDeliverableList",
        alias = "OptionDeliverableList",
        default,
        deserialize_with = "one_or_many"
    )]
    pub option_deliverable_list: Vec<OptionDeliverable>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuoteFundamental {
    #[serde(default)]
    pub company_name: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub eps: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub est_earnings: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub high52: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub low52: Option<Decimal>,
    #[serde(default)]
    pub symbol_description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuoteIntraday {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ask: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_close: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_close_percentage: Option<Decimal>,
    #[serde(default)]
    pub company_name: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub high: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub low: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub total_volume: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuoteOption {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ask: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub ask_size: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bid: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub bid_size: Option<i64>,
    #[serde(default)]
    pub company_name: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub days_to_expiration: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub open_interest: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub option_previous_bid_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub option_previous_ask_price: Option<Decimal>,
    #[serde(default)]
    pub osi_key: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub intrinsic_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub time_premium: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub option_multiplier: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub contract_size: Option<Decimal>,
    #[serde(default)]
    pub symbol_description: Option<String>,
    #[serde(rename = "optionGreeks", alias = "OptionGreeks", default)]
    pub option_greeks: Option<OptionGreeks>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuoteWeek52 {
    #[serde(default)]
    pub company_name: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub high52: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub low52: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub perf12_months: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub previous_close: Option<Decimal>,
    #[serde(default)]
    pub symbol_description: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub total_volume: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuoteMutualFund {
    #[serde(default)]
    pub symbol_description: Option<String>,
    #[serde(default)]
    pub cusip: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_close: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub previous_close: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_asset_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub public_offer_price: Option<Decimal>,
    #[serde(default)]
    pub fund_family: Option<String>,
    #[serde(default)]
    pub fund_name: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_close_percentage: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub time_of_last_trade: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_expense_ratio: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub gross_expense_ratio: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub initial_investment: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub subsequent_investment: Option<Decimal>,
    #[serde(default)]
    pub availability: Option<String>,
    #[serde(default)]
    pub morning_star_category: Option<String>,
    #[serde(rename = "transactionFee", default, deserialize_with = "text_opt")]
    pub transaction_fee: Option<String>,
    #[serde(rename = "earlyRedemptionFee", default, deserialize_with = "text_opt")]
    pub early_redemption_fee: Option<String>,
    #[serde(
        rename = "initialIraInvestment",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub initial_ira_investment: Option<Decimal>,
    #[serde(
        rename = "subsequentIraInvestment",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub subsequent_ira_investment: Option<Decimal>,
    /// E*TRADE's order cut-off as a clock time (1600 = 4:00 pm Eastern), not an epoch.
    #[serde(rename = "orderCutoffTime", default, deserialize_with = "int_opt")]
    pub order_cutoff_time: Option<i64>,
    #[serde(rename = "salesCharge", default, deserialize_with = "text_opt")]
    pub sales_charge: Option<String>,
    #[serde(
        rename = "fundInceptionDate",
        default,
        deserialize_with = "epoch_seconds_opt"
    )]
    pub fund_inception_date: Option<String>,
    #[serde(
        rename = "averageAnnualReturns",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub average_annual_returns: Option<Decimal>,
    #[serde(
        rename = "sevenDayCurrentYield",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub seven_day_current_yield: Option<Decimal>,
    #[serde(
        rename = "annualTotalReturn",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub annual_total_return: Option<Decimal>,
    #[serde(
        rename = "weightedAverageMaturity",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub weighted_average_maturity: Option<Decimal>,
    #[serde(
        rename = "averageAnnualReturn1Yr",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub average_annual_return1_yr: Option<Decimal>,
    #[serde(
        rename = "averageAnnualReturn3Yr",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub average_annual_return3_yr: Option<Decimal>,
    #[serde(
        rename = "averageAnnualReturn5Yr",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub average_annual_return5_yr: Option<Decimal>,
    #[serde(
        rename = "averageAnnualReturn10Yr",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub average_annual_return10_yr: Option<Decimal>,
    #[serde(rename = "high52", default, deserialize_with = "decimal_opt")]
    pub high52: Option<Decimal>,
    #[serde(rename = "low52", default, deserialize_with = "decimal_opt")]
    pub low52: Option<Decimal>,
    #[serde(
        rename = "week52LowDate",
        default,
        deserialize_with = "epoch_seconds_opt"
    )]
    pub week52_low_date: Option<String>,
    #[serde(
        rename = "week52HiDate",
        default,
        deserialize_with = "epoch_seconds_opt"
    )]
    pub week52_hi_date: Option<String>,
    #[serde(rename = "exchangeName", default, deserialize_with = "text_opt")]
    pub exchange_name: Option<String>,
    #[serde(rename = "sinceInception", default, deserialize_with = "decimal_opt")]
    pub since_inception: Option<Decimal>,
    #[serde(
        rename = "quarterlySinceInception",
        default,
        deserialize_with = "decimal_opt"
    )]
    pub quarterly_since_inception: Option<Decimal>,
    #[serde(rename = "lastTrade", default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(rename = "exchangeCode", default, deserialize_with = "text_opt")]
    pub exchange_code: Option<String>,
    #[serde(rename = "netAssets", alias = "NetAssets", default)]
    pub net_assets: Option<NetAssets>,
}

/// A fund's `NetAssets`: its size and the day it was measured.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetAssets {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub value: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub as_of_date: Option<String>,
}

/// The `get_quotes` data object: the quotes E*TRADE gave and, next to them, its
/// per-symbol problems.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuoteList {
    pub quotes: Vec<Quote>,
    pub messages: Vec<BrokerMessage>,
    /// Requested symbols with no quote (by set difference, never by reading broker text).
    pub unquoted_symbols: Vec<String>,
}

impl QuoteList {
    /// `None` (an empty body) means no quotes.
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<QuoteList, serde_json::Error> {
        let Some(v) = body else {
            return Ok(QuoteList {
                quotes: Vec::new(),
                messages: Vec::new(),
                unquoted_symbols: Vec::new(),
            });
        };
        let r: QuoteResponse = serde_json::from_value(v)?;
        let QuoteBody {
            quote_data,
            messages,
        } = r.response;
        if quote_data.is_none() && messages.is_none() {
            return Err(serde::de::Error::custom(
                "a quote answer with neither QuoteData nor Messages",
            ));
        }
        Ok(QuoteList {
            quotes: quote_data.unwrap_or_default(),
            messages: messages.unwrap_or_default(),
            unquoted_symbols: Vec::new(),
        })
    }

    /// Record which of the requested symbols got no quote. Option requests
    /// (`ROOT:YYYY:MM:DD:CALL:STRIKE`) come back under their root symbol, so they are left
    /// to `messages` rather than guessed at.
    pub fn with_requested(mut self, requested: &[String]) -> QuoteList {
        let quoted: std::collections::HashSet<String> = self
            .quotes
            .iter()
            .filter_map(|q| q.product.as_ref()?.symbol.as_ref())
            .map(|s| s.to_ascii_uppercase())
            .collect();
        let mut seen = std::collections::HashSet::new();
        self.unquoted_symbols = requested
            .iter()
            .map(|s| s.trim().to_ascii_uppercase())
            .filter(|s| !s.contains(':') && !quoted.contains(s) && seen.insert(s.clone()))
            .collect();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_good_quote_and_a_bad_symbol_from_the_wire() {
        let wire = json!({"QuoteResponse":{"QuoteData":[{"dateTime":"15:59:59 EST 11-14-2023","dateTimeUTC":1699995599,
         "quoteStatus":"REALTIME","ahFlag":"false","hasMiniOptions":false,
         "All":{"adjustedFlag":false,"ask":174.6,"askSize":300,"askTime":"15:59:59 EST 11-14-2023",
          "bid":174.55,"bidExchange":" ","bidSize":200,"changeClose":1.23,"dirLast":"1",
          "exDividendDate":1699592400,"high52":198.23,"lastTrade":174.56,
          "marketCap":2712345678900.0,"sharesOutstanding":15552750000_i64,"yield":0.55,
          "week52HiDate":1689912000,"timeOfLastTrade":1699995599,"averageVolume":56789012,
          "ExtendedHourQuoteDetail":{"lastPrice":174.6,"bidSize":100,"timeOfLastTrade":1700000100,
           "timeZone":"","quoteStatus":"EH_REALTIME"}},
         "Product":{"symbol":"AAPL","securityType":"EQ"}}],
         "Messages":{"Message":[{"description":"XYZQ is not a valid symbol.","code":1019,"type":"WARNING"}]}}});
        let list = QuoteList::from_wire(Some(wire)).expect("parses");
        assert_eq!(list.quotes.len(), 1);
        let q = &list.quotes[0];
        assert_eq!(q.ah_flag, Some(false));
        assert_eq!(q.date_time_utc.as_deref(), Some("2023-11-14T20:59:59Z"));
        let all = q.all.as_ref().expect("all");
        assert_eq!(
            all.market_cap.map(|d| d.to_string()).as_deref(),
            Some("2712345678900")
        );
        assert_eq!(all.dir_last.as_deref(), Some("1"));
        assert_eq!(list.messages[0].code.as_deref(), Some("1019"));
        let out = serde_json::to_value(&list).expect("serializes");
        assert_eq!(out["quotes"][0]["dateTimeUTC"], "2023-11-14T20:59:59Z");
        assert_eq!(out["quotes"][0]["all"]["lastTrade"], "174.56");
        assert_eq!(out["quotes"][0]["all"]["yield"], "0.55");
        assert_eq!(out["quotes"][0]["all"]["askSize"], 300);
        assert_eq!(
            out["quotes"][0]["all"]["extendedHourQuoteDetail"]["lastPrice"],
            "174.6"
        );
        assert_eq!(out["quotes"][0]["product"]["symbol"], "AAPL");
        assert_eq!(out["messages"][0]["type"], "WARNING");
    }

    #[test]
    fn one_quote_as_an_object_option_block_and_string_codes() {
        let wire = json!({"QuoteResponse":{"QuoteData":{"Option":{"ask":1.25,"askSize":"10",
            "OptionGreeks":{"delta":0.5123,"iv":0.3012,"currentValue":false}},
            "Product":{"symbol":"IBM","securityType":"OPTN","callPut":"CALL","expiryYear":2024,
             "strikePrice":200}},
            "Messages":{"Message":{"description":"x","code":"1002","type":"ERROR"}}}});
        let list = QuoteList::from_wire(Some(wire)).expect("parses");
        assert_eq!(list.quotes.len(), 1);
        let o = list.quotes[0].option.as_ref().expect("option");
        assert_eq!(o.ask_size, Some(10));
        let g = o.option_greeks.as_ref().expect("greeks");
        assert_eq!(g.delta.map(|d| d.to_string()).as_deref(), Some("0.5123"));
        assert_eq!(list.messages[0].code.as_deref(), Some("1002"));
        assert!(QuoteList::from_wire(None).expect("empty").quotes.is_empty());
        assert!(
            serde_json::from_value::<QuoteResponse>(
                json!({"QuoteResponse": {"QuoteData": [{"All": {"ask": "x"}}]}})
            )
            .is_err()
        );
    }
}
