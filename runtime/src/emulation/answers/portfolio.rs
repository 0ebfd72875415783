//! `GET /v1/accounts/{accountIdKey}/portfolio` (a page of positions in one view, with their
//! lots and the account's totals) and `GET /v1/accounts/{accountIdKey}/portfolio/{positionId}`
//! (a position's lots).

use std::cmp::Ordering;

use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

use super::super::json_number::exact;
use super::super::{Instrument, NumberStyle};
use super::Style;

/// One position, valued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionFigures<'a> {
    pub position_id: i64,
    pub account_id: &'a str,
    pub account_key: &'a str,
    pub instrument: Instrument,
    pub symbol_description: String,
    /// Epoch milliseconds.
    pub date_acquired_ms: i64,
    /// Negative for a short position.
    pub quantity: Decimal,
    /// Also the cost per share.
    pub price_paid: Decimal,
    pub last: Decimal,
    pub prev_close: Decimal,
    pub volume: u64,
    pub commissions: Decimal,
    pub change: Decimal,
    /// Also the day's gain in percent.
    pub change_pct: Decimal,
    pub days_gain: Decimal,
    pub market_value: Decimal,
    pub total_cost: Decimal,
    pub total_gain: Decimal,
    pub total_gain_pct: Decimal,
    pub pct_of_portfolio: Decimal,
    /// The OPTIONSWATCH and COMPLETE views' `baseSymbolAndPrice`.
    pub base_symbol_and_price: String,
    /// Shown in the COMPLETE view of an option.
    pub greeks: Option<PositionGreeks>,
    /// What an emulator with quote data adds to the FUNDAMENTAL, OPTIONSWATCH and COMPLETE
    /// views.
    pub quote: Option<QuoteExtras>,
    pub lots: Vec<LotFigures>,
}

/// An option's sensitivities as the COMPLETE view shows them (`iv_pct` in percent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositionGreeks {
    pub delta: Decimal,
    pub gamma: Decimal,
    pub theta: Decimal,
    pub vega: Decimal,
    pub rho: Option<Decimal>,
    pub iv_pct: Decimal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuoteExtras {
    pub bid: Decimal,
    pub ask: Decimal,
    pub fundamentals: Fundamentals,
}

/// What the FUNDAMENTAL and COMPLETE views show of a position's security.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fundamentals {
    pub pe_ratio: Decimal,
    pub eps: Decimal,
    pub dividend: Decimal,
    pub div_yield: Decimal,
    pub market_cap: Decimal,
    pub week52_low: Decimal,
    pub week52_high: Decimal,
}

/// One tax lot of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LotFigures {
    pub position_id: i64,
    pub lot_id: i64,
    pub price: Decimal,
    pub long_term: bool,
    pub days_gain: Decimal,
    pub days_gain_pct: Decimal,
    pub market_value: Decimal,
    pub total_cost: Decimal,
    pub total_cost_for_gain_pct: Decimal,
    pub total_gain: Decimal,
    pub original_qty: Decimal,
    pub remaining_qty: Decimal,
    pub order_no: i64,
    pub leg_no: i64,
    /// Epoch milliseconds.
    pub acquired_ms: i64,
    pub comm_per_share: Decimal,
}

/// The account's `Totals`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TotalsFigures {
    pub todays_gain_loss: Decimal,
    pub todays_gain_loss_pct: Decimal,
    pub total_market_value: Decimal,
    pub total_gain_loss: Decimal,
    pub total_gain_loss_pct: Decimal,
    pub total_price_paid: Decimal,
    pub cash_balance: Decimal,
}

/// The portfolio query, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortfolioPage<'a> {
    /// QUICK | PERFORMANCE | FUNDAMENTAL | OPTIONSWATCH | COMPLETE
    pub view: &'a str,
    pub sort_by: Option<&'a str>,
    pub descending: bool,
    /// Positions a page.
    pub count: usize,
    /// From 1.
    pub page: usize,
    pub lots: bool,
}

