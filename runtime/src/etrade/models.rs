//! Client models of E*TRADE responses: they read the wire JSON (PascalCase containers,
//! lowerCamel leaves, one-or-many arrays, epoch times) and serialize under the lowerCamel
//! names the tools' output schemas advertise.
//!
//! The shapes are generated from the spec (`generated`, from its `model:` objects), so an
//! answer's fields are written once. Each topic module here re-exports its models and adds
//! what is not a shape: the answer's root (`from_wire`: the `…Response` envelope, what an empty
//! answer means) and logic on the models. `read` holds the wire readers the generated code
//! names.

pub mod accounts;
pub mod alerts;
pub mod balances;
pub mod generated;
pub mod lookup;
pub mod money;
pub mod options;
pub mod order_entry;
pub mod orders;
pub mod portfolio;
pub mod quotes;
pub mod read;
pub mod scalars;
mod time;
pub mod transactions;

pub use time::epoch_opt;
