//! The paper broker's deterministic market: every price is a pure function of
//! (seed, symbol, instant), evaluated in O(1) — no state, no iteration from an epoch.
//!
//! * Equities: any 1–5 letter ticker not starting with `ZZ` is listed. Its price is
//!   `base × exp(vol × (Σ seeded sinusoids from months down to minutes + interpolated
//!   per-minute hash noise))`, a daily move of about 1–2%. The price only moves during the
//!   sessions of [`calendar`] (pre-market, regular, after-hours); between them it stays at
//!   the last session's close. Bid/ask straddle the path price with a spread proportional
//!   to it (at least one cent; wider in the extended sessions), sizes are round lots and the
//!   volume grows through the day.
//! * Options: every Friday of the next 8 weeks and the third Friday of the next 12 months
//!   (a holiday Friday moves back to the Thursday), strikes on a fixed ladder ($1 below $25,
//!   $2.50 below $200, $5 above) within a wide band of the symbol's base price — so a listed
//!   contract stays listed until it expires. Prices and greeks are Black-Scholes (r = 4%,
//!   an implied volatility per underlying with a mild smile), evaluated at the last regular
//!   session instant: option quotes do not move outside regular hours.
//! * The E*TRADE JSON of quotes, lookup, option chains and expiry dates, in the wire shapes
//!   the runtime's models read.
//!
//! Computation is in f64 internally (sin/exp/erfc); every price leaves as a
//! [`Decimal`] rounded explicitly to cents (4 decimals below $1), greeks to 4 decimals.
//! Results are bit-for-bit reproducible for a given build; across platforms whose libm
//! differs in the last ulp, a price could in principle differ by a cent at a rounding edge.

use std::f64::consts::{SQRT_2, TAU};
use std::str::FromStr;

use jiff::civil::{Date, Weekday};
use jiff::{SignedDuration, Span, Timestamp};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Map, Value, json};

use super::touch::{CallPut, MarketData, OptionContract, Touch};
use crate::trading::calendar::{self, SessionPhase};

/// Risk-free rate of the option model.
const RATE: f64 = 0.04;
const DAY_SECS: f64 = 86_400.0;
const YEAR_SECS: f64 = 365.0 * DAY_SECS;
/// (period in days, amplitude of the log price) of the path's sinusoids. At a volatility
/// multiplier of 1 the one-day change has a standard deviation of about 2%.
const WAVES: [(f64, f64); 7] = [
    (180.0, 0.15),
    (40.0, 0.06),
    (9.0, 0.02),
    (2.3, 0.01),
    (0.4, 0.006),
    (70.0 / 1440.0, 0.003),
    (13.0 / 1440.0, 0.0015),
];
/// Amplitude of the per-minute noise of the log price.
const NOISE: f64 = 0.0008;
/// Listed strikes lie within [LOW, HIGH] × the base price (the path stays within about
/// ±30% of it), so listings do not depend on the instant.
const STRIKE_BAND: (f64, f64) = (0.25, 4.0);
/// Strikes on each side of the centre of a chain.
const CHAIN_HALF_WIDTH: usize = 20;
const WEEKLY_EXPIRIES: i64 = 8;
const MONTHLY_EXPIRIES: usize = 12;

// Hash domains.
const T_BASE: u64 = 1;
const T_VOL: u64 = 2;
const T_SPREAD: u64 = 3;
const T_PERIOD: u64 = 4;
const T_PHASE: u64 = 5;
const T_NOISE: u64 = 6;
const T_BID_SIZE: u64 = 7;
const T_ASK_SIZE: u64 = 8;
const T_LAST: u64 = 9;
const T_DAY_VOLUME: u64 = 10;
const T_VOLUME: u64 = 11;
const T_SHARES: u64 = 12;
const T_PE: u64 = 13;
const T_BETA: u64 = 14;
const T_OPT_WIDTH: u64 = 15;
const T_OPT_VOLUME: u64 = 16;
const T_OPT_OI: u64 = 17;
const T_EXCHANGE: u64 = 18;

/// A few symbols with realistic names and price levels; every other ticker is synthesized.
struct Known {
    symbol: &'static str,
    name: &'static str,
    base: f64,
    exchange: &'static str,
    kind: &'static str,
    daily_volume: f64,
}

const KNOWN: &[Known] = &[
    Known {
        symbol: "AAPL",
        name: "APPLE INC COM",
        base: 230.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 55e6,
    },
    Known {
        symbol: "MSFT",
        name: "MICROSOFT CORP COM",
        base: 420.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 22e6,
    },
    Known {
        symbol: "SPY",
        name: "SPDR S&P 500 ETF TR TR UNIT",
        base: 600.0,
        exchange: "ARCA",
        kind: "ETF",
        daily_volume: 70e6,
    },
    Known {
        symbol: "IBM",
        name: "INTERNATIONAL BUSINESS MACHS COM",
        base: 220.0,
        exchange: "NYSE",
        kind: "EQUITY",
        daily_volume: 4e6,
    },
    Known {
        symbol: "GOOG",
        name: "ALPHABET INC CAP STK CL C",
        base: 175.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 20e6,
    },
    Known {
        symbol: "AMZN",
        name: "AMAZON COM INC COM",
        base: 200.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 40e6,
    },
    Known {
        symbol: "NVDA",
        name: "NVIDIA CORPORATION COM",
        base: 130.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 250e6,
    },
    Known {
        symbol: "TSLA",
        name: "TESLA INC COM",
        base: 250.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 90e6,
    },
];

/// The deterministic simulated market of the paper broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimulatedMarket {
    seed: u64,
}

/// The query of `GET /v1/market/optionchains`, already parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OptionChainQuery {
    pub symbol: String,
    /// None → the nearest listed expiry (the nearest monthly unless `include_weekly`).
    /// A given date must be listed (weekly or monthly) or there is no chain.
    pub expiry: Option<Date>,
    /// Centre of the strikes; None (or not positive) → the underlying's last price.
    pub strike_price_near: Option<Decimal>,
    /// The n strikes nearest the centre; None (or 0) → all listed strikes within ±20
    /// ladder steps of it.
    pub no_of_strikes: Option<usize>,
    /// CALL | PUT | CALLPUT (the default, also for anything unrecognized).
    pub chain_type: Option<String>,
    pub include_weekly: bool,
}

/// Weekly or monthly listing of an expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExpiryType {
    Weekly,
    Monthly,
}

impl ExpiryType {
    pub fn as_str(self) -> &'static str {
        match self {
            ExpiryType::Weekly => "WEEKLY",
            ExpiryType::Monthly => "MONTHLY",
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hashing and rounding
// ---------------------------------------------------------------------------------------

/// SplitMix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn hash(parts: &[u64]) -> u64 {
    parts.iter().fold(0x5EED_5EED, |h, p| mix(h ^ mix(*p)))
}

/// FNV-1a of a string.
fn str_key(s: &str) -> u64 {
    s.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
    })
}

/// A hash → [0, 1).
fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Dates and instants as hash inputs.
fn day_key(d: Date) -> u64 {
    let n = i64::from(d.year()) * 10_000 + i64::from(d.month()) * 100 + i64::from(d.day());
    n as u64
}

fn minute_key(t: Timestamp) -> u64 {
    t.as_second().div_euclid(60) as u64
}

/// `x` rounded half away from zero to `dp` decimals (0 for a non-finite or huge value).
fn round_dec(x: f64, dp: u32) -> Decimal {
    let scaled = (x * 10f64.powi(dp as i32)).round();
    if !scaled.is_finite() || scaled.abs() >= 9.0e15 {
        return Decimal::ZERO;
    }
    Decimal::new(scaled as i64, dp)
}

/// Money: cents, or 4 decimals below $1.
fn money(x: f64) -> Decimal {
    if x.abs() < 1.0 {
        round_dec(x, 4)
    } else {
        round_dec(x, 2)
    }
}

