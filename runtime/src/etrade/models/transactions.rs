//! `GET /v1/accounts/{k}/transactions` → `TransactionListResponse` (one page) and
//! `GET /v1/accounts/{k}/transactions/{id}` → `TransactionDetailsResponse`.
//!
//! List items carry lowercase `brokerage` → `product`, details `Brokerage` → `Product`;
//! `transactionId` arrives as a string or a number and always leaves as a string.

use super::contracts::NamesContracts;
pub use super::generated::{Transaction, TransactionBrokerage, TransactionDetails};
use super::scalars::{bool_opt, int_opt, string_opt};
use crate::etrade::BrokerBody;
use crate::etrade::one_or_many;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
struct TransactionListResponse {
    #[serde(rename = "TransactionListResponse")]
    response: TransactionListBody,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TransactionListBody {
    #[serde(
        rename = "Transaction",
        alias = "transaction",
        deserialize_with = "one_or_many"
    )]
    transaction: Vec<Transaction>,
    #[serde(default, deserialize_with = "string_opt")]
    marker: Option<String>,
    #[serde(default)]
    next: Option<String>,
    #[serde(default)]
    page_markers: Option<String>,
    #[serde(default, deserialize_with = "bool_opt")]
    more_transactions: Option<bool>,
    #[serde(default, deserialize_with = "int_opt")]
    transaction_count: Option<i64>,
    #[serde(default, deserialize_with = "int_opt")]
    total_count: Option<i64>,
}

/// The `list_transactions` data object: one broker page and its cursor.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TransactionPage {
    pub transaction: Vec<Transaction>,
    /// Pass as `marker` to get the next page; null when E*TRADE gave none.
    pub marker: Option<String>,
    pub next: Option<String>,
    pub page_markers: Option<String>,
    pub more_transactions: Option<bool>,
    pub transaction_count: Option<i64>,
    pub total_count: Option<i64>,
}

impl TransactionPage {
    /// `None` (204, or an empty body) → an empty page without a cursor.
    pub fn from_wire(
        body: Option<impl Into<BrokerBody>>,
    ) -> Result<TransactionPage, serde_json::Error> {
        let b = match body {
            None => TransactionListBody::default(),
            Some(v) => v.into().read::<TransactionListResponse>()?.response,
        };
        let mut page = TransactionPage {
            transaction: b.transaction,
            marker: b.marker.filter(|m| !m.trim().is_empty()),
            next: b.next.filter(|n| !n.trim().is_empty()),
            page_markers: b.page_markers,
            more_transactions: b.more_transactions,
            transaction_count: b.transaction_count,
            total_count: b.total_count,
        };
        for b in page
            .transaction
            .iter_mut()
            .filter_map(|t| t.brokerage.as_mut())
        {
            b.fill_osi_keys();
        }
        Ok(page)
    }
}

#[derive(Debug, Deserialize)]
struct TransactionDetailsResponse {
    #[serde(rename = "TransactionDetailsResponse")]
    response: TransactionDetails,
}

impl TransactionDetails {
    /// Details always have a body; an empty answer does not fit the model.
    pub fn from_wire(
        body: Option<impl Into<BrokerBody>>,
    ) -> Result<TransactionDetails, serde_json::Error> {
        let v = body.ok_or_else(|| serde::de::Error::custom("empty details answer"))?;
        let mut details = v.into().read::<TransactionDetailsResponse>()?.response;
        if let Some(b) = &mut details.brokerage {
            b.fill_osi_keys();
        }
        Ok(details)
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_a_recorded_list_page() {
        // The shape of etrade-api.md §3.1 (recorded list page: moreTransactions false with a marker).
        let wire = json!({"TransactionListResponse":{
            "next":"https://api.etrade.com/v1/accounts/k/transactions.json?marker=20059101214828_1582876800",
            "marker":"20059101214828_1582876800","pageMarkers":"eNp10N8O",
            "moreTransactions":false,"transactionCount":50,"totalCount":274,
            "Transaction":[{"transactionId":"20062200761797","accountId":"45249801",
              "transactionDate":1583259006000u64,"postDate":0,"amount":211.98,
              "description":"***STEALTH BIOTHERAPEUTICS CORP ADS","transactionType":"Sold",
              "memo":" ","imageFlag":false,"instType":"BROKERAGE","storeId":0,
              "brokerage":{"product":{"symbol":"MITO","securityType":"EQ"},"quantity":-53,
                "price":4,"settlementCurrency":"USD","paymentCurrency":"USD","fee":0,
                "displaySymbol":" ","settlementDate":0},
              "detailsURI":"https://api.etrade.com/v1/accounts/k/transactions.json/20062200761797?storeId=0"},
             {"transactionId":20062200760841u64,"amount":-293.5349}]}});
        let page = TransactionPage::from_wire(Some(wire)).expect("parses");
        assert_eq!(page.transaction.len(), 2);
        assert_eq!(page.transaction[1].transaction_id, "20062200760841");
        assert_eq!(page.marker.as_deref(), Some("20059101214828_1582876800"));
        assert_eq!(page.more_transactions, Some(false));
        let t = &page.transaction[0];
        assert_eq!(t.post_date, None);
        assert_eq!(t.store_id.as_deref(), Some("0"));
        assert_eq!(t.transaction_date.as_deref(), Some("2020-03-03T18:10:06Z"));
        let out = serde_json::to_value(&page).expect("serializes");
        assert_eq!(out["transaction"][0]["transactionId"], "20062200761797");
        assert_eq!(out["transaction"][0]["brokerage"]["quantity"], "-53");
        assert_eq!(
            out["transaction"][0]["brokerage"]["product"]["symbol"],
            "MITO"
        );
        assert_eq!(out["transaction"][1]["amount"], "-293.5349");
        assert!(out["transaction"][0]["detailsURI"].is_string());
        assert_eq!(out["totalCount"], 274);
    }

    #[test]
    fn empty_answers_and_details() {
        let empty = TransactionPage::from_wire(None::<serde_json::Value>).expect("204");
        assert!(empty.transaction.is_empty() && empty.marker.is_none());
        let wire = json!({"TransactionDetailsResponse":{"transactionId":"20062200761797",
            "accountId":"45249801","transactionDate":1583259006000u64,"postDate":1583280000000u64,
            "amount":211.98,"description":"SOLD","Category":{"categoryId":0,"parentId":"0",
            "categoryName":"","parentName":""},
            "Brokerage":{"transactionType":"Sold","Product":{"symbol":"MITO","securityType":"EQ"},
              "quantity":-53,"price":4,"settlementCurrency":"USD","paymentCurrency":"USD",
              "fee":0,"memo":"","checkNo":"","orderNo":"1234"}}});
        let d = TransactionDetails::from_wire(Some(wire)).expect("parses");
        let out = serde_json::to_value(&d).expect("serializes");
        assert_eq!(out["brokerage"]["product"]["symbol"], "MITO");
        assert_eq!(out["category"]["categoryId"], "0");
        assert_eq!(out["postDate"], "2020-03-04T00:00:00Z");
        assert!(TransactionDetails::from_wire(None::<serde_json::Value>).is_err());
        let bad = json!({"TransactionListResponse":{"Transaction":[{"amount":1}]}});
        assert!(TransactionPage::from_wire(Some(bad)).is_err());
    }
}
