//! An order request as the tools take it, turned into the runtime's [`OrderTicket`].

use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::vocabulary::{MarketSession, OrderTerm, OrderType, SecurityType};
use runtime::trading::order::{OrderTicket, TicketLeg};

fn missing(field: &'static str) -> ClientProblem {
    ClientProblem {
        path: vec![PathSegment::Key("request"), PathSegment::Key(field)],
        reason: ClientReason::Missing,
    }
}

/// The schema's rules already require the flat fields for EQ/OPTN and legs for spreads;
/// this only refuses (never panics) if a request slipped past them.
pub fn ticket(r: &generated::OrderRequest) -> Result<OrderTicket, ToolError> {
    let order_type = r.order_type;
    let legs = match &r.legs {
        Some(legs) => legs
            .iter()
            .map(|l| TicketLeg {
                symbol: l.symbol.to_ascii_uppercase(),
                security_type: l.security_type,
                order_action: l.order_action,
                quantity: l.quantity,
                call_put: l.call_put,
                expiration: l.expiration,
                strike_price: l.strike_price,
            })
            .collect(),
        None => {
            let mut problems = Vec::new();
            if r.symbol.is_none() {
                problems.push(missing("symbol"));
            }
            if r.order_action.is_none() {
                problems.push(missing("order_action"));
            }
            if r.quantity.is_none() {
                problems.push(missing("quantity"));
            }
            let (Some(symbol), Some(action), Some(quantity)) =
                (&r.symbol, r.order_action, r.quantity)
            else {
                return Err(client_validation_error(problems));
            };
            vec![TicketLeg {
                symbol: symbol.to_ascii_uppercase(),
                security_type: if order_type == OrderType::Option {
                    SecurityType::Option
                } else {
                    SecurityType::Equity
                },
                order_action: action,
                quantity,
                call_put: r.call_put,
                expiration: r.expiration,
                strike_price: r.strike_price,
            }]
        }
    };
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