fn to_f64(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

/// A decimal as a JSON number with exactly its digits (E*TRADE sends money as numbers).
fn num(d: Decimal) -> Value {
    d.normalize()
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

fn secs(t: Timestamp) -> f64 {
    t.as_second() as f64 + f64::from(t.subsec_nanosecond()) * 1e-9
}

fn plus(t: Timestamp, d: SignedDuration) -> Option<Timestamp> {
    t.checked_add(d).ok()
}

// ---------------------------------------------------------------------------------------
// Symbols and their profiles
// ---------------------------------------------------------------------------------------

/// The upper-case ticker when `symbol` is one this market lists.
fn normalize(symbol: &str) -> Option<String> {
    let s = symbol.trim().to_ascii_uppercase();
    let ok = (1..=5).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_uppercase())
        && !s.starts_with("ZZ");
    ok.then_some(s)
}

/// Everything about a symbol that does not depend on the instant.
struct Profile {
    symbol: String,
    name: String,
    exchange: &'static str,
    kind: &'static str,
    /// Seeded key of the path, sizes and volumes.
    key: u64,
    base: f64,
    /// Multiplier of the path's amplitudes, 0.5–1.0 (≈ 1–2% a day).
    vol: f64,
    /// At-the-money implied volatility, 0.20–0.60 (higher for the more volatile paths).
    iv: f64,
    /// Relative equity spread, 0.5–3 bp.
    spread_frac: f64,
    /// Relative option spread, 1–3%.
    opt_width: f64,
    /// (period s, amplitude, phase) of each sinusoid.
    waves: [(f64, f64, f64); WAVES.len()],
    daily_volume: f64,
    shares: u64,
    eps: f64,
    beta: f64,
}

impl Profile {
    /// Natural log of price / base at `secs` (Unix seconds), ignoring sessions.
    fn log_path(&self, secs: f64) -> f64 {
        let waves: f64 = self
            .waves
            .iter()
            .map(|(period, amp, phase)| amp * (TAU * secs / period + phase).sin())
            .sum();
        let m = (secs / 60.0).floor();
        let frac = secs / 60.0 - m;
        let knot = |i: f64| unit(hash(&[self.key, T_NOISE, i as i64 as u64])) * 2.0 - 1.0;
        let (n0, n1) = (knot(m), knot(m + 1.0));
        self.vol * (waves + NOISE * (n0 + (n1 - n0) * frac))
    }

    /// The path price at an instant, ignoring sessions.
    fn path(&self, t: Timestamp) -> f64 {
        self.base * self.log_path(secs(t)).exp()
    }

    fn day_volume(&self, day: Date) -> f64 {
        self.daily_volume * (0.7 + 0.6 * unit(hash(&[self.key, T_DAY_VOLUME, day_key(day)])))
    }
}

// ---------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------

/// The instant whose price is shown at `t`: `t` itself inside a session (any session when
/// `extended`, else the regular one), otherwise the end of the last session before it.
fn effective(t: Timestamp, extended: bool) -> Timestamp {
    let phase = calendar::phase_at(t);
    let open = if extended {
        phase != SessionPhase::Closed
    } else {
        phase == SessionPhase::Regular
    };
    if open {
        return t;
    }
    let mut day = calendar::trading_day(t);
    // The longest closure is four days; the bound keeps this O(1) at the ends of time.
    for _ in 0..16 {
        if let Some((open, close)) = calendar::regular_hours(day) {
            let ends = if extended {
                // Pre-market ends 5 minutes before the open, after-hours 4 hours after the
                // close (20:00, or 17:00 after an early close).
                [
                    plus(open, SignedDuration::from_mins(-5)),
                    Some(close),
                    plus(close, SignedDuration::from_hours(4)),
                ]
            } else {
                [None, Some(close), None]
            };
            if let Some(end) = ends.into_iter().flatten().filter(|e| *e <= t).max() {
                return end;
            }
        }
        match day.yesterday() {
            Ok(d) => day = d,
            Err(_) => break,
        }
    }
    t
}

/// Whether `te` (an effective instant) lies in its day's regular session, ends included.
fn in_regular(te: Timestamp) -> bool {
    calendar::regular_hours(calendar::trading_day(te))
        .is_some_and(|(open, close)| open <= te && te <= close)
}

fn elapsed(te: Timestamp, from: Option<Timestamp>, to: Option<Timestamp>) -> f64 {
    match (from, to) {
        (Some(a), Some(b)) if b > a => ((secs(te) - secs(a)) / (secs(b) - secs(a))).clamp(0.0, 1.0),
        _ => 0.0,
    }
}

/// U-shaped cumulative share of the regular session's volume after a fraction x of it.
fn regular_curve(x: f64) -> f64 {
    (x + 0.3 / TAU * (TAU * x).sin()).clamp(0.0, 1.0)
}

/// The share of its day's volume traded by the effective instant `te`: 3% pre-market, 90%
/// in the regular session, 7% after hours. (`regular_only`: the regular session's share.)
fn volume_fraction(te: Timestamp, regular_only: bool) -> f64 {
    let Some((open, close)) = calendar::regular_hours(calendar::trading_day(te)) else {
        return 1.0;
    };
    let regular = regular_curve(elapsed(te, Some(open), Some(close)));
    if regular_only {
        return regular;
    }
    let pre = elapsed(
        te,
        plus(open, SignedDuration::from_mins(-150)),
        plus(open, SignedDuration::from_mins(-5)),
    );
    let after = elapsed(
        te,
        plus(close, SignedDuration::from_mins(5)),
        plus(close, SignedDuration::from_hours(4)),
    );
    0.03 * pre + 0.90 * regular + 0.07 * after
}

fn previous_trading_day(d: Date) -> Option<Date> {
    let mut day = d;
    for _ in 0..16 {
        day = day.yesterday().ok()?;
        if calendar::is_trading_day(day) {
            return Some(day);
        }
    }
    None
}

// ---------------------------------------------------------------------------------------
// Options: listings and the model
// ---------------------------------------------------------------------------------------

/// A holiday Friday's expiry moves back to the previous trading day (the Thursday).
fn trading_day_on_or_before(d: Date) -> Option<Date> {
    let mut day = d;
    for _ in 0..5 {
        if calendar::is_trading_day(day) {
            return Some(day);
        }
        day = day.yesterday().ok()?;
    }
    None
}

/// The expiries listed on `today`, sorted: the Fridays of the next 8 weeks and the third
/// Fridays of the next 12 months (a date that is both is MONTHLY).
fn listed_expirations(today: Date) -> Vec<(Date, ExpiryType)> {
    let mut out: Vec<(Date, ExpiryType)> = Vec::new();
    let first = today.first_of_month();
    for k in 0..=MONTHLY_EXPIRIES as i64 {
        if out.len() >= MONTHLY_EXPIRIES {
            break;
        }
        let Some(d) = first
            .checked_add(Span::new().months(k))
            .and_then(|m| m.nth_weekday_of_month(3, Weekday::Friday))
            .ok()
            .and_then(trading_day_on_or_before)
        else {
            continue;
        };
        if d >= today {
            out.push((d, ExpiryType::Monthly));
        }
    }
    let to_friday = i64::from(
        (Weekday::Friday.to_monday_zero_offset() - today.weekday().to_monday_zero_offset())
            .rem_euclid(7),
    );
    for w in 0..WEEKLY_EXPIRIES {
        let Some(d) = today
            .checked_add(Span::new().days(to_friday + 7 * w))
            .ok()
            .and_then(trading_day_on_or_before)
        else {
            continue;
        };
        if d >= today && !out.iter().any(|(e, _)| *e == d) {
            out.push((d, ExpiryType::Weekly));
        }
    }
    out.sort();
    out
}

fn strike_step(k: Decimal) -> Decimal {
    if k < Decimal::from(25) {
        Decimal::ONE
    } else if k < Decimal::from(200) {
        Decimal::new(25, 1)
    } else {
        Decimal::from(5)
    }
}

fn on_ladder(k: Decimal) -> bool {
    k > Decimal::ZERO && (k % strike_step(k)).is_zero()
}

fn strike_up(k: Decimal) -> Decimal {
    (k + strike_step(k)).normalize()
}

fn strike_down(k: Decimal) -> Decimal {
    let step = if k <= Decimal::from(25) {
        Decimal::ONE
    } else if k <= Decimal::from(200) {
        Decimal::new(25, 1)
    } else {
        Decimal::from(5)
    };
    (k - step).normalize()
}

/// The ladder strike nearest `x` (at least 1).
fn nearest_strike(x: Decimal) -> Decimal {
    let step = strike_step(x);
    let k = ((x / step).round() * step).normalize();
    if k < Decimal::ONE { Decimal::ONE } else { k }
}

fn strike_listed(base: f64, k: Decimal) -> bool {
    let kf = to_f64(k);
    on_ladder(k) && kf >= (base * STRIKE_BAND.0).max(1.0) && kf <= base * STRIKE_BAND.1
}

/// Standard normal CDF from a Chebyshev erfc (fractional error < 1.2e-7), symmetric so
/// that N(x) + N(-x) = 1 exactly (put-call parity holds to rounding).
fn norm_cdf(x: f64) -> f64 {
    let z = x.abs() / SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let tail = 0.5 * t * poly.exp();
    if x >= 0.0 { 1.0 - tail } else { tail }
}

fn norm_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / TAU.sqrt()
}

/// A Black-Scholes value: price per share, and greeks per share (theta per calendar day,
/// vega and rho per 1 point of volatility / rate).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Model {
    price: f64,
    delta: f64,
    gamma: f64,
    theta: f64,
    vega: f64,
    rho: f64,
}

fn black_scholes(cp: CallPut, s: f64, k: f64, t: f64, sigma: f64) -> Model {
    let call = cp == CallPut::Call;
    if t <= 0.0 || sigma <= 0.0 || s <= 0.0 || k <= 0.0 {
        let intrinsic = if call { s - k } else { k - s }.max(0.0);
        let itm = intrinsic > 0.0;
        return Model {
            price: intrinsic,
            delta: match (call, itm) {
                (true, true) => 1.0,
                (false, true) => -1.0,
                _ => 0.0,
            },
            gamma: 0.0,
            theta: 0.0,
            vega: 0.0,
            rho: 0.0,
        };
    }
    let sq = t.sqrt();
    let d1 = ((s / k).ln() + (RATE + 0.5 * sigma * sigma) * t) / (sigma * sq);
    let d2 = d1 - sigma * sq;
    let df = (-RATE * t).exp();
    let pdf = norm_pdf(d1);
    let decay = -s * pdf * sigma / (2.0 * sq);
    let (price, delta, theta, rho) = if call {
        let nd2 = norm_cdf(d2);
        (
            s * norm_cdf(d1) - k * df * nd2,
            norm_cdf(d1),
            (decay - RATE * k * df * nd2) / 365.0,
            k * t * df * nd2 / 100.0,
        )
    } else {
        let nmd2 = norm_cdf(-d2);
        (
            k * df * nmd2 - s * norm_cdf(-d1),
            norm_cdf(d1) - 1.0,
            (decay + RATE * k * df * nmd2) / 365.0,
            -k * t * df * nmd2 / 100.0,
        )
    };
    Model {
        price,
        delta,
        gamma: pdf / (s * sigma * sq),
        theta,
        vega: s * pdf * sq / 100.0,
        rho,
    }
}

