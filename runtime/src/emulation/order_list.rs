//! The list-orders query (`GET /v1/accounts/{accountIdKey}/orders`): its parameters, which
//! orders its filters admit, and the page it answers with (newest first, `count` a page,
//! an opaque `marker` and a `next` link while more remain).

use jiff::civil::Date;
use serde_json::{Value, json};

use super::MarketSession;
use super::OrderAction;
use super::instrument::SecurityType;
use super::order_request::OrderRequest;
use super::order_status::OrderStatus;
use super::query_params::{self, ParamError};
use super::wire_enum::wire_enum;

/// Orders a page by default, and the most a page may ask for.
const DEFAULT_COUNT: usize = 25;
const MAX_COUNT: usize = 100;
/// Symbols one `symbol` filter may name.
const MAX_SYMBOLS: usize = 25;

wire_enum! {
    /// The list-orders `transactionType` filter (`ATNM`: any).
    pub enum ListTransactionType {
        Any = "ATNM",
        Buy = "BUY",
        Sell = "SELL",
        SellShort = "SELL_SHORT",
        BuyToCover = "BUY_TO_COVER",
        MutualFundExchange = "MF_EXCHANGE",
    }
}

impl ListTransactionType {
    /// What an order whose first leg does `action` counts as.
    fn of(action: Option<OrderAction>) -> ListTransactionType {
        match action {
            Some(OrderAction::Sell | OrderAction::SellClose | OrderAction::SellOpen) => {
                ListTransactionType::Sell
            }
            Some(OrderAction::SellShort) => ListTransactionType::SellShort,
            Some(OrderAction::BuyToCover) => ListTransactionType::BuyToCover,
            _ => ListTransactionType::Buy,
        }
    }
}

/// The checked query.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderListQuery {
    pub count: usize,
    /// Offset of the page in the sorted list (from `marker`).
    pub start: usize,
    pub filter: OrderListFilter,
}

/// Which orders the list shows; `None` admits all.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OrderListFilter {
    pub status: Option<OrderStatus>,
    /// Placed on these days (New York), both given or neither, `from` before `to`.
    pub from: Option<Date>,
    pub to: Option<Date>,
    /// Upper-case; an order matches when any leg's symbol (an option's underlier) does.
    pub symbols: Option<Vec<String>>,
    pub security_type: Option<SecurityType>,
    pub transaction_type: Option<ListTransactionType>,
    pub market_session: Option<MarketSession>,
}

impl OrderListQuery {
    /// Reads the query from `param`, a parameter's text by name.
    pub fn parse(param: impl Fn(&str) -> Option<String>) -> Result<OrderListQuery, ParamError> {
        let count = query_params::count(param("count").as_deref(), DEFAULT_COUNT, MAX_COUNT)?;
        let start = match param("marker") {
            None => 0,
            Some(m) => offset(&m).ok_or(ParamError::Invalid("marker"))?,
        };
        let status = value(&param, "status", OrderStatus::parse)?;
        let (from, to) = date_range(param("fromDate"), param("toDate"))?;
        let symbols: Option<Vec<String>> = param("symbol").map(|v| {
            v.split(',')
                .map(|x| x.trim().to_ascii_uppercase())
                .collect()
        });
        if symbols.as_ref().is_some_and(|s| s.len() > MAX_SYMBOLS) {
            return Err(ParamError::Invalid("symbol"));
        }
        Ok(OrderListQuery {
            count,
            start,
            filter: OrderListFilter {
                status,
                from,
                to,
                symbols,
                security_type: value(&param, "securityType", SecurityType::parse)?,
                transaction_type: value(&param, "transactionType", ListTransactionType::parse)?,
                market_session: value(&param, "marketSession", MarketSession::parse)?,
            },
        })
    }
}

impl OrderListFilter {
    /// The filters admit an order of `request` with this status, placed on `placed_day`
    /// (None: unknown, which no date filter admits).
    pub fn admits(&self, request: &OrderRequest, status: &str, placed_day: Option<Date>) -> bool {
        let legs = &request.legs;
        self.status.is_none_or(|s| s.as_str() == status)
            && self.from.is_none_or(|f| placed_day.is_some_and(|d| d >= f))
            && self.to.is_none_or(|t| placed_day.is_some_and(|d| d <= t))
            && self.symbols.as_ref().is_none_or(|symbols| {
                legs.iter()
                    .any(|l| symbols.iter().any(|s| s == l.instrument.symbol()))
            })
            && self
                .security_type
                .is_none_or(|t| legs.iter().any(|l| l.instrument.security_type() == t))
            && self.transaction_type.is_none_or(|t| {
                t == ListTransactionType::Any
                    || ListTransactionType::of(legs.first().map(|l| l.action)) == t
            })
            && self
                .market_session
                .is_none_or(|m| request.market_session == m)
    }
}

