//! The [`PaperBook`] operations that serve E*TRADE's endpoints: each catches up, then reads
//! an answer (accounts, balance, portfolio, transactions, orders) or makes one order-entry
//! change (preview, place, cancel).

use serde_json::Value;

use super::order_entry::{cancel_op, place_op, preview_op};
use super::wire_json;
use super::{PaperBook, PaperError};
use crate::etrade::EtradeRequest;

impl PaperBook {
    pub fn accounts_list(&self) -> Result<Value, PaperError> {
        self.read(|s, _, _| wire_json::accounts_list(s))
    }

    /// `BalanceResponse` as for `?instType=BROKERAGE&realTimeNAV=true`.
    pub fn balance(&self, account_key: &str) -> Result<Value, PaperError> {
        self.read(|s, ctx, now| wire_json::balance(s, ctx, account_key, now))
    }

    pub fn portfolio(&self, account_key: &str, query: &EtradeRequest) -> Result<Value, PaperError> {
        self.read(|s, ctx, now| wire_json::portfolio(s, ctx, account_key, query, now))
    }

    pub fn position_lots(&self, account_key: &str, position_id: i64) -> Result<Value, PaperError> {
        self.read(|s, ctx, now| wire_json::position_lots(s, ctx, account_key, position_id, now))
    }

    pub fn transactions(
        &self,
        account_key: &str,
        query: &EtradeRequest,
    ) -> Result<Value, PaperError> {
        self.read(|s, _, _| wire_json::transactions(s, account_key, query))
    }

    pub fn transaction_details(
        &self,
        account_key: &str,
        transaction_id: i64,
    ) -> Result<Value, PaperError> {
        self.read(|s, _, _| wire_json::transaction_details(s, account_key, transaction_id))
    }

    pub fn orders(&self, account_key: &str, query: &EtradeRequest) -> Result<Value, PaperError> {
        self.read(|s, _, _| wire_json::orders(s, account_key, query))
    }

    /// `PreviewOrderRequest` → `PreviewOrderResponse` (`change_of`: the order a change
    /// preview is for).
    pub fn preview(
        &self,
        account_key: &str,
        body: &Value,
        change_of: Option<i64>,
    ) -> Result<Value, PaperError> {
        self.write(|s, ctx, now| preview_op(s, ctx, now, account_key, body, change_of))
    }

    /// `PlaceOrderRequest` → `PlaceOrderResponse`.
    pub fn place(
        &self,
        account_key: &str,
        body: &Value,
        change_of: Option<i64>,
    ) -> Result<Value, PaperError> {
        self.write(|s, ctx, now| place_op(s, ctx, now, account_key, body, change_of))
    }

    /// `CancelOrderRequest` → `CancelOrderResponse`.
    pub fn cancel(&self, account_key: &str, body: &Value) -> Result<Value, PaperError> {
        self.write(|s, _, now| cancel_op(s, now, account_key, body))
    }
}
