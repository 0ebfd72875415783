//! The paper broker: a local brokerage in redb that answers the same E*TRADE v1 requests
//! the real client sends (same JSON in, same JSON out), so every tool — and the order desk
//! with its preview binding, policy and journal — works unchanged in the paper environment.

pub mod book;
pub mod broker;
pub mod live;
pub mod market;
pub mod touch;

pub use touch::{CallPut, MarketData, OptionContract, Touch};
