//! The product contract: the tool-result envelope, the error taxonomy and how broker
//! failures map onto it, the rules for broker messages, and input validation diagnostics.

pub mod broker_message;
pub mod envelope;
pub mod error_mapping;
pub mod errors;
pub mod validation;
