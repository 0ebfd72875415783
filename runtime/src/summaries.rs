//! Answers sized for a model: whole-account figures computed exactly from every page
//! E*TRADE gives, so an agent gets one small answer instead of paging and adding up itself.
//!
//! Everything here reads through the [`Broker`](crate::broker::Broker), so the E*TRADE
//! session and the paper broker answer alike.

pub mod figures;
pub mod overview;
pub mod paging;
pub mod transactions;
