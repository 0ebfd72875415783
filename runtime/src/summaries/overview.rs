//! One account in one small answer: E*TRADE's balance figures, every position of every
//! portfolio page as a compact row, totals, allocation by security type and the
//! delta-adjusted share exposure of option positions.

use super::figures::{Sum, pct};
use super::paging::{self, Pages, fetch};
use crate::broker::Broker;
use crate::contract::errors::{ErrorCode, ToolError};
use crate::etrade::answers::{AccountList, Balance};
use crate::etrade::models::accounts::Account;
use crate::etrade::models::portfolio::Position;
use crate::etrade::{Endpoint, EtradeRequest};
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// How far an overview reads.
#[derive(Debug, Clone, Copy)]
pub struct OverviewLimits {
    /// Positions per portfolio page.
    pub page_size: u32,
    /// Portfolio pages per account.
    pub max_pages: u32,
}

// `get_account_overview`'s answer and its parts: the types generated from its `output:`.
use crate::outputs::{
    AccountOverview, AccountOverviewAccount as AccountLine,
    AccountOverviewAllocationItem as AllocationRow, AccountOverviewOptionExposureItem as Exposure,
    AccountOverviewPositionsItem as PositionRow, AccountOverviewTotals as Totals,
    GetAccountOverviewOutput,
};

/// The overview of one account (`Some`) or of every account.
pub async fn overview(
    broker: &dyn Broker,
    account_id_key: Option<&str>,
    limits: OverviewLimits,
) -> Result<GetAccountOverviewOutput, ToolError> {
    let listed = fetch::<AccountList>(broker, &EtradeRequest::read(Endpoint::AccountList))
        .await??
        .accounts;
    let wanted: Vec<AccountLine> = match account_id_key {
        Some(key) => {
            let found = listed.iter().find(|a| a.account_id_key == key);
            vec![found.map(line).ok_or_else(unknown_account)?]
        }
        None => listed.iter().map(line).collect(),
    };
    let mut accounts = Vec::with_capacity(wanted.len());
    for account in wanted {
        accounts.push(one_account(broker, account, limits).await?);
    }
    Ok(GetAccountOverviewOutput {
        complete: accounts.iter().all(|a| a.complete),
        accounts,
    })
}

fn unknown_account() -> ToolError {
    let mut e = ToolError::new(ErrorCode::NotFound);
    e.message = "No account with that account_id_key; list_accounts gives the keys.".into();
    e
}

fn line(a: &Account) -> AccountLine {
    AccountLine {
        account_id_key: a.account_id_key.clone(),
        name: a
            .account_name
            .clone()
            .filter(|n| !n.is_empty())
            .or_else(|| a.account_desc.clone()),
        r#type: a.account_type.clone(),
        mode: a.account_mode.clone(),
    }
}

async fn one_account(
    broker: &dyn Broker,
    account: AccountLine,
    limits: OverviewLimits,
) -> Result<AccountOverview, ToolError> {
    let key = account.account_id_key.clone();
    let balance_request = EtradeRequest::read(Endpoint::Balance)
        .at("accountIdKey", key.as_str())
        .with("instType", "BROKERAGE")
        .with("realTimeNAV", true);
    let mut problems = Vec::new();
    let balance = match fetch::<Balance>(broker, &balance_request).await? {
        Ok(b) => Some(b),
        Err(e) => {
            problems.push(format!(
                "balance failed ({}): {}",
                e.code.as_str(),
                e.message
            ));
            None
        }
    };
    let pages = paging::portfolio(broker, &key, limits.page_size, limits.max_pages).await?;
    if let Some(stopped) = &pages.stopped {
        problems.push(stopped.clone());
    }
    Ok(assemble(account, balance.as_ref(), pages, problems))
}

