//! The trading vault: the part of etrade-mcp that holds what decides (the E*TRADE login, the
//! trading store, the halt, the paper book, the trading policy) under its own OS account, and
//! the wire the person's side uses to ask it for things. docs/design/vault.md is the map.

pub mod admission;
pub mod defaults;
pub mod http_relay;
pub use crate::platform::identity;
pub mod install;
pub mod supervisor;
pub mod wire;
