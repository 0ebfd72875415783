//! Hand-written runtime of etrade-mcp.
//!
//! Everything with behaviour lives here: the result envelope, the error taxonomy, input
//! validation, the MCP server, transports, configuration and credentials. The generated tool
//! layer reaches this crate only through [`__codegen`]; nothing here depends on generated code.

// A ToolError is the whole error object of a failed result, built at most once per call;
// boxing it would only add an allocation to every failure.
#![allow(clippy::result_large_err)]

pub mod auth_flow;
pub mod broker;
pub mod broker_message;
pub mod catalog;
pub mod config;
pub mod credentials;
pub mod dispatch;
pub mod endpoints;
pub mod envelope;
pub mod error_mapping;
pub mod errors;
pub mod etrade;
pub mod http;
pub mod logging;
pub mod oauth;
pub mod paper;
pub mod paths;
pub mod platform;
pub mod server;
pub mod status;
pub mod trading;
pub mod validation;

#[doc(hidden)]
#[path = "codegen_support.rs"]
pub mod __codegen;
