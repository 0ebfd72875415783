//! Reading every page of a paged E*TRADE answer, within a cap, without letting one bad page
//! fail the whole answer.

use crate::broker::Broker;
use crate::contract::errors::{ErrorCategory, ErrorCode, ToolError};
use crate::etrade::answers::{BrokerAnswer, PortfolioPage, TransactionPage};
use crate::etrade::models::portfolio::Position;
use crate::etrade::models::transactions::Transaction;
use crate::etrade::{Endpoint, EtradeRequest};
use jiff::civil::Date;

/// Everything read, and why reading stopped early (`None`: every page was read).
#[derive(Debug)]
pub struct Pages<T> {
    pub items: Vec<T>,
    /// Pages answered.
    pub pages: u32,
    pub stopped: Option<String>,
}

impl<T> Pages<T> {
    fn new() -> Pages<T> {
        Pages {
            items: Vec::new(),
            pages: 0,
            stopped: None,
        }
    }
}

/// A failure that concerns the whole call rather than one page: without valid credentials
/// no page can be read and the person has to act; an account E*TRADE does not know is the
/// caller's mistake.
fn whole_call(e: &ToolError) -> bool {
    e.code.category() == ErrorCategory::Credentials || e.code == ErrorCode::NotFound
}

fn page_failure(what: &str, page: u32, e: &ToolError) -> String {
    format!(
        "{what} page {page} failed ({}): {}",
        e.code.as_str(),
        e.message
    )
}

/// One request, read by its model. `Ok(Err(reason))`: this page failed, the call goes on.
pub async fn fetch<A: BrokerAnswer>(
    broker: &dyn Broker,
    request: &EtradeRequest,
) -> Result<Result<A, ToolError>, ToolError> {
    match broker.read(request).await {
        Ok(body) => Ok(A::from_answer(body, request)
            .map_err(|_| ToolError::new(ErrorCode::InvalidBrokerResponse))),
        Err(e) => match A::from_refusal(&e) {
            Some(answer) => Ok(Ok(answer)),
            None => {
                let e = ToolError::from(e);
                if whole_call(&e) { Err(e) } else { Ok(Err(e)) }
            }
        },
    }
}

/// Every position of an account, `page_size` per page, at most `max_pages` pages, in the
/// COMPLETE view (the one with greeks).
pub async fn portfolio(
    broker: &dyn Broker,
    account_id_key: &str,
    page_size: u32,
    max_pages: u32,
) -> Result<Pages<Position>, ToolError> {
    let mut out = Pages::new();
    let mut page: i64 = 1;
    loop {
        let request = EtradeRequest::read(Endpoint::Portfolio)
            .at("accountIdKey", account_id_key)
            .with("count", i64::from(page_size))
            .with("pageNumber", page)
            .with("view", "COMPLETE");
        let answer = match fetch::<PortfolioPage>(broker, &request).await? {
            Ok(a) => a,
            Err(e) => {
                out.stopped = Some(page_failure("portfolio", out.pages + 1, &e));
                return Ok(out);
            }
        };
        out.pages += 1;
        let next = answer
            .account_portfolio
            .iter()
            .find_map(|p| p.next_page_no)
            .filter(|n| *n > page);
        out.items.extend(
            answer
                .account_portfolio
                .into_iter()
                .flat_map(|p| p.position),
        );
        match next {
            None => return Ok(out),
            Some(_) if out.pages >= max_pages => {
                out.stopped = Some(format!(
                    "stopped at the cap of {max_pages} portfolio pages of {page_size} positions; more pages remain"
                ));
                return Ok(out);
            }
            Some(n) => page = n,
        }
    }
}

/// Every transaction dated `start..=end`, 50 per page (E*TRADE's most), at most `max_pages`
/// pages, each counted once even if E*TRADE repeats it across pages.
pub async fn transactions(
    broker: &dyn Broker,
    account_id_key: &str,
    start: Date,
    end: Date,
    max_pages: u32,
) -> Result<Pages<Transaction>, ToolError> {
    let mut out = Pages::new();
    let mut seen = std::collections::HashSet::new();
    let mut marker: Option<String> = None;
    loop {
        let request = EtradeRequest::read(Endpoint::Transactions)
            .at("accountIdKey", account_id_key)
            .with("startDate", start)
            .with("endDate", end)
            .with("sortOrder", "ASC")
            .with_opt("marker", marker.clone())
            .with("count", 50i64);
        let answer = match fetch::<TransactionPage>(broker, &request).await? {
            Ok(a) => a,
            Err(e) => {
                out.stopped = Some(page_failure("transaction", out.pages + 1, &e));
                return Ok(out);
            }
        };
        out.pages += 1;
        let empty = answer.transaction.is_empty();
        for t in answer.transaction {
            if seen.insert(t.transaction_id.clone()) {
                out.items.push(t);
            }
        }
        let next = answer
            .marker
            .filter(|m| !empty && Some(m) != marker.as_ref());
        match next {
            None => return Ok(out),
            Some(_) if out.pages >= max_pages => {
                out.stopped = Some(format!(
                    "stopped at the cap of {max_pages} transaction pages of 50; more pages remain"
                ));
                return Ok(out);
            }
            Some(m) => marker = Some(m),
        }
    }
}
