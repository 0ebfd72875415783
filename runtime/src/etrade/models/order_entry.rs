//! Order entry responses: `PreviewOrderResponse` (preview and change preview),
//! `PlaceOrderResponse` (place and change place) and `CancelOrderResponse`. Messages and
//! warnings are kept unchanged; money is exact decimals; times are RFC 3339.

use super::contracts::NamesContracts;
pub use super::generated::{
    BrokerCancellation, BrokerPlacement, BrokerPreview, BuyingPowerDetails, BuyingPowerFigures,
    OrderDisclosure, OrderIdEntry, PortfolioMarginImpact, PreviewIdEntry,
};
use super::scalars::{int, int_opt, text_opt};
use crate::etrade::one_or_many;
use rust_decimal::Decimal;
use serde::Deserialize;

impl BrokerPreview {
    /// E*TRADE's estimated total: the order's estimatedTotalAmount, else totalOrderValue.
    pub fn estimated_total(&self) -> Option<Decimal> {
        self.order
            .iter()
            .find_map(|o| o.estimated_total_amount)
            .or(self.total_order_value)
    }
}

#[derive(Debug, Deserialize)]
struct PreviewEnvelope {
    #[serde(rename = "PreviewOrderResponse")]
    response: BrokerPreview,
}

#[derive(Debug, Deserialize)]
struct PlaceEnvelope {
    #[serde(rename = "PlaceOrderResponse")]
    response: BrokerPlacement,
}

/// Every place a placement answer has been seen to name the new order: `OrderIds[].orderId`
/// (E*TRADE's documentation and recorded answers), `Order[].orderId` (seen by
/// sblattj/etrade-mcp) and a top-level `orderId` (rs-etrade's model).
#[derive(Debug, Deserialize)]
struct PlacedIds {
    #[serde(
        rename = "OrderIds",
        alias = "orderIds",
        default,
        deserialize_with = "one_or_many"
    )]
    order_ids: Vec<MaybeOrderId>,
    #[serde(
        rename = "Order",
        alias = "order",
        default,
        deserialize_with = "one_or_many"
    )]
    order: Vec<MaybeOrderId>,
    #[serde(rename = "orderId", default, deserialize_with = "int_opt")]
    order_id: Option<i64>,
}

#[derive(Debug, Deserialize)]
struct MaybeOrderId {
    #[serde(rename = "orderId", default, deserialize_with = "int_opt")]
    order_id: Option<i64>,
}

#[derive(Debug, Deserialize)]
struct PlacedIdsEnvelope {
    #[serde(rename = "PlaceOrderResponse")]
    response: PlacedIds,
}

impl PlacedIds {
    /// The one order id the answer names. None when it names none, or several different
    /// ones: either way the outcome is not known from the answer alone. An id of 0 or less
    /// names no order (models that default a missing id to 0 would otherwise invent one).
    fn the_order_id(&self) -> Option<i64> {
        let mut ids: Vec<i64> = self
            .order_ids
            .iter()
            .chain(&self.order)
            .filter_map(|o| o.order_id)
            .chain(self.order_id)
            .filter(|id| *id > 0)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        match ids.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

#[derive(Debug, Deserialize)]
struct CancelEnvelope {
    #[serde(rename = "CancelOrderResponse")]
    response: BrokerCancellation,
}

/// Why an answer could not be used.
#[derive(Debug, thiserror::Error)]
pub enum EntryParseError {
    #[error("empty answer")]
    Empty,
    #[error("unexpected shape")]
    Shape,
}

fn parse<T: serde::de::DeserializeOwned>(
    body: Option<serde_json::Value>,
) -> Result<T, EntryParseError> {
    let v = body.ok_or(EntryParseError::Empty)?;
    serde_json::from_value(v).map_err(|_| EntryParseError::Shape)
}

impl BrokerPreview {
    /// A preview must carry at least one previewId: without it nothing can be placed.
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<BrokerPreview, EntryParseError> {
        let p = parse::<PreviewEnvelope>(body)?.response;
        if p.preview_ids.is_empty() {
            return Err(EntryParseError::Shape);
        }
        let mut p = p;
        p.fill_osi_keys();
        Ok(p)
    }
}

/// A placement answer and the new order's id, wherever the answer named it (see
/// [`PlacedIds`]); the id is not part of `data.broker_response`, which keeps the answer's own
/// fields.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedAnswer {
    pub order_id: i64,
    pub answer: BrokerPlacement,
}

impl BrokerPlacement {
    /// A placement must name the new order, in any of the places it has been seen
    /// ([`PlacedIds`]), and only one.
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<PlacedAnswer, EntryParseError> {
        let body = body.ok_or(EntryParseError::Empty)?;
        // The ids are read from the same tree the answer is then moved out of: no copy.
        let ids = PlacedIdsEnvelope::deserialize(&body)
            .map_err(|_| EntryParseError::Shape)?
            .response;
        let order_id = ids.the_order_id().ok_or(EntryParseError::Shape)?;
        let mut answer = parse::<PlaceEnvelope>(Some(body))?.response;
        answer.fill_osi_keys();
        Ok(PlacedAnswer { order_id, answer })
    }
}

impl BrokerCancellation {
    pub fn from_wire(
        body: Option<serde_json::Value>,
    ) -> Result<BrokerCancellation, EntryParseError> {
        Ok(parse::<CancelEnvelope>(body)?.response)
    }
}

/// `DELETE /v1/user/alerts/{ids}` → `{"AlertsResponse":{"result":"SUCCESS"|"ERROR",
/// "failedAlerts":{"alertId":[…]}}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertDeletion {
    pub success: bool,
    /// Ids E*TRADE said it could not delete (may be empty even when `success` is false).
    pub failed: Vec<i64>,
}

