//! E*TRADE connectivity: the signed HTTP client, wire quirks, request pacing and the
//! session that manages the token lifecycle around every call.

mod client;
mod limiter;
pub mod models;
pub mod session;
mod wire;

pub use client::{Answer, ClientOptions, EtradeHttp, TokenPair, parse_http_date};
pub use limiter::{Module, Pacer};
pub use reqwest::Method;
pub use session::{ApiRequest, Clock, EtradeSession};
pub use wire::{error_body, one_or_many, query_date};
