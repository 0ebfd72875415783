//! `GET /v1/accounts/{accountIdKey}/transactions` (a page of the list, with its marker) and
//! `GET /v1/accounts/{accountIdKey}/transactions/{transactionId}`.

use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::super::{Instrument, NumberStyle};
use super::Style;

/// One transaction as both answers tell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionEntry<'a> {
    /// Digits, written as a JSON string (as E*TRADE does).
    pub id: String,
    pub account_id: &'a str,
    pub account_key: &'a str,
    /// Epoch milliseconds.
    pub date_ms: i64,
    /// Epoch milliseconds; 0 when not posted.
    pub post_ms: i64,
    /// Signed: negative is cash out.
    pub amount: Decimal,
    pub description: &'a str,
    /// Free text: Bought, Sold, Dividend, Deposit, Fee, …
    pub kind: &'a str,
    /// What was traded or paid on; None for cash movements.
    pub instrument: Option<Instrument>,
    /// Signed (a sale is negative); 0 for cash movements.
    pub quantity: Decimal,
    pub price: Decimal,
    pub fee: Decimal,
    /// Epoch milliseconds; 0 when nothing settles.
    pub settlement_ms: i64,
    pub order_no: Option<i64>,
}

impl TransactionEntry<'_> {
    /// The marker of a page that ends with this transaction: `<id>_<epoch seconds>`.
    pub fn marker(&self) -> String {
        format!("{}_{}", self.id, self.date_ms.div_euclid(1000))
    }

    fn product(&self, numbers: NumberStyle) -> Value {
        self.instrument
            .as_ref()
            .map_or_else(|| json!({}), |i| i.product_json(numbers, false))
    }
}

fn entry_json(t: &TransactionEntry<'_>, style: Style<'_>) -> Value {
    let n = |d: Decimal| style.numbers.json(d);
    json!({
        "transactionId": t.id,
        "accountId": t.account_id,
        "transactionDate": t.date_ms,
        "postDate": t.post_ms,
        "amount": n(t.amount),
        "description": t.description,
        "description2": "",
        "transactionType": t.kind,
        "memo": " ",
        "imageFlag": false,
        "instType": "BROKERAGE",
        "storeId": 0,
        "brokerage": {
            "transactionType": t.kind,
            "product": t.product(style.numbers),
            "quantity": n(t.quantity),
            "price": n(t.price),
            "settlementCurrency": "USD",
            "paymentCurrency": "USD",
            "fee": n(t.fee),
            "displaySymbol": t.instrument.as_ref().map_or_else(|| " ".to_string(), Instrument::display),
            "settlementDate": t.settlement_ms,
        },
        "detailsURI": format!(
            "{}/v1/accounts/{}/transactions/{}?storeId=0",
            style.base_url, t.account_key, t.id
        ),
    })
}

/// The `marker` names no transaction of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the marker names no transaction of this list")]
pub struct UnknownMarker;

/// One page of `list` (already filtered and in the order asked for): after the transaction
/// `marker` names, at most `count`. None when the page is empty (E*TRADE's 204). `next_link`
/// gives the request's link with `marker` set to the given value.
pub fn transaction_page(
    list: &[TransactionEntry<'_>],
    marker: Option<&str>,
    count: usize,
    style: Style<'_>,
    next_link: impl Fn(&str) -> String,
) -> Result<Option<Value>, UnknownMarker> {
    let from = match marker {
        None => 0,
        Some(m) => {
            list.iter()
                .position(|t| t.marker() == m)
                .ok_or(UnknownMarker)?
                + 1
        }
    };
    let page: Vec<&TransactionEntry<'_>> = list.iter().skip(from).take(count).collect();
    let Some(last) = page.last() else {
        return Ok(None);
    };
    let more = from + page.len() < list.len();
    let mut body = json!({
        "moreTransactions": more,
        "transactionCount": page.len(),
        "totalCount": list.len(),
        "Transaction": page.iter().map(|t| entry_json(t, style)).collect::<Vec<_>>(),
    });
    if more && let Some(obj) = body.as_object_mut() {
        let marker = last.marker();
        obj.insert("next".into(), json!(next_link(&marker)));
        obj.insert("marker".into(), json!(marker));
        obj.insert(
            "pageMarkers".into(),
            json!(format!("eNp{}", from + page.len())),
        );
    }
    Ok(Some(json!({ "TransactionListResponse": body })))
}

fn category(kind: &str) -> Value {
    let (id, name, parent) = match kind {
        "Dividend" => (1, "Dividends", "Income"),
        "Deposit" => (2, "Deposits", "Transfers"),
        "Fee" => (3, "Fees", "Expenses"),
        _ => (4, "Trades", "Investments"),
    };
    json!({"categoryId": id, "parentId": 0, "categoryName": name, "parentName": parent})
}

pub fn transaction_details(t: &TransactionEntry<'_>, numbers: NumberStyle) -> Value {
    let n = |d: Decimal| numbers.json(d);
    json!({"TransactionDetailsResponse": {
        "transactionId": t.id,
        "accountId": t.account_id,
        "transactionDate": t.date_ms,
        "postDate": t.post_ms,
        "amount": n(t.amount),
        "description": t.description,
        "Category": category(t.kind),
        "Brokerage": {
            "transactionType": t.kind,
            "Product": t.product(numbers),
            "quantity": n(t.quantity),
            "price": n(t.price),
            "settlementCurrency": "USD",
            "paymentCurrency": "USD",
            "fee": n(t.fee),
            "memo": "",
            "checkNo": "",
            "orderNo": t.order_no.map(|o| o.to_string()).unwrap_or_default(),
        },
    }})
}
