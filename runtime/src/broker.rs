//! The one interface every brokerage behind the tools implements: answer a typed E*TRADE v1
//! request ([`EtradeRequest`]) with E*TRADE's JSON body (`None` for an empty answer) or the
//! contract's error object. The E*TRADE session sends it over HTTP; the paper broker answers
//! it from its local book. Tool handlers and the order desk see only this.

use crate::contract::errors::ToolError;
use crate::etrade::{EtradeRequest, EtradeSession};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;

pub type BrokerFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<Value>, ToolError>> + Send + 'a>>;

pub trait Broker: Send + Sync {
    fn call<'a>(&'a self, request: &'a EtradeRequest) -> BrokerFuture<'a>;
}

impl Broker for EtradeSession {
    fn call<'a>(&'a self, request: &'a EtradeRequest) -> BrokerFuture<'a> {
        Box::pin(EtradeSession::call(self, request))
    }
}
