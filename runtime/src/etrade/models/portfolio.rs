//! `GET /v1/accounts/{k}/portfolio` → `PortfolioResponse` (one page of positions) and
//! `GET /v1/accounts/{k}/portfolio/{positionId}` → `PositionLotsResponse.PositionLot[]`.
//!
//! Also the small wire helpers the accounts models share (lenient integers and strings,
//! epoch times of unknown unit) and the `Product` block positions and transactions carry.

use super::money::{decimal, decimal_opt};
use super::scalars::{bool_opt, int, int_opt, string_opt};
use super::{epoch_auto_opt, epoch_millis_opt, epoch_seconds_opt};
use crate::etrade::one_or_many;
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductId {
    #[serde(default)]
    pub symbol: Option<String>,
    #[serde(default)]
    pub type_code: Option<String>,
}

/// The security of a position or a transaction.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    #[serde(default)]
    pub symbol: Option<String>,
    #[serde(default)]
    pub security_type: Option<String>,
    #[serde(default)]
    pub security_sub_type: Option<String>,
    #[serde(default)]
    pub call_put: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub expiry_year: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub expiry_month: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub expiry_day: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub strike_price: Option<Decimal>,
    #[serde(default)]
    pub expiry_type: Option<String>,
    #[serde(default)]
    pub product_id: Option<ProductId>,
}

/// One lot of a position (`PositionLot`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionLot {
    #[serde(default, deserialize_with = "int_opt")]
    pub position_id: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub position_lot_id: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub price: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub term_code: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub days_gain: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub days_gain_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub market_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_cost: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_cost_for_gain_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_gain: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub lot_source_code: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub original_qty: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub remaining_qty: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub available_qty: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub order_no: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub leg_no: Option<i64>,
    #[serde(default, deserialize_with = "epoch_millis_opt")]
    pub acquired_date: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub location_code: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub exchange_rate: Option<Decimal>,
    #[serde(default)]
    pub settlement_currency: Option<String>,
    #[serde(default)]
    pub payment_currency: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub adj_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub comm_per_share: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub fees_per_share: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub premium_adj: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub short_type: Option<i64>,
}

/// `Quick` view (the default).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickView {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub last_trade_time: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub volume: Option<i64>,
    #[serde(default)]
    pub quote_status: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub seven_day_current_yield: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub annual_total_return: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub weighted_average_maturity: Option<Decimal>,
}

/// `Performance` view.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PerformanceView {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub days_gain: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_gain: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_gain_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub market_value: Option<Decimal>,
    #[serde(default)]
    pub quote_status: Option<String>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub last_trade_time: Option<String>,
}

/// `Fundamental` view.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FundamentalView {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub last_trade_time: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub pe_ratio: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub eps: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dividend: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub div_yield: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub market_cap: Option<Decimal>,
    #[serde(default)]
    pub week52_range: Option<String>,
    #[serde(default)]
    pub quote_status: Option<String>,
}

/// `OptionsWatch` view.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionsWatchView {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub last_trade_time: Option<String>,
    #[serde(default)]
    pub base_symbol_and_price: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub premium: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ask: Option<Decimal>,
    #[serde(default)]
    pub quote_status: Option<String>,
}

