//! Order checks, estimates, buying power, and the fill engine: fills at the touch (buy at
//! the ask, sell at the bid, at most the displayed size per step), the cash ledger, FIFO
//! lots, GOOD_FOR_DAY expiry, and the catch-up loop over simulated time.

use jiff::civil::{Date, Time};
use jiff::{SignedDuration, Timestamp};
use rust_decimal::{Decimal, RoundingStrategy};

use super::state::{
    LedgerKind, LedgerRec, LegRec, LotRec, OrderRec, PositionRec, State, TransactionRec, TxKind,
};
use super::{PaperConfig, PaperError};
use crate::calendar::{
    SessionPhase, next_regular_open, phase_at, regular_hours, time_zone, trading_day,
};
pub(crate) use crate::emulation::order_estimate::Estimate;
use crate::emulation::order_estimate::{self, Commissions};
use crate::emulation::{
    EntryRefusal, Instrument, OrderAction, OrderRequest, OrderStatus, OrderTerm, OrderType,
    PriceType, codes,
};
use crate::etrade::vocabulary::Auction;
use crate::paper::touch::{MarketData, OptionContract, Touch};

/// Resting orders are evaluated at this interval of simulated time.
pub(crate) const STEP: SignedDuration = SignedDuration::from_secs(60);
/// At most this many steps per catch-up; after them the book jumps to "now".
pub(crate) const MAX_STEPS: u32 = 10_000;

pub(crate) struct Ctx<'a> {
    pub config: &'a PaperConfig,
    pub market: &'a dyn MarketData,
}

