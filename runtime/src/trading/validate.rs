//! Domain rules the schema cannot state: which price types, actions and terms go together,
//! option expirations and quantities, leg counts and strike relationships per spread type,
//! all-or-none minimums and price increments. Problems come back as [`ClientProblem`]s, so
//! the host sees them in the contract's `invalid_input` structure; every message is fixed
//! text from this file (never a submitted value).

use super::order::{OrderTicket, TicketLeg};
use crate::validation::{ClientProblem, ClientReason, PathSegment};
use jiff::civil::{Date, Weekday};
use rust_decimal::Decimal;

/// E*TRADE's all-or-none minimum for stock orders.
pub const ALL_OR_NONE_MIN_SHARES: u32 = 300;

const EQ_ACTIONS: [&str; 4] = ["BUY", "SELL", "BUY_TO_COVER", "SELL_SHORT"];
const OPTION_ACTIONS: [&str; 4] = ["BUY_OPEN", "BUY_CLOSE", "SELL_OPEN", "SELL_CLOSE"];
const FLAT_PRICE_TYPES: [&str; 4] = ["MARKET", "LIMIT", "STOP", "STOP_LIMIT"];
const SPREAD_PRICE_TYPES: [&str; 3] = ["NET_DEBIT", "NET_CREDIT", "NET_EVEN"];

fn rule(path: Vec<PathSegment>, code: &'static str, message: &'static str) -> ClientProblem {
    ClientProblem {
        path,
        reason: ClientReason::Rule { code, message },
    }
}

struct Checker<'a> {
    ticket: &'a OrderTicket,
    today: Date,
    out: Vec<ClientProblem>,
}

impl Checker<'_> {
    fn request(&self) -> Vec<PathSegment> {
        vec![PathSegment::Key("request")]
    }

    fn field(&self, name: &'static str) -> Vec<PathSegment> {
        vec![PathSegment::Key("request"), PathSegment::Key(name)]
    }

    fn legs(&self) -> Vec<PathSegment> {
        self.field("legs")
    }

    /// Where a leg's field lives: `request.<field>` for a flat order, else
    /// `request.legs[i].<field>`.
    fn leg_field(&self, i: usize, name: &'static str) -> Vec<PathSegment> {
        if self.ticket.flat {
            self.field(name)
        } else {
            vec![
                PathSegment::Key("request"),
                PathSegment::Key("legs"),
                PathSegment::Index(i),
                PathSegment::Key(name),
            ]
        }
    }

    fn push(&mut self, path: Vec<PathSegment>, code: &'static str, message: &'static str) {
        self.out.push(rule(path, code, message));
    }
}

/// Every domain problem of `ticket`; empty when it may be sent. `today` is the
/// America/New_York date (expirations before it are refused).
pub fn check_ticket(ticket: &OrderTicket, today: Date) -> Vec<ClientProblem> {
    let mut c = Checker {
        ticket,
        today,
        out: Vec::new(),
    };
    price_and_terms(&mut c);
    for (i, leg) in ticket.legs.iter().enumerate() {
        leg_rules(&mut c, i, leg);
    }
    if ticket.is_spread() {
        spread_shape(&mut c);
    } else if ticket.all_or_none
        && !ticket.legs.iter().any(TicketLeg::is_option)
        && ticket
            .legs
            .first()
            .is_some_and(|l| l.quantity < Decimal::from(ALL_OR_NONE_MIN_SHARES))
    {
        let p = c.request();
        c.push(
            p,
            "all_or_none_minimum",
            "An all-or-none stock order must be for at least 300 shares.",
        );
    }
    c.out
}

