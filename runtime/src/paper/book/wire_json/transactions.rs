//! The transaction answers (`GET /v1/accounts/{accountIdKey}/transactions`, one
//! transaction's details): the filtered, sorted, paged list and its markers.

use crate::etrade::EtradeRequest;
use serde_json::{Value, json};

use super::{BASE_URL, account, count_param, date_param, invalid_param, ms, next_link, num, query};
use crate::calendar::time_zone;
use crate::emulation::{Instrument, NumberStyle, codes};
use crate::paper::book::PaperError;
use crate::paper::book::state::{AccountRec, State, TransactionRec, TxKind};

fn marker_of(t: &TransactionRec) -> String {
    format!("{}_{}", t.transaction_id, t.at.as_second())
}

fn transaction_product(t: &TransactionRec) -> Value {
    t.instrument
        .as_ref()
        .map_or_else(|| json!({}), |i| i.product_json(NumberStyle::Exact, false))
}

fn transaction_json(a: &AccountRec, t: &TransactionRec) -> Value {
    let display = t
        .instrument
        .as_ref()
        .map_or_else(|| " ".to_string(), Instrument::display);
    let settlement = if t.instrument.is_some() {
        ms(t.at) + 86_400_000
    } else {
        0
    };
    json!({
        "transactionId": t.transaction_id.to_string(),
        "accountId": a.id,
        "transactionDate": ms(t.at),
        "postDate": ms(t.at),
        "amount": num(t.amount),
        "description": t.description,
        "description2": "",
        "transactionType": t.kind.as_str(),
        "memo": " ",
        "imageFlag": false,
        "instType": "BROKERAGE",
        "storeId": 0,
        "brokerage": {
            "transactionType": t.kind.as_str(),
            "product": transaction_product(t),
            "quantity": num(t.quantity),
            "price": num(t.price),
            "settlementCurrency": "USD",
            "paymentCurrency": "USD",
            "fee": num(t.fee),
            "displaySymbol": display,
            "settlementDate": settlement,
        },
        "detailsURI": format!(
            "{BASE_URL}/v1/accounts/{}/transactions/{}?storeId=0",
            a.key, t.transaction_id
        ),
    })
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
    let from = match query(q, "marker") {
        None => 0,
        Some(m) => match list.iter().position(|t| marker_of(t) == m) {
            Some(i) => i + 1,
            None => return Err(invalid_param("marker")),
        },
    };
    let page: Vec<&TransactionRec> = list.iter().skip(from).take(count).copied().collect();
    let Some(last) = page.last() else {
        return Err(PaperError::Empty);
    };
    let more = from + page.len() < list.len();
    let mut body = json!({
        "moreTransactions": more,
        "transactionCount": page.len(),
        "totalCount": list.len(),
        "Transaction": page.iter().map(|t| transaction_json(a, t)).collect::<Vec<_>>(),
    });
    if more && let Some(obj) = body.as_object_mut() {
        let marker = marker_of(last);
        obj.insert(
            "next".into(),
            json!(next_link(
                &format!("/v1/accounts/{}/transactions", a.key),
                q,
                "marker",
                marker.clone()
            )),
        );
        obj.insert("marker".into(), json!(marker));
        obj.insert(
            "pageMarkers".into(),
            json!(format!("eNp{}", from + page.len())),
        );
    }
    Ok(json!({ "TransactionListResponse": body }))
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
    let category = match t.kind {
        TxKind::Deposit => {
            json!({"categoryId": 2, "parentId": 0, "categoryName": "Deposits", "parentName": "Transfers"})
        }
        _ => {
            json!({"categoryId": 4, "parentId": 0, "categoryName": "Trades", "parentName": "Investments"})
        }
    };
    Ok(json!({"TransactionDetailsResponse": {
        "transactionId": t.transaction_id.to_string(),
        "accountId": a.id,
        "transactionDate": ms(t.at),
        "postDate": ms(t.at),
        "amount": num(t.amount),
        "description": t.description,
        "Category": category,
        "Brokerage": {
            "transactionType": t.kind.as_str(),
            "Product": transaction_product(t),
            "quantity": num(t.quantity),
            "price": num(t.price),
            "settlementCurrency": "USD",
            "paymentCurrency": "USD",
            "fee": num(t.fee),
            "memo": "",
            "checkNo": "",
            "orderNo": t.order_id.map(|o| o.to_string()).unwrap_or_default(),
        },
    }}))
}