fn lot_json(l: &LotFigures, numbers: NumberStyle) -> Value {
    let n = |d: Decimal| numbers.json(d);
    json!({
        "positionId": l.position_id,
        "positionLotId": l.lot_id,
        "price": n(l.price),
        "termCode": i64::from(l.long_term),
        "daysGain": n(l.days_gain),
        "daysGainPct": n(l.days_gain_pct),
        "marketValue": n(l.market_value),
        "totalCost": n(l.total_cost),
        "totalCostForGainPct": n(l.total_cost_for_gain_pct),
        "totalGain": n(l.total_gain),
        "lotSourceCode": 0,
        "originalQty": n(l.original_qty),
        "remainingQty": n(l.remaining_qty),
        "availableQty": n(l.remaining_qty),
        "orderNo": l.order_no,
        "legNo": l.leg_no,
        "acquiredDate": l.acquired_ms,
        "locationCode": 0,
        "exchangeRate": 1,
        "settlementCurrency": "USD",
        "paymentCurrency": "USD",
        "adjPrice": n(l.price),
        "commPerShare": n(l.comm_per_share),
        "feesPerShare": 0,
        "premiumAdj": 0,
        "shortType": i64::from(l.remaining_qty.is_sign_negative()),
    })
}

fn merge(into: &mut Value, part: Value) {
    if let (Value::Object(o), Value::Object(p)) = (into, part) {
        o.extend(p);
    }
}

fn view_json(
    view: &str,
    p: &PositionFigures<'_>,
    numbers: NumberStyle,
    now_s: i64,
) -> (&'static str, Value) {
    let n = |d: Decimal| numbers.json(d);
    let q = p.quote.as_ref();
    match view {
        "PERFORMANCE" => (
            "Performance",
            json!({"change": n(p.change), "changePct": n(p.change_pct), "lastTrade": n(p.last),
                "daysGain": n(p.days_gain), "totalGain": n(p.total_gain),
                "totalGainPct": n(p.total_gain_pct), "marketValue": n(p.market_value),
                "quoteStatus": "REALTIME", "lastTradeTime": now_s}),
        ),
        "FUNDAMENTAL" => {
            let mut v = json!({"lastTrade": n(p.last), "lastTradeTime": now_s, "change": n(p.change),
                "changePct": n(p.change_pct), "quoteStatus": "REALTIME"});
            if let Some(f) = q.map(|q| &q.fundamentals) {
                merge(
                    &mut v,
                    json!({"peRatio": n(f.pe_ratio), "eps": n(f.eps), "dividend": n(f.dividend),
                        "divYield": n(f.div_yield), "marketCap": n(f.market_cap),
                        "week52Range": format!("{:.2}-{:.2}", f.week52_low, f.week52_high)}),
                );
            }
            ("Fundamental", v)
        }
        "OPTIONSWATCH" => {
            let premium = if p.instrument.is_option() {
                n(p.last)
            } else {
                numbers.json(Decimal::ZERO)
            };
            let mut v = json!({"lastTrade": n(p.last), "lastTradeTime": now_s,
                "baseSymbolAndPrice": p.base_symbol_and_price, "premium": premium,
                "quoteStatus": "REALTIME"});
            if let Some(q) = q {
                merge(&mut v, json!({"bid": n(q.bid), "ask": n(q.ask)}));
            }
            ("OptionsWatch", v)
        }
        "COMPLETE" => {
            let mut v = json!({"priceAdjustedFlag": false, "price": n(p.last), "adjPrice": n(p.last),
                "change": n(p.change), "changePct": n(p.change_pct), "prevClose": n(p.prev_close),
                "adjPrevClose": n(p.prev_close), "volume": p.volume, "lastTrade": n(p.last),
                "lastTradeTime": now_s, "adjLastTrade": n(p.last),
                "symbolDescription": p.symbol_description, "currency": "USD",
                "quoteStatus": "REALTIME"});
            if let Some(q) = q {
                let f = &q.fundamentals;
                merge(
                    &mut v,
                    json!({"bid": n(q.bid), "bidSize": 100, "ask": n(q.ask), "askSize": 200,
                        "week52Low": n(f.week52_low), "week52High": n(f.week52_high),
                        "eps": n(f.eps), "pe": n(f.pe_ratio), "marketCap": n(f.market_cap),
                        "dividend": n(f.dividend), "divYield": n(f.div_yield),
                        "marginable": !p.instrument.is_option(),
                        "baseSymbolAndPrice": p.base_symbol_and_price, "daysToExpiration": 0}),
                );
            }
            if let Some(g) = &p.greeks {
                v["delta"] = n(g.delta);
                v["gamma"] = n(g.gamma);
                v["theta"] = n(g.theta);
                v["vega"] = n(g.vega);
                if let Some(rho) = g.rho {
                    v["rho"] = n(rho);
                }
                v["ivPct"] = n(g.iv_pct);
                v["optionMultiplier"] = exact(p.instrument.multiplier());
            }
            ("Complete", v)
        }
        _ => (
            "Quick",
            json!({"lastTrade": n(p.last), "lastTradeTime": now_s, "change": n(p.change),
                "changePct": n(p.change_pct), "volume": p.volume, "quoteStatus": "REALTIME"}),
        ),
    }
}

