//! The E*TRADE v1 operations the server uses, as typed requests.
//!
//! Each operation's method, pacing module and URL shape is declared once, in the spec's
//! `endpoints:` (`spec/tools.yaml`); the build script writes them as rows of the
//! `endpoints!` macro below (OUT_DIR/endpoints.rs, mirrored in `generated/endpoints.rs`). A
//! request becomes a URL only in [`EtradeRequest::url`], for HTTP. The paper broker matches
//! on the [`Endpoint`] and reads the typed [`Param`]s, so nothing parses what the tool layer
//! wrote. Tools bind to an endpoint by its name.

use super::failure::Operation;
use super::limiter::Module;
use jiff::civil::Date;
use reqwest::Method;
use rust_decimal::Decimal;

/// The HTTP method of an endpoint (a plain enum, so the table below is `const`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    Post,
    Put,
    Delete,
}

impl Verb {
    pub fn method(self) -> Method {
        match self {
            Verb::Get => Method::GET,
            Verb::Post => Method::POST,
            Verb::Put => Method::PUT,
            Verb::Delete => Method::DELETE,
        }
    }
}

/// How an endpoint is reached: method, pacing module and path template. A `{name}` in the
/// path is a path parameter, named as E*TRADE's documentation names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub verb: Verb,
    pub module: Module,
    pub path: &'static str,
}

const fn shape(verb: Verb, module: Module, path: &'static str) -> Shape {
    Shape { verb, module, path }
}

use Module::{Accounts as ACCOUNTS, Alerts as ALERTS, Market as MARKET, Orders as ORDERS};
use Verb::{Delete as DELETE, Get as GET, Post as POST, Put as PUT};