/// The implied volatility at strike `k`: the at-the-money level with a mild skewed smile.
fn smile(atm: f64, s: f64, k: f64) -> f64 {
    let m = (k / s).ln();
    (atm * (1.0 + 0.4 * m * m - 0.15 * m)).clamp(0.05, 3.0)
}

/// An option valued at an effective instant.
struct OptionValue {
    /// Underlying path price.
    s: f64,
    iv: f64,
    model: Model,
    touch: Touch,
    te: Timestamp,
}

impl OptionValue {
    fn intrinsic(&self, c: &OptionContract) -> f64 {
        let k = to_f64(c.strike);
        match c.call_put {
            CallPut::Call => self.s - k,
            CallPut::Put => k - self.s,
        }
        .max(0.0)
    }
}

fn osi_key(c: &OptionContract) -> String {
    let strike = (c.strike * Decimal::from(1000))
        .round()
        .to_i64()
        .unwrap_or(0);
    format!(
        "{:-<6}{:02}{:02}{:02}{}{:08}",
        c.underlying,
        i32::from(c.expiration.year()).rem_euclid(100),
        c.expiration.month(),
        c.expiration.day(),
        if c.call_put == CallPut::Call {
            'C'
        } else {
            'P'
        },
        strike
    )
}

/// `IBM Aug 17 '18 $200 Call`.
fn display_symbol(c: &OptionContract) -> String {
    format!(
        "{} {} {:02} '{:02} ${} {}",
        c.underlying,
        c.expiration.strftime("%b"),
        c.expiration.day(),
        i32::from(c.expiration.year()).rem_euclid(100),
        c.strike.normalize(),
        if c.call_put == CallPut::Call {
            "Call"
        } else {
            "Put"
        }
    )
}

/// `IBM:2018:8:17:CALL:200.000000`, the option symbol of quote requests.
fn quote_symbol(c: &OptionContract) -> String {
    format!(
        "{}:{}:{}:{}:{}:{:.6}",
        c.underlying,
        c.expiration.year(),
        c.expiration.month(),
        c.expiration.day(),
        c.call_put.as_str(),
        c.strike
    )
}

fn parse_option_symbol(s: &str) -> Option<OptionContract> {
    let p: Vec<&str> = s.split(':').map(str::trim).collect();
    let [root, year, month, day, cp, strike] = p.as_slice() else {
        return None;
    };
    let underlying = normalize(root)?;
    let expiration = Date::new(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?).ok()?;
    let call_put = match cp.to_ascii_uppercase().as_str() {
        "CALL" | "C" => CallPut::Call,
        "PUT" | "P" => CallPut::Put,
        _ => return None,
    };
    let strike = Decimal::from_str(strike).ok()?.normalize();
    Some(OptionContract {
        underlying,
        expiration,
        call_put,
        strike,
    })
}

// ---------------------------------------------------------------------------------------
// Equity snapshot (the quote's derived fields)
// ---------------------------------------------------------------------------------------

struct EquitySnapshot {
    touch: Touch,
    te: Timestamp,
    previous_close: Decimal,
    previous_day_volume: u64,
    open: Decimal,
    high: Decimal,
    low: Decimal,
    high52: (Decimal, i64),
    low52: (Decimal, i64),
    /// The current day's regular close, once the regular session is over.
    regular_close: Option<Decimal>,
}

enum DetailFlag {
    All,
    Fundamental,
    Intraday,
    Options,
    Week52,
}

impl DetailFlag {
    fn parse(flag: Option<&str>) -> DetailFlag {
        match flag.map(|f| f.trim().to_ascii_uppercase()).as_deref() {
            Some("FUNDAMENTAL") => DetailFlag::Fundamental,
            Some("INTRADAY") => DetailFlag::Intraday,
            Some("OPTIONS") => DetailFlag::Options,
            Some("WEEK_52") => DetailFlag::Week52,
            // ALL, MF_DETAIL (no mutual funds here) and anything else.
            _ => DetailFlag::All,
        }
    }
}

fn bad_symbol(symbol: &str) -> Value {
    json!({"description": format!("{} is not a valid symbol.", symbol.trim().to_ascii_uppercase()),
        "code": 1019, "type": "WARNING"})
}

fn merge(into: &mut Value, part: Value) {
    if let (Value::Object(o), Value::Object(p)) = (into, part) {
        o.extend(p);
    }
}

