//! Hand-written runtime of etrade-mcp.
//!
//! Everything with behaviour lives here: the result envelope, the error taxonomy, input
//! validation, the MCP server, transports, configuration and credentials. The generated tool
//! layer reaches this crate only through [`__codegen`]. The one piece of generated code
//! inside it is the E*TRADE answer models (`etrade/models/generated.rs` includes what
//! `runtime/build.rs` writes from the spec's `model:` objects); the rest is hand-written.

// A ToolError is the whole error object of a failed result, built at most once per call;
// boxing it would only add an allocation to every failure.
#![allow(clippy::result_large_err)]

// The layers, each a folder: the MCP surface, the product contract, the E*TRADE client,
// credentials, trading (policy, desk, journal), the E*TRADE emulation the paper broker and the
// test server share, the paper broker and whole-account summaries. Beside them the broker
// interface they meet at, configuration, paths, logging and the platform module.
pub mod contract;
pub mod credentials;
pub mod emulation;
pub mod etrade;
pub mod mcp;
pub mod outputs;
pub mod paper;
pub mod summaries;
pub mod trading;
pub mod vault;

pub mod broker;
pub mod calendar;
pub mod config;
pub mod logging;
pub mod login;
pub mod paths;
pub mod platform;
mod store_lease;
pub mod time;

#[doc(hidden)]
#[path = "mcp/codegen_support.rs"]
pub mod __codegen;
