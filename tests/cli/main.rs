//! The `etrade` command line: login, the token session, doctor, and the credentials file.
//!
//! One test binary per area (linking one binary per file costs minutes on two cores); each
//! file is a module named as it was.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod doctor;
mod etrade_auth;
mod etrade_session;
mod file_store_crash;
mod newcomer;
