//! The trading vault against an agent with a shell as the person: real OS accounts, the vault
//! run as one, every person-side command and attack run as the other (Linux, as root; elsewhere
//! each test says why it did not run). Written before the defence: see docs/design/vault.md.

#![cfg(target_os = "linux")]

#[path = "../common/mod.rs"]
mod common;

mod accounts;
mod attacks;
mod channels;
mod fixture;
mod http;
mod install;
mod login;
mod person_paths;
mod shell_attacks;