impl SimulatedMarket {
    pub fn new(seed: u64) -> SimulatedMarket {
        SimulatedMarket { seed }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    fn profile(&self, symbol: &str) -> Option<Profile> {
        let symbol = normalize(symbol)?;
        let sk = str_key(&symbol);
        // Levels belong to the symbol; the path's shape to the seed.
        let level = |tag: u64| unit(hash(&[sk, tag]));
        let key = hash(&[self.seed, sk]);
        let known = KNOWN.iter().find(|k| k.symbol == symbol);
        let vol_level = level(T_VOL);
        let mut waves = [(1.0, 0.0, 0.0); WAVES.len()];
        for (i, (w, (days, amp))) in waves.iter_mut().zip(WAVES).enumerate() {
            let i = i as u64;
            let stretch = 0.8 + 0.4 * unit(hash(&[key, T_PERIOD, i]));
            *w = (
                days * DAY_SECS * stretch,
                amp,
                TAU * unit(hash(&[key, T_PHASE, i])),
            );
        }
        let base = known.map_or_else(|| 10.0 * 50f64.powf(level(T_BASE)), |k| k.base);
        let exchange = match known {
            Some(k) => k.exchange,
            None if level(T_EXCHANGE) < 0.5 => "NYSE",
            None => "NSDQ",
        };
        Some(Profile {
            name: known.map_or_else(
                || format!("{symbol} SIMULATED CORP COM"),
                |k| format!("{} (SIMULATED)", k.name),
            ),
            exchange,
            kind: known.map_or("EQUITY", |k| k.kind),
            key,
            base,
            vol: 0.5 + 0.5 * vol_level,
            iv: 0.20 + 0.40 * vol_level,
            spread_frac: 0.000_05 + 0.000_25 * level(T_SPREAD),
            opt_width: 0.01 + 0.02 * level(T_OPT_WIDTH),
            waves,
            daily_volume: known.map_or_else(
                || 10f64.powf(5.5 + 2.0 * level(T_VOLUME)),
                |k| k.daily_volume,
            ),
            shares: 10f64.powf(7.7 + 2.0 * level(T_SHARES)) as u64,
            eps: base / (12.0 + 28.0 * level(T_PE)),
            beta: 0.6 + level(T_BETA),
            symbol,
        })
    }

    /// The touch of an equity at an effective instant.
    fn equity_touch(p: &Profile, te: Timestamp) -> Touch {
        let mid = p.path(te);
        let (tick, dp) = if mid >= 1.0 { (0.01, 2) } else { (0.0001, 4) };
        let widen = if in_regular(te) { 1.0 } else { 3.0 };
        let spread = ((mid * p.spread_frac * widen / tick).round() as i64).max(1);
        let bid = ((mid / tick - spread as f64 / 2.0).floor() as i64).max(1);
        let ask = bid + spread;
        let minute = minute_key(te);
        let pick = |tag: u64, n: u64| hash(&[p.key, tag, minute]) % n;
        let last = bid + pick(T_LAST, spread as u64 + 1) as i64;
        let day = calendar::trading_day(te);
        Touch {
            bid: Decimal::new(bid, dp),
            ask: Decimal::new(ask, dp),
            bid_size: (1 + pick(T_BID_SIZE, 20)) * 100,
            ask_size: (1 + pick(T_ASK_SIZE, 20)) * 100,
            last: Decimal::new(last, dp),
            volume: (p.day_volume(day) * volume_fraction(te, false)).round() as u64,
        }
    }

    fn equity_snapshot(p: &Profile, at: Timestamp) -> EquitySnapshot {
        let te = effective(at, true);
        let touch = Self::equity_touch(p, te);
        let day = calendar::trading_day(te);
        let hours = calendar::regular_hours(day);
        let prev_day = previous_trading_day(day);
        let prev_close_at = prev_day.and_then(calendar::regular_hours).map(|(_, c)| c);
        let previous_close = prev_close_at.map_or(touch.last, |c| money(p.path(c)));
        let previous_day_volume = prev_day.map_or(0, |d| p.day_volume(d).round() as u64);
        let mut samples = vec![touch.last];
        let mut open = previous_close;
        let mut regular_close = None;
        if let Some((o, c)) = hours
            && te >= o
        {
            open = money(p.path(o));
            samples.push(open);
            let end = te.min(c);
            let mut s = o;
            while s < end {
                samples.push(money(p.path(s)));
                s = plus(s, SignedDuration::from_mins(30)).unwrap_or(end);
            }
            samples.push(money(p.path(end)));
            if te >= c {
                regular_close = Some(money(p.path(c)));
            }
        }
        let high = samples.iter().copied().max().unwrap_or(touch.last);
        let low = samples.iter().copied().min().unwrap_or(touch.last);
        let mut high52 = (high, te.as_second());
        let mut low52 = (low, te.as_second());
        let week = 7.0 * DAY_SECS;
        for k in 1..=52 {
            let at_s = secs(te) - f64::from(k) * week;
            let v = money(p.base * p.log_path(at_s).exp());
            if v > high52.0 {
                high52 = (v, at_s as i64);
            }
            if v < low52.0 {
                low52 = (v, at_s as i64);
            }
        }
        EquitySnapshot {
            touch,
            te,
            previous_close,
            previous_day_volume,
            open,
            high,
            low,
            high52,
            low52,
            regular_close,
        }
    }

    /// An option at an effective (regular-session) instant, without listing checks.
    fn option_value(p: &Profile, c: &OptionContract, te: Timestamp) -> Option<OptionValue> {
        let (_, expiry_close) = calendar::regular_hours(c.expiration)?;
        let s = p.path(te);
        let k = to_f64(c.strike);
        let t = ((secs(expiry_close) - secs(te)) / YEAR_SECS).max(0.0);
        let iv = smile(p.iv, s, k);
        let model = black_scholes(c.call_put, s, k, t, iv);
        let theo = model.price.max(0.0);
        // Ticks in cents: 1 below $3, 5 above.
        let tick: i64 = if theo < 3.0 { 1 } else { 5 };
        let tick_f = tick as f64 / 100.0;
        let width = (0.02 + theo * p.opt_width).max(tick_f);
        let bid_t = ((theo - width / 2.0) / tick_f).floor().max(0.0) as i64;
        let ask_t = (((theo + width / 2.0) / tick_f).ceil() as i64).max(bid_t + 1);
        let (bid, ask) = (bid_t * tick, ask_t * tick);
        let last = ((bid + ask) / 2).max(1);
        let ck = hash(&[
            p.key,
            day_key(c.expiration),
            (c.strike * Decimal::from(1000))
                .round()
                .to_i64()
                .unwrap_or(0) as u64,
            c.call_put as u64,
        ]);
        let day = calendar::trading_day(te);
        let minute = minute_key(te);
        let pick = |tag: u64, key: u64, n: u64| hash(&[ck, tag, key]) % n;
        // Activity fades away from the money (measured at the base price, so that it is
        // constant through the day).
        let activity = (-6.0 * (k / p.base).ln().abs()).exp();
        let day_volume = unit(hash(&[ck, T_OPT_VOLUME, day_key(day)])) * 5_000.0 * activity;
        Some(OptionValue {
            s,
            iv,
            model,
            touch: Touch {
                bid: Decimal::new(bid, 2),
                ask: Decimal::new(ask, 2),
                bid_size: (1 + pick(T_BID_SIZE, minute, 50)) * 10,
                ask_size: (1 + pick(T_ASK_SIZE, minute, 50)) * 10,
                last: Decimal::new(last, 2),
                volume: (day_volume * volume_fraction(te, true)).round() as u64,
            },
            te,
        })
    }

    fn open_interest(p: &Profile, c: &OptionContract, day: Date) -> u64 {
        let k = to_f64(c.strike);
        let activity = (-5.0 * (k / p.base).ln().abs()).exp();
        let h = hash(&[
            p.key,
            T_OPT_OI,
            day_key(c.expiration),
            day_key(day),
            (c.strike * Decimal::from(1000))
                .round()
                .to_i64()
                .unwrap_or(0) as u64,
            c.call_put as u64,
        ]);
        10 + (unit(h) * 20_000.0 * activity) as u64
    }

    /// A listed contract valued at `at`; None for an unknown underlying or an unlisted or
    /// expired contract.
    fn option_at(&self, c: &OptionContract, at: Timestamp) -> Option<(Profile, OptionValue)> {
        let p = self.profile(&c.underlying)?;
        let today = calendar::trading_day(at);
        if c.expiration < today
            || !listed_expirations(today)
                .iter()
                .any(|(d, _)| *d == c.expiration)
            || !strike_listed(p.base, c.strike)
        {
            return None;
        }
        let contract = OptionContract {
            underlying: p.symbol.clone(),
            strike: c.strike.normalize(),
            ..c.clone()
        };
        let v = Self::option_value(&p, &contract, effective(at, false))?;
        Some((p, v))
    }

    /// The expiries listed for `symbol` on the trading day of `at`, sorted; None for an
    /// unknown symbol.
    pub fn expirations(&self, symbol: &str, at: Timestamp) -> Option<Vec<(Date, ExpiryType)>> {
        self.profile(symbol)?;
        Some(listed_expirations(calendar::trading_day(at)))
    }

    /// The listed strikes within ±20 ladder steps of `near` (ascending); None for an
    /// unknown symbol.
    pub fn strikes_near(&self, symbol: &str, near: Decimal) -> Option<Vec<Decimal>> {
        let p = self.profile(symbol)?;
        Some(strike_window(&p, near))
    }

    /// The underlying's last trade at `at` (what the book marks positions at).
    pub fn underlying_price(&self, symbol: &str, at: Timestamp) -> Option<Decimal> {
        self.equity(symbol, at).map(|t| t.last)
    }

    // -----------------------------------------------------------------------------------
    // E*TRADE JSON
    // -----------------------------------------------------------------------------------

    /// `GET /v1/market/quote/{symbols}` → `{"QuoteResponse": {"QuoteData": [...],
    /// "Messages": {"Message": [...]}}}`. Symbols may be equities or option symbols
    /// (`IBM:2026:6:18:CALL:220`); unknown ones become 1019 WARNING messages (the container
    /// only when there is one), so all-unknown still has this shape with no QuoteData.
    pub fn quote_response(
        &self,
        symbols: &[String],
        detail_flag: Option<&str>,
        at: Timestamp,
    ) -> Value {
        let flag = DetailFlag::parse(detail_flag);
        let mut data = Vec::new();
        let mut messages = Vec::new();
        for symbol in symbols
            .iter()
            .flat_map(|s| s.split(','))
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let quote = if symbol.contains(':') {
                parse_option_symbol(symbol).and_then(|c| self.option_quote(&c, &flag, at))
            } else {
                self.equity_quote(symbol, &flag, at)
            };
            match quote {
                Some(q) => data.push(q),
                None => messages.push(bad_symbol(symbol)),
            }
        }
        let mut body = Map::new();
        body.insert("QuoteData".into(), Value::Array(data));
        if !messages.is_empty() {
            body.insert("Messages".into(), json!({ "Message": messages }));
        }
        json!({ "QuoteResponse": body })
    }

    fn quote_header(&self, at: Timestamp, product: Value, block: (&str, Value)) -> Value {
        let zoned = at.to_zoned_datetime(calendar::time_zone().clone());
        let zone = zoned.strftime("%Z").to_string();
        let ah = matches!(
            calendar::phase_at(at),
            SessionPhase::PreMarket | SessionPhase::AfterHours
        );
        let mut m = Map::new();
        m.insert(
            "dateTime".into(),
            json!(zoned.strftime("%H:%M:%S %Z %m-%d-%Y").to_string()),
        );
        m.insert("dateTimeUTC".into(), json!(at.as_second()));
        m.insert("quoteStatus".into(), json!("DELAYED"));
        m.insert("ahFlag".into(), json!(if ah { "true" } else { "false" }));
        m.insert("hasMiniOptions".into(), json!(false));
        m.insert("timeZone".into(), json!(zone));
        m.insert("dstFlag".into(), json!(zone.ends_with("DT")));
        // Not read by the runtime's Quote model (yet): says where the numbers come from.
        m.insert("source".into(), json!(self.source()));
        m.insert(block.0.into(), block.1);
        m.insert("Product".into(), product);
        Value::Object(m)
    }

