//! `GET /v1/accounts/{k}/portfolio` → `PortfolioResponse` (one page of positions) and
//! `GET /v1/accounts/{k}/portfolio/{positionId}` → `PositionLotsResponse.PositionLot[]`.

use super::contracts::NamesContracts;
pub use super::generated::{AccountPortfolio, PortfolioTotals, Position, PositionLot, Product};
use super::scalars::int_opt;
use crate::etrade::BrokerBody;
use crate::etrade::one_or_many;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
struct PortfolioResponse {
    #[serde(rename = "PortfolioResponse")]
    response: PortfolioBody,
}

#[derive(Debug, Default, Deserialize)]
struct PortfolioBody {
    #[serde(rename = "Totals", alias = "totals", default)]
    totals: Option<PortfolioTotals>,
    #[serde(
        rename = "AccountPortfolio",
        alias = "accountPortfolio",
        deserialize_with = "one_or_many"
    )]
    account_portfolio: Vec<AccountPortfolio>,
}

/// The `get_portfolio` data object: one broker page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PortfolioPage {
    /// The page this answer is (the requested `pageNumber`, 1 when not given).
    pub page_number: i64,
    pub totals: Option<PortfolioTotals>,
    pub account_portfolio: Vec<AccountPortfolio>,
}

impl PortfolioPage {
    /// `None` is E*TRADE's empty answer (204: no positions, or past the last page).
    pub fn from_wire(
        body: Option<impl Into<BrokerBody>>,
        page_number: i64,
    ) -> Result<PortfolioPage, serde_json::Error> {
        let (totals, account_portfolio) = match body {
            None => (None, Vec::new()),
            Some(v) => {
                let r: PortfolioResponse = v.into().read()?;
                (r.response.totals, r.response.account_portfolio)
            }
        };
        let mut page = PortfolioPage {
            page_number,
            totals,
            account_portfolio,
        };
        for a in &mut page.account_portfolio {
            a.position.iter_mut().for_each(|p| p.fill_osi_keys());
        }
        Ok(page)
    }
}

#[derive(Debug, Deserialize)]
struct PositionLotsResponse {
    #[serde(rename = "PositionLotsResponse")]
    response: PositionLotsBody,
}

#[derive(Debug, Default, Deserialize)]
struct PositionLotsBody {
    #[serde(
        rename = "PositionLot",
        alias = "positionLot",
        deserialize_with = "one_or_many"
    )]
    position_lot: Vec<PositionLot>,
    #[serde(rename = "shortType", default, deserialize_with = "int_opt")]
    short_type: Option<i64>,
}

/// The `get_position_lots` data object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionLots {
    pub position_lot: Vec<PositionLot>,
    /// The answer's own `shortType` beside its lots (each lot carries one too).
    pub short_type: Option<i64>,
}