/// The `OrdersResponse` page of `orders` (already filtered), newest first by
/// `placed_and_id` (placed time, then order id); None when the page is past the end
/// (E*TRADE's 204).
pub fn orders_page<T, K: Ord>(
    mut orders: Vec<T>,
    query: &OrderListQuery,
    placed_and_id: impl Fn(&T) -> K,
    links: &OrderLinks<'_>,
    render: impl Fn(&T) -> Value,
) -> Option<Value> {
    orders.sort_by_key(|o| std::cmp::Reverse(placed_and_id(o)));
    let (start, count) = (query.start, query.count);
    if start >= orders.len() {
        return None;
    }
    let end = (start + count).min(orders.len());
    let page: Vec<Value> = orders.get(start..end)?.iter().map(render).collect();
    let mut body = json!({ "Order": page });
    if end < orders.len()
        && let Some(m) = body.as_object_mut()
    {
        let next = marker(end);
        m.insert(
            "next".into(),
            json!(format!(
                "{}/v1/accounts/{}/orders?count={count}&marker={next}",
                links.base_url, links.account_key
            )),
        );
        m.insert("marker".into(), json!(next));
    }
    Some(json!({ "OrdersResponse": body }))
}

/// Where a page's `next` link points.
#[derive(Debug, Clone, Copy)]
pub struct OrderLinks<'a> {
    pub base_url: &'a str,
    pub account_key: &'a str,
}

/// Cursor of an offset into the sorted list (opaque-looking, as E*TRADE's are).
fn marker(offset: usize) -> String {
    format!("eNp{:06x}Q", offset ^ 0x5a5a5)
}

fn offset(marker: &str) -> Option<usize> {
    let hex = marker.strip_prefix("eNp")?.strip_suffix('Q')?;
    usize::from_str_radix(hex, 16).ok().map(|x| x ^ 0x5a5a5)
}

fn value<T>(
    param: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Option<T>, ParamError> {
    param(name)
        .map(|v| parse(&v).ok_or(ParamError::Invalid(name)))
        .transpose()
}

/// Both dates or neither, and `toDate` after `fromDate`: the stricter reading of E*TRADE's
/// rule (pyetrade: "toDate should be greater than fromDate"), so a client that sends equal
/// dates is caught.
fn date_range(
    from: Option<String>,
    to: Option<String>,
) -> Result<(Option<Date>, Option<Date>), ParamError> {
    let from = from.map(|v| query_params::mmddyyyy(&v));
    let to = to.map(|v| query_params::mmddyyyy(&v));
    match (from, to) {
        (None, None) => Ok((None, None)),
        (Some(Some(f)), Some(Some(t))) if f < t => Ok((Some(f), Some(t))),
        (Some(Some(_)), Some(Some(_))) => Err(ParamError::Invalid("toDate")),
        (Some(_), _) => Err(ParamError::Invalid("fromDate")),
        (None, _) => Err(ParamError::Invalid("toDate")),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn query(pairs: &[(&str, &str)]) -> Result<OrderListQuery, ParamError> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        OrderListQuery::parse(|name| map.get(name).cloned())
    }

    #[test]
    fn parameters_are_checked() {
        let all = query(&[]).expect("defaults");
        assert_eq!((all.count, all.start), (25, 0));
        assert_eq!(all.filter, OrderListFilter::default());
        assert_eq!(query(&[("count", "0")]), Err(ParamError::Invalid("count")));
        assert_eq!(query(&[("count", "101")]), Err(ParamError::CountTooLarge));
        assert_eq!(
            query(&[("marker", "x")]),
            Err(ParamError::Invalid("marker"))
        );
        assert_eq!(query(&[("marker", &marker(30))]).map(|q| q.start), Ok(30));
        assert_eq!(
            query(&[("status", "open")]),
            Err(ParamError::Invalid("status"))
        );
        let same_day = [("fromDate", "10012026"), ("toDate", "10012026")];
        assert_eq!(query(&same_day), Err(ParamError::Invalid("toDate")));
        assert_eq!(
            query(&[("fromDate", "10012026")]),
            Err(ParamError::Invalid("fromDate"))
        );
        let many = vec!["A"; 26].join(",");
        assert_eq!(
            query(&[("symbol", &many)]),
            Err(ParamError::Invalid("symbol"))
        );
        assert_eq!(
            query(&[("transactionType", "MF_EXCHANGE")]).map(|q| q.filter.transaction_type),
            Ok(Some(ListTransactionType::MutualFundExchange))
        );
    }

    #[test]
    fn pages_are_newest_first_with_a_next_link() {
        let q = query(&[("count", "2")]).expect("query");
        let links = OrderLinks {
            base_url: "https://api.example",
            account_key: "K",
        };
        let page = orders_page(vec![1, 3, 2], &q, |n| *n, &links, |n| json!(n)).expect("page");
        let body = &page["OrdersResponse"];
        assert_eq!(body["Order"], json!([3, 2]));
        assert_eq!(body["marker"], json!(marker(2)));
        let next = body["next"].as_str().unwrap_or_default();
        assert!(next.starts_with("https://api.example/v1/accounts/K/orders?count=2&marker="));
        let past = query(&[("marker", &marker(3))]).expect("query");
        assert_eq!(
            orders_page(vec![1, 2, 3], &past, |n| *n, &links, |n| json!(n)),
            None
        );
    }
}
