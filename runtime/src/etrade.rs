//! E*TRADE connectivity: OAuth 1.0a signing and the login flow, the endpoints of each
//! environment, the signed HTTP client, wire quirks, request pacing, the answer models and
//! the session that manages the token lifecycle around every call.

pub mod answers;
mod body;
pub mod broker_message;
mod client;
pub mod endpoints;
pub mod failure;
mod limiter;
pub mod models;
pub mod oauth;
pub mod order_body;
pub mod osi;
pub mod request;
pub mod session;
pub mod vocabulary;
mod wire;

pub use body::BrokerBody;
pub use client::{Answer, ClientOptions, EtradeHttp, TokenPair, parse_http_date};
pub use failure::{BrokerError, BrokerFailure, Operation};
pub use limiter::{Module, Pacer};
pub use request::{Endpoint, EtradeRequest, Param, Verb, query_date};
pub use reqwest::Method;
pub use session::{Clock, EtradeSession};
pub use wire::{error_body, one_or_many};
