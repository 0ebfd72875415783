//! A read tool's whole job once its input is valid: one request to the broker, the answer
//! read by its model and serialized as the tool's `data`.

use crate::broker::Broker;
use crate::contract::error_mapping::answer_refusal;
use crate::contract::errors::{ErrorCode, ToolError};
use crate::etrade::EtradeRequest;
use crate::etrade::answers::BrokerAnswer;
use crate::mcp::dispatch::{ToolData, ToolResult};

pub async fn read<A: BrokerAnswer + Send + 'static>(
    broker: &dyn Broker,
    request: &EtradeRequest,
) -> ToolResult {
    let answer = read_answer::<A>(broker, request).await?;
    Ok(ToolData::Typed(Box::new(answer)))
}

/// The same read, the answer kept typed: for a hand-written read handler that shapes its
/// request first (an OSI symbol into E*TRADE's own spelling) and returns its output type.
pub async fn read_answer<A: BrokerAnswer>(
    broker: &dyn Broker,
    request: &EtradeRequest,
) -> Result<A, ToolError> {
    let answer = match broker.read(request).await {
        Ok(body) => A::from_answer(body, request)
            .map_err(|_| ToolError::new(ErrorCode::InvalidBrokerResponse))?,
        Err(e) => A::from_refusal(&e).ok_or(e)?,
    };
    if let Some(refusal) = answer.refusal() {
        return Err(answer_refusal(&refusal));
    }
    Ok(answer)
}