#[derive(Debug, Deserialize)]
struct AlertsEnvelope {
    #[serde(rename = "AlertsResponse")]
    response: AlertsResult,
}

#[derive(Debug, Deserialize)]
struct AlertsResult {
    #[serde(default, deserialize_with = "text_opt")]
    result: Option<String>,
    // Recorded answers spell it `FailedAlerts`; the documentation `failedAlerts`.
    #[serde(rename = "FailedAlerts", alias = "failedAlerts", default)]
    failed: Option<FailedAlerts>,
}

#[derive(Debug, Deserialize)]
struct FailedAlerts {
    #[serde(rename = "alertId", default, deserialize_with = "one_or_many_ids")]
    ids: Vec<i64>,
}

fn one_or_many_ids<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<i64>, D::Error> {
    #[derive(Deserialize)]
    struct Id(#[serde(deserialize_with = "int")] i64);
    let ids: Vec<Id> = one_or_many(d)?;
    Ok(ids.into_iter().map(|i| i.0).collect())
}

impl AlertDeletion {
    pub fn from_wire(body: Option<serde_json::Value>) -> Result<AlertDeletion, EntryParseError> {
        let r = parse::<AlertsEnvelope>(body)?.response;
        let success = match r.result.as_deref() {
            Some(s) if s.eq_ignore_ascii_case("SUCCESS") => true,
            Some(s) if s.eq_ignore_ascii_case("ERROR") => false,
            _ => return Err(EntryParseError::Shape),
        };
        Ok(AlertDeletion {
            success,
            failed: r.failed.map(|f| f.ids).unwrap_or_default(),
        })
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_documented_preview_reads_exactly() {
        let v = json!({"PreviewOrderResponse":{"orderType":"EQ","totalOrderValue":1700.0,"previewTime":1700000000123_i64,
            "dstFlag":false,"accountId":"84010429","optionLevelCd":2,"marginLevelCd":"MARGIN_TRADING_ALLOWED",
            "cashBpDetails":{"settled":{"currentBp":1250.11,"currentOor":0.0,"currentNetBp":1250.11,"currentOrderImpact":1700.0,"netBp":-449.89}},
            "Order":[{"orderTerm":"GOOD_FOR_DAY","priceType":"LIMIT","limitPrice":170.0,"estimatedTotalAmount":1700.65,
              "messages":{"Message":[{"description":"Your order may be subject to review.","code":1049,"type":"WARNING"}]},
              "Instrument":[{"orderAction":"BUY","quantity":10,"Product":{"symbol":"AAPL","securityType":"EQ"}}]}],
            "PreviewIds":[{"previewId":266606056106_i64,"cashMargin":"MARGIN"}],
            "Disclosure":{"ehDisclosureFlag":false,"conditionalDisclosureFlag":true}}});
        let p = BrokerPreview::from_wire(Some(v)).expect("preview");
        assert_eq!(p.preview_ids[0].preview_id, 266606056106);
        assert_eq!(
            p.estimated_total().map(|d| d.to_string()).as_deref(),
            Some("1700.65")
        );
        let bp = p
            .cash_bp_details
            .as_ref()
            .and_then(|d| d.settled.as_ref())
            .and_then(|s| s.net_bp);
        assert_eq!(bp.map(|d| d.to_string()).as_deref(), Some("-449.89"));
        assert_eq!(p.order[0].messages[0].code.as_deref(), Some("1049"));
        assert_eq!(p.preview_time.as_deref(), Some("2023-11-14T22:13:20.123Z"));
        let out = serde_json::to_value(&p).expect("ser");
        assert_eq!(out["cashBpDetails"]["settled"]["netBp"], "-449.89");
    }

    #[test]
    fn a_preview_without_ids_or_a_placement_without_order_ids_is_unusable() {
        let v = json!({"PreviewOrderResponse":{"orderType":"EQ"}});
        assert!(BrokerPreview::from_wire(Some(v)).is_err());
        let v = json!({"PlaceOrderResponse":{"orderType":"EQ"}});
        assert!(BrokerPlacement::from_wire(Some(v)).is_err());
        let v = json!({"PlaceOrderResponse":{"OrderIds":[{"orderId":677}]}});
        let p = BrokerPlacement::from_wire(Some(v)).expect("place");
        assert_eq!((p.order_id, p.answer.order_ids[0].order_id), (677, 677));
        assert!(BrokerPlacement::from_wire(None).is_err());
    }

    /// The new order's id is read wherever an answer has been seen to carry it; an answer
    /// naming none, or two different ones, is unusable (the placement stays uncertain).
    #[test]
    fn the_order_id_is_found_in_every_place_it_has_been_seen() {
        let found = [
            json!({"PlaceOrderResponse":{"OrderIds":[{"orderId":677}]}}),
            json!({"PlaceOrderResponse":{"OrderIds":{"orderId":"677"}}}),
            json!({"PlaceOrderResponse":{"Order":[{"orderId":677,"priceType":"LIMIT"}]}}),
            json!({"PlaceOrderResponse":{"orderId":677,"Order":[{"priceType":"LIMIT"}]}}),
            json!({"PlaceOrderResponse":{"orderId":677,"OrderIds":[{"orderId":677}],
                "Order":[{"orderId":677}]}}),
            json!({"PlaceOrderResponse":{"orderId":0,"Order":[{"orderId":677}]}}),
        ];
        for v in found {
            let p = BrokerPlacement::from_wire(Some(v.clone())).expect("placement");
            assert_eq!(p.order_id, 677, "{v}");
        }
        // The answer's own fields are kept as they came: no invented OrderIds.
        let v = json!({"PlaceOrderResponse":{"Order":[{"orderId":677}]}});
        let p = BrokerPlacement::from_wire(Some(v)).expect("placement");
        assert!(p.answer.order_ids.is_empty());
        let out = serde_json::to_value(&p.answer).expect("ser");
        assert!(out.get("placedOrderId").is_none(), "{out}");
        let unusable = [
            json!({"PlaceOrderResponse":{"Order":[{"priceType":"LIMIT"}]}}),
            json!({"PlaceOrderResponse":{"orderId":0}}),
            json!({"PlaceOrderResponse":{"OrderIds":[{"orderId":677}],"orderId":678}}),
            json!({"PlaceOrderResponse":{"Order":[{"orderId":677},{"orderId":678}]}}),
            json!({"PlaceOrderResponse":{"orderId":"x"}}),
        ];
        for v in unusable {
            assert!(BrokerPlacement::from_wire(Some(v.clone())).is_err(), "{v}");
        }
    }

    #[test]
    fn alert_deletion_results() {
        let ok = json!({"AlertsResponse":{"result":"SUCCESS"}});
        assert_eq!(
            AlertDeletion::from_wire(Some(ok)).expect("ok"),
            AlertDeletion {
                success: true,
                failed: vec![]
            }
        );
        let partial =
            json!({"AlertsResponse":{"result":"ERROR","failedAlerts":{"alertId":[5678]}}});
        assert_eq!(
            AlertDeletion::from_wire(Some(partial)).expect("p").failed,
            vec![5678]
        );
        let one = json!({"AlertsResponse":{"result":"ERROR","failedAlerts":{"alertId":5678}}});
        assert_eq!(
            AlertDeletion::from_wire(Some(one)).expect("p").failed,
            vec![5678]
        );
        assert!(AlertDeletion::from_wire(Some(json!({"AlertsResponse":{}}))).is_err());
    }
}
