//! Domain rules the schema cannot state: which price types, actions and terms go together,
//! option expirations and quantities, leg counts and strike relationships per spread type,
//! all-or-none minimums and price increments. Problems come back as [`ClientProblem`]s, so
//! the host sees them in the contract's `invalid_input` structure; every message is fixed
//! text from this file (never a submitted value).

use super::order::{OrderTicket, TicketLeg};
use crate::contract::validation::{ClientProblem, ClientReason, PathSegment};
use crate::etrade::vocabulary::{
    CallPut, MarketSession, OrderAction, OrderTerm, OrderType, PriceType, Trail,
};
use jiff::civil::{Date, Weekday};
use rust_decimal::Decimal;

/// E*TRADE's all-or-none minimum for stock orders.
pub const ALL_OR_NONE_MIN_SHARES: u32 = 300;

/// Which orders a price type prices: a flat (EQ, OPTN) order, a spread, or neither (a
/// type the tools do not take).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Priced {
    Flat,
    Spread,
    Neither,
}

fn priced(price_type: PriceType) -> Priced {
    match price_type {
        PriceType::Market
        | PriceType::Limit
        | PriceType::Stop
        | PriceType::StopLimit
        | PriceType::TrailingStopConstant
        | PriceType::TrailingStopPercent
        | PriceType::MarketOnOpen
        | PriceType::MarketOnClose
        | PriceType::LimitOnOpen
        | PriceType::LimitOnClose => Priced::Flat,
        PriceType::NetDebit | PriceType::NetCredit | PriceType::NetEven => Priced::Spread,
        // The triggered and hidden variants are conditional orders E*TRADE's preview
        // documents no members for.
        PriceType::TrailingStopConstantByLowerTrigger
        | PriceType::UpperTriggerByTrailingStopConstant
        | PriceType::TrailingStopPercentByLowerTrigger
        | PriceType::UpperTriggerByTrailingStopPercent
        | PriceType::HiddenStop
        | PriceType::HiddenStopByLowerTrigger
        | PriceType::UpperTriggerByHiddenStop => Priced::Neither,
    }
}

/// The input field that carries the order's `stopPrice`: the trail for a trailing stop.
fn stop_field(price_type: PriceType) -> &'static str {
    match price_type.trail() {
        Some(Trail::Dollars) => "trail_amount",
        Some(Trail::Percent) => "trail_percent",
        None => "stop_price",
    }
}

