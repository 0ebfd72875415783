//! The fixed book's transaction answers: the list filtered by UTC day and paged by marker,
//! and one transaction's details.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde_json::Value;

use super::{FixedAccount, FixedTransaction};
use crate::emulation::NumberStyle;
use crate::emulation::answers::Style;
use crate::emulation::answers::transactions::{
    TransactionEntry, UnknownMarker, transaction_details, transaction_page,
};

/// The list query, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransactionFilter<'a> {
    /// Days (UTC) from and to, inclusive.
    pub start: Option<Date>,
    pub end: Option<Date>,
    pub descending: bool,
    pub marker: Option<&'a str>,
    pub count: usize,
}

/// No transaction of the account has this id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("No transaction found for this id.")]
pub struct UnknownTransaction;

fn utc_day(ms: i64) -> Option<Date> {
    jiff::Timestamp::from_millisecond(ms)
        .ok()
        .map(|t| TimeZone::UTC.to_datetime(t).date())
}

impl FixedAccount {
    fn transaction_entry<'a>(&'a self, t: &'a FixedTransaction) -> TransactionEntry<'a> {
        TransactionEntry {
            id: t.id.clone(),
            account_id: &self.id,
            account_key: &self.key,
            date_ms: t.date_ms,
            post_ms: t.post_ms,
            amount: t.amount,
            description: &t.description,
            kind: &t.kind,
            instrument: t.instrument.clone(),
            quantity: t.quantity,
            price: t.price,
            fee: t.fee,
            // Trades settle two days after the trade; cash movements have nothing to settle.
            settlement_ms: if t.quantity.is_zero() {
                0
            } else {
                t.date_ms + 2 * 86_400_000
            },
            order_no: t.order_no,
        }
    }

    /// `TransactionListResponse`; `Ok(None)` for an empty page (E*TRADE's 204).
    pub fn transactions(
        &self,
        f: &TransactionFilter<'_>,
        style: Style<'_>,
        next_link: impl Fn(&str) -> String,
    ) -> Result<Option<Value>, UnknownMarker> {
        let mut list: Vec<TransactionEntry<'_>> = self
            .transactions
            .iter()
            .filter(|t| {
                let day = utc_day(t.date_ms);
                f.start.is_none_or(|st| day.is_some_and(|d| d >= st))
                    && f.end.is_none_or(|en| day.is_some_and(|d| d <= en))
            })
            .map(|t| self.transaction_entry(t))
            .collect();
        if f.descending {
            list.reverse();
        }
        transaction_page(&list, f.marker, f.count, style, next_link)
    }

    /// `TransactionDetailsResponse`.
    pub fn transaction_details(
        &self,
        id: &str,
        numbers: NumberStyle,
    ) -> Result<Value, UnknownTransaction> {
        let t = self
            .transactions
            .iter()
            .find(|t| t.id == id)
            .ok_or(UnknownTransaction)?;
        Ok(transaction_details(&self.transaction_entry(t), numbers))
    }
}
