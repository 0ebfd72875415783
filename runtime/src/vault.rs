//! The trading vault: the part of etrade-mcp that holds what decides (the E*TRADE login, the
//! trading store, the halt, the paper book, the trading policy) under its own OS account, and
//! the wire the person's side uses to ask it for things. docs/design/vault.md is the map.

pub mod defaults;
pub mod identity;
pub mod install;
