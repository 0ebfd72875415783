//! The account list and balance answers (`GET /v1/accounts/list`,
//! `GET /v1/accounts/{accountIdKey}/balance`) and the account's option and margin levels.

use jiff::Timestamp;
use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::{account, ms, num, pct};
use crate::paper::book::PaperError;
use crate::paper::book::engine::{self, Ctx, cents};
use crate::paper::book::state::{AccountRec, State};

pub(crate) fn account_json(a: &AccountRec) -> Value {
    json!({
        "accountId": a.id,
        "accountIdKey": a.key,
        "accountMode": a.mode(),
        "accountDesc": a.account_type(),
        "accountName": a.name,
        "accountType": a.account_type(),
        "institutionType": "BROKERAGE",
        "accountStatus": "ACTIVE",
        "closedDate": 0,
        "instNo": 1,
        "shareWorksAccount": false,
        "fcManagedMssbClosedAccount": false,
    })
}

pub(crate) fn accounts_list(state: &State) -> Result<Value, PaperError> {
    let mut accounts: Vec<&AccountRec> = state.accounts.values().collect();
    if accounts.is_empty() {
        return Err(PaperError::Empty);
    }
    accounts.sort_by_key(|a| a.seq);
    let list: Vec<Value> = accounts.into_iter().map(account_json).collect();
    Ok(json!({"AccountListResponse": {"Accounts": {"Account": list}}}))
}

pub(crate) fn option_level(a: &AccountRec) -> (&'static str, i64) {
    if a.margin {
        ("LEVEL_4", 4)
    } else {
        ("LEVEL_2", 2)
    }
}

pub(crate) fn margin_level(a: &AccountRec) -> &'static str {
    if a.margin {
        "MARGIN_TRADING_ALLOWED"
    } else {
        "MARGIN_TRADING_NOT_ALLOWED"
    }
}

pub(crate) fn balance(
    state: &State,
    ctx: &Ctx<'_>,
    key: &str,
    now: Timestamp,
) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let cash = a.cash;
    let reserve = engine::reserved(state, key, None);
    let (long, short) = engine::market_values(state, ctx, key, now);
    let net_mv = long + short;
    let equity = cents(cash + net_mv);
    let cash_bp = if a.margin {
        cents((cash - reserve).max(Decimal::ZERO))
    } else {
        cents(cash - reserve)
    };
    let margin_bp = if a.margin {
        engine::buying_power(state, ctx, key, None, now).max(Decimal::ZERO)
    } else {
        Decimal::ZERO
    };
    let mut computed = json!({
        "cashAvailableForInvestment": num(cash_bp),
        "cashAvailableForWithdrawal": num(cents(cash.max(Decimal::ZERO))),
        "totalAvailableForWithdrawal": num(cents(cash.max(Decimal::ZERO))),
        "netCash": num(cents(cash)),
        "cashBalance": num(cents(cash)),
        "settledCashForInvestment": num(cash_bp),
        "unSettledCashForInvestment": 0,
        "fundsWithheldFromPurchasePower": num(cents(reserve)),
        "fundsWithheldFromWithdrawal": 0,
        "marginBuyingPower": num(margin_bp),
        "cashBuyingPower": num(cash_bp),
        "dtMarginBuyingPower": if a.margin { num(cents(margin_bp * Decimal::TWO)) } else { json!(0) },
        "dtCashBuyingPower": 0,
        "marginBalance": num(if a.margin && cash.is_sign_negative() { cents(cash) } else { Decimal::ZERO }),
        "shortAdjustBalance": num(cents(short.abs())),
        "regtEquity": num(if a.margin { equity } else { Decimal::ZERO }),
        "regtEquityPercent": num(if a.margin { pct(equity, long - short) } else { Decimal::ZERO }),
        "accountBalance": num(cents(cash)),
        "OpenCalls": {"minEquityCall": 0, "fedCall": 0, "cashCall": 0, "houseCall": 0},
    });
    if let Some(obj) = computed.as_object_mut() {
        obj.insert(
            "RealTimeValues".into(),
            json!({
                "totalAccountValue": num(equity),
                "netMv": num(cents(net_mv)),
                "netMvLong": num(cents(long)),
                "netMvShort": num(cents(short)),
                "totalLongValue": num(cents(long)),
            }),
        );
    }
    let mut body = json!({
        "accountId": a.id,
        "institutionType": "BROKERAGE",
        "asOfDate": ms(now),
        "accountType": a.account_type(),
        "optionLevel": option_level(a).0,
        "accountDescription": a.account_type(),
        "quoteMode": 6,
        "dayTraderStatus": "NO_PDT",
        "accountMode": a.mode(),
        "accountDesc": a.account_type(),
        "Cash": {"fundsForOpenOrdersCash": num(cents(reserve)), "moneyMktBalance": 0},
        "Computed": computed,
    });
    if a.margin
        && let Some(obj) = body.as_object_mut()
    {
        obj.insert(
            "Margin".into(),
            json!({"dtCashOpenOrderReserve": 0, "dtMarginOpenOrderReserve": num(cents(reserve))}),
        );
    }
    Ok(json!({ "BalanceResponse": body }))
}
