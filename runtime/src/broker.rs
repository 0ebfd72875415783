//! The one interface every brokerage behind the tools implements: answer a typed E*TRADE v1
//! request ([`EtradeRequest`]) with E*TRADE's JSON body (`None` for an empty answer) or a
//! [`BrokerError`]: the failure in the broker's terms, which the contract maps to a tool's
//! error object in one place (`From<BrokerError> for ToolError`). The E*TRADE session sends it over HTTP; the paper broker answers
//! it from its local book. Tool handlers and the order desk see only this.

use crate::etrade::{BrokerError, EtradeRequest, EtradeSession};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;

pub type BrokerFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<Value>, BrokerError>> + Send + 'a>>;

pub trait Broker: Send + Sync {
    fn call<'a>(&'a self, request: &'a EtradeRequest) -> BrokerFuture<'a>;
}

impl Broker for EtradeSession {
    fn call<'a>(&'a self, request: &'a EtradeRequest) -> BrokerFuture<'a> {
        Box::pin(EtradeSession::call(self, request))
    }
}
