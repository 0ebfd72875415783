//! The paper broker's front door: routes each E*TRADE request to the book or the market
//! simulator and answers with E*TRADE's JSON, or with the error E*TRADE would send mapped
//! through the same table as real broker failures. Alerts have no local meaning: those
//! requests are `tool_not_available`.

use super::book::{PaperBook, PaperError};
use super::live::LiveQuotes;
use super::market::{OptionChainQuery, SimulatedMarket};
use crate::broker::{Broker, BrokerFuture};
use crate::contract::broker_message::KnownSecrets;
use crate::contract::error_mapping::{BrokerErrorBody, BrokerFailure, Operation, to_tool_error};
use crate::contract::errors::{ErrorCode, ToolError};
use crate::etrade::ApiRequest;
use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::Value;
use std::str::FromStr;
use std::sync::Arc;

pub struct PaperBroker {
    book: Arc<PaperBook>,
    market: Arc<SimulatedMarket>,
    /// E*TRADE quotes when the profile's credentials are active.
    live: Option<Arc<LiveQuotes>>,
}

/// A request the paper broker understood, owned so it can move to a blocking thread.
struct Owned {
    operation: Operation,
    method: Method,
    path: String,
    query: Vec<(String, String)>,
    body: Option<Value>,
}

impl PaperBroker {
    pub fn new(book: Arc<PaperBook>, market: Arc<SimulatedMarket>) -> PaperBroker {
        PaperBroker {
            book,
            market,
            live: None,
        }
    }

    /// Serve E*TRADE's quotes (and fill at E*TRADE's touch) whenever `live` has usable
    /// credentials; the simulator otherwise.
    pub fn with_live_quotes(mut self, live: Arc<LiveQuotes>) -> PaperBroker {
        self.live = Some(live);
        self
    }

    /// Refresh the live touch of the stock legs of an order body before it is priced.
    async fn refresh_touches(&self, live: &LiveQuotes, body: &Value) {
        let mut symbols: Vec<String> = Vec::new();
        let root = body
            .get("PreviewOrderRequest")
            .or_else(|| body.get("PlaceOrderRequest"));
        for order in root
            .and_then(|r| r.get("Order"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for i in order
                .get("Instrument")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let p = i.get("Product");
                if p.and_then(|p| p.get("securityType"))
                    .and_then(Value::as_str)
                    == Some("EQ")
                    && let Some(sym) = p.and_then(|p| p.get("symbol")).and_then(Value::as_str)
                    && !symbols.iter().any(|s| s.eq_ignore_ascii_case(sym))
                {
                    symbols.push(sym.to_ascii_uppercase());
                }
            }
        }
        if symbols.is_empty() {
            return;
        }
        let path = format!("/v1/market/quote/{}", symbols.join(","));
        let query = [("detailFlag", "ALL".to_string())];
        let request = ApiRequest {
            operation: Operation::Read,
            module: crate::etrade::Module::Market,
            method: Method::GET,
            path: &path,
            query: &query,
            body: None,
        };
        // Best effort: without a fresh live touch the fill uses the simulator's.
        let _ = live.quotes(&request).await;
    }

    pub fn book(&self) -> &Arc<PaperBook> {
        &self.book
    }
}

fn not_available() -> ToolError {
    ToolError {
        message: format!(
            "{} Alerts are E*TRADE's inbox; the paper broker has none. Use --environment sandbox or production.",
            ErrorCode::ToolNotAvailable.summary()
        ),
        ..ToolError::new(ErrorCode::ToolNotAvailable)
    }
}

fn rejected(status: u16, code: i64, message: &str, op: Operation) -> ToolError {
    let code = code.to_string();
    let failure = BrokerFailure::Http {
        status,
        body: BrokerErrorBody::new(Some(code.as_str().into()), Some(message)),
    };
    to_tool_error(&failure, op, &KnownSecrets::default())
}

fn paper_error(e: PaperError, op: Operation) -> Result<Option<Value>, ToolError> {
    match e {
        PaperError::Empty => Ok(None),
        PaperError::Rejected {
            status,
            code,
            message,
        } => Err(rejected(status, code, &message, op)),
        PaperError::Store(detail) => {
            tracing::error!(%detail, "paper store failure");
            Err(ToolError {
                message: format!(
                    "{} The paper broker's local database failed.",
                    ErrorCode::InternalError.summary()
                ),
                ..ToolError::internal()
            })
        }
    }
}

fn q<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// E*TRADE's answer for an option request on an unknown underlying.
fn invalid_symbol(op: Operation) -> ToolError {
    rejected(
        400,
        10033,
        "The symbol entered is invalid. Please enter another symbol.",
        op,
    )
}

fn unknown_endpoint(op: Operation) -> ToolError {
    rejected(404, 0, "Resource not found.", op)
}

