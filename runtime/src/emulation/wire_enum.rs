//! The enum macro of E*TRADE's words, for the emulation's own enumerations.

pub(super) use crate::etrade::vocabulary::wire_enum;
