//! Records shared by the store, the policy and the handlers. They are stored in redb as
//! JSON, so field names are part of the on-disk format: add fields with `#[serde(default)]`.

use crate::etrade::osi::OptionSymbol;
use crate::etrade::vocabulary::{
    CallPut, MarketSession, OrderAction, OrderTerm, OrderType, PriceType, SecurityType,
};
use jiff::Timestamp;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// What an order looks like to the policy and to reconciliation: enough to recognise it
/// in E*TRADE's order list, and to judge its size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderSummary {
    pub order_type: OrderType,
    pub price_type: PriceType,
    pub order_term: OrderTerm,
    pub market_session: MarketSession,
    pub limit_price: Option<Decimal>,
    pub stop_price: Option<Decimal>,
    pub all_or_none: bool,
    pub legs: Vec<LegSummary>,
    /// Best estimate of the order's value in dollars (E*TRADE's preview estimate when it
    /// gave one, else quantity × price × multiplier); None when nothing gives a price.
    pub estimated_notional: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegSummary {
    pub symbol: String,
    pub security_type: SecurityType,
    pub order_action: OrderAction,
    pub quantity: Decimal,
    /// Options only.
    pub call_put: Option<CallPut>,
    pub expiration: Option<jiff::civil::Date>,
    pub strike_price: Option<Decimal>,
}

impl LegSummary {
    /// An option leg's OSI symbol (E*TRADE's `osiKey` form); None for a stock leg.
    pub fn osi_key(&self) -> Option<String> {
        let contract = OptionSymbol {
            root: self.symbol.clone(),
            expiry: self.expiration?,
            call_put: self.call_put?,
            strike: self.strike_price?,
        };
        Some(contract.osi_key())
    }
}

impl OrderSummary {
    /// Total quantity over all legs (shares or contracts).
    pub fn total_quantity(&self) -> Decimal {
        self.legs.iter().map(|l| l.quantity).sum()
    }
}

/// Whether a preview is for a new order or for changing an existing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PreviewKind {
    New,
    Change { order_id: i64 },
}

/// One `PreviewIds[]` entry of E*TRADE's preview response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerPreviewId {
    pub preview_id: i64,
    pub cash_margin: Option<String>,
}

/// The exact request a preview covered; `place_*` sends `order_fields` unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewRecord {
    /// Our id, handed to the host (not E*TRADE's previewId).
    pub preview_id: String,
    pub kind: PreviewKind,
    pub environment: String,
    pub profile: String,
    pub account_id_key: String,
    /// The JSON members inside `PreviewOrderRequest` exactly as sent, without the outer
    /// braces (`"orderType":"EQ","clientOrderId":"…","Order":[…]`), so the place body is
    /// the same bytes with the `PreviewIds` member added.
    pub order_fields: String,
    pub broker_preview_ids: Vec<BrokerPreviewId>,
    /// Hex SHA-256 of the canonical tool arguments.
    pub arguments_hash: String,
    pub client_order_id: String,
    pub summary: OrderSummary,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    pub used_at: Option<Timestamp>,
    /// The journal entry of the placement that used it.
    pub used_by: Option<u64>,
    /// The preview's own journal entry (its audit trail).
    #[serde(default)]
    pub journal_id: Option<u64>,
    /// A person's decision on it, when one was asked for.
    #[serde(default)]
    pub approval: Option<ApprovalRecord>,
    /// What a person approving it is shown besides the order.
    #[serde(default)]
    pub context: PreviewContext,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Approved,
    Rejected,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Approved => "approved",
            Decision::Rejected => "rejected",
        }
    }
}

/// How the person answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The MCP client's elicitation form.
    Elicitation,
    /// `etrade approve` on a terminal.
    Terminal,
    /// The local approval page.
    Page,
    /// The order ticket MCP App, through its host (which keeps app-only tools from the model).
    App,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Elicitation => "elicitation",
            Channel::Terminal => "terminal",
            Channel::Page => "page",
            Channel::App => "app",
        }
    }
}

/// A recorded decision on one preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRecord {
    pub decision: Decision,
    pub channel: Channel,
    pub at: Timestamp,
    /// The preview's arguments hash when it was decided: an approval never covers other
    /// arguments.
    pub arguments_hash: String,
    /// Through the vault: the OS's word on who asked (`uid 1000 pid 4242`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
}

/// What a person is shown, besides the order itself: E*TRADE's view of it at preview time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewContext {
    /// The account's nickname in E*TRADE's account list.
    pub account_name: Option<String>,
    /// The last four digits of E*TRADE's account number.
    pub account_last4: Option<String>,
    pub estimated_total: Option<Decimal>,
    pub commission: Option<Decimal>,
    /// E*TRADE's messages about the order (sanitized broker text).
    pub warnings: Vec<String>,
}

/// What a journal entry records: a mutation, or a stored preview (journaled for the audit
/// trail — preview → place → cancel reads as one story; previews are never uncertain).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MutationKind {
    PreviewOrder,
    PreviewChangeOrder,
    PlaceOrder,
    CancelOrder,
    PlaceChangeOrder,
    DeleteAlerts,
}

