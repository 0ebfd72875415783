//! `GET /v1/market/lookup/{search}` → `LookupResponse.Data[]`.

pub use super::generated::LookupProduct;
use crate::etrade::BrokerBody;
use crate::etrade::one_or_many;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
pub struct LookupResponse {
    #[serde(rename = "LookupResponse")]
    pub response: LookupBody,
}

#[derive(Debug, Default, Deserialize)]
pub struct LookupBody {
    #[serde(rename = "Data", alias = "data", deserialize_with = "one_or_many")]
    pub data: Vec<LookupProduct>,
}

/// The `lookup_product` data object.
#[derive(Debug, Serialize)]
pub struct LookupList {
    pub products: Vec<LookupProduct>,
}

impl LookupList {
    /// `None` (an empty body) means no matches.
    pub fn from_wire(body: Option<impl Into<BrokerBody>>) -> Result<LookupList, serde_json::Error> {
        let products = match body {
            None => Vec::new(),
            Some(v) => v.into().read::<LookupResponse>()?.response.data,
        };
        Ok(LookupList { products })
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_one_or_many() {
        let wire = json!({"LookupResponse": {"Data": [
            {"symbol": "AAPL", "description": "APPLE INC COM", "type": "EQUITY"},
            {"symbol": "APLE", "description": "APPLE HOSPITALITY REIT INC", "type": "EQUITY"}]}});
        let l = LookupList::from_wire(Some(wire)).expect("parses");
        assert_eq!(l.products.len(), 2);
        let out = serde_json::to_value(&l).expect("serializes");
        assert_eq!(out["products"][0]["type"], "EQUITY");
        let one = json!({"LookupResponse": {"Data": {"symbol": "IBM", "type": "EQUITY"}}});
        assert_eq!(
            LookupList::from_wire(Some(one))
                .expect("one")
                .products
                .len(),
            1
        );
        assert!(
            LookupList::from_wire(Some(json!({"LookupResponse": {"Data": []}})))
                .expect("none")
                .products
                .is_empty()
        );
        // Without its Data container the answer is unreadable, not "no matches".
        assert!(LookupList::from_wire(Some(json!({"LookupResponse": {}}))).is_err());
        assert!(LookupList::from_wire(Some(json!({"LookupResponse": {"data2": []}}))).is_err());
        assert!(LookupList::from_wire(Some(json!({"Nope": {}}))).is_err());
    }
}
