//! The portfolio answers (`GET /v1/accounts/{accountIdKey}/portfolio` and a position's
//! lots): positions valued at the market, in each view, with their lots and totals.

use crate::etrade::EtradeRequest;
use jiff::{SignedDuration, Timestamp};
use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::{
    BASE_URL, account, bool_param, count_param, invalid_param, ms, next_link, num, pct,
    positive_param, query,
};
use crate::calendar::{regular_hours, trading_day};
use crate::emulation::query_params::PORTFOLIO_VIEWS;
use crate::emulation::{NumberStyle, codes};
use crate::paper::book::PaperError;
use crate::paper::book::engine::{Ctx, cents, mark, touch};
use crate::paper::book::state::{AccountRec, LotRec, PositionRec, State};
use crate::paper::touch::{Greeks, OptionContract};

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

fn lot_json(p: &PositionRec, lot: &LotRec, v: &Valued, now: Timestamp) -> Value {
    let mult = p.instrument.multiplier();
    let qty = lot.remaining_qty;
    let mv = cents(qty * v.last * mult);
    let cost = cents(lot.cost);
    let long_term = now.duration_since(lot.acquired_at).as_secs() > 365 * 86_400;
    json!({
        "positionId": p.position_id,
        "positionLotId": lot.lot_id,
        "price": num(lot.price),
        "termCode": i64::from(long_term),
        "daysGain": num(cents(qty * (v.last - v.prev_close) * mult)),
        "daysGainPct": num(pct(v.last - v.prev_close, v.prev_close)),
        "marketValue": num(mv),
        "totalCost": num(cost),
        "totalCostForGainPct": num(cost.abs()),
        "totalGain": num(mv - cost),
        "lotSourceCode": 0,
        "originalQty": num(lot.original_qty),
        "remainingQty": num(qty),
        "availableQty": num(qty),
        "orderNo": lot.order_id,
        "legNo": lot.leg_no,
        "acquiredDate": ms(lot.acquired_at),
        "locationCode": 0,
        "exchangeRate": 1,
        "settlementCurrency": "USD",
        "paymentCurrency": "USD",
        "adjPrice": num(lot.price),
        "commPerShare": num(lot.commission.checked_div(qty.abs() * mult).map(|c| c.round_dp(4)).unwrap_or_default()),
        "feesPerShare": 0,
        "premiumAdj": 0,
        "shortType": i64::from(qty.is_sign_negative()),
    })
}

fn view_json(view: &str, p: &PositionRec, v: &Valued, now: Timestamp) -> (&'static str, Value) {
    let change = v.last - v.prev_close;
    let change_pct = pct(change, v.prev_close);
    let now_s = now.as_second();
    let total_gain = v.market_value - v.total_cost;
    match view {
        "PERFORMANCE" => (
            "Performance",
            json!({"change": num(change), "changePct": num(change_pct), "lastTrade": num(v.last),
                "daysGain": num(v.days_gain), "totalGain": num(total_gain),
                "totalGainPct": num(pct(total_gain, v.total_cost.abs())),
                "marketValue": num(v.market_value), "quoteStatus": "REALTIME", "lastTradeTime": now_s}),
        ),
        "FUNDAMENTAL" => (
            "Fundamental",
            json!({"lastTrade": num(v.last), "lastTradeTime": now_s, "change": num(change),
                "changePct": num(change_pct), "quoteStatus": "REALTIME"}),
        ),
        "OPTIONSWATCH" => (
            "OptionsWatch",
            json!({"lastTrade": num(v.last), "lastTradeTime": now_s,
                "baseSymbolAndPrice": p.instrument.symbol(),
                "premium": if p.instrument.is_option() { num(v.last) } else { json!(0) },
                "quoteStatus": "REALTIME"}),
        ),
        "COMPLETE" => {
            let mut view = json!({"priceAdjustedFlag": false, "price": num(v.last), "adjPrice": num(v.last),
                "change": num(change), "changePct": num(change_pct), "prevClose": num(v.prev_close),
                "adjPrevClose": num(v.prev_close), "volume": v.volume, "lastTrade": num(v.last),
                "lastTradeTime": now_s, "adjLastTrade": num(v.last),
                "symbolDescription": p.instrument.display(), "currency": "USD",
                "quoteStatus": "REALTIME"});
            if let Some(g) = v.greeks {
                view["delta"] = num(g.delta);
                view["gamma"] = num(g.gamma);
                view["theta"] = num(g.theta);
                view["vega"] = num(g.vega);
                view["rho"] = num(g.rho);
                view["ivPct"] = num(g.iv_pct);
                view["optionMultiplier"] = num(p.instrument.multiplier());
            }
            ("Complete", view)
        }
        _ => (
            "Quick",
            json!({"lastTrade": num(v.last), "lastTradeTime": now_s, "change": num(change),
                "changePct": num(change_pct), "volume": v.volume, "quoteStatus": "REALTIME"}),
        ),
    }
}

