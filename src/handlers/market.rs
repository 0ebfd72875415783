//! The `market` reads that take an option's OSI symbol: E*TRADE's quote and chain requests
//! name a contract in their own spellings, so the OSI symbol is turned into those (by the
//! client's one parser, `runtime::etrade::osi`) before the generated request is built.

use super::Handlers;
use super::order_ticket::osi_problem;
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::answers::{OptionChain, QuoteList};
use runtime::etrade::osi::{OptionSymbol, quote_request_symbol};
use runtime::mcp::dispatch::CallContext;
use runtime::mcp::reads::read_answer;
use runtime::outputs::{GetOptionChainsOutput, GetQuotesOutput};

impl generated::MarketHandlers for Handlers {
    async fn get_quotes(
        &self,
        _ctx: &CallContext,
        mut input: generated::GetQuotesInput,
    ) -> Result<GetQuotesOutput, ToolError> {
        // E*TRADE quotes an option only by its quote symbol (ROOT:YYYY:M:D:CALL:STRIKE).
        for s in &mut input.symbols {
            *s = quote_request_symbol(s);
        }
        let QuoteList {
            quotes,
            messages,
            unquoted_symbols,
        } = read_answer(self.broker.as_ref(), &input.broker_request()).await?;
        Ok(GetQuotesOutput {
            quotes,
            messages,
            unquoted_symbols,
        })
    }

    async fn get_option_chains(
        &self,
        _ctx: &CallContext,
        mut input: generated::GetOptionChainsInput,
    ) -> Result<GetOptionChainsOutput, ToolError> {
        match input.osi.take() {
            // The schema refuses symbol and expiry_* beside osi: it names them.
            Some(osi) => {
                let o = OptionSymbol::parse_osi(&osi).map_err(|e| {
                    client_validation_error([osi_problem(vec![PathSegment::Key("osi")], e)])
                })?;
                input.symbol = Some(o.root);
                input.expiry_year = Some(i64::from(o.expiry.year()));
                input.expiry_month = Some(i64::from(o.expiry.month()));
                input.expiry_day = Some(i64::from(o.expiry.day()));
                input.strike_price_near = input.strike_price_near.or(Some(o.strike));
            }
            None if input.symbol.is_none() => {
                return Err(client_validation_error([ClientProblem {
                    path: vec![PathSegment::Key("symbol")],
                    reason: ClientReason::Rule {
                        code: "missing",
                        message: "Give symbol (the underlier), or osi (a contract's OSI symbol).",
                    },
                }]));
            }
            None => {}
        }
        let chain: OptionChain = read_answer(self.broker.as_ref(), &input.broker_request()).await?;
        Ok(GetOptionChainsOutput(chain))
    }
}