fn position_json(
    p: &PositionFigures<'_>,
    q: &PortfolioPage<'_>,
    style: Style<'_>,
    now_s: i64,
) -> Value {
    let n = |d: Decimal| style.numbers.json(d);
    let short = p.quantity.is_sign_negative();
    let mut m = Map::new();
    let mut put = |k: &str, x: Value| {
        m.insert(k.to_string(), x);
    };
    put("positionId", json!(p.position_id));
    put("accountId", json!(p.account_id));
    put("Product", p.instrument.product_json(style.numbers, true));
    if let Some(osi) = p.instrument.osi_key() {
        put("osiKey", json!(osi));
    }
    put("symbolDescription", json!(p.symbol_description));
    put("dateAcquired", json!(p.date_acquired_ms));
    put("pricePaid", n(p.price_paid));
    put("price", n(p.last));
    put("commissions", n(p.commissions));
    put("otherFees", json!(0));
    put("quantity", n(p.quantity));
    put(
        "positionIndicator",
        json!(if short { "TYPE5" } else { "TYPE2" }),
    );
    put("positionType", json!(if short { "SHORT" } else { "LONG" }));
    put("change", n(p.change));
    put("changePct", n(p.change_pct));
    put("daysGain", n(p.days_gain));
    put("daysGainPct", n(p.change_pct));
    put("marketValue", n(p.market_value));
    put("totalCost", n(p.total_cost));
    put("totalGain", n(p.total_gain));
    put("totalGainPct", n(p.total_gain_pct));
    put("pctOfPortfolio", n(p.pct_of_portfolio));
    put("costPerShare", n(p.price_paid));
    put("todayCommissions", json!(0));
    put("todayFees", json!(0));
    put("todayPricePaid", json!(0));
    put("todayQuantity", json!(0));
    put("quotestatus", json!("REALTIME"));
    put("dateTimeUTC", json!(now_s));
    put("adjPrevClose", n(p.prev_close));
    put(
        "lotsDetails",
        json!(format!(
            "{}/v1/accounts/{}/portfolio/{}",
            style.base_url, p.account_key, p.position_id
        )),
    );
    put(
        "quoteDetails",
        json!(format!(
            "{}/v1/market/quote/{}",
            style.base_url,
            p.instrument.quote_symbol()
        )),
    );
    let (name, x) = view_json(q.view, p, style.numbers, now_s);
    put(name, x);
    if q.lots {
        put(
            "positionLot",
            Value::Array(p.lots.iter().map(|l| lot_json(l, style.numbers)).collect()),
        );
    }
    Value::Object(m)
}

