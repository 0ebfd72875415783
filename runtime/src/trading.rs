//! Order and alert mutations: the order model the broker bodies are built from, domain
//! validation, the trading policy, the halt switch, the redb store of previews, the
//! mutation journal and daily usage, and reconciliation of uncertain outcomes.

pub mod approval;
pub mod approval_pin;
pub mod body;
pub mod desk;
pub mod halt;
pub mod order;
pub mod pin_hash;
pub mod pin_strength;
pub mod policy;
pub mod reconcile;
mod recovery;
pub mod store;
pub mod types;
pub mod validate;

pub use types::*;
