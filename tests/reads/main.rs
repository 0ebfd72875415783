//! Every read tool, in paper and against the fake E*TRADE, and real E*TRADE answers replayed.
//!
//! One test binary per area (linking one binary per file costs minutes on two cores); each
//! file is a module named as it was.

#[path = "../common/mod.rs"]
mod common;

mod account_summaries;
mod catalog_reads;
mod compact_rows;
mod read_accounts_balances;
mod read_accounts_list;
mod read_accounts_portfolio;
mod read_accounts_transactions;
mod read_alerts;
mod read_market;
mod read_orders;
mod real_answers;
