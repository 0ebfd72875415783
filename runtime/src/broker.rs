//! The one interface every brokerage behind the tools implements: answer a typed E*TRADE v1
//! request ([`EtradeRequest`]) with E*TRADE's JSON body (`None` for an empty answer) or a
//! [`BrokerError`]: the failure in the broker's terms, which the contract maps to a tool's
//! error object in one place (`From<BrokerError> for ToolError`). The E*TRADE session sends it over HTTP; the paper broker answers
//! it from its local book. Tool handlers and the order desk see only this.

use crate::etrade::{BrokerBody, BrokerError, EtradeRequest, EtradeSession};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;

pub type BrokerFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<Value>, BrokerError>> + Send + 'a>>;

pub type BrokerBodyFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<BrokerBody>, BrokerError>> + Send + 'a>>;

pub trait Broker: Send + Sync {
    fn call<'a>(&'a self, request: &'a EtradeRequest) -> BrokerFuture<'a>;

    /// [`Broker::call`] for a caller that only reads the answer into a model: a broker may
    /// hand over its body as text, which the model reads without building a tree first.
    fn read<'a>(&'a self, request: &'a EtradeRequest) -> BrokerBodyFuture<'a> {
        Box::pin(async move { Ok(self.call(request).await?.map(BrokerBody::Tree)) })
    }
}

impl Broker for EtradeSession {
    fn call<'a>(&'a self, request: &'a EtradeRequest) -> BrokerFuture<'a> {
        Box::pin(EtradeSession::call(self, request))
    }

    fn read<'a>(&'a self, request: &'a EtradeRequest) -> BrokerBodyFuture<'a> {
        Box::pin(EtradeSession::read(self, request))
    }
}