fn price_and_terms(c: &mut Checker<'_>) {
    let t = c.ticket;
    let allowed: &[&str] = if t.is_spread() {
        &SPREAD_PRICE_TYPES
    } else {
        &FLAT_PRICE_TYPES
    };
    if !allowed.contains(&t.price_type) {
        let message = if t.is_spread() {
            "A spread order's price_type is NET_DEBIT, NET_CREDIT or NET_EVEN."
        } else {
            "An EQ or OPTN order's price_type is MARKET, LIMIT, STOP or STOP_LIMIT."
        };
        let p = c.field("price_type");
        c.push(p, "not_allowed", message);
    }
    if t.price_type == "MARKET" && t.order_term != "GOOD_FOR_DAY" {
        let p = c.request();
        c.push(p, "market_term", "A MARKET order must be GOOD_FOR_DAY.");
    }
    if matches!(t.order_term, "IMMEDIATE_OR_CANCEL" | "FILL_OR_KILL")
        && !matches!(t.price_type, "LIMIT" | "NET_DEBIT" | "NET_CREDIT")
    {
        let p = c.request();
        c.push(
            p,
            "term_needs_limit",
            "IMMEDIATE_OR_CANCEL and FILL_OR_KILL orders need a limit price (LIMIT, NET_DEBIT or NET_CREDIT).",
        );
    }
    if t.market_session == "EXTENDED" && (t.price_type != "LIMIT" || t.order_term != "GOOD_FOR_DAY")
    {
        let p = c.request();
        c.push(
            p,
            "extended_session",
            "An EXTENDED-session order must be a LIMIT order, GOOD_FOR_DAY.",
        );
    }
    if t.all_or_none && t.price_type == "MARKET" {
        let p = c.request();
        c.push(
            p,
            "all_or_none_market",
            "An all-or-none order needs a limit price (not MARKET).",
        );
    }
    let option = t.legs.iter().any(TicketLeg::is_option);
    for (name, price) in [("limit_price", t.limit_price), ("stop_price", t.stop_price)] {
        if let Some(p) = price
            && !price_increment_ok(p, option || t.is_spread())
        {
            let path = c.field(name);
            c.push(
                path,
                "price_increment",
                "Too many decimal places: at most 2 (4 for stock prices below $1).",
            );
        }
    }
}

/// Stocks trade in cents from $1 up and in hundredths of a cent below; options in cents.
fn price_increment_ok(price: Decimal, option: bool) -> bool {
    let places = price.normalize().scale();
    if option || price >= Decimal::ONE {
        places <= 2
    } else {
        places <= 4
    }
}

fn leg_rules(c: &mut Checker<'_>, i: usize, leg: &TicketLeg) {
    let actions: &[&str] = if leg.is_option() {
        &OPTION_ACTIONS
    } else {
        &EQ_ACTIONS
    };
    if !actions.contains(&leg.order_action) {
        let message = if leg.is_option() {
            "An option's order_action is BUY_OPEN, BUY_CLOSE, SELL_OPEN or SELL_CLOSE."
        } else {
            "A stock's order_action is BUY, SELL, BUY_TO_COVER or SELL_SHORT."
        };
        let p = c.leg_field(i, "order_action");
        c.push(p, "not_allowed", message);
    }
    if !leg.quantity.fract().is_zero() {
        let message = if leg.is_option() {
            "Must be a whole number of contracts."
        } else {
            "Must be a whole number of shares."
        };
        let p = c.leg_field(i, "quantity");
        c.push(p, "whole_number", message);
    }
    if let Some(exp) = leg.expiration {
        if exp < c.today {
            let p = c.leg_field(i, "expiration");
            c.push(p, "expired", "The expiration date is in the past.");
        } else if matches!(exp.weekday(), Weekday::Saturday | Weekday::Sunday) {
            let p = c.leg_field(i, "expiration");
            c.push(
                p,
                "not_an_expiration",
                "Options expire on weekdays; get_option_expire_dates lists the real dates.",
            );
        }
    }
    if let Some(strike) = leg.strike_price
        && strike.normalize().scale() > 3
    {
        let p = c.leg_field(i, "strike_price");
        c.push(
            p,
            "price_increment",
            "Too many decimal places for a strike (at most 3).",
        );
    }
}

fn spread_shape(c: &mut Checker<'_>) {
    let t = c.ticket;
    let (count, count_message): (usize, &'static str) = match t.order_type {
        "SPREADS" => (2, "A SPREADS order has 2 option legs."),
        "BUY_WRITES" => (
            2,
            "A BUY_WRITES order has 2 legs: the stock and a covered call.",
        ),
        "BUTTERFLY" => (3, "A BUTTERFLY has 3 legs: lower wing, body, upper wing."),
        "IRON_BUTTERFLY" => (4, "An IRON_BUTTERFLY has 4 legs: 2 puts and 2 calls."),
        "CONDOR" => (4, "A CONDOR has 4 legs."),
        _ => (4, "An IRON_CONDOR has 4 legs: 2 puts and 2 calls."),
    };
    if t.legs.len() != count {
        let p = c.legs();
        c.push(p, "leg_count", count_message);
        return;
    }
    let symbol = &t.legs[0].symbol;
    if t.legs
        .iter()
        .any(|l| !l.symbol.eq_ignore_ascii_case(symbol))
    {
        let p = c.legs();
        c.push(
            p,
            "same_underlying",
            "All legs must be on the same underlying symbol.",
        );
    }
    if t.order_type == "BUY_WRITES" {
        buy_write(c);
        return;
    }
    for (i, leg) in t.legs.iter().enumerate() {
        if !leg.is_option() {
            let p = c.leg_field(i, "security_type");
            c.push(
                p,
                "not_allowed",
                "The legs of this order type are options (OPTN).",
            );
        }
    }
    if t.legs.iter().any(|l| !l.is_option()) {
        return;
    }
    match t.order_type {
        "SPREADS" => vertical_or_calendar(c),
        "BUTTERFLY" => butterfly(c),
        "IRON_BUTTERFLY" => iron(c, true),
        "CONDOR" => condor(c),
        _ => iron(c, false),
    }
}