fn assemble(
    account: AccountLine,
    balance: Option<&Balance>,
    pages: Pages<Position>,
    problems: Vec<String>,
) -> AccountOverview {
    let computed = balance.and_then(|b| b.computed.as_ref());
    let total_account_value = computed
        .and_then(|c| c.real_time_values.as_ref())
        .and_then(|r| r.total_account_value);
    let cash = computed.and_then(|c| c.cash_balance);
    let margin = account
        .mode
        .as_deref()
        .or(balance.and_then(|b| b.account_mode.as_deref()))
        .is_some_and(|m| m.eq_ignore_ascii_case("MARGIN"));
    let buying_power = computed.and_then(|c| {
        if margin {
            c.margin_buying_power.or(c.cash_buying_power)
        } else {
            c.cash_buying_power
        }
    });

    let (mut market_value, mut total_cost, mut total_gain, mut days_gain) = (
        Sum::default(),
        Sum::default(),
        Sum::default(),
        Sum::default(),
    );
    let mut by_type: BTreeMap<String, Sum> = BTreeMap::new();
    let mut exposure: BTreeMap<String, ExposureSum> = BTreeMap::new();
    let mut positions = Vec::with_capacity(pages.items.len());
    for p in &pages.items {
        market_value.add(p.market_value);
        total_cost.add(p.total_cost);
        total_gain.add(p.total_gain);
        days_gain.add(p.days_gain);
        let security_type = p.product.as_ref().and_then(|x| x.security_type.clone());
        by_type
            .entry(security_type.clone().unwrap_or_else(|| "UNKNOWN".into()))
            .or_default()
            .add(p.market_value);
        let option = security_type.as_deref() == Some("OPTN");
        let underlier = p.product.as_ref().and_then(|x| x.symbol.clone());
        if let Some(u) = &underlier {
            let e = exposure.entry(u.clone()).or_default();
            if option {
                e.add_option(p);
            } else {
                e.shares += signed_quantity(p);
            }
        }
        positions.push(PositionRow {
            symbol: if option {
                p.symbol_description.clone().or_else(|| p.osi_key.clone())
            } else {
                underlier.clone()
            },
            osi_key: p.osi_key.clone().filter(|_| option),
            security_type,
            underlier: underlier.filter(|_| option),
            quantity: p.quantity,
            last_price: last_price(p),
            market_value: p.market_value,
            cost: p.total_cost,
            total_gain: p.total_gain,
            total_gain_pct: p.total_gain_pct,
            days_gain: p.days_gain,
            days_gain_pct: p.days_gain_pct,
            weight_pct: pct(p.market_value, total_account_value),
        });
    }

    let market_value = market_value.value();
    let total_gain = total_gain.value();
    let total_cost = total_cost.value();
    let days_gain = days_gain.value();
    let previous_value = market_value.zip(days_gain).map(|(v, g)| v - g);
    let mut allocation: Vec<AllocationRow> = by_type
        .into_iter()
        .map(|(security_type, sum)| AllocationRow {
            security_type,
            market_value: sum.value(),
            weight_pct: pct(sum.value(), total_account_value),
        })
        .collect();
    if cash.is_some() {
        allocation.push(AllocationRow {
            security_type: "CASH".into(),
            market_value: cash,
            weight_pct: pct(cash, total_account_value),
        });
    }
    let option_exposure = exposure
        .into_iter()
        .filter(|(_, e)| e.options > 0)
        .map(|(underlier, e)| {
            let delta_shares = e.delta_shares.value();
            Exposure {
                underlier,
                shares: e.shares.normalize(),
                option_delta_shares: delta_shares,
                net_delta_shares: delta_shares.map(|d| (d + e.shares).normalize()),
            }
        })
        .collect();
    let complete = problems.is_empty();
    AccountOverview {
        account,
        totals: Totals {
            total_account_value,
            cash,
            buying_power,
            market_value,
            total_cost,
            total_gain,
            total_gain_pct: pct(total_gain, total_cost),
            days_gain,
            days_gain_pct: pct(days_gain, previous_value),
        },
        positions,
        allocation,
        option_exposure,
        portfolio_pages: pages.pages.into(),
        complete,
        incomplete_reason: (!complete).then(|| problems.join("; ")),
    }
}

/// Contracts or shares, negative when short (E*TRADE's quantity is already signed; a
/// SHORT position with a positive quantity is turned around).
fn signed_quantity(p: &Position) -> Decimal {
    let short = p.position_type.as_deref() == Some("SHORT");
    if short && p.quantity.is_sign_positive() {
        -p.quantity
    } else {
        p.quantity
    }
}

fn last_price(p: &Position) -> Option<Decimal> {
    p.complete
        .as_ref()
        .and_then(|c| c.last_trade)
        .or_else(|| p.quick.as_ref().and_then(|q| q.last_trade))
        .or(p.price)
}

#[derive(Default)]
struct ExposureSum {
    shares: Decimal,
    options: usize,
    /// Σ contracts × delta × multiplier; unknown once an option lacked a delta.
    delta_shares: Sum,
}

impl ExposureSum {
    fn add_option(&mut self, p: &Position) {
        let complete = p.complete.as_ref();
        let multiplier = complete
            .and_then(|c| c.option_multiplier)
            .unwrap_or(Decimal::ONE_HUNDRED);
        let delta = complete.and_then(|c| c.delta);
        self.options += 1;
        self.delta_shares
            .add(delta.map(|d| signed_quantity(p) * d * multiplier));
    }
}
