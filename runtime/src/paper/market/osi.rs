//! An option's symbol back into a contract of the paper market: the quote form
//! (`IBM:2026:12:18:CALL:200`) or an OSI symbol, read by the E*TRADE client's one parser
//! ([`crate::etrade::osi`]), for an underlier paper lists.

use super::symbols::listed;
use crate::etrade::osi::OptionSymbol;
use crate::paper::touch::OptionContract;

pub(super) fn parse_option_symbol(s: &str) -> Option<OptionContract> {
    let o = OptionSymbol::parse_quote_symbol(s).or_else(|| OptionSymbol::parse_osi(s).ok())?;
    let underlying = listed(&o.root)?.symbol.clone();
    Some(OptionContract {
        underlying,
        expiration: o.expiry,
        call_put: o.call_put,
        strike: o.strike,
    })
}