fn strike(l: &TicketLeg) -> Decimal {
    l.strike_price.unwrap_or_default()
}

fn same_expiration(c: &mut Checker<'_>) -> bool {
    let first = c.ticket.legs[0].expiration;
    if c.ticket.legs.iter().any(|l| l.expiration != first) {
        let p = c.legs();
        c.push(
            p,
            "same_expiration",
            "All legs of this order type must have the same expiration.",
        );
        return false;
    }
    true
}

fn equal_quantities(c: &mut Checker<'_>, legs: &[&TicketLeg]) {
    if legs.windows(2).any(|w| w[0].quantity != w[1].quantity) {
        let p = c.legs();
        c.push(
            p,
            "leg_ratio",
            "The legs of this order type must have equal quantities.",
        );
    }
}

fn vertical_or_calendar(c: &mut Checker<'_>) {
    let (a, b) = (&c.ticket.legs[0], &c.ticket.legs[1]);
    if a.call_put != b.call_put {
        let p = c.legs();
        c.push(
            p,
            "same_call_put",
            "Both legs of a SPREADS order must be calls or both puts.",
        );
    }
    if strike(a) == strike(b) && a.expiration == b.expiration {
        let p = c.legs();
        c.push(
            p,
            "strike_relationship",
            "The legs of a SPREADS order must differ in strike or expiration.",
        );
    }
    if a.is_buy() == b.is_buy() {
        let p = c.legs();
        c.push(
            p,
            "leg_sides",
            "A SPREADS order buys one leg and sells the other.",
        );
    }
    equal_quantities(c, &[a, b]);
}

fn buy_write(c: &mut Checker<'_>) {
    let legs = &c.ticket.legs;
    let stock = legs.iter().position(|l| !l.is_option());
    let call = legs.iter().position(TicketLeg::is_option);
    let (Some(s), Some(o)) = (stock, call) else {
        let p = c.legs();
        c.push(
            p,
            "buy_write_legs",
            "A BUY_WRITES order has one stock leg (EQ, BUY) and one call leg (OPTN, CALL, SELL_OPEN).",
        );
        return;
    };
    let (stock, call) = (&legs[s], &legs[o]);
    if stock.order_action != "BUY" {
        let p = c.leg_field(s, "order_action");
        c.push(
            p,
            "not_allowed",
            "The stock leg of a BUY_WRITES order is BUY.",
        );
    }
    if call.call_put != Some("CALL") || call.order_action != "SELL_OPEN" {
        let p = c.leg_field(o, "order_action");
        c.push(
            p,
            "not_allowed",
            "The option leg of a BUY_WRITES order is a CALL sold to open (SELL_OPEN).",
        );
    }
    if call.quantity * Decimal::ONE_HUNDRED != stock.quantity {
        let p = c.legs();
        c.push(
            p,
            "leg_ratio",
            "A BUY_WRITES order covers 100 shares per call contract.",
        );
    }
}

