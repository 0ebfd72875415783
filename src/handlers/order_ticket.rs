//! An order request as the tools take it, turned into the runtime's [`OrderTicket`].

use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::osi::{OptionSymbol, OsiError};
use runtime::etrade::vocabulary::{CallPut, MarketSession, OrderTerm, OrderType, SecurityType};
use runtime::trading::order::{OrderTicket, TicketLeg};
use rust_decimal::Decimal;

fn missing(field: &'static str) -> ClientProblem {
    ClientProblem {
        path: vec![PathSegment::Key("request"), PathSegment::Key(field)],
        reason: ClientReason::Missing,
    }
}

/// Why an OSI symbol was refused, at its own path: the schema's pattern passes the shape,
/// so what is left is mostly a YYMMDD that is no date.
pub fn osi_problem(path: Vec<PathSegment>, e: OsiError) -> ClientProblem {
    let (code, message) = match e {
        OsiError::Shape => (
            "invalid_format",
            "Not an OSI symbol: the root padded to 6 with - or spaces, YYMMDD, C or P, and the strike times 1000 over 8 digits.",
        ),
        OsiError::Date => (
            "invalid_date",
            "The OSI symbol's YYMMDD is not a real date.",
        ),
    };
    ClientProblem {
        path,
        reason: ClientReason::Rule { code, message },
    }
}

/// An option's contract as the request names it: its OSI symbol, or its four fields. The
/// schema refuses an OSI symbol beside any of the fields, so one of the two ways is used.
struct Contract<'a> {
    osi: Option<&'a str>,
    symbol: Option<&'a str>,
    call_put: Option<CallPut>,
    expiration: Option<jiff::civil::Date>,
    strike_price: Option<Decimal>,
}

/// The leg's symbol and option terms; `at` is the object the request names them in.
fn option_terms(
    c: Contract<'_>,
    at: Vec<PathSegment>,
    problems: &mut Vec<ClientProblem>,
) -> Option<(String, CallPut, jiff::civil::Date, Decimal)> {
    if let Some(osi) = c.osi {
        let mut path = at;
        path.push(PathSegment::Key("osi"));
        return match OptionSymbol::parse_osi(osi) {
            Ok(o) => Some((o.root, o.call_put, o.expiry, o.strike)),
            Err(e) => {
                problems.push(osi_problem(path, e));
                None
            }
        };
    }
    match (c.symbol, c.call_put, c.expiration, c.strike_price) {
        (Some(symbol), Some(cp), Some(expiration), Some(strike)) => {
            Some((symbol.to_ascii_uppercase(), cp, expiration, strike))
        }
        _ => {
            problems.push(ClientProblem {
                path: at,
                reason: ClientReason::Rule {
                    code: "conditional_required",
                    message: "An option names its contract by osi, or by symbol, call_put, expiration and strike_price.",
                },
            });
            None
        }
    }
}

/// The schema's rules already require the flat fields for EQ/OPTN and legs for spreads;
/// this resolves an option's OSI symbol into its terms and refuses (never panics) if a
/// request slipped past them.
pub fn ticket(r: &generated::OrderRequest) -> Result<OrderTicket, ToolError> {
    let order_type = r.order_type;
    let mut problems = Vec::new();
    let legs = match &r.legs {
        Some(legs) => legs
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let mut leg = TicketLeg {
                    symbol: l.symbol.as_deref().unwrap_or("").to_ascii_uppercase(),
                    security_type: l.security_type,
                    order_action: l.order_action,
                    quantity: l.quantity,
                    call_put: l.call_put,
                    expiration: l.expiration,
                    strike_price: l.strike_price,
                    osi: l.osi.is_some(),
                };
                let at = vec![
                    PathSegment::Key("request"),
                    PathSegment::Key("legs"),
                    PathSegment::Index(i),
                ];
                if l.security_type == SecurityType::Option {
                    let c = Contract {
                        osi: l.osi.as_deref(),
                        symbol: l.symbol.as_deref(),
                        call_put: l.call_put,
                        expiration: l.expiration,
                        strike_price: l.strike_price,
                    };
                    let (symbol, cp, expiration, strike) = option_terms(c, at, &mut problems)?;
                    leg.symbol = symbol;
                    leg.call_put = Some(cp);
                    leg.expiration = Some(expiration);
                    leg.strike_price = Some(strike);
                } else if l.symbol.is_none() {
                    let mut path = at;
                    path.push(PathSegment::Key("symbol"));
                    problems.push(ClientProblem {
                        path,
                        reason: ClientReason::Missing,
                    });
                }
                Some(leg)
            })
            .collect(),
        None => {
            let option = order_type == OrderType::Option;
            let terms = if option {
                let c = Contract {
                    osi: r.osi.as_deref(),
                    symbol: r.symbol.as_deref(),
                    call_put: r.call_put,
                    expiration: r.expiration,
                    strike_price: r.strike_price,
                };
                option_terms(c, vec![PathSegment::Key("request")], &mut problems)
            } else {
                if r.symbol.is_none() {
                    problems.push(missing("symbol"));
                }
                None
            };
            if r.order_action.is_none() {
                problems.push(missing("order_action"));
            }
            if r.quantity.is_none() {
                problems.push(missing("quantity"));
            }
            let (Some(action), Some(quantity)) = (r.order_action, r.quantity) else {
                return Err(client_validation_error(problems));
            };
            let symbol = match (&terms, &r.symbol) {
                (Some((root, ..)), _) => root.clone(),
                (None, Some(symbol)) if !option => symbol.to_ascii_uppercase(),
                _ => return Err(client_validation_error(problems)),
            };
            vec![TicketLeg {
                symbol,
                security_type: if option {
                    SecurityType::Option
                } else {
                    SecurityType::Equity
                },
                order_action: action,
                quantity,
                call_put: terms.as_ref().map(|t| t.1).or(r.call_put),
                expiration: terms.as_ref().map(|t| t.2).or(r.expiration),
                strike_price: terms.as_ref().map(|t| t.3).or(r.strike_price),
                osi: r.osi.is_some(),
            }]
        }
    };
    if !problems.is_empty() {
        return Err(client_validation_error(problems));
    }
    Ok(OrderTicket {
        order_type,
        price_type: r.price_type,
        order_term: r.order_term.unwrap_or(OrderTerm::GoodForDay),
        market_session: r.market_session.unwrap_or(MarketSession::Regular),
        limit_price: r.limit_price,
        // E*TRADE carries a trailing stop's trail in `stopPrice`; the schema's rules let
        // through at most one of the three, matching the price type.
        stop_price: r.stop_price.or(r.trail_amount).or(r.trail_percent),
        all_or_none: r.all_or_none.unwrap_or(false),
        client_order_id: r.client_order_id.clone(),
        flat: r.legs.is_none(),
        legs,
    })
}
