//! One emulation of E*TRADE's API for the two places that answer in E*TRADE's name: the
//! paper broker ([`crate::paper`], its in-process door) and the fake E*TRADE server the
//! tests run against (`tests/fake-etrade`, its HTTP door). What E*TRADE accepts, how it
//! words a refusal, how it prices an option and how it shapes every answer is written here
//! once, so the two cannot drift apart; each door brings its own figures (paper's book and
//! simulated market, the fake's fixtures).
//!
//! * [`codes`]: every `{"Error":{"code","message"}}` either of them answers with.
//! * [`instrument`], [`order_status`]: what an order trades and where it stands; the order's
//!   words themselves are E*TRADE's vocabulary ([`crate::etrade::vocabulary`]).
//! * [`order_request`]: `PreviewOrderRequest` / `PlaceOrderRequest` bodies checked into an
//!   [`order_request::OrderRequest`]; [`cancel_request`]: `CancelOrderRequest` bodies;
//!   [`request_error`]: the refusals of both; [`order_canonical`]: a body's canonical form,
//!   for a book that compares a place with its preview strictly.
//! * [`entry_rules`]: the one set of order-entry rules both books run ([`entry_rules::EntryBook`]):
//!   which preview a place may use, what a change or a cancel may name, when a
//!   `clientOrderId` may repeat.
//! * [`answers`]: every answer (accounts, balance, portfolio, transactions, quotes, lookup,
//!   option chains and expiries, listed orders, preview/place/cancel), written from figures
//!   each emulator computes;
//!   [`alerts`]: the alert inbox; [`option_model`]: how both price an option;
//!   [`fixed_book`] and [`fixed_market`]: the fake's book (accounts, positions,
//!   transactions, orders and previews) and market (quotes, options, order estimates),
//!   figures given by hand that never move.
//! * [`order_estimate`]: what an order is estimated at (both books, their own prices and
//!   commissions); [`order_echo`]: the order as preview and place answers repeat it; [`order_list`]: the
//!   list-orders query, filter and paging; [`query_params`]: query-parameter values and
//!   their refusals.
//! * [`json_number`]: how each emulator writes a decimal into JSON.
//!
//! The E*TRADE client ([`crate::etrade`]) never uses this module: its parsing of E*TRADE's
//! answers stays independent, so the fake server still tests it. Both share only the
//! vocabulary of E*TRADE's words.

mod wire_enum;

pub mod cancel_request;
pub mod codes;
pub mod entry_rules;
pub mod instrument;
pub mod json_number;
pub mod order_canonical;
pub mod order_echo;
pub mod order_estimate;
pub mod order_list;
pub mod order_request;
pub mod order_status;

// The read side: every answer's writer, the alert inbox and the option model.
pub mod alerts;
pub mod answers;
pub mod fixed_book;
pub mod fixed_market;
pub mod option_model;

pub mod query_params;
pub mod request_error;

pub use self::entry_rules::EntryRefusal;
pub use self::instrument::{CallPut, Instrument, SecurityType};
pub use self::json_number::NumberStyle;
pub use self::order_request::{LegRequest, OrderRequest, OrderRoot, OrderScope};
pub use self::order_status::OrderStatus;
pub use self::request_error::{RequestError, Unsupported};
pub use crate::etrade::vocabulary::{
    MarketSession, OrderAction, OrderTerm, OrderType, PriceType, QuantityType,
};
