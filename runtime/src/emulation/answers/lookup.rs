//! `GET /v1/market/lookup/{search}`: products whose symbol is the search or whose name has
//! every word of it.

use serde_json::{Value, json};

/// One product found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookupEntry<'a> {
    pub symbol: &'a str,
    pub description: &'a str,
    /// EQUITY | ETF | MUTUAL_FUND | …
    pub kind: &'a str,
}

/// The search's words, upper case (split at anything not a letter or digit).
pub fn search_words(search: &str) -> Vec<String> {
    search
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_uppercase)
        .collect()
}

/// Every word starts a word of `name`.
pub fn name_matches(words: &[String], name: &str) -> bool {
    words
        .iter()
        .all(|w| name.split_whitespace().any(|n| n.starts_with(w.as_str())))
}

/// The answer, each symbol once (the first entry naming it wins).
pub fn lookup_response(entries: &[LookupEntry<'_>]) -> Value {
    let mut data: Vec<Value> = Vec::new();
    for e in entries {
        if !data.iter().any(|d| d["symbol"] == e.symbol) {
            data.push(json!({"symbol": e.symbol, "description": e.description, "type": e.kind}));
        }
    }
    json!({"LookupResponse": {"Data": data}})
}
