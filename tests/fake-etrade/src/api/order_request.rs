//! Order request bodies (`PreviewOrderRequest`, `PlaceOrderRequest`) as the fake reads
//! them: checked and put in canonical form by the emulation
//! ([`runtime::emulation::order_request`], [`runtime::emulation::order_canonical`]), each
//! leg described by the fixed market, and the order echoed in preview and place answers.

use axum::http::StatusCode;
use axum::response::Response;
use runtime::emulation::order_canonical::canonical;
use runtime::emulation::order_echo::OrderEcho;
use runtime::emulation::order_estimate::Estimate;
use runtime::emulation::order_request::{self, ParsedOrder, json_body};
use runtime::emulation::{NumberStyle, OrderRequest, OrderRoot, OrderScope, RequestError};
use serde_json::Value;

use crate::responses::api_error;
use crate::state::Shared;

/// A checked order request.
#[derive(Debug, Clone)]
pub(crate) struct CheckedOrder {
    pub request: OrderRequest,
    /// How each leg's security is described: its quote's description, else its symbol.
    pub descriptions: Vec<String>,
    /// `{"orderType", "clientOrderId", "Order"}`, canonical (see the module docs).
    pub canonical: Value,
    /// The request's `PreviewIds` member as sent (place only).
    pub preview_ids: Option<Value>,
}

/// E*TRADE's 400 answer to a refused body.
pub(crate) fn refusal(e: &RequestError) -> Response {
    api_error(StatusCode::BAD_REQUEST, e.code(), &e.to_string())
}

/// Checks a request body whose root member is `root`.
pub(crate) fn parse(s: &Shared, body: &[u8], root: OrderRoot) -> Result<CheckedOrder, Response> {
    let v = json_body(body).map_err(|e| refusal(&e))?;
    let ParsedOrder {
        request,
        preview_ids,
    } = order_request::parse(&v, root, OrderScope::Etrade).map_err(|e| refusal(&e))?;
    Ok(CheckedOrder {
        canonical: canonical(&v, root, &request).map_err(|e| refusal(&e))?,
        descriptions: request
            .legs
            .iter()
            .map(|l| s.market.describe(&l.instrument, s.now()))
            .collect(),
        request,
        preview_ids,
    })
}

/// The `Order[]` entry of a preview or place answer.
pub(crate) fn echo_order(r: &CheckedOrder, est: &Estimate, messages: &[Value]) -> Value {
    OrderEcho {
        numbers: NumberStyle::Float,
        descriptions: r.descriptions.clone(),
        estimated_commission: NumberStyle::Float.json(est.commission),
        estimated_total: NumberStyle::Float.json(est.total()),
        messages,
    }
    .json(&r.request)
}
