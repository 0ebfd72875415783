//! `GET /v1/market/lookup/{search}`: symbol lookup by ticker or company-name words.

use serde_json::Value;

use super::SimulatedMarket;
use super::symbols::KNOWN;
use crate::emulation::answers::lookup::{LookupEntry, lookup_response, name_matches, search_words};

impl SimulatedMarket {
    /// `GET /v1/market/lookup/{search}` → `{"LookupResponse": {"Data": [...]}}`: the ticker
    /// itself when the search is one, plus the known companies whose name words start with
    /// every word of the search; otherwise an empty list.
    pub fn lookup_response(&self, search: &str) -> Value {
        let own = self.profile(search);
        let words = search_words(search);
        let simulated: Vec<(&str, String, &str)> = if words.is_empty() {
            Vec::new()
        } else {
            KNOWN
                .iter()
                .filter(|k| name_matches(&words, k.name))
                .map(|k| (k.symbol, format!("{} (SIMULATED)", k.name), k.kind))
                .collect()
        };
        let entries: Vec<LookupEntry<'_>> = own
            .iter()
            .map(|p| LookupEntry {
                symbol: &p.symbol,
                description: &p.name,
                kind: p.kind,
            })
            .chain(
                simulated
                    .iter()
                    .map(|(symbol, description, kind)| LookupEntry {
                        symbol,
                        description,
                        kind,
                    }),
            )
            .collect();
        lookup_response(&entries)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::m;
    use crate::etrade::models::lookup::LookupList;

    #[test]
    fn lookup_parses() {
        let mk = m();
        let l = LookupList::from_wire(Some(mk.lookup_response("ibm"))).expect("parses");
        assert_eq!(l.products.len(), 1);
        assert_eq!(l.products[0].symbol, "IBM");
        assert_eq!(l.products[0].r#type.as_deref(), Some("EQUITY"));
        let l = LookupList::from_wire(Some(mk.lookup_response("apple inc"))).expect("name");
        assert_eq!(l.products[0].symbol, "AAPL");
        let l = LookupList::from_wire(Some(mk.lookup_response("not a ticker 123"))).expect("none");
        assert!(l.products.is_empty());
    }
}
