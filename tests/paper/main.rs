//! The paper broker: its scenario, crash safety, its CLI and live quotes.
//!
//! One test binary per area (linking one binary per file costs minutes on two cores); each
//! file is a module named as it was.

#[path = "../common/mod.rs"]
mod common;

mod answer_sizes;
mod paper_cli;
mod paper_crash;
mod paper_live_quotes;
mod paper_migration;
mod paper_one_now;
mod paper_order_types;
mod paper_osi;
mod paper_scenario;
