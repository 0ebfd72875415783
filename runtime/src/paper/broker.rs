//! The paper broker's front door: answers each E*TRADE request, by its endpoint, from the
//! book or the market simulator with E*TRADE's JSON, or with the refusal E*TRADE would send
//! (a [`BrokerError`], mapped like any other). Alerts have no local meaning: the paper
//! broker does not offer them.

use super::book::{PaperBook, PaperError};
use super::live::LiveQuotes;
use super::market::{OptionChainQuery, SimulatedMarket};
use crate::broker::{Broker, BrokerFuture};
use crate::etrade::{BrokerError, BrokerFailure, Endpoint, EtradeRequest, Operation, Param};
use serde_json::Value;
use std::sync::Arc;

pub struct PaperBroker {
    book: Arc<PaperBook>,
    market: Arc<SimulatedMarket>,
    /// E*TRADE quotes when the profile's credentials are active.
    live: Option<Arc<LiveQuotes>>,
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
        let request = EtradeRequest::read(Endpoint::Quotes)
            .at("symbols", symbols)
            .with("detailFlag", "ALL");
        // Best effort: without a fresh live touch the fill uses the simulator's.
        let _ = live.quotes(&request).await;
    }

    pub fn book(&self) -> &Arc<PaperBook> {
        &self.book
    }
}

fn not_available(op: Operation) -> BrokerError {
    BrokerError::new(
        BrokerFailure::NotOffered {
            why: "Alerts are E*TRADE's inbox; the paper broker has none. Use --environment sandbox or production.",
        },
        op,
    )
}

fn paper_error(e: PaperError, op: Operation) -> Result<Option<Value>, BrokerError> {
    let internal =
        |why: &'static str| BrokerError::new(BrokerFailure::Internal { why: Some(why) }, op);
    match e {
        PaperError::Empty => Ok(None),
        PaperError::Rejected {
            status,
            code,
            message,
        } => Err(BrokerError::refusal(status, code, &message, op)),
        PaperError::Busy => Err(internal(
            "Another etrade process is using the paper book (it kept the file open past the lock timeout); nothing was changed. Try again shortly.",
        )),
        PaperError::Store(detail) => {
            tracing::error!(%detail, "paper store failure");
            Err(internal("The paper broker's local database failed."))
        }
    }
}

/// E*TRADE's answer for an option request on an unknown underlying.
fn invalid_symbol(op: Operation) -> BrokerError {
    BrokerError::refusal(
        400,
        10033,
        "The symbol entered is invalid. Please enter another symbol.",
        op,
    )
}

fn unknown_endpoint(op: Operation) -> BrokerError {
    BrokerError::refusal(404, 0, "Resource not found.", op)
}