fn position_json(
    a: &AccountRec,
    p: &PositionRec,
    v: &Valued,
    total_mv: Decimal,
    view: &str,
    lots: bool,
    now: Timestamp,
) -> Value {
    let qty = p.quantity();
    let mult = p.instrument.multiplier();
    let total_gain = v.market_value - v.total_cost;
    let price_paid = p
        .cost()
        .checked_div(qty * mult)
        .map(|x| x.abs().round_dp(4))
        .unwrap_or_default();
    let mut m = Map::new();
    let mut put = |k: &str, x: Value| {
        m.insert(k.to_string(), x);
    };
    put("positionId", json!(p.position_id));
    put("accountId", json!(a.id));
    put(
        "Product",
        p.instrument.product_json(NumberStyle::Exact, true),
    );
    if let Some(osi) = p.instrument.osi_key() {
        put("osiKey", json!(osi));
    }
    put("symbolDescription", json!(p.instrument.display()));
    put("dateAcquired", json!(p.acquired_at().map_or(0, ms)));
    put("pricePaid", num(price_paid));
    put("price", num(v.last));
    put("commissions", num(cents(p.commissions())));
    put("otherFees", json!(0));
    put("quantity", num(qty));
    let short = qty.is_sign_negative();
    put(
        "positionIndicator",
        json!(if short { "TYPE5" } else { "TYPE2" }),
    );
    put("positionType", json!(if short { "SHORT" } else { "LONG" }));
    put("change", num(v.last - v.prev_close));
    put("changePct", num(pct(v.last - v.prev_close, v.prev_close)));
    put("daysGain", num(v.days_gain));
    put("daysGainPct", num(pct(v.last - v.prev_close, v.prev_close)));
    put("marketValue", num(v.market_value));
    put("totalCost", num(v.total_cost));
    put("totalGain", num(total_gain));
    put("totalGainPct", num(pct(total_gain, v.total_cost.abs())));
    put("pctOfPortfolio", num(pct(v.market_value.abs(), total_mv)));
    put("costPerShare", num(price_paid));
    put("todayCommissions", json!(0));
    put("todayFees", json!(0));
    put("todayPricePaid", json!(0));
    put("todayQuantity", json!(0));
    put("quotestatus", json!("REALTIME"));
    put("dateTimeUTC", json!(now.as_second()));
    put("adjPrevClose", num(v.prev_close));
    put(
        "lotsDetails",
        json!(format!(
            "{BASE_URL}/v1/accounts/{}/portfolio/{}",
            a.key, p.position_id
        )),
    );
    put(
        "quoteDetails",
        json!(format!(
            "{BASE_URL}/v1/market/quote/{}",
            p.instrument.quote_symbol()
        )),
    );
    let (name, x) = view_json(view, p, v, now);
    put(name, x);
    if lots {
        put(
            "positionLot",
            Value::Array(p.lots.iter().map(|l| lot_json(p, l, v, now)).collect()),
        );
    }
    Value::Object(m)
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
    let mut positions: Vec<(&PositionRec, Valued)> = state
        .positions
        .values()
        .filter(|p| p.account_key == key)
        .map(|p| (p, valued(ctx, p, now, view == "COMPLETE")))
        .collect();
    if positions.is_empty() {
        return Err(PaperError::Empty);
    }
    if let Some(sort_by) = sort_by {
        positions.sort_by(|(p1, v1), (p2, v2)| {
            let o = match sort_by {
                "SYMBOL" | "DISPLAY_SYMBOL" | "SYMBOL_DESC" => {
                    p1.instrument.display().cmp(&p2.instrument.display())
                }
                "QUANTITY" => p1.quantity().cmp(&p2.quantity()),
                "DATE_ACQUIRED" => p1.acquired_at().cmp(&p2.acquired_at()),
                "MARKET_VALUE" | "PCT_OF_PORTFOLIO" => v1.market_value.cmp(&v2.market_value),
                "TOTAL_COST" => v1.total_cost.cmp(&v2.total_cost),
                "TOTAL_GAIN" => {
                    (v1.market_value - v1.total_cost).cmp(&(v2.market_value - v2.total_cost))
                }
                "DAYS_GAIN" => v1.days_gain.cmp(&v2.days_gain),
                "LAST_TRADE" => v1.last.cmp(&v2.last),
                _ => std::cmp::Ordering::Equal,
            };
            if descending { o.reverse() } else { o }
        });
    }
    let total_pages = positions.len().div_ceil(count);
    if page > total_pages {
        return Err(PaperError::Empty);
    }
    let total_mv: Decimal = positions.iter().map(|(_, v)| v.market_value.abs()).sum();
    let items: Vec<Value> = positions
        .iter()
        .skip((page - 1) * count)
        .take(count)
        .map(|(p, v)| position_json(a, p, v, total_mv, view, lots, now))
        .collect();
    let mut ap = json!({"accountId": a.id, "totalPages": total_pages, "Position": items});
    if page < total_pages
        && let Some(obj) = ap.as_object_mut()
    {
        obj.insert("nextPageNo".into(), json!((page + 1).to_string()));
        obj.insert(
            "next".into(),
            json!(next_link(
                &format!("/v1/accounts/{}/portfolio", a.key),
                q,
                "pageNumber",
                (page + 1).to_string()
            )),
        );
    }
    let mut body = json!({ "AccountPortfolio": [ap] });
    if totals && let Some(obj) = body.as_object_mut() {
        let mv: Decimal = positions.iter().map(|(_, v)| v.market_value).sum();
        let cost: Decimal = positions.iter().map(|(_, v)| v.total_cost).sum();
        let todays: Decimal = positions.iter().map(|(_, v)| v.days_gain).sum();
        obj.insert(
            "Totals".into(),
            json!({
                "todaysGainLoss": num(cents(todays)),
                "todaysGainLossPct": num(pct(todays, mv - todays)),
                "totalMarketValue": num(cents(mv)),
                "totalGainLoss": num(cents(mv - cost)),
                "totalGainLossPct": num(pct(mv - cost, cost.abs())),
                "totalPricePaid": num(cents(cost)),
                "cashBalance": num(cents(a.cash)),
            }),
        );
    }
    Ok(json!({ "PortfolioResponse": body }))
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
    let lots: Vec<Value> = p.lots.iter().map(|l| lot_json(p, l, &v, now)).collect();
    Ok(json!({"PositionLotsResponse": {"PositionLot": lots}}))
}
