//! Input validation: static schema tables (emitted by codegen), the interpreter that checks
//! arguments against them, and the diagnostics the contract allows it to report.

mod client;
mod diagnostics;
mod engine;
mod rules;
mod schema;

pub use client::{ClientProblem, ClientReason, client_validation_error};
pub use diagnostics::{Diagnostics, PathSegment, ValidationError, limits};
pub use engine::{DATE_PATTERN, DECIMAL_PATTERN, validate};
pub use schema::{
    Condition, FieldSchema, ObjectSchema, RuleCheck, RuleSchema, TypeKind, TypeSchema,
};
