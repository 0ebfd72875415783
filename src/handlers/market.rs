//! Market tools: quotes (with per-symbol problems next to good quotes), product lookup,
//! option chains and option expiry dates. Each makes one broker request.

use super::{Handlers, data, unreadable};
use crate::generated;
use runtime::contract::validation::{
    ClientProblem, ClientReason, PathSegment, client_validation_error,
};
use runtime::etrade::Module;
use runtime::etrade::models::lookup::LookupList;
use runtime::etrade::models::options::{ExpirationDates, OptionChain};
use runtime::etrade::models::quotes::QuoteList;
use runtime::mcp::dispatch::ToolResult;

/// E*TRADE quotes at most 25 symbols per request, or 50 with overrideSymbolCount.
const MAX_SYMBOLS: usize = 25;
const MAX_SYMBOLS_OVERRIDE: usize = 50;

fn problem(field: &'static str, reason: ClientReason) -> ClientProblem {
    ClientProblem {
        path: vec![PathSegment::Key(field)],
        reason,
    }
}

pub async fn get_quotes(h: &Handlers, input: generated::GetQuotesInput) -> ToolResult {
    let over = input.override_symbol_count.unwrap_or(false);
    let max = if over {
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
    let mut query = Vec::new();
    if let Some(f) = input.detail_flag {
        query.push(("detailFlag", f.as_str().to_string()));
    }
    if let Some(b) = input.require_earnings_date {
        query.push(("requireEarningsDate", b.to_string()));
    }
    if input.symbols.len() > MAX_SYMBOLS || input.override_symbol_count.is_some() {
        query.push(("overrideSymbolCount", over.to_string()));
    }
    if let Some(b) = input.skip_mini_options_check {
        query.push(("skipMiniOptionsCheck", b.to_string()));
    }
    let path = format!("/v1/market/quote/{}", input.symbols.join(","));
    let body = h.read(Module::Market, &path, &query).await?;
    data(
        &QuoteList::from_wire(body)
            .map_err(unreadable)?
            .with_requested(&input.symbols),
    )
}

pub async fn lookup_product(h: &Handlers, input: generated::LookupProductInput) -> ToolResult {
    let path = format!(
        "/v1/market/lookup/{}",
        runtime::etrade::oauth::encode(input.search.trim())
    );
    let body = h.read(Module::Market, &path, &[]).await?;
    data(&LookupList::from_wire(body).map_err(unreadable)?)
}

pub async fn get_option_chains(h: &Handlers, input: generated::GetOptionChainsInput) -> ToolResult {
    let mut problems = Vec::new();
    if input.expiry_month.is_some() && input.expiry_year.is_none() {
        problems.push(problem("expiry_year", ClientReason::Missing));
    }
    if input.expiry_day.is_some() && input.expiry_month.is_none() {
        problems.push(problem("expiry_month", ClientReason::Missing));
    }
    if let (Some(y), Some(m), Some(d)) = (input.expiry_year, input.expiry_month, input.expiry_day) {
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
    let mut query = vec![("symbol", input.symbol.clone())];
    if let Some(y) = input.expiry_year {
        query.push(("expiryYear", y.to_string()));
    }
    if let Some(m) = input.expiry_month {
        query.push(("expiryMonth", format!("{m:02}")));
    }
    if let Some(d) = input.expiry_day {
        query.push(("expiryDay", format!("{d:02}")));
    }
    if let Some(p) = input.strike_price_near {
        query.push(("strikePriceNear", p.normalize().to_string()));
    }
    if let Some(n) = input.no_of_strikes {
        query.push(("noOfStrikes", n.to_string()));
    }
    if let Some(b) = input.include_weekly {
        query.push(("includeWeekly", b.to_string()));
    }
    if let Some(b) = input.skip_adjusted {
        query.push(("skipAdjusted", b.to_string()));
    }
    if let Some(c) = input.option_category {
        query.push(("optionCategory", c.as_str().to_string()));
    }
    if let Some(c) = input.chain_type {
        query.push(("chainType", c.as_str().to_string()));
    }
    if let Some(p) = input.price_type {
        query.push(("priceType", p.as_str().to_string()));
    }
    let body = h
        .read(Module::Market, "/v1/market/optionchains", &query)
        .await?;
    data(&OptionChain::from_wire(body).map_err(unreadable)?)
}

pub async fn get_option_expire_dates(
    h: &Handlers,
    input: generated::GetOptionExpireDatesInput,
) -> ToolResult {
    let mut query = vec![("symbol", input.symbol.clone())];
    if let Some(t) = input.expiry_type {
        query.push(("expiryType", t.as_str().to_string()));
    }
    let body = h
        .read(Module::Market, "/v1/market/optionexpiredate", &query)
        .await?;
    data(&ExpirationDates::from_wire(body).map_err(unreadable)?)
}