/// `Endpoint`, `Endpoint::ALL` and `Endpoint::shape` from the spec's endpoint rows.
macro_rules! endpoints {
    ($($name:ident = $verb:ident $module:ident $path:literal;)*) => {
        /// An E*TRADE v1 operation the server uses (the spec's `endpoints:`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Endpoint {
            $($name,)*
        }

        impl Endpoint {
            pub const ALL: &'static [Endpoint] = &[$(Endpoint::$name,)*];

            pub const fn shape(self) -> Shape {
                match self {
                    $(Endpoint::$name => shape($verb, $module, $path),)*
                }
            }
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/endpoints.rs"));

/// The endpoint rows as compiled (the freshness test compares them with the mirror).
pub const ENDPOINTS_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/endpoints.rs"));

/// One parameter value, typed; rendered to E*TRADE's text only for HTTP.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Text(String),
    Int(i64),
    Bool(bool),
    /// Rendered `MMDDYYYY`, E*TRADE's only date form in requests.
    Date(Date),
    Decimal(Decimal),
    /// Rendered comma-separated.
    List(Vec<String>),
}

impl Param {
    /// E*TRADE's text for the value.
    pub fn wire(&self) -> String {
        match self {
            Param::Text(s) => s.clone(),
            Param::Int(i) => i.to_string(),
            Param::Bool(b) => b.to_string(),
            Param::Date(d) => query_date(*d),
            Param::Decimal(d) => d.normalize().to_string(),
            Param::List(items) => items.join(","),
        }
    }

    pub fn as_text(&self) -> Option<&str> {
        match self {
            Param::Text(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Param::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Param::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_date(&self) -> Option<Date> {
        match self {
            Param::Date(d) => Some(*d),
            _ => None,
        }
    }

    pub fn as_decimal(&self) -> Option<Decimal> {
        match self {
            Param::Decimal(d) => Some(*d),
            _ => None,
        }
    }

    /// A list, or a single text value as a list of one.
    pub fn as_list(&self) -> Option<&[String]> {
        match self {
            Param::List(items) => Some(items),
            Param::Text(s) => Some(std::slice::from_ref(s)),
            _ => None,
        }
    }
}

impl From<String> for Param {
    fn from(v: String) -> Param {
        Param::Text(v)
    }
}

impl From<&str> for Param {
    fn from(v: &str) -> Param {
        Param::Text(v.to_string())
    }
}

impl From<i64> for Param {
    fn from(v: i64) -> Param {
        Param::Int(v)
    }
}

impl From<bool> for Param {
    fn from(v: bool) -> Param {
        Param::Bool(v)
    }
}

impl From<Date> for Param {
    fn from(v: Date) -> Param {
        Param::Date(v)
    }
}

impl From<Decimal> for Param {
    fn from(v: Decimal) -> Param {
        Param::Decimal(v)
    }
}

impl From<Vec<String>> for Param {
    fn from(v: Vec<String>) -> Param {
        Param::List(v)
    }
}

/// E*TRADE's query-string date form, MMDDYYYY (fromDate, toDate, startDate, endDate).
pub fn query_date(d: Date) -> String {
    format!("{:02}{:02}{:04}", d.month(), d.day(), d.year())
}

/// One request to E*TRADE: the endpoint and its typed parameters, by E*TRADE's names.
#[derive(Debug, Clone, PartialEq)]
pub struct EtradeRequest {
    pub operation: Operation,
    pub endpoint: Endpoint,
    path: Vec<(&'static str, Param)>,
    query: Vec<(&'static str, Param)>,
    /// JSON text sent as is (mutations send exactly the bytes they previewed).
    pub body: Option<String>,
}

impl EtradeRequest {
    pub fn new(operation: Operation, endpoint: Endpoint) -> EtradeRequest {
        EtradeRequest {
            operation,
            endpoint,
            path: Vec::new(),
            query: Vec::new(),
            body: None,
        }
    }

    /// A read: safe to send again after a token renewal.
    pub fn read(endpoint: Endpoint) -> EtradeRequest {
        EtradeRequest::new(Operation::Read, endpoint)
    }

    /// A `{name}` in the endpoint's path.
    pub fn at(mut self, name: &'static str, value: impl Into<Param>) -> EtradeRequest {
        self.path.push((name, value.into()));
        self
    }

    /// A query parameter, in the order given.
    pub fn with(mut self, name: &'static str, value: impl Into<Param>) -> EtradeRequest {
        self.query.push((name, value.into()));
        self
    }

    /// A query parameter when there is a value.
    pub fn with_opt<T: Into<Param>>(self, name: &'static str, value: Option<T>) -> EtradeRequest {
        match value {
            Some(v) => self.with(name, v),
            None => self,
        }
    }

    pub fn with_body(mut self, body: String) -> EtradeRequest {
        self.body = Some(body);
        self
    }

    pub fn shape(&self) -> Shape {
        self.endpoint.shape()
    }

    pub fn module(&self) -> Module {
        self.endpoint.shape().module
    }

    pub fn method(&self) -> Method {
        self.endpoint.shape().verb.method()
    }

    /// A path parameter's value.
    pub fn path_param(&self, name: &str) -> Option<&Param> {
        find(&self.path, name)
    }

    /// A path parameter's text (`""` when absent: no E*TRADE object has that name).
    pub fn path_text(&self, name: &str) -> &str {
        self.path_param(name).and_then(Param::as_text).unwrap_or("")
    }

    /// A query parameter's value (the last, if given twice).
    pub fn query_param(&self, name: &str) -> Option<&Param> {
        find(&self.query, name)
    }

    pub fn query(&self) -> &[(&'static str, Param)] {
        &self.query
    }

    /// The path with its parameters filled in, each percent-encoded (a list's commas and a
    /// symbol's colons stay as E*TRADE documents them).
    pub fn url_path(&self) -> String {
        let template = self.endpoint.shape().path;
        let mut out = String::with_capacity(template.len() + 32);
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[open..]);
                rest = "";
                break;
            };
            let name = &after[..close];
            if let Some(value) = self.path_param(name) {
                let items: Vec<String> = match value {
                    Param::List(items) => items.iter().map(|i| path_encode(i)).collect(),
                    other => vec![path_encode(&other.wire())],
                };
                out.push_str(&items.join(","));
            }
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The URL E*TRADE is sent: `{base}{path}.json?query`, the query percent-encoded.
    pub fn url(&self, base: &str) -> String {
        let mut url = format!("{base}{}.json", self.url_path());
        for (i, (k, v)) in self.query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(&super::oauth::encode(k));
            url.push('=');
            url.push_str(&super::oauth::encode(&v.wire()));
        }
        url
    }
}

fn find<'a>(list: &'a [(&'static str, Param)], name: &str) -> Option<&'a Param> {
    list.iter().rev().find(|(k, _)| *k == name).map(|(_, v)| v)
}

/// Percent-encode a path segment: RFC 3986 unreserved characters and `:` stay as they are.
fn path_encode(s: &str) -> String {
    s.split(':')
        .map(super::oauth::encode)
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_fill_the_path_and_encode_the_query() {
        let r = EtradeRequest::read(Endpoint::Quotes)
            .at(
                "symbols",
                vec!["AAPL".to_string(), "IBM:2026:12:18:CALL:200".into()],
            )
            .with("detailFlag", "ALL");
        assert_eq!(
            r.url("http://h"),
            "http://h/v1/market/quote/AAPL,IBM:2026:12:18:CALL:200.json?detailFlag=ALL"
        );
        let r = EtradeRequest::read(Endpoint::Lookup).at("search", "at&t co, inc's");
        assert_eq!(r.url_path(), "/v1/market/lookup/at%26t%20co%2C%20inc%27s");
        let r = EtradeRequest::read(Endpoint::Transactions)
            .at("accountIdKey", "k_1-x")
            .with("startDate", jiff::civil::date(2024, 3, 7))
            .with("a", "b c")
            .with("d", "e/f")
            .with("count", 5)
            .with("p", Decimal::new(15000, 2))
            .with("b", true);
        assert_eq!(
            r.url("http://h"),
            "http://h/v1/accounts/k_1-x/transactions.json?startDate=03072024&a=b%20c&d=e%2Ff&count=5&p=150&b=true"
        );
        assert_eq!(
            EtradeRequest::read(Endpoint::AccountList).url("http://h"),
            "http://h/v1/accounts/list.json"
        );
    }

    #[test]
    fn path_values_cannot_leave_their_segment() {
        let r = EtradeRequest::read(Endpoint::Balance).at("accountIdKey", "../list?x=1");
        assert_eq!(r.url_path(), "/v1/accounts/..%2Flist%3Fx%3D1/balance");
        assert_eq!(path_encode(":a::b:"), ":a::b:");
    }

    #[test]
    fn every_endpoint_is_listed_once_with_a_distinct_shape() {
        for (i, e) in Endpoint::ALL.iter().enumerate() {
            for other in &Endpoint::ALL[i + 1..] {
                assert_ne!(e, other);
                assert_ne!(
                    (e.shape().verb, e.shape().path),
                    (other.shape().verb, other.shape().path)
                );
            }
        }
    }

    /// The table has one row per endpoint, in `ALL`'s order.
    #[test]
    fn the_table_lists_every_endpoint_once() {
        let table = ENDPOINTS_SOURCE;
        let rows: Vec<&str> = table
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with("\";"))
            .collect();
        assert_eq!(rows.len(), Endpoint::ALL.len());
        for (row, e) in rows.iter().zip(Endpoint::ALL) {
            let s = e.shape();
            let expected = format!(
                "{e:?} = {} {} \"{}\";",
                format!("{:?}", s.verb).to_ascii_uppercase(),
                format!("{:?}", s.module).to_ascii_uppercase(),
                s.path
            );
            assert_eq!(*row, expected);
        }
    }
}
