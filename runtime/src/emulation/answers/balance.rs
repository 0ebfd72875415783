//! `GET /v1/accounts/{accountIdKey}/balance`.

use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::super::NumberStyle;

/// What a balance answer says of an account (money in dollars).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceFigures<'a> {
    pub account_id: &'a str,
    pub institution_type: &'a str,
    pub account_type: &'a str,
    /// Written as both `accountDescription` and `accountDesc`.
    pub account_desc: &'a str,
    pub account_mode: &'a str,
    pub option_level: &'a str,
    pub day_trader_status: &'a str,
    /// Epoch milliseconds.
    pub as_of_ms: i64,
    /// Cash held back for working orders (`fundsForOpenOrdersCash`,
    /// `fundsWithheldFromPurchasePower`, and a margin account's `dtMarginOpenOrderReserve`).
    pub open_order_reserve: Decimal,
    pub money_market: Decimal,
    pub cash_balance: Decimal,
    /// Written as `cashAvailableForWithdrawal` and `totalAvailableForWithdrawal`.
    pub cash_for_withdrawal: Decimal,
    /// Written as `cashAvailableForInvestment`, `settledCashForInvestment` and
    /// `cashBuyingPower`.
    pub cash_buying_power: Decimal,
    pub margin_buying_power: Decimal,
    pub dt_margin_buying_power: Decimal,
    pub margin_balance: Decimal,
    pub short_adjust_balance: Decimal,
    pub regt_equity: Decimal,
    pub regt_equity_percent: Decimal,
    /// A margin account: the answer has a `Margin` block.
    pub margin: bool,
    /// `RealTimeValues`, when asked for (or always, as the emulator prefers).
    pub real_time: Option<RealTimeValues>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RealTimeValues {
    pub total_account_value: Decimal,
    pub net_mv: Decimal,
    pub net_mv_long: Decimal,
    pub net_mv_short: Decimal,
}

pub fn balance(b: &BalanceFigures<'_>, numbers: NumberStyle) -> Value {
    let n = |d: Decimal| numbers.json(d);
    let mut computed = json!({
        "cashAvailableForInvestment": n(b.cash_buying_power),
        "cashAvailableForWithdrawal": n(b.cash_for_withdrawal),
        "totalAvailableForWithdrawal": n(b.cash_for_withdrawal),
        "netCash": n(b.cash_balance),
        "cashBalance": n(b.cash_balance),
        "settledCashForInvestment": n(b.cash_buying_power),
        "unSettledCashForInvestment": 0,
        "fundsWithheldFromPurchasePower": n(b.open_order_reserve),
        "fundsWithheldFromWithdrawal": 0,
        "marginBuyingPower": n(b.margin_buying_power),
        "cashBuyingPower": n(b.cash_buying_power),
        "dtMarginBuyingPower": n(b.dt_margin_buying_power),
        "dtCashBuyingPower": 0,
        "marginBalance": n(b.margin_balance),
        "shortAdjustBalance": n(b.short_adjust_balance),
        "regtEquity": n(b.regt_equity),
        "regtEquityPercent": n(b.regt_equity_percent),
        "accountBalance": n(b.cash_balance),
        "OpenCalls": {"minEquityCall": 0, "fedCall": 0, "cashCall": 0, "houseCall": 0},
    });
    if let (Some(r), Some(obj)) = (&b.real_time, computed.as_object_mut()) {
        obj.insert(
            "RealTimeValues".into(),
            json!({
                "totalAccountValue": n(r.total_account_value),
                "netMv": n(r.net_mv),
                "netMvLong": n(r.net_mv_long),
                "netMvShort": n(r.net_mv_short),
                "totalLongValue": n(r.net_mv_long),
            }),
        );
    }
    let mut body = json!({
        "accountId": b.account_id,
        "institutionType": b.institution_type,
        "asOfDate": b.as_of_ms,
        "accountType": b.account_type,
        "optionLevel": b.option_level,
        "accountDescription": b.account_desc,
        "quoteMode": 6,
        "dayTraderStatus": b.day_trader_status,
        "accountMode": b.account_mode,
        "accountDesc": b.account_desc,
        "Cash": {"fundsForOpenOrdersCash": n(b.open_order_reserve), "moneyMktBalance": n(b.money_market)},
        "Computed": computed,
    });
    if b.margin
        && let Some(obj) = body.as_object_mut()
    {
        obj.insert(
            "Margin".into(),
            json!({"dtCashOpenOrderReserve": 0, "dtMarginOpenOrderReserve": n(b.open_order_reserve)}),
        );
    }
    json!({ "BalanceResponse": body })
}