/// The price is a limit (or a net limit): what IMMEDIATE_OR_CANCEL and FILL_OR_KILL need.
fn limit_priced(price_type: PriceType) -> bool {
    matches!(
        price_type,
        PriceType::Limit | PriceType::NetDebit | PriceType::NetCredit
    )
}

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
        let by_osi = self.ticket.legs.get(i).is_some_and(|l| l.osi);
        let name = match name {
            "call_put" | "expiration" | "strike_price" if by_osi => "osi",
            other => other,
        };
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
    let wanted = if t.is_spread() {
        Priced::Spread
    } else {
        Priced::Flat
    };
    if priced(t.price_type) != wanted {
        let message = if t.is_spread() {
            "A spread order's price_type is NET_DEBIT, NET_CREDIT or NET_EVEN."
        } else {
            "An EQ or OPTN order's price_type is MARKET, LIMIT, STOP, STOP_LIMIT, TRAILING_STOP_CNST, TRAILING_STOP_PRCT, or (EQ) MARKET_ON_OPEN, MARKET_ON_CLOSE, LIMIT_ON_OPEN, LIMIT_ON_CLOSE."
        };
        let p = c.field("price_type");
        c.push(p, "not_allowed", message);
    }
    if t.price_type == PriceType::Market && t.order_term != OrderTerm::GoodForDay {
        let p = c.request();
        c.push(p, "market_term", "A MARKET order must be GOOD_FOR_DAY.");
    }
    if t.price_type.auction().is_some() {
        auction_rules(c);
    }
    if let Some(trail) = t.price_type.trail() {
        trail_rules(c, trail);
    }
    if t.order_term.decided_when_placed() && !limit_priced(t.price_type) {
        let p = c.request();
        c.push(
            p,
            "term_needs_limit",
            "IMMEDIATE_OR_CANCEL and FILL_OR_KILL orders need a limit price (LIMIT, NET_DEBIT or NET_CREDIT).",
        );
    }
    if t.market_session == MarketSession::Extended
        && (t.price_type != PriceType::Limit || t.order_term != OrderTerm::GoodForDay)
    {
        let p = c.request();
        c.push(
            p,
            "extended_session",
            "An EXTENDED-session order must be a LIMIT order, GOOD_FOR_DAY.",
        );
    }
    if t.all_or_none
        && matches!(
            t.price_type,
            PriceType::Market | PriceType::MarketOnOpen | PriceType::MarketOnClose
        )
    {
        let p = c.request();
        c.push(
            p,
            "all_or_none_market",
            "An all-or-none order needs a limit price (not MARKET, MARKET_ON_OPEN or MARKET_ON_CLOSE).",
        );
    }
    let option = t.legs.iter().any(TicketLeg::is_option);
    // A trail is checked by `trail_rules`: it is an amount or a percent, not a price.
    let stop = t.stop_price.filter(|_| t.price_type.trail().is_none());
    for (name, price) in [("limit_price", t.limit_price), ("stop_price", stop)] {
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

/// On-open and on-close orders trade in a stock's opening or closing auction, once: they
/// are stock orders and day orders.
fn auction_rules(c: &mut Checker<'_>) {
    let t = c.ticket;
    if t.order_type != OrderType::Equity {
        let p = c.field("price_type");
        c.push(
            p,
            "auction_equity_only",
            "MARKET_ON_OPEN, MARKET_ON_CLOSE, LIMIT_ON_OPEN and LIMIT_ON_CLOSE are for stock (EQ) orders only.",
        );
    }
    if t.order_term != OrderTerm::GoodForDay {
        let p = c.field("order_term");
        c.push(
            p,
            "auction_term",
            "An on-open or on-close order (MARKET_ON_OPEN, MARKET_ON_CLOSE, LIMIT_ON_OPEN, LIMIT_ON_CLOSE) must be GOOD_FOR_DAY.",
        );
    }
}

/// A trailing stop's `stopPrice` is the trail: positive, in cents for dollars, and a
/// percent below 100 (a 100% trail could never trigger a sell).
fn trail_rules(c: &mut Checker<'_>, trail: Trail) {
    let t = c.ticket;
    let name = stop_field(t.price_type);
    let Some(value) = t.stop_price else {
        let p = c.field(name);
        c.push(
            p,
            "trail_missing",
            "A trailing stop needs its trail: trail_amount for TRAILING_STOP_CNST, trail_percent for TRAILING_STOP_PRCT.",
        );
        return;
    };
    if value <= Decimal::ZERO {
        let p = c.field(name);
        c.push(p, "trail_not_positive", "The trail must be greater than 0.");
        return;
    }
    if trail == Trail::Percent && value >= Decimal::ONE_HUNDRED {
        let p = c.field(name);
        c.push(
            p,
            "trail_percent_range",
            "trail_percent must be less than 100 (e.g. \"5\" for 5%).",
        );
    }
    if value.normalize().scale() > 2 {
        let p = c.field(name);
        c.push(
            p,
            "trail_increment",
            "Too many decimal places: a trail has at most 2.",
        );
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
    if !leg.order_action.fits(leg.security_type) {
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
        OrderType::Spreads => (2, "A SPREADS order has 2 option legs."),
        OrderType::BuyWrites => (
            2,
            "A BUY_WRITES order has 2 legs: the stock and a covered call.",
        ),
        OrderType::Butterfly => (3, "A BUTTERFLY has 3 legs: lower wing, body, upper wing."),
        OrderType::IronButterfly => (4, "An IRON_BUTTERFLY has 4 legs: 2 puts and 2 calls."),
        OrderType::Condor => (4, "A CONDOR has 4 legs."),
        OrderType::IronCondor => (4, "An IRON_CONDOR has 4 legs: 2 puts and 2 calls."),
        // Not spreads: `check_ticket` calls this only for spreads.
        OrderType::Equity
        | OrderType::Option
        | OrderType::MutualFund
        | OrderType::MoneyMarketFund => return,
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
    if t.order_type == OrderType::BuyWrites {
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
        OrderType::Spreads => vertical_or_calendar(c),
        OrderType::Butterfly => butterfly(c),
        OrderType::IronButterfly => iron(c, true),
        OrderType::Condor => condor(c),
        OrderType::IronCondor => iron(c, false),
        OrderType::BuyWrites
        | OrderType::Equity
        | OrderType::Option
        | OrderType::MutualFund
        | OrderType::MoneyMarketFund => {}
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
    if stock.order_action != OrderAction::Buy {
        let p = c.leg_field(s, "order_action");
        c.push(
            p,
            "not_allowed",
            "The stock leg of a BUY_WRITES order is BUY.",
        );
    }
    if call.call_put != Some(CallPut::Call) || call.order_action != OrderAction::SellOpen {
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
        .filter(|l| l.call_put == Some(CallPut::Put))
        .collect();
    let mut calls: Vec<&TicketLeg> = c
        .ticket
        .legs
        .iter()
        .filter(|l| l.call_put == Some(CallPut::Call))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etrade::vocabulary::SecurityType;
    use jiff::civil::date;
    use proptest::prelude::*;

    const TODAY: Date = date(2026, 12, 1);

    fn word<T>(parse: fn(&str) -> Option<T>, text: &str) -> T {
        parse(text).unwrap_or_else(|| panic!("{text} is not an E*TRADE word here"))
    }

    fn leg(action: &'static str, cp: &'static str, strike: i64, qty: i64) -> TicketLeg {
        TicketLeg {
            symbol: "AAPL".into(),
            security_type: SecurityType::Option,
            order_action: word(OrderAction::parse, action),
            quantity: Decimal::from(qty),
            call_put: Some(word(CallPut::parse, cp)),
            expiration: Some(date(2026, 12, 18)),
            strike_price: Some(Decimal::from(strike)),
            osi: false,
        }
    }

    fn spread(
        order_type: &'static str,
        price_type: &'static str,
        legs: Vec<TicketLeg>,
    ) -> OrderTicket {
        OrderTicket {
            order_type: word(OrderType::parse, order_type),
            price_type: word(PriceType::parse, price_type),
            order_term: OrderTerm::GoodForDay,
            market_session: MarketSession::Regular,
            limit_price: Some(Decimal::ONE),
            stop_price: None,
            all_or_none: false,
            client_order_id: None,
            legs,
            flat: false,
        }
    }

    fn flat(price_type: &'static str, term: &'static str, session: &'static str) -> OrderTicket {
        OrderTicket {
            order_type: OrderType::Equity,
            price_type: word(PriceType::parse, price_type),
            order_term: word(OrderTerm::parse, term),
            market_session: word(MarketSession::parse, session),
            limit_price: matches!(price_type, "LIMIT" | "STOP_LIMIT").then_some(Decimal::from(170)),
            stop_price: matches!(price_type, "STOP" | "STOP_LIMIT").then_some(Decimal::from(160)),
            all_or_none: false,
            client_order_id: None,
            legs: vec![TicketLeg {
                symbol: "AAPL".into(),
                security_type: SecurityType::Equity,
                order_action: OrderAction::Buy,
                quantity: Decimal::from(10),
                call_put: None,
                expiration: None,
                strike_price: None,
                osi: false,
            }],
            flat: true,
        }
    }

    fn codes(t: &OrderTicket) -> Vec<&'static str> {
        check_ticket(t, TODAY)
            .into_iter()
            .map(|p| match p.reason {
                ClientReason::Rule { code, .. } => code,
                _ => "other",
            })
            .collect()
    }

    fn paths(t: &OrderTicket) -> Vec<String> {
        check_ticket(t, TODAY)
            .into_iter()
            .map(|p| serde_json::to_string(&p.path).unwrap_or_default())
            .collect()
    }

    #[test]
    fn well_formed_spreads_pass() {
        let cases = [
            spread(
                "SPREADS",
                "NET_DEBIT",
                vec![
                    leg("BUY_OPEN", "CALL", 180, 1),
                    leg("SELL_OPEN", "CALL", 185, 1),
                ],
            ),
            spread(
                "BUTTERFLY",
                "NET_DEBIT",
                vec![
                    leg("BUY_OPEN", "CALL", 180, 1),
                    leg("SELL_OPEN", "CALL", 185, 2),
                    leg("BUY_OPEN", "CALL", 190, 1),
                ],
            ),
            spread(
                "CONDOR",
                "NET_DEBIT",
                vec![
                    leg("BUY_OPEN", "PUT", 170, 1),
                    leg("SELL_OPEN", "PUT", 175, 1),
                    leg("SELL_OPEN", "PUT", 185, 1),
                    leg("BUY_OPEN", "PUT", 190, 1),
                ],
            ),
            spread(
                "IRON_CONDOR",
                "NET_CREDIT",
                vec![
                    leg("BUY_OPEN", "PUT", 170, 1),
                    leg("SELL_OPEN", "PUT", 175, 1),
                    leg("SELL_OPEN", "CALL", 185, 1),
                    leg("BUY_OPEN", "CALL", 190, 1),
                ],
            ),
            spread(
                "IRON_BUTTERFLY",
                "NET_CREDIT",
                vec![
                    leg("BUY_OPEN", "PUT", 175, 1),
                    leg("SELL_OPEN", "PUT", 180, 1),
                    leg("SELL_OPEN", "CALL", 180, 1),
                    leg("BUY_OPEN", "CALL", 185, 1),
                ],
            ),
        ];
        for t in cases {
            assert_eq!(codes(&t), Vec::<&str>::new(), "{}", t.order_type);
        }
        let mut stock = leg("BUY", "CALL", 0, 200);
        stock.security_type = SecurityType::Equity;
        stock.call_put = None;
        stock.expiration = None;
        stock.strike_price = None;
        let bw = spread(
            "BUY_WRITES",
            "NET_DEBIT",
            vec![stock, leg("SELL_OPEN", "CALL", 185, 2)],
        );
        assert_eq!(codes(&bw), Vec::<&str>::new());
    }

    #[test]
    fn price_rules_point_at_the_request() {
        assert_eq!(
            codes(&flat("MARKET", "GOOD_UNTIL_CANCEL", "REGULAR")),
            ["market_term"]
        );
        assert_eq!(
            codes(&flat("MARKET", "GOOD_FOR_DAY", "EXTENDED")),
            ["extended_session"]
        );
        assert_eq!(
            codes(&flat("STOP", "IMMEDIATE_OR_CANCEL", "REGULAR")),
            ["term_needs_limit"]
        );
        assert_eq!(
            codes(&flat("NET_DEBIT", "GOOD_FOR_DAY", "REGULAR")),
            ["not_allowed"]
        );
        assert_eq!(
            paths(&flat("MARKET", "FILL_OR_KILL", "REGULAR"))[0],
            r#"["request"]"#
        );
        let mut aon = flat("LIMIT", "GOOD_FOR_DAY", "REGULAR");
        aon.all_or_none = true;
        assert_eq!(codes(&aon), ["all_or_none_minimum"]);
        aon.legs[0].quantity = Decimal::from(300);
        assert!(codes(&aon).is_empty());
        let mut sub_penny = flat("LIMIT", "GOOD_FOR_DAY", "REGULAR");
        sub_penny.limit_price = Some(Decimal::new(170_001, 3));
        assert_eq!(paths(&sub_penny), [r#"["request","limit_price"]"#]);
        sub_penny.limit_price = Some(Decimal::new(5_001, 4));
        assert!(codes(&sub_penny).is_empty(), "4 places below $1");
    }

    #[test]
    fn option_legs_name_their_own_paths() {
        let mut t = spread(
            "SPREADS",
            "NET_DEBIT",
            vec![
                leg("BUY_OPEN", "CALL", 180, 1),
                leg("SELL_OPEN", "CALL", 185, 1),
            ],
        );
        t.legs[1].expiration = Some(date(2026, 11, 20));
        t.legs[0].quantity = Decimal::new(15, 1);
        let p = paths(&t);
        assert!(
            p.contains(&r#"["request","legs",1,"expiration"]"#.to_string()),
            "{p:?}"
        );
        assert!(
            p.contains(&r#"["request","legs",0,"quantity"]"#.to_string()),
            "{p:?}"
        );
    }

    fn strike_strategy() -> impl Strategy<Value = i64> {
        1i64..2000
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// A butterfly passes exactly when its strikes are equally spaced.
        #[test]
        fn butterfly_spacing(low in strike_strategy(), w1 in 1i64..50, w2 in 1i64..50) {
            let t = spread("BUTTERFLY", "NET_DEBIT", vec![
                leg("BUY_OPEN", "CALL", low, 1),
                leg("SELL_OPEN", "CALL", low + w1, 2),
                leg("BUY_OPEN", "CALL", low + w1 + w2, 1),
            ]);
            let c = codes(&t);
            prop_assert_eq!(c.is_empty(), w1 == w2, "{:?}", c);
            if w1 != w2 {
                prop_assert_eq!(c, vec!["strike_relationship"]);
            }
        }

        /// An iron condor passes exactly when every put strike is below every call strike.
        #[test]
        fn iron_condor_strikes(p1 in strike_strategy(), dp in 1i64..50, gap in -60i64..60, dc in 1i64..50) {
            let p2 = p1 + dp;
            let c1 = p2 + gap;
            let c2 = c1 + dc;
            prop_assume!(c1 > 0);
            let t = spread("IRON_CONDOR", "NET_CREDIT", vec![
                leg("BUY_OPEN", "PUT", p1, 1),
                leg("SELL_OPEN", "PUT", p2, 1),
                leg("SELL_OPEN", "CALL", c1, 1),
                leg("BUY_OPEN", "CALL", c2, 1),
            ]);
            let c = codes(&t);
            prop_assert_eq!(c.is_empty(), gap > 0, "{:?}", c);
        }

        /// Expirations: past dates and weekends are refused at the leg's own path; any
        /// later weekday passes.
        #[test]
        fn expirations(offset in -400i32..800) {
            let exp = TODAY.checked_add(jiff::Span::new().days(offset)).unwrap_or(TODAY);
            let mut t = flat("LIMIT", "GOOD_FOR_DAY", "REGULAR");
            t.order_type = OrderType::Option;
            t.legs[0] = leg("BUY_OPEN", "CALL", 180, 1);
            t.legs[0].expiration = Some(exp);
            let c = codes(&t);
            let weekend = matches!(exp.weekday(), Weekday::Saturday | Weekday::Sunday);
            let expected: Vec<&str> = if exp < TODAY {
                vec!["expired"]
            } else if weekend {
                vec!["not_an_expiration"]
            } else {
                vec![]
            };
            prop_assert_eq!(c, expected);
            if exp < TODAY || weekend {
                prop_assert_eq!(paths(&t), vec![r#"["request","expiration"]"#.to_string()]);
            }
        }

        /// Any ticket: no panic, every problem inside `request`, messages within limits.
        #[test]
        fn arbitrary_tickets_never_panic(
            ot in prop::sample::select(OrderType::ALL.to_vec()),
            pt in prop::sample::select(PriceType::ALL.to_vec()),
            term in prop::sample::select(OrderTerm::ALL.to_vec()),
            session in prop::sample::select(MarketSession::ALL.to_vec()),
            aon in any::<bool>(),
            legs in prop::collection::vec((
                prop::sample::select(OrderAction::ALL.to_vec()),
                prop::sample::select(CallPut::ALL.to_vec()),
                0i64..300, 1i64..500, any::<bool>(), -30i32..60), 0..5),
        ) {
            let legs: Vec<TicketLeg> = legs.into_iter().map(|(a, cp, s, q, opt, d)| TicketLeg {
                symbol: "X".into(),
                security_type: if opt { SecurityType::Option } else { SecurityType::Equity },
                order_action: a,
                quantity: Decimal::new(q, 1),
                call_put: opt.then_some(cp),
                expiration: opt.then(|| TODAY.checked_add(jiff::Span::new().days(d)).unwrap_or(TODAY)),
                strike_price: opt.then(|| Decimal::from(s)),
                osi: false,
            }).collect();
            let t = OrderTicket {
                order_type: ot, price_type: pt, order_term: term, market_session: session,
                limit_price: Some(Decimal::new(12345, 3)), stop_price: None, all_or_none: aon,
                client_order_id: None, flat: legs.len() <= 1 && !ot.is_spread(), legs,
            };
            for p in check_ticket(&t, TODAY) {
                prop_assert_eq!(&p.path[0], &PathSegment::Key("request"));
                prop_assert!(p.path.len() <= 4);
                if let ClientReason::Rule { message, .. } = p.reason {
                    prop_assert!(message.len() <= 256);
                }
            }
        }
    }

    fn trailing(price_type: &'static str, trail: &str) -> OrderTicket {
        let mut t = flat(price_type, "GOOD_UNTIL_CANCEL", "REGULAR");
        t.stop_price = trail.parse().ok();
        t.legs[0].order_action = OrderAction::Sell;
        t
    }

    #[test]
    fn trailing_stops_pass_with_a_sound_trail() {
        assert!(codes(&trailing("TRAILING_STOP_CNST", "2.50")).is_empty());
        assert!(codes(&trailing("TRAILING_STOP_PRCT", "5")).is_empty());
        assert!(codes(&trailing("TRAILING_STOP_PRCT", "99.5")).is_empty());
        let mut day = trailing("TRAILING_STOP_CNST", "1");
        day.order_term = OrderTerm::GoodForDay;
        assert!(codes(&day).is_empty());
        // A trail under $1 is not a sub-dollar stock price: 2 places, not 4.
        assert!(codes(&trailing("TRAILING_STOP_CNST", "0.25")).is_empty());
    }

    #[test]
    fn a_missing_or_unsound_trail_is_refused_at_its_field() {
        let missing = trailing("TRAILING_STOP_CNST", "");
        assert_eq!(codes(&missing), ["trail_missing"]);
        assert_eq!(paths(&missing), [r#"["request","trail_amount"]"#]);
        let zero = trailing("TRAILING_STOP_PRCT", "0");
        assert_eq!(codes(&zero), ["trail_not_positive"]);
        assert_eq!(paths(&zero), [r#"["request","trail_percent"]"#]);
        assert_eq!(
            codes(&trailing("TRAILING_STOP_CNST", "-1")),
            ["trail_not_positive"]
        );
        let hundred = trailing("TRAILING_STOP_PRCT", "100");
        assert_eq!(codes(&hundred), ["trail_percent_range"]);
        assert_eq!(paths(&hundred), [r#"["request","trail_percent"]"#]);
        assert_eq!(
            codes(&trailing("TRAILING_STOP_CNST", "1.005")),
            ["trail_increment"]
        );
        assert_eq!(
            codes(&trailing("TRAILING_STOP_PRCT", "2.125")),
            ["trail_increment"]
        );
        // A dollar trail may be 100 or more: only the percent has a ceiling.
        assert!(codes(&trailing("TRAILING_STOP_CNST", "150")).is_empty());
    }

    #[test]
    fn trailing_stops_take_no_immediate_terms_nor_the_extended_session() {
        let mut ioc = trailing("TRAILING_STOP_CNST", "1");
        ioc.order_term = OrderTerm::ImmediateOrCancel;
        assert_eq!(codes(&ioc), ["term_needs_limit"]);
        let mut ext = trailing("TRAILING_STOP_PRCT", "3");
        ext.order_term = OrderTerm::GoodForDay;
        ext.market_session = MarketSession::Extended;
        assert_eq!(codes(&ext), ["extended_session"]);
    }

    fn auction(price_type: &'static str) -> OrderTicket {
        let mut t = flat(price_type, "GOOD_FOR_DAY", "REGULAR");
        t.limit_price = price_type
            .starts_with("LIMIT")
            .then_some(Decimal::from(170));
        t
    }

    #[test]
    fn on_open_and_on_close_orders_are_stock_day_orders() {
        for p in [
            "MARKET_ON_OPEN",
            "MARKET_ON_CLOSE",
            "LIMIT_ON_OPEN",
            "LIMIT_ON_CLOSE",
        ] {
            assert!(codes(&auction(p)).is_empty(), "{p}");
            let mut gtc = auction(p);
            gtc.order_term = OrderTerm::GoodUntilCancel;
            assert_eq!(codes(&gtc), ["auction_term"], "{p}");
            assert_eq!(paths(&gtc), [r#"["request","order_term"]"#]);
            let mut ext = auction(p);
            ext.market_session = MarketSession::Extended;
            assert_eq!(codes(&ext), ["extended_session"], "{p}");
            let mut option = auction(p);
            option.order_type = OrderType::Option;
            option.legs = vec![leg("BUY_OPEN", "CALL", 180, 1)];
            assert_eq!(codes(&option), ["auction_equity_only"], "{p}");
            assert_eq!(paths(&option), [r#"["request","price_type"]"#]);
        }
        let mut fok = auction("LIMIT_ON_CLOSE");
        fok.order_term = OrderTerm::FillOrKill;
        assert_eq!(codes(&fok), ["auction_term", "term_needs_limit"]);
        let mut aon = auction("MARKET_ON_CLOSE");
        aon.all_or_none = true;
        aon.legs[0].quantity = Decimal::from(500);
        assert_eq!(codes(&aon), ["all_or_none_market"]);
    }

    #[test]
    fn spreads_take_neither_trailing_stops_nor_auctions() {
        for p in ["TRAILING_STOP_CNST", "MARKET_ON_CLOSE", "LIMIT_ON_OPEN"] {
            let mut t = spread(
                "SPREADS",
                p,
                vec![
                    leg("BUY_OPEN", "CALL", 180, 1),
                    leg("SELL_OPEN", "CALL", 185, 1),
                ],
            );
            t.stop_price = p.starts_with("TRAILING").then_some(Decimal::ONE);
            assert!(codes(&t).contains(&"not_allowed"), "{p}");
        }
    }
}
