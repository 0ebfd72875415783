//! What the paper book adds to the order-entry answers it shares with the fake server
//! ([`crate::emulation::order_echo`]): the echoed order with its exact estimate, and the DST
//! flag in New York time.

use jiff::Timestamp;
use serde_json::Value;

use super::num;
use crate::calendar::time_zone;
use crate::emulation::order_echo::OrderEcho;
use crate::emulation::{NumberStyle, OrderRequest};
use crate::paper::book::engine::Estimate;

/// The `Order[]` entry of a preview or place answer.
pub(crate) fn echo_order(r: &OrderRequest, est: &Estimate, messages: &[Value]) -> Value {
    OrderEcho {
        numbers: NumberStyle::Exact,
        descriptions: r.legs.iter().map(|l| l.instrument.display()).collect(),
        estimated_commission: num(est.commission),
        estimated_total: num(est.total()),
        messages,
    }
    .json(r)
}

pub(crate) fn dst(now: Timestamp) -> bool {
    time_zone().to_offset_info(now).dst().is_dst()
}
