//! `GET /v1/market/lookup/{search}`: symbol lookup by ticker or company-name words.

use serde_json::{Value, json};

use super::SimulatedMarket;
use super::symbols::KNOWN;

impl SimulatedMarket {
    /// `GET /v1/market/lookup/{search}` → `{"LookupResponse": {"Data": [...]}}`: the ticker
    /// itself when the search is one, plus the known companies whose name words start with
    /// every word of the search; otherwise an empty list.
    pub fn lookup_response(&self, search: &str) -> Value {
        let mut data: Vec<Value> = Vec::new();
        if let Some(p) = self.profile(search) {
            data.push(json!({"symbol": p.symbol, "description": p.name, "type": p.kind}));
        }
        let words: Vec<String> = search
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_uppercase)
            .collect();
        if !words.is_empty() {
            for k in KNOWN {
                let hit = words
                    .iter()
                    .all(|w| k.name.split_whitespace().any(|n| n.starts_with(w.as_str())));
                if hit && !data.iter().any(|d| d["symbol"] == k.symbol) {
                    data.push(json!({"symbol": k.symbol,
                        "description": format!("{} (SIMULATED)", k.name), "type": k.kind}));
                }
            }
        }
        json!({"LookupResponse": {"Data": data}})
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
