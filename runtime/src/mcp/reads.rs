//! A read tool's whole job once its input is valid: one request to the broker, the answer
//! read by its model and serialized as the tool's `data`.

use crate::broker::Broker;
use crate::contract::error_mapping::answer_refusal;
use crate::contract::errors::{ErrorCode, ToolError};
use crate::etrade::BrokerBody;
use crate::etrade::EtradeRequest;
use crate::etrade::answers::BrokerAnswer;
use crate::mcp::dispatch::{ToolData, ToolResult};

pub async fn read<A: BrokerAnswer + Send + 'static>(
    broker: &dyn Broker,
    request: &EtradeRequest,
) -> ToolResult {
    let (answer, broker_bytes) = read_sized::<A>(broker, request).await?;
    Ok(ToolData::Typed(Box::new(answer), broker_bytes))
}

/// The same read, the answer kept typed: for a hand-written read handler that shapes its
/// request first (an OSI symbol into E*TRADE's own spelling) and returns its output type.
pub async fn read_answer<A: BrokerAnswer>(
    broker: &dyn Broker,
    request: &EtradeRequest,
) -> Result<A, ToolError> {
    read_sized(broker, request).await.map(|(answer, _)| answer)
}

/// The answer, and how long E*TRADE's text of it was (0 when it came as a tree): the
/// envelope sizes its text by it.
async fn read_sized<A: BrokerAnswer>(
    broker: &dyn Broker,
    request: &EtradeRequest,
) -> Result<(A, usize), ToolError> {
    let (answer, broker_bytes) = match broker.read(request).await {
        Ok(body) => {
            let bytes = match &body {
                Some(BrokerBody::Text(text)) => text.len(),
                Some(BrokerBody::Tree(_)) | None => 0,
            };
            let answer = A::from_answer(body, request)
                .map_err(|_| ToolError::new(ErrorCode::InvalidBrokerResponse))?;
            (answer, bytes)
        }
        Err(e) => (A::from_refusal(&e).ok_or(e)?, 0),
    };
    if let Some(refusal) = answer.refusal() {
        return Err(answer_refusal(&refusal));
    }
    Ok((answer, broker_bytes))
}
