//! Order and alert mutations: the order model the broker bodies are built from, domain
//! validation, the trading policy, the halt switch, the market calendar, the redb store of previews, the
//! mutation journal and daily usage, and reconciliation of uncertain outcomes.

pub mod approval;
pub mod approval_pin;
pub mod body;
/// The market calendar is a leaf (paper and the policy both read it); kept here under its old path.
pub use crate::calendar;
pub mod desk;
pub mod halt;
pub mod order;
pub mod pin_hash;
pub mod policy;
pub mod reconcile;
mod recovery;
pub mod store;
pub mod types;
pub mod validate;

pub use types::*;
