//! The account list and balance answers (`GET /v1/accounts/list`,
//! `GET /v1/accounts/{accountIdKey}/balance`) and the account's option and margin levels.

use jiff::Timestamp;
use rust_decimal::Decimal;
use serde_json::Value;

use super::{account, ms, pct};
use crate::emulation::NumberStyle;
use crate::emulation::answers::balance::{BalanceFigures, RealTimeValues};
use crate::emulation::answers::{self, accounts::AccountEntry, accounts::account_list};
use crate::paper::book::PaperError;
use crate::paper::book::engine::{self, Ctx, cents};
use crate::paper::book::state::{AccountRec, State};

fn entry(a: &AccountRec) -> AccountEntry<'_> {
    AccountEntry {
        id: &a.id,
        key: &a.key,
        mode: a.mode(),
        desc: a.account_type(),
        name: &a.name,
        account_type: a.account_type(),
        institution_type: "BROKERAGE",
        status: "ACTIVE",
        closed_date: 0,
        inst_no: 1,
    }
}

pub(crate) fn accounts_list(state: &State) -> Result<Value, PaperError> {
    let mut accounts: Vec<&AccountRec> = state.accounts.values().collect();
    accounts.sort_by_key(|a| a.seq);
    let entries: Vec<AccountEntry<'_>> = accounts.into_iter().map(entry).collect();
    account_list(&entries).ok_or(PaperError::Empty)
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
    let figures = BalanceFigures {
        account_id: &a.id,
        institution_type: "BROKERAGE",
        account_type: a.account_type(),
        account_desc: a.account_type(),
        account_mode: a.mode(),
        option_level: option_level(a).0,
        day_trader_status: "NO_PDT",
        as_of_ms: ms(now),
        open_order_reserve: cents(reserve),
        money_market: Decimal::ZERO,
        cash_balance: cents(cash),
        cash_for_withdrawal: cents(cash.max(Decimal::ZERO)),
        cash_buying_power: cash_bp,
        margin_buying_power: margin_bp,
        dt_margin_buying_power: if a.margin {
            cents(margin_bp * Decimal::TWO)
        } else {
            Decimal::ZERO
        },
        margin_balance: if a.margin && cash.is_sign_negative() {
            cents(cash)
        } else {
            Decimal::ZERO
        },
        short_adjust_balance: cents(short.abs()),
        regt_equity: if a.margin { equity } else { Decimal::ZERO },
        regt_equity_percent: if a.margin {
            pct(equity, long - short)
        } else {
            Decimal::ZERO
        },
        margin: a.margin,
        real_time: Some(RealTimeValues {
            total_account_value: equity,
            net_mv: cents(net_mv),
            net_mv_long: cents(long),
            net_mv_short: cents(short),
        }),
    };
    Ok(answers::balance::balance(&figures, NumberStyle::Exact))
}
