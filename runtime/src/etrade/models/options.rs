//! `GET /v1/market/optionchains` → `OptionChainResponse` (`OptionPair[]` with `Call`/`Put`
//! and their `OptionGreeks`), and `GET /v1/market/optionexpiredate` →
//! `OptionExpireDateResponse.ExpirationDate[]`.

pub use super::generated::{
    ExpirationDate, OptionChain, OptionContract, OptionPair, SelectedExpiry,
};
use crate::etrade::BrokerBody;
use crate::etrade::one_or_many;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
pub struct OptionChainResponse {
    #[serde(rename = "OptionChainResponse")]
    pub response: OptionChain,
}

impl OptionChain {
    /// `None` (an empty body) means an empty chain.
    pub fn from_wire(
        body: Option<impl Into<BrokerBody>>,
    ) -> Result<OptionChain, serde_json::Error> {
        match body {
            None => Ok(OptionChain::default()),
            Some(v) => Ok(v.into().read::<OptionChainResponse>()?.response),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct OptionExpireDateResponse {
    #[serde(rename = "OptionExpireDateResponse")]
    pub response: ExpireDateBody,
}

#[derive(Debug, Default, Deserialize)]
pub struct ExpireDateBody {
    #[serde(
        rename = "ExpirationDate",
        alias = "expirationDate",
        alias = "expirationDates",
        deserialize_with = "one_or_many"
    )]
    pub expiration_date: Vec<ExpirationDate>,
}

/// The `get_option_expire_dates` data object.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpirationDates {
    pub expiration_dates: Vec<ExpirationDate>,
}

impl ExpirationDates {
    /// `None` (an empty body) means no expiries.
    pub fn from_wire(
        body: Option<impl Into<BrokerBody>>,
    ) -> Result<ExpirationDates, serde_json::Error> {
        let expiration_dates = match body {
            None => Vec::new(),
            Some(v) => {
                v.into()
                    .read::<OptionExpireDateResponse>()?
                    .response
                    .expiration_date
            }
        };
        Ok(ExpirationDates { expiration_dates })
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_chain_with_greeks() {
        let wire = json!({"OptionChainResponse": {"OptionPair": [{"pairType": "CALLPUT",
            "Call": {"optionCategory": "STANDARD", "optionRootSymbol": "IBM", "timeStamp": 1700000000,
              "adjustedFlag": false, "displaySymbol": "IBM Aug 17 '18 $200 Call", "optionType": "CALL",
              "strikePrice": 200, "symbol": "IBM", "bid": 1.2, "ask": 1.25, "bidSize": 10, "askSize": 12,
              "inTheMoney": "n", "volume": 33, "openInterest": 1200, "netChange": -0.05, "lastPrice": 1.22,
              "quoteDetail": "https://api.etrade.com/v1/market/quote/IBM:2018:8:17:CALL:200.000000",
              "osiKey": "IBM---180817C00200000",
              "OptionGreeks": {"rho": 0.0123, "vega": 0.2, "theta": -0.031, "delta": 0.4512,
                "gamma": 0.0211, "iv": 0.2875, "currentValue": false}},
            "Put": {"optionType": "PUT", "strikePrice": 200, "inTheMoney": "y"}}],
            "timeStamp": 1700000000, "quoteType": "DELAYED", "nearPrice": 199.5,
            "SelectedED": {"day": 17, "month": 8, "year": 2018}}});
        let c = OptionChain::from_wire(Some(wire)).expect("parses");
        assert_eq!(c.option_pairs.len(), 1);
        let call = c.option_pairs[0].call.as_ref().expect("call");
        assert_eq!(call.in_the_money, Some(false));
        assert_eq!(
            c.option_pairs[0].put.as_ref().and_then(|p| p.in_the_money),
            Some(true)
        );
        let out = serde_json::to_value(&c).expect("serializes");
        assert_eq!(
            out["optionPairs"][0]["call"]["optionGreeks"]["theta"],
            "-0.031"
        );
        assert_eq!(out["selectedED"]["month"], 8);
        assert_eq!(out["nearPrice"], "199.5");
        assert_eq!(out["timeStamp"], "2023-11-14T22:13:20Z");
    }

    #[test]
    fn expiry_dates() {
        let wire = json!({"OptionExpireDateResponse": {"ExpirationDate": [
            {"year": 2024, "month": 1, "day": 19, "expiryType": "MONTHLY"},
            {"year": "2024", "month": 1, "day": 26, "expiryType": "WEEKLY"}]}});
        let e = ExpirationDates::from_wire(Some(wire)).expect("parses");
        assert_eq!(e.expiration_dates.len(), 2);
        assert_eq!(e.expiration_dates[1].year, 2024);
        let out = serde_json::to_value(&e).expect("serializes");
        assert_eq!(out["expirationDates"][0]["expiryType"], "MONTHLY");
        assert!(
            ExpirationDates::from_wire(None::<serde_json::Value>)
                .expect("none")
                .expiration_dates
                .is_empty()
        );
    }
}
