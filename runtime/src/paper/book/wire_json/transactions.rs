//! The transaction answers (`GET /v1/accounts/{accountIdKey}/transactions`, one
//! transaction's details): the book's transactions, filtered and sorted, for the writers in
//! [`crate::emulation::answers::transactions`].

use crate::etrade::EtradeRequest;
use serde_json::Value;

use super::{BASE_URL, account, count_param, date_param, invalid_param, ms, next_link, query};
use crate::calendar::time_zone;
use crate::emulation::answers::Style;
use crate::emulation::answers::transactions::{
    TransactionEntry, transaction_details as details_answer, transaction_page,
};
use crate::emulation::{NumberStyle, codes};
use crate::paper::book::PaperError;
use crate::paper::book::state::{AccountRec, State, TransactionRec};

const STYLE: Style<'static> = Style {
    numbers: NumberStyle::Exact,
    base_url: BASE_URL,
};

fn entry<'a>(a: &'a AccountRec, t: &'a TransactionRec) -> TransactionEntry<'a> {
    let at = ms(t.at);
    TransactionEntry {
        id: t.transaction_id.to_string(),
        account_id: &a.id,
        account_key: &a.key,
        date_ms: at,
        post_ms: at,
        amount: t.amount,
        description: &t.description,
        kind: t.kind.as_str(),
        instrument: t.instrument.clone(),
        quantity: t.quantity,
        price: t.price,
        fee: t.fee,
        settlement_ms: if t.instrument.is_some() {
            at + 86_400_000
        } else {
            0
        },
        order_no: t.order_id,
    }
}

pub(crate) fn transactions(
    state: &State,
    key: &str,
    q: &EtradeRequest,
) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let count = count_param(q, 50, 50)?;
    let start = date_param(q, "startDate")?;
    let end = date_param(q, "endDate")?;
    if let (Some(s), Some(e)) = (start, end)
        && s > e
    {
        return Err(PaperError::rejected(
            codes::INVALID_PARAMETER,
            "The start date must not be after the end date.",
        ));
    }
    let descending = match query(q, "sortOrder") {
        None | Some("DESC") => true,
        Some("ASC") => false,
        Some(_) => return Err(invalid_param("sortOrder")),
    };
    let tz = time_zone();
    let mut list: Vec<&TransactionRec> = state
        .transactions
        .values()
        .filter(|t| t.account_key == key)
        .filter(|t| {
            let day = tz.to_datetime(t.at).date();
            start.is_none_or(|s| day >= s) && end.is_none_or(|e| day <= e)
        })
        .collect();
    list.sort_by_key(|t| (t.at, t.transaction_id));
    if descending {
        list.reverse();
    }
    let entries: Vec<TransactionEntry<'_>> = list.into_iter().map(|t| entry(a, t)).collect();
    let path = format!("/v1/accounts/{}/transactions", a.key);
    transaction_page(&entries, query(q, "marker"), count, STYLE, |m| {
        next_link(&path, q, "marker", m.to_string())
    })
    .map_err(|_| invalid_param("marker"))?
    .ok_or(PaperError::Empty)
}

pub(crate) fn transaction_details(
    state: &State,
    key: &str,
    transaction_id: i64,
) -> Result<Value, PaperError> {
    let a = account(state, key)?;
    let Some(t) = state
        .transactions
        .get(&transaction_id)
        .filter(|t| t.account_key == key)
    else {
        return Err(PaperError::Rejected {
            status: 404,
            code: codes::INVALID_PARAMETER,
            message: "No transaction found for this id.".into(),
        });
    };
    Ok(details_answer(&entry(a, t), NumberStyle::Exact))
}
