//! Every fault the fake E*TRADE can inject: the matrix over all tools, reads, and mutations.
//!
//! One test binary per area (linking one binary per file costs minutes on two cores); each
//! file is a module named as it was.

#[path = "../common/mod.rs"]
mod common;

mod etrade_faults;
mod fault_matrix;
mod trade_faults;
