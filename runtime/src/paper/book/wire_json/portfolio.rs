//! The portfolio answers (`GET /v1/accounts/{accountIdKey}/portfolio` and a position's
//! lots): positions valued at the market, in each view, with their lots and totals.

use crate::etrade::EtradeRequest;
use jiff::{SignedDuration, Timestamp};
use rust_decimal::Decimal;
use serde_json::Value;

use super::{
    BASE_URL, account, bool_param, count_param, invalid_param, ms, next_link, pct, positive_param,
    query,
};
use crate::calendar::{regular_hours, trading_day};
use crate::emulation::answers::portfolio::{
    LotFigures, PortfolioPage, PositionFigures, PositionGreeks, TotalsFigures,
};
use crate::emulation::answers::{self, Style};
use crate::emulation::query_params::PORTFOLIO_VIEWS;
use crate::emulation::{NumberStyle, codes};
use crate::paper::book::PaperError;
use crate::paper::book::engine::{Ctx, cents, mark, touch};
use crate::paper::book::state::{AccountRec, LotRec, PositionRec, State};
use crate::paper::touch::{Greeks, OptionContract};

const STYLE: Style<'static> = Style {
    numbers: NumberStyle::Exact,
    base_url: BASE_URL,
};

/// The close of the last regular session before `now`'s trading day.
fn previous_close(now: Timestamp) -> Option<Timestamp> {
    let mut d = trading_day(now).yesterday().ok()?;
    for _ in 0..14 {
        if let Some((_, close)) = regular_hours(d) {
            return close.checked_sub(SignedDuration::from_secs(1)).ok();
        }
        d = d.yesterday().ok()?;
    }
    None
}

/// What a position's answers need from the market.
struct Valued {
    last: Decimal,
    prev_close: Decimal,
    volume: u64,
    market_value: Decimal,
    total_cost: Decimal,
    days_gain: Decimal,
    greeks: Option<Greeks>,
}

/// `greeks`: only the COMPLETE view shows them, and each costs an option valuation.
fn valued(ctx: &Ctx<'_>, p: &PositionRec, now: Timestamp, greeks: bool) -> Valued {
    let quote = touch(ctx.market, &p.instrument, now);
    let qty = p.quantity();
    let mult = p.instrument.multiplier();
    let fallback = p.cost().checked_div(qty * mult).unwrap_or_default().abs();
    let last = quote.as_ref().and_then(mark).unwrap_or(fallback);
    let prev_close = previous_close(now)
        .and_then(|t| touch(ctx.market, &p.instrument, t))
        .as_ref()
        .and_then(mark)
        .unwrap_or(last);
    let market_value = cents(qty * last * mult);
    Valued {
        last,
        prev_close,
        volume: quote.as_ref().map_or(0, |t| t.volume),
        market_value,
        total_cost: cents(p.cost()),
        days_gain: cents(qty * (last - prev_close) * mult),
        greeks: OptionContract::of(&p.instrument)
            .filter(|_| greeks)
            .and_then(|c| ctx.market.option_greeks(&c, now)),
    }
}

fn lot_figures(p: &PositionRec, lot: &LotRec, v: &Valued, now: Timestamp) -> LotFigures {
    let mult = p.instrument.multiplier();
    let qty = lot.remaining_qty;
    let mv = cents(qty * v.last * mult);
    let cost = cents(lot.cost);
    LotFigures {
        position_id: p.position_id,
        lot_id: lot.lot_id,
        price: lot.price,
        long_term: now.duration_since(lot.acquired_at).as_secs() > 365 * 86_400,
        days_gain: cents(qty * (v.last - v.prev_close) * mult),
        days_gain_pct: pct(v.last - v.prev_close, v.prev_close),
        market_value: mv,
        total_cost: cost,
        total_cost_for_gain_pct: cost.abs(),
        total_gain: mv - cost,
        original_qty: lot.original_qty,
        remaining_qty: qty,
        order_no: lot.order_id,
        leg_no: i64::from(lot.leg_no),
        acquired_ms: ms(lot.acquired_at),
        comm_per_share: lot
            .commission
            .checked_div(qty.abs() * mult)
            .map(|c| c.round_dp(4))
            .unwrap_or_default(),
    }
}