/// `Complete` view.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteView {
    #[serde(default, deserialize_with = "bool_opt")]
    pub price_adjusted_flag: Option<bool>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub adj_price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub prev_close: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub adj_prev_close: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub volume: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_trade: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_seconds_opt")]
    pub last_trade_time: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub adj_last_trade: Option<Decimal>,
    #[serde(default)]
    pub symbol_description: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub perform1_month: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub perform3_month: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub perform6_month: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub perform12_month: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub prev_day_volume: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub ten_day_volume: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub beta: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub sv10_days_avg: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub sv20_days_avg: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub sv1_mon_avg: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub sv2_mon_avg: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub sv3_mon_avg: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub sv4_mon_avg: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub sv6_mon_avg: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub week52_high: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub week52_low: Option<Decimal>,
    #[serde(default)]
    pub week52_range: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub market_cap: Option<Decimal>,
    #[serde(default)]
    pub days_range: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub delta52_wk_high: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub delta52_wk_low: Option<Decimal>,
    #[serde(default)]
    pub currency: Option<String>,
    #[serde(default)]
    pub exchange: Option<String>,
    #[serde(default, deserialize_with = "bool_opt")]
    pub marginable: Option<bool>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ask: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub bid_ask_spread: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub bid_size: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    pub ask_size: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub open: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub delta: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub gamma: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub iv_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub rho: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub theta: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub vega: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub premium: Option<Decimal>,
    #[serde(default, deserialize_with = "int_opt")]
    pub days_to_expiration: Option<i64>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub intrinsic_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub open_interest: Option<Decimal>,
    #[serde(default, deserialize_with = "bool_opt")]
    pub options_adjusted_flag: Option<bool>,
    #[serde(default)]
    pub deliverables_str: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub option_multiplier: Option<Decimal>,
    #[serde(default)]
    pub base_symbol_and_price: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub est_earnings: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub eps: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub pe: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub annual_dividend: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dividend: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub div_yield: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub div_pay_date: Option<String>,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub ex_dividend_date: Option<String>,
    #[serde(default)]
    pub cusip: Option<String>,
    #[serde(default)]
    pub quote_status: Option<String>,
}

/// One position (`Position`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Position {
    #[serde(deserialize_with = "int")]
    pub position_id: i64,
    #[serde(default, deserialize_with = "string_opt")]
    pub account_id: Option<String>,
    #[serde(rename(deserialize = "Product"), alias = "product", default)]
    pub product: Option<Product>,
    #[serde(default)]
    pub osi_key: Option<String>,
    #[serde(default)]
    pub symbol_description: Option<String>,
    #[serde(default, deserialize_with = "epoch_millis_opt")]
    pub date_acquired: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub price_paid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub price: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub commissions: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub other_fees: Option<Decimal>,
    #[serde(deserialize_with = "decimal")]
    pub quantity: Decimal,
    #[serde(default)]
    pub position_indicator: Option<String>,
    #[serde(default)]
    pub position_type: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub change_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub days_gain: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub days_gain_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub market_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_cost: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_gain: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_gain_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub pct_of_portfolio: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cost_per_share: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub today_commissions: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub today_fees: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub today_price_paid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub today_quantity: Option<Decimal>,
    #[serde(rename = "quotestatus", alias = "quoteStatus", default)]
    pub quotestatus: Option<String>,
    #[serde(
        rename = "dateTimeUTC",
        alias = "dateTimeUtc",
        default,
        deserialize_with = "epoch_seconds_opt"
    )]
    pub date_time_utc: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub adj_prev_close: Option<Decimal>,
    #[serde(default)]
    pub lots_details: Option<String>,
    #[serde(default)]
    pub quote_details: Option<String>,
    #[serde(rename(deserialize = "Quick"), alias = "quick", default)]
    pub quick: Option<QuickView>,
    #[serde(rename(deserialize = "Performance"), alias = "performance", default)]
    pub performance: Option<PerformanceView>,
    #[serde(rename(deserialize = "Fundamental"), alias = "fundamental", default)]
    pub fundamental: Option<FundamentalView>,
    #[serde(rename(deserialize = "OptionsWatch"), alias = "optionsWatch", default)]
    pub options_watch: Option<OptionsWatchView>,
    #[serde(rename(deserialize = "Complete"), alias = "complete", default)]
    pub complete: Option<CompleteView>,
    /// Present only when lots were requested.
    #[serde(alias = "PositionLot", default, deserialize_with = "lots_opt")]
    pub position_lot: Option<Vec<PositionLot>>,
}

fn lots_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<PositionLot>>, D::Error> {
    Ok(Some(one_or_many(d)?))
}

/// One `AccountPortfolio` element: the page of positions and its cursor.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountPortfolio {
    #[serde(default, deserialize_with = "string_opt")]
    pub account_id: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub total_pages: Option<i64>,
    /// The page to ask for next (E*TRADE sends it as a string); null on the last page.
    #[serde(default, deserialize_with = "int_opt")]
    pub next_page_no: Option<i64>,
    #[serde(default)]
    pub next: Option<String>,
    #[serde(
        rename(deserialize = "Position"),
        alias = "position",
        deserialize_with = "one_or_many"
    )]
    pub position: Vec<Position>,
}