pub(crate) fn cents(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

pub(crate) fn touch(market: &dyn MarketData, i: &Instrument, at: Timestamp) -> Option<Touch> {
    match OptionContract::of(i) {
        None => market.equity(i.symbol(), at),
        Some(c) => market.option(&c, at),
    }
}

/// The mark a position is valued at: the last trade, else the mid, else None.
pub(crate) fn mark(t: &Touch) -> Option<Decimal> {
    if t.last > Decimal::ZERO {
        Some(t.last)
    } else if t.bid > Decimal::ZERO && t.ask > Decimal::ZERO {
        Some((t.bid + t.ask) / Decimal::TWO)
    } else {
        None
    }
}

/// A position's market value (signed) at `at`; the cost basis when there is no price.
pub(crate) fn market_value(ctx: &Ctx<'_>, p: &PositionRec, at: Timestamp) -> Decimal {
    match touch(ctx.market, &p.instrument, at).as_ref().and_then(mark) {
        Some(px) => p.quantity() * px * p.instrument.multiplier(),
        None => p.cost(),
    }
}

/// What paper charges.
fn commissions(cfg: &PaperConfig) -> Commissions {
    Commissions {
        per_trade: cfg.commission_per_trade,
        per_contract: cfg.commission_per_contract,
    }
}

/// `r` estimated with each leg at its touch (the ask to buy, the bid to sell; nothing
/// without one).
pub(crate) fn estimate(cfg: &PaperConfig, r: &OrderRequest, touches: &[Touch]) -> Estimate {
    order_estimate::estimate(r, &commissions(cfg), |i, l| {
        touches.get(i).map_or(
            Decimal::ZERO,
            |t| if l.action.is_buy() { t.ask } else { t.bid },
        )
    })
}

/// Buying power held by the account's working orders (except `except`).
pub(crate) fn reserved(state: &State, account_key: &str, except: Option<i64>) -> Decimal {
    state
        .open_orders()
        .filter(|o| o.account_key == account_key && Some(o.order_id) != except)
        .map(OrderRec::reserve)
        .sum()
}

/// (long market value, short market value ≤ 0) of the account's positions.
pub(crate) fn market_values(
    state: &State,
    ctx: &Ctx<'_>,
    account_key: &str,
    at: Timestamp,
) -> (Decimal, Decimal) {
    let mut long = Decimal::ZERO;
    let mut short = Decimal::ZERO;
    for p in state
        .positions
        .values()
        .filter(|p| p.account_key == account_key)
    {
        let mv = market_value(ctx, p, at);
        if mv.is_sign_negative() {
            short += mv;
        } else {
            long += mv;
        }
    }
    (long, short)
}

/// Cash accounts: cash minus the open buy orders' reserve. Margin accounts (simple Reg T):
/// 2 × equity − gross position value − reserve.
pub(crate) fn buying_power(
    state: &State,
    ctx: &Ctx<'_>,
    account_key: &str,
    except: Option<i64>,
    at: Timestamp,
) -> Decimal {
    let Some(a) = state.accounts.get(account_key) else {
        return Decimal::ZERO;
    };
    let reserve = reserved(state, account_key, except);
    if !a.margin {
        return cents(a.cash - reserve);
    }
    let (long, short) = market_values(state, ctx, account_key, at);
    let equity = a.cash + long + short;
    cents(Decimal::TWO * equity - long + short - reserve)
}

fn quotes(ctx: &Ctx<'_>, r: &OrderRequest, at: Timestamp) -> Result<Vec<Touch>, PaperError> {
    r.legs
        .iter()
        .map(|l| match touch(ctx.market, &l.instrument, at) {
            Some(t) => Ok(t),
            None if !l.instrument.is_option()
                || ctx.market.equity(l.instrument.symbol(), at).is_none() =>
            {
                Err(PaperError::rejected(
                    codes::INVALID_SYMBOL,
                    codes::INVALID_SYMBOL_MESSAGE,
                ))
            }
            None => Err(PaperError::rejected(
                codes::OPTION_NOT_FOUND,
                codes::OPTION_NOT_FOUND_MESSAGE,
            )),
        })
        .collect()
}

/// Quantity of `instrument` the account's other working orders will sell (or buy) to close.
fn reserved_quantity(
    state: &State,
    account_key: &str,
    instrument: &Instrument,
    buys: bool,
    except: Option<i64>,
) -> Decimal {
    state
        .open_orders()
        .filter(|o| o.account_key == account_key && Some(o.order_id) != except)
        .flat_map(|o| o.legs.iter())
        .filter(|l| &l.instrument == instrument && l.action.is_buy() == buys)
        .filter(|l| {
            matches!(
                l.action,
                OrderAction::Sell
                    | OrderAction::SellClose
                    | OrderAction::BuyToCover
                    | OrderAction::BuyClose
            )
        })
        .map(LegRec::remaining)
        .sum()
}

/// Everything preview and place check; the estimate at the current touch.
pub(crate) fn check_order(
    state: &State,
    ctx: &Ctx<'_>,
    account_key: &str,
    r: &OrderRequest,
    change_of: Option<i64>,
    at: Timestamp,
) -> Result<(Estimate, Vec<Touch>), PaperError> {
    let Some(account) = state.accounts.get(account_key) else {
        return Err(PaperError::unknown_account());
    };
    let touches = quotes(ctx, r, at)?;
    for l in &r.legs {
        let held = state
            .position_of(account_key, &l.instrument)
            .map(PositionRec::quantity)
            .unwrap_or_default();
        match l.action {
            OrderAction::Sell | OrderAction::SellClose => {
                let reserved =
                    reserved_quantity(state, account_key, &l.instrument, false, change_of);
                if l.quantity > held.max(Decimal::ZERO) - reserved {
                    return Err(PaperError::rejected(
                        codes::NOT_ENOUGH_SHARES,
                        codes::NOT_ENOUGH_SHARES_MESSAGE,
                    ));
                }
            }
            OrderAction::SellShort if !account.margin => {
                return Err(PaperError::rejected(
                    codes::SHORT_IN_CASH_ACCOUNT,
                    codes::SHORT_IN_CASH_ACCOUNT_MESSAGE,
                ));
            }
            OrderAction::SellShort if held > Decimal::ZERO => {
                return Err(PaperError::rejected(
                    codes::SHORT_WHILE_LONG,
                    codes::SHORT_WHILE_LONG_MESSAGE,
                ));
            }
            OrderAction::SellOpen if !account.margin && r.order_type != OrderType::BuyWrites => {
                return Err(PaperError::rejected(
                    codes::UNCOVERED_IN_CASH_ACCOUNT,
                    codes::UNCOVERED_IN_CASH_ACCOUNT_MESSAGE,
                ));
            }
            OrderAction::BuyToCover | OrderAction::BuyClose => {
                let reserved =
                    reserved_quantity(state, account_key, &l.instrument, true, change_of);
                if l.quantity > (-held).max(Decimal::ZERO) - reserved {
                    return Err(PaperError::rejected(
                        codes::NO_SHORT_POSITION,
                        codes::NO_SHORT_POSITION_MESSAGE,
                    ));
                }
            }
            _ => {}
        }
    }
    let est = estimate(ctx.config, r, &touches);
    if est.debit && est.total() > buying_power(state, ctx, account_key, change_of, at) {
        return Err(EntryRefusal::InsufficientFunds.into());
    }
    Ok((est, touches))
}

fn local(d: Date, t: Time) -> Option<Timestamp> {
    time_zone().to_timestamp(d.to_datetime(t)).ok()
}

/// Whether an order of this session can trade in `phase`.
pub(crate) fn tradable(r: &OrderRequest, phase: SessionPhase) -> bool {
    if r.extended() {
        phase != SessionPhase::Closed
    } else {
        phase == SessionPhase::Regular
    }
}

/// The first instant after `t` at which an order of this session can trade.
fn next_session_start(t: Timestamp, extended: bool) -> Timestamp {
    if !extended {
        return next_regular_open(t);
    }
    let mut day = trading_day(t);
    for _ in 0..14 {
        if let Some((open, close)) = regular_hours(day) {
            let candidates = [
                local(day, Time::constant(7, 0, 0, 0)),
                Some(open),
                close.checked_add(SignedDuration::from_mins(5)).ok(),
            ];
            if let Some(c) = candidates.into_iter().flatten().find(|c| *c > t) {
                return c;
            }
        }
        match day.tomorrow() {
            Ok(d) => day = d,
            Err(_) => break,
        }
    }
    Timestamp::MAX
}

/// GOOD_FOR_DAY: the end of the order's trading day (the regular close, or the after-hours
/// close for EXTENDED) — the first such end after `placed_at`.
pub(crate) fn day_end(placed_at: Timestamp, extended: bool) -> Option<Timestamp> {
    let mut day = trading_day(placed_at);
    for _ in 0..14 {
        if let Some((_, close)) = regular_hours(day) {
            let end = if extended {
                close.checked_add(SignedDuration::from_hours(4)).ok()?
            } else {
                close
            };
            if end > placed_at {
                return Some(end);
            }
        }
        day = day.tomorrow().ok()?;
    }
    None
}

/// When an on-open or on-close order placed at `placed_at` trades: the next regular open
/// (tomorrow's once today's has passed), or the first regular close after placement.
pub(crate) fn auction_at(auction: Auction, placed_at: Timestamp) -> Option<Timestamp> {
    match auction {
        Auction::Open => Some(next_regular_open(placed_at)).filter(|t| *t != Timestamp::MAX),
        Auction::Close => day_end(placed_at, false),
    }
}

/// An on-open or on-close order at its auction (`at`, reached by `t`): the whole order
/// fills at the auction's price (the last trade then; the touch's side without one) if it
/// is a market order or its limit allows that price, else it expires unfilled.
fn run_auction(
    state: &mut State,
    ctx: &Ctx<'_>,
    mut order: OrderRec,
    at: Timestamp,
    t: Timestamp,
) -> Result<(), PaperError> {
    let r = order.request.clone();
    let mut prices = Vec::with_capacity(order.legs.len());
    for l in &order.legs {
        let price = touch(ctx.market, &l.instrument, at).and_then(|x| {
            mark(&x)
                .or(Some(if l.action.is_buy() { x.ask } else { x.bid }))
                .filter(|p| *p > Decimal::ZERO)
        });
        prices.push(price);
    }
    let fills = prices.iter().zip(&order.legs).all(|(p, l)| {
        p.is_some_and(
            |px| match r.limit_price.filter(|_| !r.price_type.takes_the_market()) {
                None => true,
                Some(lim) if l.action.is_buy() => px <= lim,
                Some(lim) => px >= lim,
            },
        )
    });
    if !fills {
        order.status = OrderStatus::Expired;
        order.push_event("ORDER_EXPIRED", t);
        state.put_order(order);
        return Ok(());
    }
    for (i, price) in prices.into_iter().enumerate() {
        let remaining = order.legs.get(i).map(LegRec::remaining).unwrap_or_default();
        fill(
            state,
            ctx,
            &mut order,
            i,
            remaining,
            price.unwrap_or_default(),
            at,
        );
    }
    order.status = OrderStatus::Executed;
    order.executed_at = Some(at);
    order.push_event("ORDER_EXECUTED", at);
    state.put_order(order);
    Ok(())
}

/// A trailing stop at the price `last` (the last trade, else the mid): moves its mark with a
/// better price, and reports whether `last` crossed the trigger (mark moved by the trail).
fn trail_hit(order: &mut OrderRec, last: Decimal) -> bool {
    let Some(buy) = order.legs.first().map(|l| l.action.is_buy()) else {
        return false;
    };
    if last <= Decimal::ZERO {
        return false;
    }
    let better = match order.trail_mark {
        None => true,
        Some(m) if buy => last < m,
        Some(m) => last > m,
    };
    if better {
        order.trail_mark = Some(last);
    }
    match order.trail_trigger() {
        Some(trigger) if buy => last >= trigger,
        Some(trigger) => last <= trigger,
        None => false,
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Evaluates one working order at `t`: expiry, stop trigger, marketability, displayed size,
/// then fills all legs together.
pub(crate) fn evaluate(
    state: &mut State,
    ctx: &Ctx<'_>,
    order_id: i64,
    t: Timestamp,
) -> Result<(), PaperError> {
    let Some(mut order) = state.orders.get(&order_id).cloned() else {
        return Ok(());
    };
    if !order.status.is_open() || t < order.placed_at {
        return Ok(());
    }
    if order.request.price_type.auction().is_some() {
        return match order.expires_at {
            Some(at) if t >= at => run_auction(state, ctx, order, at, t),
            _ => Ok(()),
        };
    }
    if order.expires_at.is_some_and(|e| t >= e) {
        order.status = OrderStatus::Expired;
        order.push_event("ORDER_EXPIRED", t);
        state.put_order(order);
        return Ok(());
    }
    if !tradable(&order.request, phase_at(t)) {
        return Ok(());
    }
    let mut touches = Vec::with_capacity(order.legs.len());
    for l in &order.legs {
        match touch(ctx.market, &l.instrument, t) {
            Some(x) => touches.push(x),
            None => return Ok(()),
        }
    }
    let r = order.request.clone();
    let mut changed = false;
    if matches!(r.price_type, PriceType::Stop | PriceType::StopLimit)
        && order.stop_triggered_at.is_none()
    {
        let (Some(stop), Some(leg), Some(x)) = (r.stop_price, order.legs.first(), touches.first())
        else {
            return Ok(());
        };
        let hit = if leg.action.is_buy() {
            x.last >= stop
        } else {
            x.last <= stop
        };
        if !hit {
            return Ok(());
        }
        order.stop_triggered_at = Some(t);
        changed = true;
    }
    if r.price_type.trail().is_some() && order.stop_triggered_at.is_none() {
        let Some(x) = touches.first() else {
            return Ok(());
        };
        let before = order.trail_mark;
        // The last trade, else the mid: an option may not have traded yet.
        let hit = mark(x).is_some_and(|px| trail_hit(&mut order, px));
        if !hit {
            if order.trail_mark != before {
                state.put_order(order);
            }
            return Ok(());
        }
        order.stop_triggered_at = Some(t);
        changed = true;
    }
    let prices: Vec<Decimal> = order
        .legs
        .iter()
        .zip(&touches)
        .map(|(l, x)| if l.action.is_buy() { x.ask } else { x.bid })
        .collect();
    let marketable =
        prices.iter().all(|p| *p > Decimal::ZERO) && marketable(&r, &order.legs, &prices);
    let take_units = if marketable {
        units_to_fill(&order, &touches)
    } else {
        None
    };
    if let Some((units, ratios)) = take_units {
        for (i, ratio) in ratios.iter().enumerate() {
            let price = prices.get(i).copied().unwrap_or_default();
            fill(state, ctx, &mut order, i, units * ratio, price, t);
        }
        if order.legs.iter().all(|l| l.remaining().is_zero()) {
            order.status = OrderStatus::Executed;
            order.executed_at = Some(t);
            order.push_event("ORDER_EXECUTED", t);
        } else {
            order.status = OrderStatus::IndividualFills;
            order.push_event("DONE_TRADE_EXECUTED", t);
        }
        changed = true;
    }
    if changed {
        state.put_order(order);
    }
    Ok(())
}

fn marketable(r: &OrderRequest, legs: &[LegRec], prices: &[Decimal]) -> bool {
    let limit = r.limit_price;
    let market = r.price_type.takes_the_market();
    if !r.is_spread() {
        let (Some(l), Some(px)) = (legs.first(), prices.first()) else {
            return false;
        };
        return match (market, limit) {
            (true, _) => true,
            (false, Some(lim)) if l.action.is_buy() => *px <= lim,
            (false, Some(lim)) => *px >= lim,
            (false, None) => false,
        };
    }
    let Some(first) = legs.first() else {
        return false;
    };
    let unit = first.quantity * first.instrument.multiplier();
    if unit.is_zero() {
        return false;
    }
    let net: Decimal = legs
        .iter()
        .zip(prices)
        .map(|(l, p)| l.action.sign() * *p * l.quantity * l.instrument.multiplier())
        .sum::<Decimal>()
        / unit;
    match (r.price_type, limit) {
        (PriceType::Market, _) => true,
        (PriceType::NetDebit, Some(lim)) => net <= lim,
        (PriceType::NetCredit, Some(lim)) => -net >= lim,
        (PriceType::NetEven, _) => net <= Decimal::ZERO,
        _ => false,
    }
}

/// How many units (of the legs' ratio) fill now, with each leg's ratio; None when nothing
/// fills (no displayed size, or all-or-none / fill-or-kill not covered).
fn units_to_fill(order: &OrderRec, touches: &[Touch]) -> Option<(Decimal, Vec<Decimal>)> {
    let quantities: Vec<u64> = order
        .legs
        .iter()
        .map(|l| u64::try_from(l.quantity).ok())
        .collect::<Option<_>>()?;
    let g = quantities.iter().fold(0, |acc, q| gcd(acc, *q));
    if g == 0 {
        return None;
    }
    let ratios: Vec<Decimal> = quantities.iter().map(|q| Decimal::from(q / g)).collect();
    let first_ratio = *ratios.first()?;
    let remaining_units = (order.legs.first()?.remaining() / first_ratio).trunc();
    let available = order
        .legs
        .iter()
        .zip(touches)
        .zip(&ratios)
        .map(|((l, x), ratio)| {
            let size = if l.action.is_buy() {
                x.ask_size
            } else {
                x.bid_size
            };
            (Decimal::from(size) / ratio).trunc()
        })
        .min()?;
    let take = remaining_units.min(available);
    let whole = order.request.all_or_none || order.request.order_term == OrderTerm::FillOrKill;
    if take <= Decimal::ZERO || (whole && take < remaining_units) {
        return None;
    }
    Some((take, ratios))
}

/// One leg's fill: cash, ledger, transaction, lots, and the order's leg.
fn fill(
    state: &mut State,
    ctx: &Ctx<'_>,
    order: &mut OrderRec,
    leg_no: usize,
    quantity: Decimal,
    price: Decimal,
    t: Timestamp,
) {
    let Some(leg) = order.legs.get(leg_no).cloned() else {
        return;
    };
    let Some(mut account) = state.accounts.get(&order.account_key).cloned() else {
        return;
    };
    let cfg = ctx.config;
    let first_fill = order.legs.iter().all(|l| l.filled.is_zero());
    let mut commission = if leg.instrument.is_option() {
        cfg.commission_per_contract * quantity
    } else {
        Decimal::ZERO
    };
    if first_fill {
        commission += cfg.commission_per_trade;
    }
    let commission = cents(commission);
    let principal = cents(quantity * price * leg.instrument.multiplier());
    let buy = leg.action.is_buy();
    let fee = if buy {
        Decimal::ZERO
    } else {
        cents(principal * cfg.fee_per_sale_rate)
    };
    let signed_principal = if buy { -principal } else { principal };
    let amount = signed_principal - commission - fee;
    account.cash += amount;

    let transaction_id = state.new_transaction_id();
    let kind = if buy { TxKind::Bought } else { TxKind::Sold };
    state.put_transaction(TransactionRec {
        transaction_id,
        account_key: order.account_key.clone(),
        at: t,
        amount,
        kind,
        description: format!(
            "{} {} {} @ {}",
            kind.as_str(),
            quantity.normalize(),
            leg.instrument.display(),
            price.normalize()
        ),
        instrument: Some(leg.instrument.clone()),
        quantity: leg.action.sign() * quantity,
        price,
        fee: commission + fee,
        order_id: Some(order.order_id),
    });
    for (kind, amount) in [
        (LedgerKind::Principal, signed_principal),
        (LedgerKind::Commission, -commission),
        (LedgerKind::Fee, -fee),
    ] {
        if amount.is_zero() && kind != LedgerKind::Principal {
            continue;
        }
        let entry_id = state.new_ledger_id();
        state.put_ledger(LedgerRec {
            entry_id,
            account_key: order.account_key.clone(),
            at: t,
            amount,
            kind,
            transaction_id: Some(transaction_id),
            order_id: Some(order.order_id),
        });
    }
    state.put_account(account);
    apply_to_position(
        state,
        order,
        &leg,
        leg_no,
        Fill {
            signed_qty: leg.action.sign() * quantity,
            price,
            principal,
            charges: commission + fee,
            at: t,
        },
    );
    order.commission_paid += commission;
    order.fees_paid += fee;
    if let Some(l) = order.legs.get_mut(leg_no) {
        l.filled += quantity;
        l.fill_value += quantity * price;
    }
}

struct Fill {
    signed_qty: Decimal,
    price: Decimal,
    principal: Decimal,
    charges: Decimal,
    at: Timestamp,
}

/// Closes opposite lots first in FIFO order, then opens a lot with the rest; cost basis
/// includes commission and fees.
fn apply_to_position(state: &mut State, order: &OrderRec, leg: &LegRec, leg_no: usize, f: Fill) {
    let mut position = match state.position_of(&order.account_key, &leg.instrument) {
        Some(p) => p.clone(),
        None => PositionRec {
            position_id: state.new_position_id(),
            account_key: order.account_key.clone(),
            instrument: leg.instrument.clone(),
            lots: Vec::new(),
        },
    };
    let total = f.signed_qty.abs();
    let mut remaining = total;
    let buying = f.signed_qty > Decimal::ZERO;
    for lot in position.lots.iter_mut() {
        if remaining.is_zero() {
            break;
        }
        let lot_long = lot.remaining_qty > Decimal::ZERO;
        if lot.remaining_qty.is_zero() || lot_long == buying {
            continue;
        }
        let open = lot.remaining_qty.abs();
        let take = open.min(remaining);
        if take == open {
            lot.cost = Decimal::ZERO;
            lot.commission = Decimal::ZERO;
        } else {
            lot.cost -= (lot.cost * take / open).round_dp(6);
            lot.commission -= (lot.commission * take / open).round_dp(6);
        }
        lot.remaining_qty += if lot_long { -take } else { take };
        remaining -= take;
    }
    position.lots.retain(|l| !l.remaining_qty.is_zero());
    if remaining > Decimal::ZERO && !total.is_zero() {
        let share = remaining / total;
        let charges = f.charges * share;
        let principal = f.principal * share;
        let cost = if buying {
            principal + charges
        } else {
            -(principal - charges)
        };
        let signed = if buying { remaining } else { -remaining };
        position.lots.push(LotRec {
            lot_id: state.new_lot_id(),
            order_id: order.order_id,
            leg_no: u32::try_from(leg_no + 1).unwrap_or(u32::MAX),
            acquired_at: f.at,
            original_qty: signed,
            remaining_qty: signed,
            price: f.price,
            cost,
            commission: charges,
        });
    }
    state.put_position(position);
}

/// Evaluates every working order at `t`, oldest first.
fn step_all(state: &mut State, ctx: &Ctx<'_>, t: Timestamp) -> Result<(), PaperError> {
    let ids: Vec<i64> = state.open_orders().map(|o| o.order_id).collect();
    for id in ids {
        evaluate(state, ctx, id, t)?;
    }
    Ok(())
}

/// Runs the resting orders from the last evaluation up to `now` in [`STEP`]s, skipping the
/// stretches in which no working order can trade and nothing expires.
pub(crate) fn run_until(
    state: &mut State,
    ctx: &Ctx<'_>,
    now: Timestamp,
) -> Result<(), PaperError> {
    let Some(start) = state.meta.last_eval else {
        state.meta.last_eval = Some(now);
        state.touch_meta();
        return Ok(());
    };
    if now <= start {
        return Ok(());
    }
    let mut t = start;
    let mut steps = 0u32;
    loop {
        let open: Vec<&OrderRec> = state.open_orders().collect();
        if open.is_empty() {
            break;
        }
        let Ok(mut step) = t.checked_add(STEP) else {
            break;
        };
        let phase = phase_at(step);
        if !open.iter().any(|o| tradable(&o.request, phase)) {
            let mut target = Timestamp::MAX;
            if open.iter().any(|o| !o.request.extended()) {
                target = target.min(next_session_start(t, false));
            }
            if open.iter().any(|o| o.request.extended()) {
                target = target.min(next_session_start(t, true));
            }
            if let Some(e) = open
                .iter()
                .filter_map(|o| o.expires_at)
                .filter(|e| *e > t)
                .min()
            {
                target = target.min(e);
            }
            step = step.max(target);
        }
        if step > now {
            break;
        }
        step_all(state, ctx, step)?;
        t = step;
        steps += 1;
        if steps >= MAX_STEPS {
            if t < now {
                step_all(state, ctx, now)?;
            }
            break;
        }
    }
    state.meta.last_eval = Some(now);
    if steps > 0 {
        state.touch_meta();
    }
    Ok(())
}
