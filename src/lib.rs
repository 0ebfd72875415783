//! etrade-mcp: the generated tool layer and the handlers that connect it to the runtime.
//!
//! `generated` is compiled from OUT_DIR (build.rs writes it from spec/tools.yaml); the
//! committed `generated/` folder is a byte-identical mirror for review.

// See runtime: ToolError is returned once per call, by value on purpose.
#![allow(clippy::result_large_err)]

pub mod handlers;

/// The tool layer generated from `spec/tools.yaml`.
#[allow(clippy::all, missing_docs)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

/// The generated files as built, for the freshness test.
pub const GENERATED_TOOLS_RS: &str = include_str!(concat!(env!("OUT_DIR"), "/tools.rs"));
