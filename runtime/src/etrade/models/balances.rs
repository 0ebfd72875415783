//! `GET /v1/accounts/{k}/balance` → `BalanceResponse`.

use super::epoch_auto_opt;
use super::money::decimal_opt;
use super::scalars::{int_opt, string_opt};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceCash {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub funds_for_open_orders_cash: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub money_mkt_balance: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceMargin {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dt_cash_open_order_reserve: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dt_margin_open_order_reserve: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceLending {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub current_balance: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub credit_line: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub outstanding_balance: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub min_payment_due: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub amount_past_due: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub available_credit: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub ytd_interest_paid: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub last_ytd_interest_paid: Option<Decimal>,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub payment_due_date: Option<String>,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub last_payment_received_date: Option<String>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub payment_received_mtd: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenCalls {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub min_equity_call: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub fed_call: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cash_call: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub house_call: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RealTimeValues {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_account_value: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_mv: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_mv_long: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_mv_short: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_long_value: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PortfolioMargin {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dt_cash_open_order_reserve: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dt_margin_open_order_reserve: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub liquidating_equity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub house_excess_equity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_house_requirement: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub excess_equity_minus_requirement: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_margin_rqmts: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub avail_excess_equity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub excess_equity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub open_order_reserve: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub funds_on_hold: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceComputed {
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cash_available_for_investment: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cash_available_for_withdrawal: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub total_available_for_withdrawal: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub net_cash: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cash_balance: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub settled_cash_for_investment: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub un_settled_cash_for_investment: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub funds_withheld_from_purchase_power: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub funds_withheld_from_withdrawal: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub margin_buying_power: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub cash_buying_power: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dt_margin_buying_power: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub dt_cash_buying_power: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub margin_balance: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub short_adjust_balance: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub regt_equity: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub regt_equity_percent: Option<Decimal>,
    #[serde(default, deserialize_with = "decimal_opt")]
    pub account_balance: Option<Decimal>,
    #[serde(rename(deserialize = "OpenCalls"), alias = "openCalls", default)]
    pub open_calls: Option<OpenCalls>,
    #[serde(
        rename(deserialize = "RealTimeValues"),
        alias = "realTimeValues",
        default
    )]
    pub real_time_values: Option<RealTimeValues>,
    #[serde(
        rename(deserialize = "PortfolioMargin"),
        alias = "portfolioMargin",
        default
    )]
    pub portfolio_margin: Option<PortfolioMargin>,
}

/// The `get_account_balances` data object (`BalanceResponse`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Balance {
    #[serde(default, deserialize_with = "string_opt")]
    pub account_id: Option<String>,
    #[serde(default)]
    pub institution_type: Option<String>,
    #[serde(default, deserialize_with = "epoch_auto_opt")]
    pub as_of_date: Option<String>,
    #[serde(default)]
    pub account_type: Option<String>,
    #[serde(default)]
    pub option_level: Option<String>,
    #[serde(default)]
    pub account_description: Option<String>,
    #[serde(default, deserialize_with = "int_opt")]
    pub quote_mode: Option<i64>,
    #[serde(default)]
    pub day_trader_status: Option<String>,
    #[serde(default)]
    pub account_mode: Option<String>,
    #[serde(default)]
    pub account_desc: Option<String>,
    #[serde(rename(deserialize = "Cash"), alias = "cash", default)]
    pub cash: Option<BalanceCash>,
    #[serde(rename(deserialize = "Margin"), alias = "margin", default)]
    pub margin: Option<BalanceMargin>,
    #[serde(rename(deserialize = "Lending"), alias = "lending", default)]
    pub lending: Option<BalanceLending>,
    #[serde(rename(deserialize = "Computed"), alias = "computed", default)]
    pub computed: Option<BalanceComputed>,
}

#[derive(Debug, Deserialize)]
struct BalanceResponse {
    #[serde(rename = "BalanceResponse")]
    response: Balance,
}

impl Balance {
    /// A balance always has a body; an empty answer does not fit the model.
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<Balance, serde_json::Error> {
        let v = body.ok_or_else(|| serde::de::Error::custom("empty balance answer"))?;
        let r: BalanceResponse = serde_json::from_value(v)?;
        Ok(r.response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_doc_example_and_writes_output_names() {
        // etrade-api.md §7, balance.
        let wire = json!({"BalanceResponse":{"accountId":"84010429","institutionType":"BROKERAGE","asOfDate":1700000000000u64,
         "accountType":"INDIVIDUAL","optionLevel":"LEVEL_2","accountDescription":"INDIVIDUAL",
         "quoteMode":6,"dayTraderStatus":"NO_PDT","accountMode":"MARGIN",
         "Cash":{"fundsForOpenOrdersCash":0,"moneyMktBalance":1250.11},
         "Computed":{"cashAvailableForInvestment":1250.11,"cashAvailableForWithdrawal":1250.11,
          "netCash":1250.11,"cashBalance":1250.11,"settledCashForInvestment":1250.11,
          "unSettledCashForInvestment":0,"fundsWithheldFromPurchasePower":0,
          "fundsWithheldFromWithdrawal":0,"marginBuyingPower":2500.22,"cashBuyingPower":1250.11,
          "dtMarginBuyingPower":0,"dtCashBuyingPower":0,"accountBalance":1250.11,
          "OpenCalls":{"minEquityCall":0,"fedCall":0,"cashCall":0,"houseCall":0},
          "RealTimeValues":{"totalAccountValue":9876.54,"netMv":8626.43,"netMvLong":8626.43,"netMvShort":0}}}});
        let b = Balance::from_wire(Some(wire)).expect("parses");
        assert_eq!(b.as_of_date.as_deref(), Some("2023-11-14T22:13:20Z"));
        assert_eq!(b.quote_mode, Some(6));
        assert!(b.margin.is_none() && b.lending.is_none());
        let out = serde_json::to_value(&b).expect("serializes");
        assert_eq!(
            out["computed"]["realTimeValues"]["totalAccountValue"],
            "9876.54"
        );
        assert_eq!(out["computed"]["marginBuyingPower"], "2500.22");
        assert_eq!(out["computed"]["unSettledCashForInvestment"], "0");
        assert_eq!(out["cash"]["moneyMktBalance"], "1250.11");
        assert!(out["computed"]["portfolioMargin"].is_null());
        assert!(out.get("Computed").is_none());
    }

    #[test]
    fn seconds_dates_string_money_and_refusals() {
        let wire = json!({"BalanceResponse":{"accountId":84010429,"asOfDate":1700000000,
            "Lending":{"currentBalance":"-12.5","paymentDueDate":0}}});
        let b = Balance::from_wire(Some(wire)).expect("parses");
        assert_eq!(b.account_id.as_deref(), Some("84010429"));
        assert_eq!(b.as_of_date.as_deref(), Some("2023-11-14T22:13:20Z"));
        let lending = b.lending.expect("lending");
        assert_eq!(
            lending.current_balance.map(|d| d.to_string()),
            Some("-12.5".into())
        );
        assert_eq!(lending.payment_due_date, None);
        assert!(Balance::from_wire(None).is_err());
        let bad = json!({"BalanceResponse":{"Computed":{"cashBalance":"lots"}}});
        assert!(Balance::from_wire(Some(bad)).is_err());
        assert!(Balance::from_wire(Some(json!({"Other":{}}))).is_err());
    }
}