    fn equity_quote(&self, symbol: &str, flag: &DetailFlag, at: Timestamp) -> Option<Value> {
        let p = self.profile(symbol)?;
        let q = Self::equity_snapshot(&p, at);
        let t = &q.touch;
        let te_s = q.te.as_second();
        let te_text =
            q.te.to_zoned_datetime(calendar::time_zone().clone())
                .strftime("%H:%M:%S %Z %m-%d-%Y")
                .to_string();
        let change = t.last - q.previous_close;
        let change_pct = if q.previous_close.is_zero() {
            Decimal::ZERO
        } else {
            (change / q.previous_close * Decimal::from(100)).round_dp(2)
        };
        let eps = money(p.eps);
        let pe = if eps.is_zero() {
            Decimal::ZERO
        } else {
            (t.last / eps).round_dp(2)
        };
        let shares = Decimal::from(p.shares);
        let name = p.name.clone();
        let perf12 = if q.low52.0.is_zero() {
            Decimal::ZERO
        } else {
            // Performance over the year, from the price 52 weeks ago.
            let ago = money(p.base * p.log_path(secs(q.te) - 364.0 * DAY_SECS).exp());
            if ago.is_zero() {
                Decimal::ZERO
            } else {
                ((t.last - ago) / ago * Decimal::from(100)).round_dp(2)
            }
        };
        let block = match flag {
            DetailFlag::Fundamental => (
                "Fundamental",
                json!({"companyName": name, "eps": num(eps), "estEarnings": num(money(p.eps * 1.08)),
                    "high52": num(q.high52.0), "lastTrade": num(t.last), "low52": num(q.low52.0),
                    "symbolDescription": name}),
            ),
            DetailFlag::Intraday => (
                "Intraday",
                json!({"ask": num(t.ask), "bid": num(t.bid), "changeClose": num(change),
                    "changeClosePercentage": num(change_pct), "companyName": name,
                    "high": num(q.high), "lastTrade": num(t.last), "low": num(q.low),
                    "totalVolume": t.volume}),
            ),
            DetailFlag::Options => (
                "Option",
                json!({"ask": num(t.ask), "askSize": t.ask_size, "bid": num(t.bid),
                    "bidSize": t.bid_size, "companyName": name, "daysToExpiration": 0,
                    "lastTrade": num(t.last), "openInterest": 0, "optionPreviousBidPrice": 0,
                    "optionPreviousAskPrice": 0, "osiKey": "", "intrinsicValue": 0,
                    "timePremium": 0, "optionMultiplier": 0, "contractSize": 0,
                    "symbolDescription": name}),
            ),
            DetailFlag::Week52 => (
                "Week52",
                json!({"companyName": name, "high52": num(q.high52.0), "lastTrade": num(t.last),
                    "low52": num(q.low52.0), "perf12Months": num(perf12),
                    "previousClose": num(q.previous_close), "symbolDescription": name,
                    "totalVolume": t.volume}),
            ),
            DetailFlag::All => {
                let mut all = json!({"adjustedFlag": false, "annualDividend": 0, "ask": num(t.ask),
                    "askExchange": "Q", "askSize": t.ask_size, "askTime": te_text,
                    "bid": num(t.bid), "bidExchange": "Q", "bidSize": t.bid_size,
                    "bidTime": te_text, "changeClose": num(change),
                    "changeClosePercentage": num(change_pct), "companyName": name,
                    "daysToExpiration": 0,
                    "dirLast": if change >= Decimal::ZERO { "1" } else { "2" },
                    "dividend": 0, "eps": num(eps), "estEarnings": num(money(p.eps * 1.08)),
                    "exDividendDate": 0, "exchgLastTrade": p.exchange, "fsi": "",
                    "high": num(q.high), "high52": num(q.high52.0), "highAsk": num(q.high),
                    "highBid": num(q.high), "lastTrade": num(t.last), "low": num(q.low),
                    "low52": num(q.low52.0), "lowAsk": num(q.low), "lowBid": num(q.low)});
                merge(
                    &mut all,
                    json!({"numberOfTrades": t.volume / 150, "open": num(q.open), "openInterest": 0,
                    "optionStyle": "", "optionUnderlier": "",
                    "previousClose": num(q.previous_close),
                    "previousDayVolume": q.previous_day_volume, "primaryExchange": p.exchange,
                    "symbolDescription": name,
                    "todayClose": num(q.regular_close.unwrap_or(Decimal::ZERO)),
                    "totalVolume": t.volume, "upc": 0,
                    "volume10Day": p.daily_volume.round() as u64, "cashDeliverable": 0,
                    "marketCap": num((t.last * shares).round_dp(2)), "sharesOutstanding": p.shares,
                    "beta": num(round_dec(p.beta, 2)), "yield": 0, "declaredDividend": 0,
                    "dividendPayableDate": 0, "pe": num(pe)}),
                );
                let (eh_change, eh_pct) = match q.regular_close {
                    Some(c) if !c.is_zero() => (
                        t.last - c,
                        ((t.last - c) / c * Decimal::from(100)).round_dp(2),
                    ),
                    _ => (Decimal::ZERO, Decimal::ZERO),
                };
                let eh_status = match calendar::phase_at(at) {
                    SessionPhase::PreMarket | SessionPhase::AfterHours => "EH_REALTIME",
                    _ => "EH_CLOSED",
                };
                merge(
                    &mut all,
                    json!({"marketCloseBidSize": 0, "marketCloseAskSize": 0,
                    "marketCloseVolume": 0, "week52LowDate": q.low52.1,
                    "week52HiDate": q.high52.1, "intrinsicValue": 0, "timePremium": 0,
                    "optionMultiplier": 0, "contractSize": 0, "expirationDate": 0,
                    "timeOfLastTrade": te_s, "averageVolume": p.daily_volume.round() as u64,
                    "ExtendedHourQuoteDetail": {"lastPrice": num(t.last), "change": num(eh_change),
                        "percentChange": num(eh_pct), "bid": num(t.bid), "bidSize": t.bid_size,
                        "ask": num(t.ask), "askSize": t.ask_size, "volume": t.volume,
                        "timeOfLastTrade": te_s, "timeZone": "", "quoteStatus": eh_status}}),
                );
                ("All", all)
            }
        };
        let product = json!({"symbol": p.symbol, "securityType": "EQ"});
        Some(self.quote_header(at, product, block))
    }

    fn option_quote(&self, c: &OptionContract, flag: &DetailFlag, at: Timestamp) -> Option<Value> {
        let (p, v) = self.option_at(c, at)?;
        let c = OptionContract {
            underlying: p.symbol.clone(),
            strike: c.strike.normalize(),
            ..c.clone()
        };
        let t = &v.touch;
        let today = calendar::trading_day(at);
        let days = i64::from((c.expiration - today).get_days());
        let desc = format!("{} (SIMULATED)", display_symbol(&c));
        let intrinsic = money(v.intrinsic(&c));
        let premium = (t.last - intrinsic).max(Decimal::ZERO);
        let oi = Self::open_interest(&p, &c, today);
        let expiry_s = calendar::regular_hours(c.expiration).map_or(0, |(_, e)| e.as_second());
        let block = if matches!(flag, DetailFlag::Options) {
            (
                "Option",
                json!({"ask": num(t.ask), "askSize": t.ask_size, "bid": num(t.bid),
                    "bidSize": t.bid_size, "companyName": p.name, "daysToExpiration": days,
                    "lastTrade": num(t.last), "openInterest": oi,
                    "optionPreviousBidPrice": num(t.bid), "optionPreviousAskPrice": num(t.ask),
                    "osiKey": osi_key(&c), "intrinsicValue": num(intrinsic),
                    "timePremium": num(premium), "optionMultiplier": 100, "contractSize": 100,
                    "symbolDescription": desc, "OptionGreeks": greeks_json(&v)}),
            )
        } else {
            (
                "All",
                json!({"adjustedFlag": false, "ask": num(t.ask), "askSize": t.ask_size,
                    "bid": num(t.bid), "bidSize": t.bid_size, "companyName": p.name,
                    "daysToExpiration": days, "lastTrade": num(t.last), "openInterest": oi,
                    "optionStyle": "AMERICAN", "optionUnderlier": p.symbol,
                    "symbolDescription": desc, "totalVolume": t.volume,
                    "intrinsicValue": num(intrinsic), "timePremium": num(premium),
                    "optionMultiplier": 100, "contractSize": 100, "expirationDate": expiry_s,
                    "timeOfLastTrade": v.te.as_second(),
                    "OptionDeliverableList": [{"rootSymbol": p.symbol,
                        "deliverableSymbol": p.symbol, "deliverableTypeCode": "EQUITY",
                        "deliverableExchangeCode": p.exchange, "deliverableStrikePercent": 100,
                        "deliverableCILShares": 0, "deliverableWholeShares": 100}]}),
            )
        };
        let product = json!({"symbol": p.symbol, "securityType": "OPTN",
            "callPut": c.call_put.as_str(), "expiryYear": c.expiration.year(),
            "expiryMonth": c.expiration.month(), "expiryDay": c.expiration.day(),
            "strikePrice": num(c.strike)});
        Some(self.quote_header(at, product, block))
    }