impl PositionLots {
    /// `None` (204) → no lots.
    pub fn from_wire(
        body: Option<impl Into<BrokerBody>>,
    ) -> Result<PositionLots, serde_json::Error> {
        let Some(v) = body else {
            return Ok(PositionLots {
                position_lot: Vec::new(),
                short_type: None,
            });
        };
        let r: PositionLotsResponse = v.into().read()?;
        Ok(PositionLots {
            position_lot: r.response.position_lot,
            short_type: r.response.short_type,
        })
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc_example() -> serde_json::Value {
        // etrade-api.md §7, portfolio (view QUICK).
        json!({"PortfolioResponse":{"AccountPortfolio":[{"accountId":"84010429","totalPages":1,"Position":[
         {"positionId":10002345678u64,"symbolDescription":"AAPL","dateAcquired":1582520400000u64,
          "pricePaid":150.25,"commissions":0,"otherFees":0,"quantity":10,"positionIndicator":"TYPE2",
          "positionType":"LONG","daysGain":12.3,"daysGainPct":0.71,"marketValue":1745.6,
          "totalCost":1502.5,"totalGain":243.1,"totalGainPct":16.18,"pctOfPortfolio":17.67,
          "costPerShare":150.25,"todayCommissions":0,"todayFees":0,"todayPricePaid":0,"todayQuantity":0,
          "adjPrevClose":173.33,
          "lotsDetails":"https://api.etrade.com/v1/accounts/JIdOIAcSpwR1Jva7RQBraQ/portfolio/10002345678",
          "quoteDetails":"https://api.etrade.com/v1/market/quote/AAPL",
          "Product":{"symbol":"AAPL","securityType":"EQ","expiryYear":0,"expiryMonth":0,"expiryDay":0,"strikePrice":0},
          "Quick":{"lastTrade":174.56,"lastTradeTime":1700000000,"change":1.23,"changePct":0.71,
           "volume":51234567,"quoteStatus":"REALTIME"}}]}]}})
    }

    #[test]
    fn reads_the_doc_example_and_writes_output_names() {
        let page = PortfolioPage::from_wire(Some(doc_example()), 1).expect("parses");
        assert_eq!(page.account_portfolio.len(), 1);
        let ap = &page.account_portfolio[0];
        assert_eq!(ap.total_pages, Some(1));
        assert_eq!(ap.next_page_no, None);
        let p = &ap.position[0];
        assert_eq!(p.position_id, 10002345678);
        assert_eq!(
            p.price_paid.map(|d| d.to_string()).as_deref(),
            Some("150.25")
        );
        assert_eq!(p.date_acquired.as_deref(), Some("2020-02-24T05:00:00Z"));
        assert_eq!(p.position_lot, None);
        let out = serde_json::to_value(&page).expect("serializes");
        let pos = &out["accountPortfolio"][0]["position"][0];
        assert_eq!(pos["product"]["symbol"], "AAPL");
        assert_eq!(pos["quick"]["lastTrade"], "174.56");
        assert_eq!(pos["quick"]["lastTradeTime"], "2023-11-14T22:13:20Z");
        assert_eq!(pos["marketValue"], "1745.6");
        assert!(pos["complete"].is_null());
        assert!(pos.get("Product").is_none());
        assert_eq!(out["pageNumber"], 1);
        assert!(out["totals"].is_null());
    }

    #[test]
    fn next_page_as_string_one_position_as_object_totals_and_lots() {
        let wire = json!({"PortfolioResponse":{
            "Totals":{"todaysGainLoss":-3.5,"totalMarketValue":1000.25,"cashBalance":"12.5"},
            "AccountPortfolio":{"accountId":"1","totalPages":3,"nextPageNo":"2",
              "next":"https://x/v1/accounts/k/portfolio?pageNumber=2",
              "Position":{"positionId":"7","quantity":-5.5,
                "positionLot":[{"positionId":7,"positionLotId":701,"price":1.405,"acquiredDate":0,
                  "remainingQty":-5.5,"termCode":0}]}}}});
        let page = PortfolioPage::from_wire(Some(wire), 1).expect("parses");
        let ap = &page.account_portfolio[0];
        assert_eq!(ap.next_page_no, Some(2));
        assert_eq!(ap.position[0].quantity.to_string(), "-5.5");
        let lots = ap.position[0].position_lot.as_ref().expect("lots");
        assert_eq!(lots[0].acquired_date, None);
        assert_eq!(
            page.totals
                .as_ref()
                .and_then(|t| t.cash_balance)
                .map(|d| d.to_string()),
            Some("12.5".into())
        );
        assert!(
            PortfolioPage::from_wire(None::<serde_json::Value>, 4)
                .expect("204")
                .account_portfolio
                .is_empty()
        );
    }

    #[test]
    fn position_lots_and_refusals() {
        let wire = json!({"PositionLotsResponse":{"PositionLot":[{"positionId":10002345678u64,
            "positionLotId":1000234567801u64,"price":150.25,"termCode":1,"daysGain":12.3,
            "originalQty":10,"remainingQty":10,"availableQty":10,"acquiredDate":1582520400000u64,
            "exchangeRate":1,"settlementCurrency":"USD","paymentCurrency":"USD","commPerShare":0.0063,
            "shortType":0}]}});
        let lots = PositionLots::from_wire(Some(wire)).expect("parses");
        let out = serde_json::to_value(&lots).expect("serializes");
        assert_eq!(out["positionLot"][0]["commPerShare"], "0.0063");
        assert_eq!(out["positionLot"][0]["positionLotId"], 1000234567801u64);
        assert!(
            PositionLots::from_wire(None::<serde_json::Value>)
                .expect("204")
                .position_lot
                .is_empty()
        );
        // A position without a quantity does not fit the model.
        let bad =
            json!({"PortfolioResponse":{"AccountPortfolio":[{"Position":[{"positionId":1}]}]}});
        assert!(PortfolioPage::from_wire(Some(bad), 1).is_err());
        let bad = json!({"PortfolioResponse":{"AccountPortfolio":[{"Position":[{"positionId":1,"quantity":"x"}]}]}});
        assert!(PortfolioPage::from_wire(Some(bad), 1).is_err());
    }
}
