//! Everything the generated tool layer uses, in one place (as `tonic::codegen` does), so
//! generated code has a single stable import surface: `::runtime::__codegen::…`.

pub use crate::broker::Broker;
pub use crate::contract::errors::{ErrorCode, ToolError};
pub use crate::contract::validation::{
    Condition, FieldSchema, ObjectSchema, RuleCheck, RuleSchema, TypeKind, TypeSchema,
};
pub use crate::etrade::answers;
pub use crate::etrade::vocabulary;
pub use crate::etrade::{Endpoint, EtradeRequest, Param};
pub use crate::mcp::catalog::{
    AppDescriptor, Catalog, ErrorCodeDescriptor, PermissionDescriptor, ToolDescriptor,
};
pub use crate::mcp::compact::{Compaction, compact};
pub use crate::mcp::dispatch::{
    BoxFuture, CallContext, JsonObject, ToolData, ToolDispatch, ToolResult,
};
pub use crate::mcp::reads::read;
pub use crate::outputs;
pub use jiff::civil::Date;
pub use rust_decimal::Decimal;
pub use serde_json::Value as JsonValue;

use crate::contract::validation::Diagnostics;

/// Validate arguments, then build the typed input from the canonical-name map.
pub fn parse_input<T: serde::de::DeserializeOwned>(
    schema: &ObjectSchema,
    args: JsonObject,
) -> Result<T, ToolError> {
    let normalized =
        crate::contract::validation::validate(schema, args).map_err(ToolError::invalid_input)?;
    serde_json::from_value(JsonValue::Object(normalized)).map_err(|_| {
        // Validation passed but the typed input refused it: a generator bug. Say so safely;
        // serde's message could quote the submitted value.
        tracing::error!("validated arguments did not deserialize into the typed input");
        ToolError::invalid_input(Diagnostics::single(
            "invalid",
            "The arguments could not be read; check each field's type.",
        ))
    })
}

/// A hand-written handler's typed output as the tool's `data`.
pub fn output<T: serde::Serialize + Send + 'static>(result: Result<T, ToolError>) -> ToolResult {
    Ok(ToolData::Typed(Box::new(result?), 0))
}

/// The decimal syntax the validator enforces; a generated test compares it with codegen's.
pub const DECIMAL_PATTERN: &str = crate::contract::validation::DECIMAL_PATTERN;