    /// `GET /v1/market/lookup/{search}` → `{"LookupResponse": {"Data": [...]}}`: the ticker
    /// itself when the search is one, plus the known companies whose name words start with
    /// every word of the search; otherwise an empty list.
    pub fn lookup_response(&self, search: &str) -> Value {
        let mut data: Vec<Value> = Vec::new();
        if let Some(p) = self.profile(search) {
            data.push(json!({"symbol": p.symbol, "description": p.name, "type": p.kind}));
        }
        let words: Vec<String> = search
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_uppercase)
            .collect();
        if !words.is_empty() {
            for k in KNOWN {
                let hit = words
                    .iter()
                    .all(|w| k.name.split_whitespace().any(|n| n.starts_with(w.as_str())));
                if hit && !data.iter().any(|d| d["symbol"] == k.symbol) {
                    data.push(json!({"symbol": k.symbol,
                        "description": format!("{} (SIMULATED)", k.name), "type": k.kind}));
                }
            }
        }
        json!({"LookupResponse": {"Data": data}})
    }

    /// `GET /v1/market/optionexpiredate` → `{"OptionExpireDateResponse": {"ExpirationDate":
    /// [{year, month, day, expiryType}]}}`; None for an unknown symbol.
    pub fn option_expire_dates_response(&self, symbol: &str, at: Timestamp) -> Option<Value> {
        let dates: Vec<Value> = self
            .expirations(symbol, at)?
            .into_iter()
            .map(|(d, kind)| {
                json!({"year": d.year(), "month": d.month(), "day": d.day(),
                    "expiryType": kind.as_str()})
            })
            .collect();
        Some(json!({"OptionExpireDateResponse": {"ExpirationDate": dates}}))
    }

    /// `GET /v1/market/optionchains` → `OptionChainResponse` with `OptionPair[]`,
    /// `SelectedED`, `nearPrice`; None for an unknown symbol or an unlisted expiry.
    pub fn option_chains_response(&self, query: &OptionChainQuery, at: Timestamp) -> Option<Value> {
        let p = self.profile(&query.symbol)?;
        let listed = listed_expirations(calendar::trading_day(at));
        let expiry = match query.expiry {
            Some(d) => listed.iter().find(|(e, _)| *e == d)?.0,
            None => {
                listed
                    .iter()
                    .find(|(_, kind)| query.include_weekly || *kind == ExpiryType::Monthly)?
                    .0
            }
        };
        let underlying = Self::equity_touch(&p, effective(at, false)).last;
        let near = query
            .strike_price_near
            .filter(|n| *n > Decimal::ZERO)
            .unwrap_or(underlying)
            .min(Decimal::from(1_000_000_000u64));
        let mut strikes = strike_window(&p, near);
        if let Some(n) = query.no_of_strikes.filter(|n| *n > 0) {
            strikes.sort_by_key(|k| (*k - near).abs());
            strikes.truncate(n);
            strikes.sort();
        }
        let (calls, puts) = match query
            .chain_type
            .as_deref()
            .map(|c| c.trim().to_ascii_uppercase())
            .as_deref()
        {
            Some("CALL") => (true, false),
            Some("PUT") => (false, true),
            _ => (true, true),
        };
        let pair_type = match (calls, puts) {
            (true, false) => "CALLONLY",
            (false, true) => "PUTONLY",
            _ => "CALLPUT",
        };
        let today = calendar::trading_day(at);
        let te = effective(at, false);
        let prev_close = previous_trading_day(calendar::trading_day(te))
            .and_then(calendar::regular_hours)
            .map(|(_, c)| c);
        let side = |strike: Decimal, call_put: CallPut| -> Option<Value> {
            let c = OptionContract {
                underlying: p.symbol.clone(),
                expiration: expiry,
                call_put,
                strike,
            };
            let v = Self::option_value(&p, &c, te)?;
            let t = &v.touch;
            let net_change = prev_close
                .and_then(|pc| Self::option_value(&p, &c, pc))
                .map_or(Decimal::ZERO, |prev| t.last - prev.touch.last);
            Some(
                json!({"optionCategory": "STANDARD", "optionRootSymbol": p.symbol,
                "timeStamp": te.as_second(), "adjustedFlag": false,
                "displaySymbol": display_symbol(&c), "optionType": call_put.as_str(),
                "strikePrice": num(strike), "symbol": p.symbol, "bid": num(t.bid),
                "ask": num(t.ask), "bidSize": t.bid_size, "askSize": t.ask_size,
                "inTheMoney": if v.intrinsic(&c) > 0.0 { "y" } else { "n" }, "volume": t.volume,
                "openInterest": Self::open_interest(&p, &c, today),
                "netChange": num(net_change), "lastPrice": num(t.last),
                "quoteDetail": format!("/v1/market/quote/{}", quote_symbol(&c)),
                "osiKey": osi_key(&c), "OptionGreeks": greeks_json(&v)}),
            )
        };
        let mut pairs = Vec::new();
        for k in strikes {
            let mut pair = Map::new();
            pair.insert("pairType".into(), json!(pair_type));
            if calls && let Some(v) = side(k, CallPut::Call) {
                pair.insert("Call".into(), v);
            }
            if puts && let Some(v) = side(k, CallPut::Put) {
                pair.insert("Put".into(), v);
            }
            if pair.len() > 1 {
                pairs.push(Value::Object(pair));
            }
        }
        Some(
            json!({"OptionChainResponse": {"OptionPair": pairs, "timeStamp": at.as_second(),
            "quoteType": "DELAYED", "nearPrice": num(near), "source": self.source(),
            "SelectedED": {"day": expiry.day(), "month": expiry.month(), "year": expiry.year()}}}),
        )
    }
}

fn greeks_json(v: &OptionValue) -> Value {
    let m = &v.model;
    json!({"rho": num(round_dec(m.rho, 4)), "vega": num(round_dec(m.vega, 4)),
        "theta": num(round_dec(m.theta, 4)), "delta": num(round_dec(m.delta, 4)),
        "gamma": num(round_dec(m.gamma, 4)), "iv": num(round_dec(v.iv, 4)),
        "currentValue": false})
}

/// Listed strikes within ±20 ladder steps of the ladder strike nearest `near`, ascending.
fn strike_window(p: &Profile, near: Decimal) -> Vec<Decimal> {
    // Far beyond any listed strike; keeps the ladder arithmetic away from Decimal's limits.
    let near = near.clamp(Decimal::ZERO, Decimal::from(1_000_000_000u64));
    let centre = nearest_strike(near);
    let mut out = Vec::new();
    let mut k = centre;
    for _ in 0..CHAIN_HALF_WIDTH {
        k = strike_down(k);
        if k <= Decimal::ZERO {
            break;
        }
        out.push(k);
    }
    out.reverse();
    out.push(centre);
    let mut k = centre;
    for _ in 0..CHAIN_HALF_WIDTH {
        k = strike_up(k);
        out.push(k);
    }
    out.retain(|k| strike_listed(p.base, *k));
    out
}

impl MarketData for SimulatedMarket {
    fn equity(&self, symbol: &str, at: Timestamp) -> Option<Touch> {
        let p = self.profile(symbol)?;
        Some(Self::equity_touch(&p, effective(at, true)))
    }

    fn option(&self, contract: &OptionContract, at: Timestamp) -> Option<Touch> {
        self.option_at(contract, at).map(|(_, v)| v.touch)
    }