impl MutationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MutationKind::PreviewOrder => "preview_order",
            MutationKind::PreviewChangeOrder => "preview_change_order",
            MutationKind::PlaceOrder => "place_order",
            MutationKind::CancelOrder => "cancel_order",
            MutationKind::PlaceChangeOrder => "place_change_order",
            MutationKind::DeleteAlerts => "delete_alerts",
        }
    }
}

/// What is written before the request is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalIntent {
    pub kind: MutationKind,
    pub environment: String,
    pub profile: String,
    pub account_id_key: Option<String>,
    pub preview_id: Option<String>,
    pub client_order_id: Option<String>,
    /// The order a cancel or change acts on.
    pub target_order_id: Option<i64>,
    pub alert_ids: Vec<i64>,
    pub summary: Option<OrderSummary>,
    pub intent_at: Timestamp,
    /// Through the vault: the OS's word on which client's session asked (`uid 1000 pid 4242`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
}

/// What happened, as far as this server knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Sent (or about to be); no answer recorded yet.
    Pending,
    Succeeded {
        at: Timestamp,
        /// The new order id of a placement or change.
        order_id: Option<i64>,
        /// Alert ids deleted (delete_alerts).
        #[serde(default)]
        deleted_alert_ids: Vec<i64>,
    },
    /// The broker answered with a definite refusal (nothing happened).
    Failed {
        at: Timestamp,
        code: String,
        #[serde(default)]
        failed_alert_ids: Vec<i64>,
        #[serde(default)]
        deleted_alert_ids: Vec<i64>,
    },
    /// It may or may not have taken effect.
    Uncertain { at: Timestamp, reason: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReconcileStatus {
    Found,
    NotFound,
    Unknown,
}

impl ReconcileStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReconcileStatus::Found => "found",
            ReconcileStatus::NotFound => "not_found",
            ReconcileStatus::Unknown => "unknown",
        }
    }
}

/// What the check found, by id and status: `list_orders` has the order's full detail, and
/// the journal stays a small answer however large the order is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ReconciliationRecord")]
pub struct Reconciliation {
    pub status: ReconcileStatus,
    pub at: Timestamp,
    /// E*TRADE's id of the order the check found, or of the order it found unchanged.
    pub order_id: Option<i64>,
    /// That order's status in E*TRADE's list (OPEN, CANCELLED, ...).
    pub order_status: Option<String>,
    /// Why the answer is what it is (e.g. the order list could not be read).
    pub note: Option<String>,
}

impl Reconciliation {
    /// A check that names no order.
    pub fn noted(status: ReconcileStatus, at: Timestamp, note: &str) -> Self {
        Self {
            status,
            at,
            order_id: None,
            order_status: None,
            note: Some(note.to_string()),
        }
    }
}

/// A stored reconciliation: older journals kept E*TRADE's whole order instead of its id and
/// status, and still read.
#[derive(Deserialize)]
struct ReconciliationRecord {
    status: ReconcileStatus,
    at: Timestamp,
    #[serde(default)]
    order_id: Option<i64>,
    #[serde(default)]
    order_status: Option<String>,
    #[serde(default)]
    order: Option<serde_json::Value>,
    note: Option<String>,
}

impl From<ReconciliationRecord> for Reconciliation {
    fn from(r: ReconciliationRecord) -> Self {
        let stored = r.order.as_ref();
        let status_of_stored = || {
            stored?
                .get("orderDetail")?
                .get(0)?
                .get("status")?
                .as_str()
                .map(str::to_string)
        };
        Self {
            status: r.status,
            at: r.at,
            order_id: r.order_id.or_else(|| stored?.get("orderId")?.as_i64()),
            order_status: r.order_status.or_else(status_of_stored),
            note: r.note,
        }
    }
}

/// One journal entry: the intent plus what was learned afterwards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Increasing, unique per store.
    pub id: u64,
    pub intent: JournalIntent,
    pub outcome: Outcome,
    pub reconciliation: Option<Reconciliation>,
    /// A preview's entry: the person's decision on it.
    #[serde(default)]
    pub approval: Option<ApprovalRecord>,
}

/// Counters the per-day policy limits read, per environment/profile/account and
/// America/New_York trading day.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DailyUsage {
    pub orders: u32,
    pub notional: Decimal,
}

/// A trading-policy refusal: `execution_disabled`, with a message naming the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyRefusal {
    /// The config key of the rule, e.g. `max_daily_orders`.
    pub rule: &'static str,
    /// One sentence for the host, naming the rule; no submitted values.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reconciliation_stored_with_the_whole_order_reads_as_its_id_and_status() {
        let stored = serde_json::json!({
            "status": "found",
            "at": "2026-11-02T15:00:00Z",
            "order": {"orderId": 481, "orderType": "EQ", "orderDetail": [{"status": "OPEN"}]},
            "note": "an order matching the placement is listed"
        });
        let r: Reconciliation = serde_json::from_value(stored).expect("reads");
        assert_eq!(r.status, ReconcileStatus::Found);
        assert_eq!(
            (r.order_id, r.order_status.as_deref()),
            (Some(481), Some("OPEN"))
        );
        let written = serde_json::to_value(&r).expect("writes");
        assert_eq!(written["order_id"], 481);
        assert!(written.get("order").is_none(), "{written}");
        let again: Reconciliation = serde_json::from_value(written).expect("reads back");
        assert_eq!(again, r);
    }
}
