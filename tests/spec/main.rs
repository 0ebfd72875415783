//! The spec and what is generated from it: inventory, freshness, validation properties.
//!
//! One test binary per area (linking one binary per file costs minutes on two cores); each
//! file is a module named as it was.

mod alert_deletion;
mod generated_fresh;
mod inventory;
mod models_once;
mod outputs;
mod validation_props;