impl PaperBroker {
    fn route(&self, r: &Owned) -> Result<Option<Value>, ToolError> {
        let op = r.operation;
        let segments: Vec<&str> = r.path.trim_start_matches('/').split('/').collect();
        let query: Vec<(&str, String)> = r
            .query
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        // Every book answer first runs the fills due up to now, under the book's lock.
        let book = &self.book;
        let body = || r.body.clone().unwrap_or(Value::Null);
        let id = |s: &str| s.parse::<i64>().ok();
        let answer = match (&r.method, segments.as_slice()) {
            (&Method::GET, ["v1", "accounts", "list"]) => book.accounts_list(),
            (&Method::GET, ["v1", "accounts", k, "balance"]) => book.balance(k),
            (&Method::GET, ["v1", "accounts", k, "portfolio"]) => book.portfolio(k, &query),
            (&Method::GET, ["v1", "accounts", k, "portfolio", p]) => match id(p) {
                Some(p) => book.position_lots(k, p),
                None => return Err(unknown_endpoint(op)),
            },
            (&Method::GET, ["v1", "accounts", k, "transactions"]) => book.transactions(k, &query),
            (&Method::GET, ["v1", "accounts", k, "transactions", t]) => match id(t) {
                Some(t) => book.transaction_details(k, t),
                None => return Err(unknown_endpoint(op)),
            },
            (&Method::GET, ["v1", "accounts", k, "orders"]) => book.orders(k, &query),
            (&Method::POST, ["v1", "accounts", k, "orders", "preview"]) => {
                book.preview(k, &body(), None)
            }
            (&Method::POST, ["v1", "accounts", k, "orders", "place"]) => {
                book.place(k, &body(), None)
            }
            (&Method::PUT, ["v1", "accounts", k, "orders", "cancel"]) => book.cancel(k, &body()),
            (&Method::PUT, ["v1", "accounts", k, "orders", o, "change", "preview"]) => {
                match id(o) {
                    Some(o) => book.preview(k, &body(), Some(o)),
                    None => return Err(unknown_endpoint(op)),
                }
            }
            (&Method::PUT, ["v1", "accounts", k, "orders", o, "change", "place"]) => match id(o) {
                Some(o) => book.place(k, &body(), Some(o)),
                None => return Err(unknown_endpoint(op)),
            },
            (&Method::GET, ["v1", "market", "quote", symbols]) => {
                let list: Vec<String> = symbols
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.to_ascii_uppercase())
                    .collect();
                return Ok(Some(self.market.quote_response(
                    &list,
                    q(&r.query, "detailFlag"),
                    book.now(),
                )));
            }
            (&Method::GET, ["v1", "market", "lookup", search]) => {
                return Ok(Some(self.market.lookup_response(search)));
            }
            (&Method::GET, ["v1", "market", "optionexpiredate"]) => {
                let symbol = q(&r.query, "symbol").unwrap_or("").to_ascii_uppercase();
                return match self
                    .market
                    .option_expire_dates_response(&symbol, book.now())
                {
                    Some(v) => Ok(Some(v)),
                    None => Err(invalid_symbol(op)),
                };
            }
            (&Method::GET, ["v1", "market", "optionchains"]) => {
                let num = |n: &str| q(&r.query, n).and_then(|v| v.parse::<i64>().ok());
                let expiry = match (num("expiryYear"), num("expiryMonth"), num("expiryDay")) {
                    (Some(y), Some(m), d) => jiff::civil::Date::new(
                        i16::try_from(y).unwrap_or(0),
                        i8::try_from(m).unwrap_or(0),
                        d.and_then(|d| i8::try_from(d).ok()).unwrap_or(1),
                    )
                    .ok(),
                    _ => None,
                };
                let query = OptionChainQuery {
                    symbol: q(&r.query, "symbol").unwrap_or("").to_ascii_uppercase(),
                    expiry,
                    strike_price_near: q(&r.query, "strikePriceNear")
                        .and_then(|v| Decimal::from_str(v).ok()),
                    no_of_strikes: num("noOfStrikes").and_then(|n| usize::try_from(n).ok()),
                    chain_type: q(&r.query, "chainType").map(str::to_string),
                    include_weekly: q(&r.query, "includeWeekly") == Some("true"),
                };
                return match self.market.option_chains_response(&query, book.now()) {
                    Some(v) => Ok(Some(v)),
                    None => Err(invalid_symbol(op)),
                };
            }
            (_, ["v1", "user", "alerts", ..]) => return Err(not_available()),
            _ => return Err(unknown_endpoint(op)),
        };
        match answer {
            Ok(v) => Ok(Some(v)),
            Err(e) => paper_error(e, op),
        }
    }
}

impl Broker for PaperBroker {
    fn call<'a>(&'a self, request: &'a ApiRequest<'a>) -> BrokerFuture<'a> {
        Box::pin(async move {
            let body = match request.body {
                Some(text) => match serde_json::from_str(text) {
                    Ok(v) => Some(v),
                    Err(_) => {
                        return Err(rejected(
                            400,
                            9001,
                            "Invalid request body.",
                            request.operation,
                        ));
                    }
                },
                None => None,
            };
            if let Some(live) = &self.live {
                if request.method == Method::GET && request.path.starts_with("/v1/market/quote/") {
                    if let Some(answer) = live.quotes(request).await? {
                        return Ok(Some(answer));
                    }
                } else if let Some(b) = &body
                    && request.path.contains("/orders/")
                {
                    self.refresh_touches(live, b).await;
                }
            }
            let owned = Owned {
                operation: request.operation,
                method: request.method.clone(),
                path: request.path.to_string(),
                query: request
                    .query
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect(),
                body,
            };
            let me = PaperBroker {
                book: self.book.clone(),
                market: self.market.clone(),
                live: None,
            };
            // redb work is blocking; keep it off the async workers. Once started, a
            // mutation runs to completion even if the caller is cancelled — like a request
            // that reached E*TRADE.
            tokio::task::spawn_blocking(move || me.route(&owned))
                .await
                .map_err(|_| ToolError::internal())?
        })
    }
}
