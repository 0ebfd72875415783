//! Approval of orders: every channel, and the attacks on it.
//!
//! One test binary per area (linking one binary per file costs minutes on two cores); each
//! file is a module named as it was.

#[path = "../common/mod.rs"]
mod common;

mod app_ticket;
mod approval_attacks;
mod approval_page;
mod approvals;
mod approvals_mrtr;
mod only_a_person;
