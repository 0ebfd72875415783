//! Order entry: permissions, previews, the order scenario, diagnostics and the halt.
//!
//! One test binary per area (linking one binary per file costs minutes on two cores); each
//! file is a module named as it was.

#[path = "../common/mod.rs"]
mod common;

mod halt;
mod order_diagnostics;
mod osi_orders;
mod store_migration;
mod trade_permissions;
mod trade_previews;
mod trade_scenario;
