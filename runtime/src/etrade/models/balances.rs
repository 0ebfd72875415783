//! `GET /v1/accounts/{k}/balance` → `BalanceResponse`.

pub use super::generated::{Balance, BalanceCash, BalanceComputed, BalanceLending, BalanceMargin};
use crate::etrade::BrokerBody;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct BalanceResponse {
    #[serde(rename = "BalanceResponse")]
    response: Balance,
}

impl Balance {
    /// A balance always has a body; an empty answer does not fit the model.
    pub fn from_wire(body: Option<impl Into<BrokerBody>>) -> Result<Balance, serde_json::Error> {
        let v = body.ok_or_else(|| serde::de::Error::custom("empty balance answer"))?;
        let r: BalanceResponse = v.into().read()?;
        Ok(r.response)
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_doc_example_and_writes_output_names() {
        // etrade-api.md §7, balance.
        let wire = json!({"BalanceResponse":{"accountId":"84010429","institutionType":"BROKERAGE","asOfDate":1700000000000u64,
         "accountType":"INDIVIDUAL","optionLevel":"LEVEL_2","accountDescription":"INDIVIDUAL",
         "quoteMode":6,"dayTraderStatus":"NO_PDT","accountMode":"MARGIN",
         "Cash":{"fundsForOpenOrdersCash":0,"moneyMktBalance":1250.11},
         "Computed":{"cashAvailableForInvestment":1250.11,"cashAvailableForWithdrawal":1250.11,
          "netCash":1250.11,"cashBalance":1250.11,"settledCashForInvestment":1250.11,
          "unSettledCashForInvestment":0,"fundsWithheldFromPurchasePower":0,
          "fundsWithheldFromWithdrawal":0,"marginBuyingPower":2500.22,"cashBuyingPower":1250.11,
          "dtMarginBuyingPower":0,"dtCashBuyingPower":0,"accountBalance":1250.11,
          "OpenCalls":{"minEquityCall":0,"fedCall":0,"cashCall":0,"houseCall":0},
          "RealTimeValues":{"totalAccountValue":9876.54,"netMv":8626.43,"netMvLong":8626.43,"netMvShort":0}}}});
        let b = Balance::from_wire(Some(wire)).expect("parses");
        assert_eq!(b.as_of_date.as_deref(), Some("2023-11-14T22:13:20Z"));
        assert_eq!(b.quote_mode, Some(6));
        assert!(b.margin.is_none() && b.lending.is_none());
        let out = serde_json::to_value(&b).expect("serializes");
        assert_eq!(
            out["computed"]["realTimeValues"]["totalAccountValue"],
            "9876.54"
        );
        assert_eq!(out["computed"]["marginBuyingPower"], "2500.22");
        assert_eq!(out["computed"]["unSettledCashForInvestment"], "0");
        assert_eq!(out["cash"]["moneyMktBalance"], "1250.11");
        assert!(out["computed"]["portfolioMargin"].is_null());
        assert!(out.get("Computed").is_none());
    }

    #[test]
    fn seconds_dates_string_money_and_refusals() {
        let wire = json!({"BalanceResponse":{"accountId":84010429,"asOfDate":1700000000,
            "Lending":{"currentBalance":"-12.5","paymentDueDate":0}}});
        let b = Balance::from_wire(Some(wire)).expect("parses");
        assert_eq!(b.account_id.as_deref(), Some("84010429"));
        assert_eq!(b.as_of_date.as_deref(), Some("2023-11-14T22:13:20Z"));
        let lending = b.lending.expect("lending");
        assert_eq!(
            lending.current_balance.map(|d| d.to_string()),
            Some("-12.5".into())
        );
        assert_eq!(lending.payment_due_date, None);
        assert!(Balance::from_wire(None::<serde_json::Value>).is_err());
        let bad = json!({"BalanceResponse":{"Computed":{"cashBalance":"lots"}}});
        assert!(Balance::from_wire(Some(bad)).is_err());
        assert!(Balance::from_wire(Some(json!({"Other":{}}))).is_err());
    }
}
