//! The product contract: the tool-result envelope, the error taxonomy and how broker
//! failures map onto it, the rules for broker messages, and input validation diagnostics.

/// The broker-message rules are applied where E*TRADE's text is read (the client and the
/// failure mapping); they live with the client and are part of the contract.
pub use crate::etrade::broker_message;
pub mod envelope;
pub mod error_mapping;
pub mod errors;
pub mod validation;