/// How `sortBy` orders two positions (unknown keys keep the book's order).
fn compare(sort_by: &str, a: &PositionFigures<'_>, b: &PositionFigures<'_>) -> Ordering {
    match sort_by {
        "SYMBOL" | "DISPLAY_SYMBOL" => a.instrument.display().cmp(&b.instrument.display()),
        "SYMBOL_DESC" => a.symbol_description.cmp(&b.symbol_description),
        "TYPE_NAME" | "TYPE_CODE" => a
            .instrument
            .security_type()
            .as_str()
            .cmp(b.instrument.security_type().as_str()),
        "QUANTITY" => a.quantity.cmp(&b.quantity),
        "DATE_ACQUIRED" => a.date_acquired_ms.cmp(&b.date_acquired_ms),
        "PRICEPAID" | "COST_PERSHARE" => a.price_paid.cmp(&b.price_paid),
        "TOTAL_GAIN" => a.total_gain.cmp(&b.total_gain),
        "TOTAL_GAIN_PCT" => a.total_gain_pct.cmp(&b.total_gain_pct),
        "MARKET_VALUE" | "PCT_OF_PORTFOLIO" => a.market_value.cmp(&b.market_value),
        "TOTAL_COST" => a.total_cost.cmp(&b.total_cost),
        "PRICE_CHANGE" => a.change.cmp(&b.change),
        "PRICE_CHANGE_PCT" | "DAYS_GAIN_PCT" => a.change_pct.cmp(&b.change_pct),
        "DAYS_GAIN" => a.days_gain.cmp(&b.days_gain),
        "LAST_TRADE" => a.last.cmp(&b.last),
        "PREV_CLOSE" => a.prev_close.cmp(&b.prev_close),
        "VOLUME" => a.volume.cmp(&b.volume),
        "COMMISSION" => a.commissions.cmp(&b.commissions),
        _ => Ordering::Equal,
    }
}

/// One page of an account's positions (sorted as asked), with `Totals` when given. None
/// when there is no position or no such page (E*TRADE's 204). `next_link` gives the
/// request's link with `pageNumber` set to the given page.
#[allow(clippy::too_many_arguments)]
pub fn portfolio(
    account_id: &str,
    mut positions: Vec<PositionFigures<'_>>,
    q: &PortfolioPage<'_>,
    totals: Option<&TotalsFigures>,
    now_s: i64,
    style: Style<'_>,
    next_link: impl Fn(usize) -> String,
) -> Option<Value> {
    if positions.is_empty() {
        return None;
    }
    if let Some(sort_by) = q.sort_by {
        positions.sort_by(|x, y| {
            let o = compare(sort_by, x, y);
            if q.descending { o.reverse() } else { o }
        });
    }
    let total_pages = positions.len().div_ceil(q.count.max(1));
    if q.page > total_pages || q.page == 0 {
        return None;
    }
    let items: Vec<Value> = positions
        .iter()
        .skip((q.page - 1) * q.count)
        .take(q.count)
        .map(|p| position_json(p, q, style, now_s))
        .collect();
    let mut ap = json!({"accountId": account_id, "totalPages": total_pages, "Position": items});
    if q.page < total_pages
        && let Some(obj) = ap.as_object_mut()
    {
        obj.insert("nextPageNo".into(), json!((q.page + 1).to_string()));
        obj.insert("next".into(), json!(next_link(q.page + 1)));
    }
    let mut body = json!({ "AccountPortfolio": [ap] });
    if let (Some(t), Some(obj)) = (totals, body.as_object_mut()) {
        let n = |d: Decimal| style.numbers.json(d);
        obj.insert(
            "Totals".into(),
            json!({
                "todaysGainLoss": n(t.todays_gain_loss),
                "todaysGainLossPct": n(t.todays_gain_loss_pct),
                "totalMarketValue": n(t.total_market_value),
                "totalGainLoss": n(t.total_gain_loss),
                "totalGainLossPct": n(t.total_gain_loss_pct),
                "totalPricePaid": n(t.total_price_paid),
                "cashBalance": n(t.cash_balance),
            }),
        );
    }
    Some(json!({ "PortfolioResponse": body }))
}

/// A position's lots.
pub fn position_lots(lots: &[LotFigures], numbers: NumberStyle) -> Value {
    let lots: Vec<Value> = lots.iter().map(|l| lot_json(l, numbers)).collect();
    json!({"PositionLotsResponse": {"PositionLot": lots}})
}