/// `Totals` (only with `totalsRequired=true`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PortfolioTotals {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub todays_gain_loss: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub todays_gain_loss_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_market_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_gain_loss: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_gain_loss_pct: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_price_paid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cash_balance: Option<Decimal>,
}

#[derive(Debug, Deserialize)]
struct PortfolioResponse {
    #[serde(rename = "PortfolioResponse")]
    response: PortfolioBody,
}

#[derive(Debug, Default, Deserialize)]
struct PortfolioBody {
    #[serde(rename = "Totals", alias = "totals", default)]
    totals: Option<PortfolioTotals>,
    #[serde(
        rename = "AccountPortfolio",
        alias = "accountPortfolio",
        deserialize_with = "one_or_many"
    )]
    account_portfolio: Vec<AccountPortfolio>,
}

/// The `get_portfolio` data object: one broker page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PortfolioPage {
    /// The page this answer is (the requested `pageNumber`, 1 when not given).
    pub page_number: i64,
    pub totals: Option<PortfolioTotals>,
    pub account_portfolio: Vec<AccountPortfolio>,
}

impl PortfolioPage {
    /// `None` is E*TRADE's empty answer (204: no positions, or past the last page).
    pub fn from_wire(
        body: Option<serde_json::Value>,
        page_number: i64,
    ) -> Result<PortfolioPage, serde_json::Error> {
        let (totals, account_portfolio) = match body {
            None => (None, Vec::new()),
            Some(v) => {
                let r: PortfolioResponse = serde_json::from_value(v)?;
                (r.response.totals, r.response.account_portfolio)
            }
        };
        Ok(PortfolioPage {
            page_number,
            totals,
            account_portfolio,
        })
    }
}

#[derive(Debug, Deserialize)]
struct PositionLotsResponse {
    #[serde(rename = "PositionLotsResponse")]
    response: PositionLotsBody,
}

#[derive(Debug, Default, Deserialize)]
struct PositionLotsBody {
    #[serde(
        rename = "PositionLot",
        alias = "positionLot",
        deserialize_with = "one_or_many"
    )]
    position_lot: Vec<PositionLot>,
    #[serde(rename = "shortType", default, deserialize_with = "int_opt")]
    short_type: Option<i64>,
}

/// The `get_position_lots` data object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionLots {
    pub position_lot: Vec<PositionLot>,
    /// The answer's own `shortType` beside its lots (each lot carries one too).
    pub short_type: Option<i64>,
}

