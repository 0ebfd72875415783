//! `GET /v1/market/lookup/{search}`: symbol lookup by ticker or company-name words.

use serde_json::Value;

use super::SimulatedMarket;
use super::symbols::{listed, universe};
use crate::emulation::answers::lookup::{LookupEntry, lookup_response, name_matches, search_words};

impl SimulatedMarket {
    /// `GET /v1/market/lookup/{search}` → `{"LookupResponse": {"Data": [...]}}`: the listed
    /// symbol that is the search first, then every listed product whose name words start
    /// with every word of the search (in symbol order); otherwise an empty list. Names are
    /// the real companies' and funds', marked simulated like the quotes.
    pub fn lookup_response(&self, search: &str) -> Value {
        let words = search_words(search);
        let exact = listed(search);
        let by_name = universe()
            .into_iter()
            .flat_map(|u| u.iter())
            .filter(|l| !words.is_empty() && name_matches(&words, &l.name));
        let found: Vec<(&str, String, &str)> = exact
            .into_iter()
            .chain(by_name)
            .map(|l| (l.symbol.as_str(), format!("{} (SIMULATED)", l.name), l.kind))
            .collect();
        let entries: Vec<LookupEntry<'_>> = found
            .iter()
            .map(|(symbol, description, kind)| LookupEntry {
                symbol,
                description,
                kind,
            })
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

    #[test]
    fn lookup_finds_real_companies_only() {
        let mk = m();
        let symbols = |search: &str| -> Vec<String> {
            LookupList::from_wire(Some(mk.lookup_response(search)))
                .expect("parses")
                .products
                .into_iter()
                .map(|p| p.symbol)
                .collect()
        };
        // A name search lists the real company, never a ticker made of the search.
        assert_eq!(symbols("apple"), ["AAPL"]);
        assert!(symbols("appl").iter().all(|s| s != "APPL"));
        // The exact symbol comes first, then the name matches.
        let berkshire = symbols("berkshire");
        assert_eq!(berkshire, ["BRK.B"]);
        assert_eq!(symbols("brk.b")[0], "BRK.B");
        let alphabet = symbols("alphabet");
        assert!(alphabet.contains(&"GOOG".to_string()) && alphabet.contains(&"GOOGL".to_string()));
        assert_eq!(symbols("spy")[0], "SPY");
        let l = LookupList::from_wire(Some(mk.lookup_response("spy"))).expect("spy");
        assert_eq!(l.products[0].r#type.as_deref(), Some("ETF"));
        assert!(symbols("XYZQ").is_empty());
    }
}