impl PaperBroker {
    fn route(&self, r: &EtradeRequest, body: Option<Value>) -> Result<Option<Value>, BrokerError> {
        let op = r.operation;
        // Every book answer first runs the fills due up to now, under the book's lock.
        let book = &self.book;
        let body = || body.clone().unwrap_or(Value::Null);
        let key = r.path_text("accountIdKey");
        let id = |name: &str| r.path_param(name).and_then(Param::as_int);
        let text = |name: &str| r.query_param(name).and_then(Param::as_text);
        // Simulated time as the file has it: another process may have advanced it.
        let now = || book.try_now();
        let answer = match r.endpoint {
            Endpoint::AccountList => book.accounts_list(),
            Endpoint::Balance => book.balance(key),
            Endpoint::Portfolio => book.portfolio(key, r),
            Endpoint::PositionLots => match id("positionId") {
                Some(p) => book.position_lots(key, p),
                None => return Err(unknown_endpoint(op)),
            },
            Endpoint::Transactions => book.transactions(key, r),
            Endpoint::TransactionDetails => {
                match r.path_text("transactionId").parse::<i64>().ok() {
                    Some(t) => book.transaction_details(key, t),
                    None => return Err(unknown_endpoint(op)),
                }
            }
            Endpoint::Orders => book.orders(key, r),
            Endpoint::PreviewOrder => book.preview(key, &body(), None),
            Endpoint::PlaceOrder => book.place(key, &body(), None),
            Endpoint::CancelOrder => book.cancel(key, &body()),
            Endpoint::PreviewChangeOrder => match id("orderId") {
                Some(o) => book.preview(key, &body(), Some(o)),
                None => return Err(unknown_endpoint(op)),
            },
            Endpoint::PlaceChangeOrder => match id("orderId") {
                Some(o) => book.place(key, &body(), Some(o)),
                None => return Err(unknown_endpoint(op)),
            },
            Endpoint::Quotes => {
                let list: Vec<String> = r
                    .path_param("symbols")
                    .and_then(Param::as_list)
                    .unwrap_or_default()
                    .iter()
                    .filter(|s| !s.is_empty())
                    .map(|s| s.to_ascii_uppercase())
                    .collect();
                return match now() {
                    Ok(now) => Ok(Some(self.market.quote_response(
                        &list,
                        text("detailFlag"),
                        now,
                    ))),
                    Err(e) => paper_error(e, op),
                };
            }
            Endpoint::Lookup => {
                return Ok(Some(self.market.lookup_response(r.path_text("search"))));
            }
            Endpoint::OptionExpireDates => {
                let symbol = text("symbol").unwrap_or("").to_ascii_uppercase();
                let now = match now() {
                    Ok(now) => now,
                    Err(e) => return paper_error(e, op),
                };
                return match self.market.option_expire_dates_response(&symbol, now) {
                    Some(v) => Ok(Some(v)),
                    None => Err(invalid_symbol(op)),
                };
            }
            Endpoint::OptionChains => {
                let num = |n: &str| r.query_param(n).and_then(Param::as_int);
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
                    symbol: text("symbol").unwrap_or("").to_ascii_uppercase(),
                    expiry,
                    strike_price_near: r.query_param("strikePriceNear").and_then(Param::as_decimal),
                    no_of_strikes: num("noOfStrikes").and_then(|n| usize::try_from(n).ok()),
                    chain_type: text("chainType").map(str::to_string),
                    include_weekly: r.query_param("includeWeekly").and_then(Param::as_bool)
                        == Some(true),
                };
                let now = match now() {
                    Ok(now) => now,
                    Err(e) => return paper_error(e, op),
                };
                return match self.market.option_chains_response(&query, now) {
                    Some(v) => Ok(Some(v)),
                    None => Err(invalid_symbol(op)),
                };
            }
            Endpoint::Alerts | Endpoint::AlertDetails | Endpoint::DeleteAlerts => {
                return Err(not_available(op));
            }
        };
        match answer {
            Ok(v) => Ok(Some(v)),
            Err(e) => paper_error(e, op),
        }
    }
}

impl Broker for PaperBroker {
    fn call<'a>(&'a self, request: &'a EtradeRequest) -> BrokerFuture<'a> {
        Box::pin(async move {
            let body = match &request.body {
                Some(text) => match serde_json::from_str(text) {
                    Ok(v) => Some(v),
                    Err(_) => {
                        return Err(BrokerError::refusal(
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
                match request.endpoint {
                    Endpoint::Quotes => {
                        if let Some(answer) = live.quotes(request).await? {
                            return Ok(Some(answer));
                        }
                    }
                    Endpoint::PreviewOrder
                    | Endpoint::PlaceOrder
                    | Endpoint::PreviewChangeOrder
                    | Endpoint::PlaceChangeOrder => {
                        if let Some(b) = &body {
                            self.refresh_touches(live, b).await;
                        }
                    }
                    _ => {}
                }
            }
            let request = request.clone();
            let me = PaperBroker {
                book: self.book.clone(),
                market: self.market.clone(),
                live: None,
            };
            // redb work is blocking; keep it off the async workers. Once started, a
            // mutation runs to completion even if the caller is cancelled — like a request
            // that reached E*TRADE.
            let op = request.operation;
            tokio::task::spawn_blocking(move || me.route(&request, body))
                .await
                .map_err(|_| BrokerError::internal(op))?
        })
    }
}
