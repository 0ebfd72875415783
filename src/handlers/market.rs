//! The `market` tools with logic of their own: quotes (25 symbols, or 50 with
//! overrideSymbolCount), product lookup (the words trimmed) and option chains (the expiry
//! parts must name a real date). Option expiry dates are a generated read.

use super::Handlers;
use crate::generated;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::answers::{LookupList, OptionChain, QuoteList};
use runtime::mcp::dispatch::{CallContext, ToolResult};
use runtime::mcp::reads::read;

/// E*TRADE quotes at most 25 symbols per request, or 50 with overrideSymbolCount.
const MAX_SYMBOLS: usize = 25;
const MAX_SYMBOLS_OVERRIDE: usize = 50;

fn problem(field: &'static str, reason: ClientReason) -> ClientProblem {
    ClientProblem {
        path: vec![PathSegment::Key(field)],
        reason,
    }
}

impl generated::MarketHandlers for Handlers {
    async fn get_quotes(&self, _ctx: &CallContext, input: generated::GetQuotesInput) -> ToolResult {
        let max = if input.override_symbol_count == Some(true) {
            MAX_SYMBOLS_OVERRIDE
        } else {
            MAX_SYMBOLS
        };
        if input.symbols.len() > max {
            return Err(client_validation_error([problem(
                "symbols",
                ClientReason::TooMany { max },
            )]));
        }
        read::<QuoteList>(self.broker.as_ref(), &input.broker_request()).await
    }

    async fn lookup_product(
        &self,
        _ctx: &CallContext,
        mut input: generated::LookupProductInput,
    ) -> ToolResult {
        input.search = input.search.trim().to_string();
        read::<LookupList>(self.broker.as_ref(), &input.broker_request()).await
    }

    async fn get_option_chains(
        &self,
        _ctx: &CallContext,
        input: generated::GetOptionChainsInput,
    ) -> ToolResult {
        let mut problems = Vec::new();
        if input.expiry_month.is_some() && input.expiry_year.is_none() {
            problems.push(problem("expiry_year", ClientReason::Missing));
        }
        if input.expiry_day.is_some() && input.expiry_month.is_none() {
            problems.push(problem("expiry_month", ClientReason::Missing));
        }
        if let (Some(y), Some(m), Some(d)) =
            (input.expiry_year, input.expiry_month, input.expiry_day)
        {
            let real = i16::try_from(y)
                .ok()
                .zip(i8::try_from(m).ok())
                .zip(i8::try_from(d).ok());
            if real.is_none_or(|((y, m), d)| jiff::civil::Date::new(y, m, d).is_err()) {
                problems.push(problem("expiry_day", ClientReason::OutOfRange));
            }
        }
        if !problems.is_empty() {
            return Err(client_validation_error(problems));
        }
        read::<OptionChain>(self.broker.as_ref(), &input.broker_request()).await
    }
}