impl PositionLots {
    /// `None` (204) → no lots.
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<PositionLots, serde_json::Error> {
        let Some(v) = body else {
            return Ok(PositionLots {
                position_lot: Vec::new(),
                short_type: None,
            });
        };
        let r: PositionLotsResponse = serde_json::from_value(v)?;
        Ok(PositionLots {
            position_lot: r.response.position_lot,
            short_type: r.response.short_type,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc_example() -> serde_json::Value {
        // etrade-api.md §7, portfolio (view QUICK).
        json!({"PortfolioResponse":{"AccountPortfolio":[{"accountId":"84010429","totalPages":1,"Position":[
         {"positionId":10002345678u64,"symbolDescription":"AAPL","dateAcquired":1582520400000u64,
          "pricePaid":150.25,"commissions":0,"otherFees":0,"quantity":10,"positionIndicator":"TYPE2",
          "positionType":"LONG","daysGain":12.3,"daysGainPct":0.71,"marketValue":1745.6,
          "totalCost":1502.5,"totalGain":243.1,"totalGainPct":16.18,"pctOfPortfolio":17.67,
          "costPerShare":150.25,"todayCommissions":0,"todayFees":0,"todayPricePaid":0,"todayQuantity":0,
          "adjPrevClose":173.33,
          "lotsDetails":"https://api.etrade.com/v1/accounts/JIdOIAcSpwR1Jva7RQBraQ/portfolio/10002345678",
          "quoteDetails":"https://api.etrade.com/v1/market/quote/AAPL",
          "Product":{"symbol":"AAPL","securityType":"EQ","expiryYear":0,"expiryMonth":0,"expiryDay":0,"strikePrice":0},
          "Quick":{"lastTrade":174.56,"lastTradeTime":1700000000,"change":1.23,"changePct":0.71,
           "volume":51234567,"quoteStatus":"REALTIME"}}]}]}})
    }

    #[test]
    fn reads_the_doc_example_and_writes_output_names() {
        let page = PortfolioPage::from_wire(Some(doc_example()), 1).expect("parses");
        assert_eq!(page.account_portfolio.len(), 1);
        let ap = &page.account_portfolio[0];
        assert_eq!(ap.total_pages, Some(1));
        assert_eq!(ap.next_page_no, None);
        let p = &ap.position[0];
        assert_eq!(p.position_id, 10002345678);
        assert_eq!(
            p.price_paid.map(|d| d.to_string()).as_deref(),
            Some("150.25")
        );
        assert_eq!(p.date_acquired.as_deref(), Some("2020-02-24T05:00:00Z"));
        assert_eq!(p.position_lot, None);
        let out = serde_json::to_value(&page).expect("serializes");
        let pos = &out["accountPortfolio"][0]["position"][0];
        assert_eq!(pos["product"]["symbol"], "AAPL");
        assert_eq!(pos["quick"]["lastTrade"], "174.56");
        assert_eq!(pos["quick"]["lastTradeTime"], "2023-11-14T22:13:20Z");
        assert_eq!(pos["marketValue"], "1745.6");
        assert!(pos["complete"].is_null());
        assert!(pos.get("Product").is_none());
        assert_eq!(out["pageNumber"], 1);
        assert!(out["totals"].is_null());
    }

    #[test]
    fn next_page_as_string_one_position_as_object_totals_and_lots() {
        let wire = json!({"PortfolioResponse":{
            "Totals":{"todaysGainLoss":-3.5,"totalMarketValue":1000.25,"cashBalance":"12.5"},
            "AccountPortfolio":{"accountId":"1","totalPages":3,"nextPageNo":"2",
              "next":"https://x/v1/accounts/k/portfolio?pageNumber=2",
              "Position":{"positionId":"7","quantity":-5.5,
                "positionLot":[{"positionId":7,"positionLotId":701,"price":1.405,"acquiredDate":0,
                  "remainingQty":-5.5,"termCode":0}]}}}});
        let page = PortfolioPage::from_wire(Some(wire), 1).expect("parses");
        let ap = &page.account_portfolio[0];
        assert_eq!(ap.next_page_no, Some(2));
        assert_eq!(ap.position[0].quantity.to_string(), "-5.5");
        let lots = ap.position[0].position_lot.as_ref().expect("lots");
        assert_eq!(lots[0].acquired_date, None);
        assert_eq!(
            page.totals
                .as_ref()
                .and_then(|t| t.cash_balance)
                .map(|d| d.to_string()),
            Some("12.5".into())
        );
        assert!(
            PortfolioPage::from_wire(None, 4)
                .expect("204")
                .account_portfolio
                .is_empty()
        );
    }

    #[test]
    fn position_lots_and_refusals() {
        let wire = json!({"PositionLotsResponse":{"PositionLot":[{"positionId":10002345678u64,
            "positionLotId":1000234567801u64,"price":150.25,"termCode":1,"daysGain":12.3,
            "originalQty":10,"remainingQty":10,"availableQty":10,"acquiredDate":1582520400000u64,
            "exchangeRate":1,"settlementCurrency":"USD","paymentCurrency":"USD","commPerShare":0.0063,
            "shortType":0}]}});
        let lots = PositionLots::from_wire(Some(wire)).expect("parses");
        let out = serde_json::to_value(&lots).expect("serializes");
        assert_eq!(out["positionLot"][0]["commPerShare"], "0.0063");
        assert_eq!(out["positionLot"][0]["positionLotId"], 1000234567801u64);
        assert!(
            PositionLots::from_wire(None)
                .expect("204")
                .position_lot
                .is_empty()
        );
        // A position without a quantity does not fit the model.
        let bad =
            json!({"PortfolioResponse":{"AccountPortfolio":[{"Position":[{"positionId":1}]}]}});
        assert!(PortfolioPage::from_wire(Some(bad), 1).is_err());
        let bad = json!({"PortfolioResponse":{"AccountPortfolio":[{"Position":[{"positionId":1,"quantity":"x"}]}]}});
        assert!(PortfolioPage::from_wire(Some(bad), 1).is_err());
    }
}