fn butterfly(c: &mut Checker<'_>) {
    let same_type = c
        .ticket
        .legs
        .iter()
        .all(|l| l.call_put == c.ticket.legs[0].call_put);
    if !same_type {
        let p = c.legs();
        c.push(
            p,
            "same_call_put",
            "A BUTTERFLY's legs are all calls or all puts.",
        );
    }
    if !same_expiration(c) {
        return;
    }
    let mut legs: Vec<&TicketLeg> = c.ticket.legs.iter().collect();
    legs.sort_by_key(|l| strike(l));
    let (low, body, high) = (legs[0], legs[1], legs[2]);
    if !(strike(low) < strike(body) && strike(body) < strike(high))
        || strike(body) - strike(low) != strike(high) - strike(body)
    {
        let p = c.legs();
        c.push(
            p,
            "strike_relationship",
            "A BUTTERFLY's strikes must be distinct and equally spaced (lower, body, upper).",
        );
        return;
    }
    if low.is_buy() != high.is_buy() || body.is_buy() == low.is_buy() {
        let p = c.legs();
        c.push(
            p,
            "leg_sides",
            "A BUTTERFLY trades both wings on one side and the body on the other.",
        );
    }
    if low.quantity != high.quantity || body.quantity != low.quantity * Decimal::TWO {
        let p = c.legs();
        c.push(
            p,
            "leg_ratio",
            "A BUTTERFLY's body quantity is twice each wing's (1:2:1).",
        );
    }
}

fn condor(c: &mut Checker<'_>) {
    let same_type = c
        .ticket
        .legs
        .iter()
        .all(|l| l.call_put == c.ticket.legs[0].call_put);
    if !same_type {
        let p = c.legs();
        c.push(
            p,
            "same_call_put",
            "A CONDOR's legs are all calls or all puts.",
        );
    }
    if !same_expiration(c) {
        return;
    }
    let mut legs: Vec<&TicketLeg> = c.ticket.legs.iter().collect();
    legs.sort_by_key(|l| strike(l));
    let s: Vec<Decimal> = legs.iter().map(|l| strike(l)).collect();
    if !(s[0] < s[1] && s[1] < s[2] && s[2] < s[3]) || s[1] - s[0] != s[3] - s[2] {
        let p = c.legs();
        c.push(
            p,
            "strike_relationship",
            "A CONDOR's four strikes must be distinct, with wings of equal width.",
        );
        return;
    }
    if legs[0].is_buy() != legs[3].is_buy()
        || legs[1].is_buy() != legs[2].is_buy()
        || legs[0].is_buy() == legs[1].is_buy()
    {
        let p = c.legs();
        c.push(
            p,
            "leg_sides",
            "A CONDOR trades the outer strikes on one side and the inner strikes on the other.",
        );
    }
    equal_quantities(c, &legs);
}

/// IRON_BUTTERFLY (`body`: the short put and call share a strike) and IRON_CONDOR (every
/// put strike below every call strike).
fn iron(c: &mut Checker<'_>, body: bool) {
    let mut puts: Vec<&TicketLeg> = c
        .ticket
        .legs
        .iter()
        .filter(|l| l.call_put == Some("PUT"))
        .collect();
    let mut calls: Vec<&TicketLeg> = c
        .ticket
        .legs
        .iter()
        .filter(|l| l.call_put == Some("CALL"))
        .collect();
    if puts.len() != 2 || calls.len() != 2 {
        let p = c.legs();
        c.push(
            p,
            "leg_types",
            if body {
                "An IRON_BUTTERFLY has 2 put legs and 2 call legs."
            } else {
                "An IRON_CONDOR has 2 put legs and 2 call legs."
            },
        );
        return;
    }
    if !same_expiration(c) {
        return;
    }
    puts.sort_by_key(|l| strike(l));
    calls.sort_by_key(|l| strike(l));
    let strikes_ok = strike(puts[0]) < strike(puts[1])
        && strike(calls[0]) < strike(calls[1])
        && if body {
            strike(puts[1]) == strike(calls[0])
        } else {
            strike(puts[1]) < strike(calls[0])
        };
    if !strikes_ok {
        let p = c.legs();
        c.push(
            p,
            "strike_relationship",
            if body {
                "An IRON_BUTTERFLY's inner put and call share the middle strike, with the outer put below and the outer call above."
            } else {
                "An IRON_CONDOR's put strikes must both be below its call strikes, each pair distinct."
            },
        );
        return;
    }
    // The inner legs (higher put, lower call) are one side, the wings the other.
    let sides_ok = puts[1].is_buy() == calls[0].is_buy()
        && puts[0].is_buy() == calls[1].is_buy()
        && puts[0].is_buy() != puts[1].is_buy();
    if !sides_ok {
        let p = c.legs();
        c.push(
            p,
            "leg_sides",
            if body {
                "An IRON_BUTTERFLY trades the middle put and call on one side and the wings on the other."
            } else {
                "An IRON_CONDOR trades the inner put and call on one side and the outer ones on the other."
            },
        );
    }
    let all: Vec<&TicketLeg> = c.ticket.legs.iter().collect();
    equal_quantities(c, &all);
}
