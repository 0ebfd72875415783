//! E*TRADE's read answers, written once for both emulators. Each writer takes what the
//! answer says as plain figures (an emulator computes them from its own book and market) and
//! gives back the body E*TRADE would send, in its wire names; the emulator only chooses how
//! numbers are written ([`NumberStyle`]) and which host the links name.
//!
//! * [`accounts`]: the account list; [`balance`]: an account's balance.
//! * [`portfolio`]: positions in each view, their lots and the totals.
//! * [`transactions`]: the transaction list page and one transaction's details.
//! * [`quotes`]: equity and option quotes; [`lookup`]: product lookup.
//! * [`chains`]: option chains and expiry dates.
//! * [`order_entry`]: the preview, place and cancel answers around the echoed order;
//!   [`orders`]: one order as list orders shows it.

use serde_json::{Map, Value};

use super::NumberStyle;

pub mod accounts;
pub mod balance;
pub mod chains;
pub mod lookup;
pub mod order_entry;
pub mod orders;
pub mod portfolio;
pub mod quotes;
pub mod transactions;

/// How an emulator writes its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style<'a> {
    pub numbers: NumberStyle,
    /// The host links in answers point at (`https://api.etrade.com`, or the fake's own).
    pub base_url: &'a str,
}

/// A JSON object of these members, moved in: `json!` copies each value it is given through
/// the serializer, which for an echoed order is most of an answer's cost.
pub(crate) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    Value::Object(map(members))
}

/// [`object`]'s members, as a map still to be added to.
pub(crate) fn map<const N: usize>(members: [(&str, Value); N]) -> Map<String, Value> {
    members
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}