    fn source(&self) -> &'static str {
        "simulated"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etrade::models::lookup::LookupList;
    use crate::etrade::models::options::{ExpirationDates, OptionChain};
    use crate::etrade::models::quotes::QuoteList;
    use jiff::civil::date;
    use proptest::prelude::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("valid timestamp")
    }

    fn m() -> SimulatedMarket {
        SimulatedMarket::new(42)
    }

    fn contract(sym: &str, exp: Date, cp: CallPut, strike: &str) -> OptionContract {
        OptionContract {
            underlying: sym.into(),
            expiration: exp,
            call_put: cp,
            strike: Decimal::from_str(strike).expect("strike"),
        }
    }

    /// 2026-03-10 (Tuesday, EDT): 11:00 ET.
    const TUE_11: &str = "2026-03-10T15:00:00Z";

    #[test]
    fn deterministic_and_seeded() {
        let at = ts(TUE_11);
        for sym in ["AAPL", "MSFT", "SPY", "IBM", "QQQ", "F", "ABCDE"] {
            let a = m().equity(sym, at).expect("known");
            assert_eq!(Some(a.clone()), SimulatedMarket::new(42).equity(sym, at));
            assert_eq!(
                m().quote_response(&[sym.into()], None, at),
                m().quote_response(&[sym.into()], None, at)
            );
        }
        let instants = [
            "2026-03-10T14:00:00Z",
            "2026-03-10T15:17:00Z",
            "2026-03-11T18:43:00Z",
            "2026-05-20T16:00:00Z",
        ];
        let differ = instants
            .iter()
            .any(|i| m().equity("AAPL", ts(i)) != SimulatedMarket::new(7).equity("AAPL", ts(i)));
        assert!(differ, "different seeds give different paths");
        // Realistic levels for well-known symbols.
        let aapl = m().underlying_price("AAPL", at).expect("aapl");
        assert!(
            aapl > Decimal::from(150) && aapl < Decimal::from(320),
            "{aapl}"
        );
        // Case-insensitive.
        assert_eq!(m().equity("aapl", at), m().equity("AAPL", at));
    }

    #[test]
    fn unknown_symbols() {
        let at = ts(TUE_11);
        for sym in ["ZZZ", "ZZ", "TOOLONG", "AB1", "", "BRK.B", "A B"] {
            assert_eq!(m().equity(sym, at), None, "{sym}");
            assert_eq!(m().option_expire_dates_response(sym, at), None, "{sym}");
        }
        assert!(m().equity("Z", at).is_some());
    }

    #[test]
    fn frozen_outside_sessions_moving_inside() {
        let mk = m();
        let fri_close = mk.equity("AAPL", ts("2026-03-07T01:00:00Z")); // Fri 20:00 EST
        for t in [
            "2026-03-07T01:30:00Z", // Fri 20:30
            "2026-03-07T17:00:00Z", // Saturday
            "2026-03-08T20:00:00Z", // Sunday (EDT from 02:00)
            "2026-03-09T10:59:59Z", // Mon 06:59:59 EDT
        ] {
            assert_eq!(mk.equity("AAPL", ts(t)), fri_close, "{t}");
        }
        // Overnight Tuesday → Wednesday.
        let tue = mk.equity("MSFT", ts("2026-03-11T00:00:00Z"));
        assert_eq!(mk.equity("MSFT", ts("2026-03-11T09:00:00Z")), tue);
        // Gaps between sessions: 09:25–09:30 and 16:00–16:05.
        assert_eq!(
            mk.equity("MSFT", ts("2026-03-10T13:25:00Z")),
            mk.equity("MSFT", ts("2026-03-10T13:29:59Z"))
        );
        assert_eq!(
            mk.equity("MSFT", ts("2026-03-10T20:00:00Z")),
            mk.equity("MSFT", ts("2026-03-10T20:04:59Z"))
        );
        // A holiday (Good Friday 2026-04-03) holds Thursday's after-hours close.
        assert_eq!(
            mk.equity("IBM", ts("2026-04-03T15:00:00Z")),
            mk.equity("IBM", ts("2026-04-03T00:00:00Z"))
        );
        // During the regular session the price moves and the volume grows.
        let day: Vec<Touch> = (0..13)
            .map(|i| {
                let t = ts("2026-03-10T13:30:00Z")
                    .checked_add(SignedDuration::from_mins(30 * i))
                    .expect("t");
                mk.equity("AAPL", t).expect("aapl")
            })
            .collect();
        let mids: std::collections::HashSet<Decimal> = day.iter().map(|t| t.bid + t.ask).collect();
        assert!(mids.len() > 5, "price moves: {mids:?}");
        assert!(day.windows(2).all(|w| w[0].volume < w[1].volume));
        // Options do not move outside the regular session.
        let c = contract("AAPL", date(2026, 3, 20), CallPut::Call, "230");
        assert_eq!(
            mk.option(&c, ts("2026-03-10T20:00:00Z")),
            mk.option(&c, ts("2026-03-10T23:00:00Z"))
        );
        // Options only count regular-session volume; each one's spread is positive.
        let t = mk.option(&c, ts(TUE_11)).expect("listed");
        assert!(t.bid < t.ask);
    }

    #[test]
    fn daily_moves_are_modest() {
        let mk = m();
        let mut moves = Vec::new();
        let mut d = date(2026, 1, 5);
        let mut prev: Option<f64> = None;
        for _ in 0..120 {
            if let Some((_, close)) = calendar::regular_hours(d) {
                let px = to_f64(mk.underlying_price("SPY", close).expect("spy"));
                if let Some(p) = prev {
                    moves.push((px / p).ln());
                }
                prev = Some(px);
            }
            d = d.tomorrow().expect("d");
        }
        let n = moves.len() as f64;
        let sd = (moves.iter().map(|x| x * x).sum::<f64>() / n).sqrt();
        assert!(sd > 0.003 && sd < 0.04, "daily sd {sd}");
    }

    #[test]
    fn expirations_are_listed_trading_days() {
        let today = date(2026, 3, 10);
        let e = listed_expirations(today);
        assert!(e.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(
            e.iter()
                .all(|(d, _)| calendar::is_trading_day(*d) && *d >= today)
        );
        assert_eq!(
            e.iter().filter(|x| x.1 == ExpiryType::Monthly).count(),
            MONTHLY_EXPIRIES
        );
        assert_eq!(e[0], (date(2026, 3, 13), ExpiryType::Weekly));
        assert!(e.contains(&(date(2026, 3, 20), ExpiryType::Monthly)));
        // Good Friday 2026-04-03 → Thursday; Juneteenth 2026-06-19 is the June monthly.
        assert!(e.contains(&(date(2026, 4, 2), ExpiryType::Weekly)));
        assert!(e.contains(&(date(2026, 6, 18), ExpiryType::Monthly)));
        assert!(!e.iter().any(|(d, _)| *d == date(2026, 4, 3)));
        assert_eq!(e.last().map(|x| x.0), Some(date(2027, 2, 19)));
        // The weeklies cover 8 weeks: the last is 2026-05-01.
        assert!(e.contains(&(date(2026, 5, 1), ExpiryType::Weekly)));
        assert!(!e.iter().any(|(d, _)| *d == date(2026, 5, 8)));
        // On an expiry Friday, that day is still listed.
        assert_eq!(
            listed_expirations(date(2026, 3, 13))[0].0,
            date(2026, 3, 13)
        );
    }

    #[test]
    fn strike_ladder() {
        for (k, ok) in [
            ("24", true),
            ("24.5", false),
            ("25", true),
            ("27.5", true),
            ("28", false),
            ("197.5", true),
            ("200", true),
            ("202.5", false),
            ("205", true),
            ("0", false),
        ] {
            assert_eq!(on_ladder(Decimal::from_str(k).expect("k")), ok, "{k}");
        }
        assert_eq!(strike_down(Decimal::from(25)), Decimal::from(24));
        assert_eq!(strike_down(Decimal::from(200)), Decimal::new(1975, 1));
        assert_eq!(strike_up(Decimal::new(1975, 1)), Decimal::from(200));
        assert_eq!(nearest_strike(Decimal::new(23_130, 2)), Decimal::from(230));
        let w = m().strikes_near("AAPL", Decimal::from(231)).expect("aapl");
        assert_eq!(w.len(), 41);
        assert_eq!(w[20], Decimal::from(230));
        assert!(w.windows(2).all(|p| p[0] < p[1]));
    }

    #[test]
    fn unlisted_contracts() {
        let mk = m();
        let at = ts(TUE_11);
        let exp = date(2026, 3, 20);
        assert!(
            mk.option(&contract("AAPL", exp, CallPut::Put, "230"), at)
                .is_some()
        );
        for c in [
            contract("AAPL", exp, CallPut::Put, "231.3"),
            contract("AAPL", exp, CallPut::Put, "232.5"), // not on the $5 ladder
            contract("AAPL", date(2026, 3, 18), CallPut::Put, "230"), // a Wednesday
            contract("AAPL", date(2026, 3, 6), CallPut::Put, "230"), // expired
            contract("AAPL", exp, CallPut::Put, "5000"),
            contract("ZZTOP", exp, CallPut::Put, "230"),
            contract("AAPL", date(2028, 3, 17), CallPut::Call, "230"), // too far out
        ] {
            assert_eq!(mk.option(&c, at), None, "{c:?}");
        }
        // Expiration day is still quoted; the day after, it is gone.
        let c = contract("AAPL", date(2026, 3, 13), CallPut::Call, "230");
        assert!(mk.option(&c, ts("2026-03-13T21:00:00Z")).is_some());
        assert_eq!(mk.option(&c, ts("2026-03-14T15:00:00Z")), None);
    }

    #[test]
    fn parity_and_greeks() {
        let mk = m();
        let at = ts(TUE_11);
        for (sym, exp) in [
            ("AAPL", date(2026, 3, 20)),
            ("IBM", date(2026, 6, 18)),
            ("QRS", date(2026, 4, 17)),
        ] {
            let s = to_f64(mk.underlying_price(sym, at).expect("u"));
            let strikes = mk.strikes_near(sym, round_dec(s, 2)).expect("strikes");
            for k in strikes {
                let (_, call) = mk
                    .option_at(&contract(sym, exp, CallPut::Call, &k.to_string()), at)
                    .expect("call");
                let (_, put) = mk
                    .option_at(&contract(sym, exp, CallPut::Put, &k.to_string()), at)
                    .expect("put");
                let kf = to_f64(k);
                let close = calendar::regular_hours(exp).expect("trading day").1;
                let t = (secs(close) - secs(call.te)) / YEAR_SECS;
                let forward = call.s - kf * (-RATE * t).exp();
                let diff = call.model.price - put.model.price - forward;
                assert!(diff.abs() < 1e-6, "{sym} {k}: parity off by {diff}");
                // Quoted mids within their spreads of parity.
                let mid = |t: &Touch| to_f64(t.bid + t.ask) / 2.0;
                let slack = to_f64(call.touch.ask - call.touch.bid + put.touch.ask - put.touch.bid);
                assert!(
                    (mid(&call.touch) - mid(&put.touch) - forward).abs() <= slack + 0.02,
                    "{sym} {k}"
                );
                assert!((0.0..=1.0).contains(&call.model.delta));
                assert!((-1.0..=0.0).contains(&put.model.delta));
                assert!(call.model.gamma >= 0.0 && call.model.vega >= 0.0);
                assert!(call.model.theta <= 0.0);
                if (kf / s).ln().abs() < 0.1 {
                    assert!(call.model.delta > 0.0 && call.model.delta < 1.0);
                    assert!(call.model.rho > 0.0 && put.model.rho < 0.0);
                }
                assert!(call.iv >= 0.05 && call.iv <= 3.0);
            }
        }
    }

    #[test]
    fn norm_cdf_is_accurate() {
        for (x, want) in [
            (0.0, 0.5),
            (1.0, 0.841_344_746),
            (-1.96, 0.024_997_895),
            (3.0, 0.998_650_102),
        ] {
            assert!((norm_cdf(x) - want).abs() < 1e-7, "{x}");
        }
    }

    #[test]
    fn quotes_parse_through_the_runtime_model() {
        let mk = m();
        let at = ts(TUE_11);
        let syms: Vec<String> = [
            "AAPL",
            "ZZZ",
            "IBM:2026:6:18:CALL:220",
            "msft",
            "IBM:2026:6:17:CALL:220",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for flag in [
            None,
            Some("ALL"),
            Some("FUNDAMENTAL"),
            Some("INTRADAY"),
            Some("OPTIONS"),
            Some("WEEK_52"),
            Some("MF_DETAIL"),
        ] {
            let wire = mk.quote_response(&syms, flag, at);
            let list = QuoteList::from_wire(Some(wire)).expect("parses");
            assert_eq!(list.quotes.len(), 3, "{flag:?}");
            assert_eq!(list.messages.len(), 2);
            assert_eq!(list.messages[0].code.as_deref(), Some("1019"));
            assert_eq!(
                list.messages[0].description.as_deref(),
                Some("ZZZ is not a valid symbol.")
            );
            let q = &list.quotes[0];
            assert_eq!(q.quote_status.as_deref(), Some("DELAYED"));
            assert_eq!(q.ah_flag, Some(false));
            assert_eq!(q.date_time_utc.as_deref(), Some("2026-03-10T15:00:00Z"));
            let product = q.product.as_ref().expect("product");
            assert_eq!(product.symbol.as_deref(), Some("AAPL"));
            let opt = &list.quotes[1];
            assert_eq!(
                opt.product
                    .as_ref()
                    .and_then(|p| p.security_type.as_deref()),
                Some("OPTN")
            );
            assert_eq!(
                list.quotes[2]
                    .product
                    .as_ref()
                    .and_then(|p| p.symbol.as_deref()),
                Some("MSFT")
            );
        }
        let list =
            QuoteList::from_wire(Some(mk.quote_response(&syms[..1], None, at))).expect("all");
        let all = list.quotes[0].all.as_ref().expect("All block");
        let touch = mk.equity("AAPL", at).expect("touch");
        assert_eq!(all.bid, Some(touch.bid));
        assert_eq!(all.ask, Some(touch.ask));
        assert_eq!(all.last_trade, Some(touch.last));
        assert_eq!(all.total_volume, i64::try_from(touch.volume).ok());
        assert!(all.low <= all.last_trade && all.last_trade <= all.high);
        assert!(all.low52 <= all.low && all.high <= all.high52);
        assert!(all.extended_hour_quote_detail.is_some());
        assert!(
            all.company_name
                .as_deref()
                .is_some_and(|n| n.contains("SIMULATED"))
        );
        let opt = QuoteList::from_wire(Some(mk.quote_response(
            &["IBM:2026:6:18:PUT:220.000000".to_string()],
            Some("OPTIONS"),
            at,
        )))
        .expect("option");
        let o = opt.quotes[0].option.as_ref().expect("Option block");
        let g = o.option_greeks.as_ref().expect("greeks");
        assert!(g.delta.is_some_and(|d| d < Decimal::ZERO));
        assert_eq!(o.osi_key.as_deref(), Some("IBM---260618P00220000"));
        let c = contract("IBM", date(2026, 6, 18), CallPut::Put, "220");
        assert_eq!(o.bid, mk.option(&c, at).map(|t| t.bid));
        // All unknown: the same shape, no quotes.
        let none = mk.quote_response(&["ZZZ".into(), "ZZA".into()], None, at);
        assert_eq!(none["QuoteResponse"]["QuoteData"], json!([]));
        let list = QuoteList::from_wire(Some(none)).expect("empty");
        assert!(list.quotes.is_empty());
        assert_eq!(list.messages.len(), 2);
        // No Messages container when every symbol is good; after hours ahFlag is true.
        let good = mk.quote_response(&["AAPL,SPY".into()], None, ts("2026-03-10T21:00:00Z"));
        assert!(good["QuoteResponse"].get("Messages").is_none());
        let list = QuoteList::from_wire(Some(good)).expect("good");
        assert_eq!(list.quotes.len(), 2);
        assert_eq!(list.quotes[0].ah_flag, Some(true));
    }

    #[test]
    fn lookup_parses() {
        let mk = m();
        let l = LookupList::from_wire(Some(mk.lookup_response("ibm"))).expect("parses");
        assert_eq!(l.products.len(), 1);
        assert_eq!(l.products[0].symbol, "IBM");
        assert_eq!(l.products[0].kind.as_deref(), Some("EQUITY"));
        let l = LookupList::from_wire(Some(mk.lookup_response("apple inc"))).expect("name");
        assert_eq!(l.products[0].symbol, "AAPL");
        let l = LookupList::from_wire(Some(mk.lookup_response("not a ticker 123"))).expect("none");
        assert!(l.products.is_empty());
    }

    #[test]
    fn expire_dates_parse() {
        let mk = m();
        let at = ts(TUE_11);
        let wire = mk.option_expire_dates_response("AAPL", at).expect("aapl");
        let e = ExpirationDates::from_wire(Some(wire)).expect("parses");
        let listed = listed_expirations(date(2026, 3, 10));
        assert_eq!(e.expiration_dates.len(), listed.len());
        assert_eq!(
            (
                e.expiration_dates[0].year,
                e.expiration_dates[0].month,
                e.expiration_dates[0].day
            ),
            (2026, 3, 13)
        );
        assert_eq!(e.expiration_dates[0].expiry_type.as_deref(), Some("WEEKLY"));
        for x in &e.expiration_dates {
            let d = Date::new(x.year as i16, x.month as i8, x.day as i8).expect("date");
            assert!(calendar::is_trading_day(d));
        }
    }

    #[test]
    fn chains_parse() {
        let mk = m();
        let at = ts(TUE_11);
        let q = OptionChainQuery {
            symbol: "AAPL".into(),
            ..Default::default()
        };
        let chain = OptionChain::from_wire(mk.option_chains_response(&q, at)).expect("parses");
        let ed = chain.selected_ed.as_ref().expect("SelectedED");
        assert_eq!((ed.year, ed.month, ed.day), (Some(2026), Some(3), Some(20)));
        assert_eq!(chain.option_pairs.len(), 41);
        assert_eq!(chain.near_price, mk.equity("AAPL", at).map(|t| t.last));
        for pair in &chain.option_pairs {
            let call = pair.call.as_ref().expect("call");
            let put = pair.put.as_ref().expect("put");
            assert_eq!(call.strike_price, put.strike_price);
            assert!(call.bid < call.ask && put.bid < put.ask);
            assert!(call.in_the_money != put.in_the_money || call.in_the_money == Some(false));
            let g = call.option_greeks.as_ref().expect("greeks");
            assert!(g.delta.is_some() && g.iv.is_some() && g.theta.is_some());
            let contract = OptionContract {
                underlying: "AAPL".into(),
                expiration: date(2026, 3, 20),
                call_put: CallPut::Call,
                strike: call.strike_price.expect("strike"),
            };
            assert_eq!(call.bid, mk.option(&contract, at).map(|t| t.bid));
            assert_eq!(call.osi_key.as_deref(), Some(osi_key(&contract).as_str()));
        }
        // Weekly, a few strikes near a price, puts only.
        let q = OptionChainQuery {
            symbol: "ibm".into(),
            expiry: None,
            strike_price_near: Some(Decimal::from(203)),
            no_of_strikes: Some(4),
            chain_type: Some("PUT".into()),
            include_weekly: true,
        };
        let chain = OptionChain::from_wire(mk.option_chains_response(&q, at)).expect("puts");
        let ed = chain.selected_ed.as_ref().expect("SelectedED");
        assert_eq!((ed.month, ed.day), (Some(3), Some(13)));
        let strikes: Vec<Option<Decimal>> = chain
            .option_pairs
            .iter()
            .map(|p| p.put.as_ref().and_then(|x| x.strike_price))
            .collect();
        let want: Vec<Option<Decimal>> = ["197.5", "200", "205", "210"]
            .iter()
            .map(|s| Decimal::from_str(s).ok())
            .collect();
        assert_eq!(strikes, want);
        assert!(chain.option_pairs.iter().all(|p| p.call.is_none()));
        assert_eq!(chain.option_pairs[0].pair_type.as_deref(), Some("PUTONLY"));
        // An explicit listed expiry, and an unlisted one.
        let q = OptionChainQuery {
            symbol: "SPY".into(),
            expiry: Some(date(2026, 6, 18)),
            ..Default::default()
        };
        assert!(mk.option_chains_response(&q, at).is_some());
        let q = OptionChainQuery {
            expiry: Some(date(2026, 6, 19)),
            ..q
        };
        assert_eq!(mk.option_chains_response(&q, at), None);
        let q = OptionChainQuery {
            symbol: "ZZZ".into(),
            ..Default::default()
        };
        assert_eq!(mk.option_chains_response(&q, at), None);
        // A strike centre far from every listing: an empty chain, not a panic.
        let q = OptionChainQuery {
            symbol: "AAPL".into(),
            strike_price_near: Some(Decimal::MAX),
            ..Default::default()
        };
        let chain = OptionChain::from_wire(mk.option_chains_response(&q, at)).expect("far");
        assert!(chain.option_pairs.is_empty());
        assert!(mk.strikes_near("AAPL", Decimal::MIN).is_some());
    }

    proptest! {
        #[test]
        fn equity_touch_is_well_formed(
            sym in "[A-Y][A-Z]{0,4}",
            second in 946_684_800i64..4_102_444_800,
            seed in any::<u64>(),
        ) {
            let at = Timestamp::from_second(second).expect("in range");
            let mk = SimulatedMarket::new(seed);
            let t = mk.equity(&sym, at).expect("known");
            prop_assert!(t.bid > Decimal::ZERO);
            prop_assert!(t.bid < t.ask);
            prop_assert!(t.ask - t.bid >= Decimal::new(1, 2));
            prop_assert!(t.bid <= t.last && t.last <= t.ask);
            prop_assert!(t.bid.scale() <= 2 && t.ask.scale() <= 2);
            prop_assert!((100..=2_000).contains(&t.bid_size) && t.bid_size % 100 == 0);
            prop_assert!((100..=2_000).contains(&t.ask_size) && t.ask_size % 100 == 0);
            prop_assert_eq!(mk.equity(&sym, at), Some(t));
        }

        #[test]
        fn option_touch_is_well_formed(
            sym in "[A-Y][A-Z]{0,4}",
            second in 946_684_800i64..4_102_444_800,
            pick in any::<u64>(),
        ) {
            let at = Timestamp::from_second(second).expect("in range");
            let mk = m();
            let exps = mk.expirations(&sym, at).expect("known");
            prop_assert!(!exps.is_empty());
            let exp = exps[(pick % exps.len() as u64) as usize].0;
            let s = mk.underlying_price(&sym, at).expect("price");
            let strikes = mk.strikes_near(&sym, s).expect("strikes");
            prop_assert!(!strikes.is_empty());
            let k = strikes[((pick >> 8) % strikes.len() as u64) as usize];
            for cp in [CallPut::Call, CallPut::Put] {
                let c = OptionContract { underlying: sym.clone(), expiration: exp, call_put: cp, strike: k };
                let (_, v) = mk.option_at(&c, at).expect("listed");
                let t = &v.touch;
                prop_assert!(t.bid >= Decimal::ZERO && t.bid < t.ask);
                prop_assert!(t.bid <= t.last && t.last <= t.ask);
                prop_assert!((10..=500).contains(&t.bid_size));
                match cp {
                    CallPut::Call => prop_assert!((0.0..=1.0).contains(&v.model.delta)),
                    CallPut::Put => prop_assert!((-1.0..=0.0).contains(&v.model.delta)),
                }
                prop_assert!(v.model.price >= -1e-6);
            }
        }
    }
}