fn figures<'a>(
    a: &'a AccountRec,
    p: &PositionRec,
    v: &Valued,
    total_mv: Decimal,
    now: Timestamp,
) -> PositionFigures<'a> {
    let qty = p.quantity();
    let mult = p.instrument.multiplier();
    let total_gain = v.market_value - v.total_cost;
    let price_paid = p
        .cost()
        .checked_div(qty * mult)
        .map(|x| x.abs().round_dp(4))
        .unwrap_or_default();
    PositionFigures {
        position_id: p.position_id,
        account_id: &a.id,
        account_key: &a.key,
        instrument: p.instrument.clone(),
        symbol_description: p.instrument.display(),
        date_acquired_ms: p.acquired_at().map_or(0, ms),
        quantity: qty,
        price_paid,
        last: v.last,
        prev_close: v.prev_close,
        volume: v.volume,
        commissions: cents(p.commissions()),
        change: v.last - v.prev_close,
        change_pct: pct(v.last - v.prev_close, v.prev_close),
        days_gain: v.days_gain,
        market_value: v.market_value,
        total_cost: v.total_cost,
        total_gain,
        total_gain_pct: pct(total_gain, v.total_cost.abs()),
        pct_of_portfolio: pct(v.market_value.abs(), total_mv),
        base_symbol_and_price: p.instrument.symbol().to_string(),
        greeks: v.greeks.map(|g| PositionGreeks {
            delta: g.delta,
            gamma: g.gamma,
            theta: g.theta,
            vega: g.vega,
            rho: Some(g.rho),
            iv_pct: g.iv_pct,
        }),
        quote: None,
        lots: p.lots.iter().map(|l| lot_figures(p, l, v, now)).collect(),
    }
}

pub(crate) fn portfolio(
    state: &State,
    ctx: &Ctx<'_>,
    key: &str,
    q: &EtradeRequest,
    now: Timestamp,
) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let count = count_param(q, 50, 65_535)?;
    let page = positive_param(q, "pageNumber")?.unwrap_or(1);
    let descending = match query(q, "sortOrder") {
        None | Some("DESC") => true,
        Some("ASC") => false,
        Some(_) => return Err(invalid_param("sortOrder")),
    };
    match query(q, "marketSession") {
        None | Some("REGULAR" | "EXTENDED") => {}
        Some(_) => return Err(invalid_param("marketSession")),
    }
    let view = match query(q, "view") {
        None => "QUICK",
        Some(v) if PORTFOLIO_VIEWS.contains(&v) => v,
        Some(_) => return Err(invalid_param("view")),
    };
    let sort_by = query(q, "sortBy");
    if sort_by.is_some_and(|s| {
        s.trim().is_empty()
            || !s
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    }) {
        return Err(invalid_param("sortBy"));
    }
    let totals = bool_param(q, "totalsRequired")?;
    let lots = bool_param(q, "lotsRequired")?;
    let positions: Vec<(&PositionRec, Valued)> = state
        .positions
        .values()
        .filter(|p| p.account_key == key)
        .map(|p| (p, valued(ctx, p, now, view == "COMPLETE")))
        .collect();
    let total_mv: Decimal = positions.iter().map(|(_, v)| v.market_value.abs()).sum();
    let totals = totals.then(|| {
        let mv: Decimal = positions.iter().map(|(_, v)| v.market_value).sum();
        let cost: Decimal = positions.iter().map(|(_, v)| v.total_cost).sum();
        let todays: Decimal = positions.iter().map(|(_, v)| v.days_gain).sum();
        TotalsFigures {
            todays_gain_loss: cents(todays),
            todays_gain_loss_pct: pct(todays, mv - todays),
            total_market_value: cents(mv),
            total_gain_loss: cents(mv - cost),
            total_gain_loss_pct: pct(mv - cost, cost.abs()),
            total_price_paid: cents(cost),
            cash_balance: cents(a.cash),
        }
    });
    let figures: Vec<PositionFigures<'_>> = positions
        .iter()
        .map(|(p, v)| figures(a, p, v, total_mv, now))
        .collect();
    let page_query = PortfolioPage {
        view,
        sort_by,
        descending,
        count,
        page,
        lots,
    };
    let path = format!("/v1/accounts/{}/portfolio", a.key);
    answers::portfolio::portfolio(
        &a.id,
        figures,
        &page_query,
        totals.as_ref(),
        now.as_second(),
        STYLE,
        |n| next_link(&path, q, "pageNumber", n.to_string()),
    )
    .ok_or(PaperError::Empty)
}

pub(crate) fn position_lots(
    state: &State,
    ctx: &Ctx<'_>,
    key: &str,
    position_id: i64,
    now: Timestamp,
) -> Result<Value, PaperError> {
    account(state, key)?;
    let Some(p) = state
        .positions
        .get(&position_id)
        .filter(|p| p.account_key == key)
    else {
        return Err(PaperError::rejected(
            codes::INVALID_PARAMETER,
            "Invalid position id.",
        ));
    };
    let v = valued(ctx, p, now, false);
    let lots: Vec<LotFigures> = p.lots.iter().map(|l| lot_figures(p, l, &v, now)).collect();
    Ok(answers::portfolio::position_lots(&lots, NumberStyle::Exact))
}
