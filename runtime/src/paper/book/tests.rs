//! Book tests over a tiny deterministic market (not the simulator).

mod order_types;
mod shared;

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use jiff::civil::date;
use jiff::{SignedDuration, Timestamp};
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::state::{State, TxKind};
use super::{PaperBook, PaperConfig, PaperError};
use crate::calendar::time_zone;
use crate::emulation::{Instrument, OrderStatus, codes};
use crate::etrade::models::accounts::AccountList;
use crate::etrade::models::balances::Balance;
use crate::etrade::models::order_entry::{BrokerCancellation, BrokerPlacement, BrokerPreview};
use crate::etrade::models::orders::OrderList;
use crate::etrade::models::portfolio::{PortfolioPage, PositionLots};
use crate::etrade::models::transactions::{TransactionDetails, TransactionPage};
use crate::etrade::{Endpoint, EtradeRequest, Param};
use crate::paper::touch::{MarketData, OptionContract, Touch};

fn d(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap_or_default()
}

/// Wednesday 2025-06-11 10:00 New York: the regular session.
fn base() -> Timestamp {
    time_zone()
        .to_timestamp(date(2025, 6, 11).at(10, 0, 0, 0))
        .unwrap_or(Timestamp::UNIX_EPOCH)
}

fn mins(m: i64) -> SignedDuration {
    SignedDuration::from_mins(m)
}

/// Quotes set per symbol from an instant on (the latest one at or before `at` applies).
#[derive(Default)]
struct TestMarket {
    quotes: Mutex<BTreeMap<String, Vec<(Timestamp, Touch)>>>,
    options: Mutex<Vec<(OptionContract, Touch)>>,
}

fn t(bid: &str, ask: &str, bid_size: u64, ask_size: u64) -> Touch {
    Touch {
        bid: d(bid),
        ask: d(ask),
        bid_size,
        ask_size,
        last: (d(bid) + d(ask)) / Decimal::TWO,
        volume: 1_000,
    }
}

impl TestMarket {
    fn set(&self, symbol: &str, from: Timestamp, touch: Touch) {
        let mut q = self.quotes.lock().unwrap_or_else(|e| e.into_inner());
        let list = q.entry(symbol.to_string()).or_default();
        list.push((from, touch));
        list.sort_by_key(|(t, _)| *t);
    }
}

impl MarketData for TestMarket {
    fn equity(&self, symbol: &str, at: Timestamp) -> Option<Touch> {
        let q = self.quotes.lock().unwrap_or_else(|e| e.into_inner());
        let list = q.get(symbol)?;
        list.iter()
            .rev()
            .find(|(from, _)| *from <= at)
            .or(list.first())
            .map(|(_, t)| t.clone())
    }

    fn option(&self, contract: &OptionContract, _at: Timestamp) -> Option<Touch> {
        let o = self.options.lock().unwrap_or_else(|e| e.into_inner());
        o.iter()
            .find(|(c, _)| c == contract)
            .map(|(_, t)| t.clone())
    }

    fn source(&self) -> &'static str {
        "test"
    }
}

fn open(path: &Path, market: Arc<TestMarket>) -> PaperBook {
    PaperBook::open_with_clock(path, PaperConfig::default(), market, Arc::new(base))
        .unwrap_or_else(|e| panic!("open: {e}"))
}

fn setup() -> (
    tempfile::TempDir,
    PaperBook,
    Arc<TestMarket>,
    String,
    String,
) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let market = Arc::new(TestMarket::default());
    market.set(
        "AAPL",
        Timestamp::UNIX_EPOCH,
        t("99.90", "100.00", 1_000, 1_000),
    );
    market.set(
        "MSFT",
        Timestamp::UNIX_EPOCH,
        t("399.50", "400.00", 500, 500),
    );
    let book = open(&dir.path().join("paper.redb"), market.clone());
    let list = AccountList::from_wire(book.accounts_list().ok()).unwrap_or_else(|e| panic!("{e}"));
    let margin = list.accounts[0].account_id_key.clone();
    let ira = list.accounts[1].account_id_key.clone();
    (dir, book, market, margin, ira)
}

struct Ticket<'a> {
    symbol: &'a str,
    action: &'a str,
    qty: u32,
    price_type: &'a str,
    limit: Option<&'a str>,
    /// `stopPrice`: a stop's trigger, or a trailing stop's trail.
    stop: Option<&'a str>,
    term: &'a str,
    aon: bool,
    client: String,
}

fn eq(
    symbol: &str,
    action: &str,
    qty: u32,
    price_type: &str,
    limit: Option<&str>,
) -> Ticket<'static> {
    // Leak-free: the strings are static in the tests that use this helper.
    let symbol: &'static str = Box::leak(symbol.to_string().into_boxed_str());
    let action: &'static str = Box::leak(action.to_string().into_boxed_str());
    let price_type: &'static str = Box::leak(price_type.to_string().into_boxed_str());
    let limit: Option<&'static str> = limit.map(|l| &*Box::leak(l.to_string().into_boxed_str()));
    Ticket {
        symbol,
        action,
        qty,
        price_type,
        limit,
        stop: None,
        term: if price_type == "MARKET" {
            "GOOD_FOR_DAY"
        } else {
            "GOOD_UNTIL_CANCEL"
        },
        aon: false,
        client: format!("C{}", next_client()),
    }
}

fn next_client() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

fn members(tk: &Ticket<'_>) -> serde_json::Map<String, Value> {
    let mut order = json!({"allOrNone": tk.aon, "priceType": tk.price_type, "orderTerm": tk.term,
        "marketSession": "REGULAR",
        "Instrument": [{"Product": {"securityType": "EQ", "symbol": tk.symbol},
            "orderAction": tk.action, "quantityType": "QUANTITY", "quantity": tk.qty}]});
    if let (Some(l), Some(m)) = (tk.limit, order.as_object_mut()) {
        m.insert("limitPrice".into(), json!(l.parse::<f64>().unwrap_or(0.0)));
    }
    if let (Some(l), Some(m)) = (tk.stop, order.as_object_mut()) {
        m.insert("stopPrice".into(), json!(l.parse::<f64>().unwrap_or(0.0)));
    }
    let mut m = serde_json::Map::new();
    m.insert("orderType".into(), json!("EQ"));
    m.insert("clientOrderId".into(), json!(tk.client));
    m.insert("Order".into(), json!([order]));
    m
}

fn preview_body(tk: &Ticket<'_>) -> Value {
    json!({"PreviewOrderRequest": Value::Object(members(tk))})
}

fn place_body(tk: &Ticket<'_>, preview_id: i64) -> Value {
    let mut m = members(tk);
    m.insert("PreviewIds".into(), json!([{"previewId": preview_id}]));
    json!({"PlaceOrderRequest": Value::Object(m)})
}

fn preview_id(v: &Value) -> i64 {
    let p = BrokerPreview::from_wire(Some(v.clone())).unwrap_or_else(|e| panic!("{e}"));
    p.preview_ids[0].preview_id
}

fn submit(
    book: &PaperBook,
    key: &str,
    tk: &Ticket<'_>,
    change_of: Option<i64>,
) -> Result<i64, PaperError> {
    let preview = book.preview(key, &preview_body(tk), change_of)?;
    let placed = book.place(key, &place_body(tk, preview_id(&preview)), change_of)?;
    let p = BrokerPlacement::from_wire(Some(placed)).unwrap_or_else(|e| panic!("{e}"));
    Ok(p.order_id)
}

fn order(book: &PaperBook, id: i64) -> super::state::OrderRec {
    book.snapshot()
        .orders
        .get(&id)
        .cloned()
        .unwrap_or_else(|| panic!("order {id}"))
}

fn cash(book: &PaperBook, key: &str) -> Decimal {
    book.snapshot().accounts[key].cash
}

fn position_qty(s: &State, key: &str, symbol: &str) -> Decimal {
    s.positions
        .values()
        .filter(|p| p.account_key == key && p.instrument.symbol() == symbol)
        .map(|p| p.quantity())
        .sum()
}

fn code_of(e: PaperError) -> i64 {
    match e {
        PaperError::Rejected { code, .. } => code,
        other => panic!("not a refusal: {other}"),
    }
}

#[test]
fn accounts_and_starting_cash() {
    let (_dir, book, _m, margin, ira) = setup();
    let list = AccountList::from_wire(book.accounts_list().ok()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(list.accounts.len(), 2);
    for a in &list.accounts {
        assert_eq!(a.account_id.len(), 8);
        assert!(a.account_id.bytes().all(|b| b.is_ascii_digit()));
        assert_eq!(a.account_id_key.len(), 22);
    }
    assert_eq!(list.accounts[0].account_mode.as_deref(), Some("MARGIN"));
    assert_eq!(list.accounts[1].account_mode.as_deref(), Some("CASH"));
    assert_eq!(cash(&book, &margin), d("100000.00"));
    assert_eq!(cash(&book, &ira), d("25000.00"));
    let b = Balance::from_wire(book.balance(&ira).ok()).unwrap_or_else(|e| panic!("{e}"));
    let c = b.computed.unwrap_or_else(|| panic!("computed"));
    assert_eq!(c.cash_balance, Some(d("25000")));
    assert_eq!(c.cash_buying_power, Some(d("25000")));
    let b = Balance::from_wire(book.balance(&margin).ok()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        b.computed.and_then(|c| c.margin_buying_power),
        Some(d("200000"))
    );
    // The opening deposits are transactions; nothing else yet.
    assert!(matches!(
        book.portfolio(&margin, &q(&[])),
        Err(PaperError::Empty)
    ));
    assert!(matches!(
        book.orders(&margin, &q(&[])),
        Err(PaperError::Empty)
    ));
    let page = TransactionPage::from_wire(book.transactions(&margin, &q(&[])).ok())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(page.transaction.len(), 1);
    assert_eq!(page.transaction[0].amount, Some(d("100000")));
    assert_eq!(
        code_of(book.balance("nope").err().unwrap_or(PaperError::Empty)),
        codes::ACCOUNT_KEY
    );
    let status = book.status().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status["accounts"][0]["name"], "Paper Margin");
}

#[test]
fn market_buy_in_session_books_position_cash_and_transaction() {
    let (_dir, book, _m, margin, _ira) = setup();
    let tk = eq("AAPL", "BUY", 10, "MARKET", None);
    let preview = book
        .preview(&margin, &preview_body(&tk), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let p = BrokerPreview::from_wire(Some(preview.clone())).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.estimated_total(), Some(d("1000")));
    let placed = book
        .place(&margin, &place_body(&tk, preview_id(&preview)), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let id = BrokerPlacement::from_wire(Some(placed))
        .unwrap_or_else(|e| panic!("{e}"))
        .answer
        .order_ids[0]
        .order_id;
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed);
    assert_eq!(cash(&book, &margin), d("99000.00"));
    let s = book.snapshot();
    assert_eq!(position_qty(&s, &margin, "AAPL"), d("10"));
    let fill = s
        .transactions
        .values()
        .find(|t| t.kind == TxKind::Bought)
        .unwrap_or_else(|| panic!("fill"));
    assert_eq!(fill.amount, d("-1000.00"));
    assert_eq!(fill.price, d("100.00"));
    assert_eq!(fill.quantity, d("10"));

    // Every answer parses through the runtime's models.
    let orders =
        OrderList::from_wire(book.orders(&margin, &q(&[])).ok()).unwrap_or_else(|e| panic!("{e}"));
    let detail = &orders.orders[0].order_detail[0];
    assert_eq!(detail.status.as_deref(), Some("EXECUTED"));
    assert_eq!(detail.preview_id, Some(preview_id(&preview)));
    assert_eq!(detail.instrument[0].average_execution_price, Some(d("100")));
    assert_eq!(detail.instrument[0].filled_quantity, Some(d("10")));
    let page = PortfolioPage::from_wire(
        book.portfolio(
            &margin,
            &q(&[
                ("lotsRequired", Param::Bool(true)),
                ("totalsRequired", Param::Bool(true)),
            ]),
        )
        .ok(),
        1,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let pos = &page.account_portfolio[0].position[0];
    assert_eq!(pos.quantity, d("10"));
    assert_eq!(pos.total_cost, Some(d("1000")));
    assert_eq!(pos.market_value, Some(d("999.5")));
    assert!(pos.quick.is_some());
    assert_eq!(pos.position_lot.as_ref().map(Vec::len), Some(1));
    let lots = PositionLots::from_wire(book.position_lots(&margin, pos.position_id).ok())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(lots.position_lot[0].remaining_qty, Some(d("10")));
    for view in ["PERFORMANCE", "FUNDAMENTAL", "OPTIONSWATCH", "COMPLETE"] {
        PortfolioPage::from_wire(
            book.portfolio(&margin, &q(&[("view", view.into())])).ok(),
            1,
        )
        .unwrap_or_else(|e| panic!("{view}: {e}"));
    }
    let txs = TransactionPage::from_wire(book.transactions(&margin, &q(&[])).ok())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(txs.transaction.len(), 2);
    let bought = &txs.transaction[0];
    assert_eq!(
        bought
            .brokerage
            .as_ref()
            .and_then(|b| b.transaction_type.clone())
            .as_deref(),
        Some("Bought")
    );
    let tid: i64 = bought.transaction_id.parse().unwrap_or_default();
    let details = TransactionDetails::from_wire(book.transaction_details(&margin, tid).ok())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(details.amount, Some(d("-1000")));
    Balance::from_wire(book.balance(&margin).ok()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn limit_sell_rests_until_marketable_then_fills() {
    let (_dir, book, market, margin, _ira) = setup();
    submit(&book, &margin, &eq("AAPL", "BUY", 10, "MARKET", None), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let id = submit(
        &book,
        &margin,
        &eq("AAPL", "SELL", 10, "LIMIT", Some("105")),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(order(&book, id).status, OrderStatus::Open);
    market.set(
        "AAPL",
        base() + mins(30),
        t("105.50", "105.60", 1_000, 1_000),
    );
    book.advance(mins(20)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(order(&book, id).status, OrderStatus::Open);
    book.advance(mins(20)).unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed);
    // Filled at the first step at or after the price change, at the bid.
    assert_eq!(o.executed_at, Some(base() + mins(30)));
    assert_eq!(cash(&book, &margin), d("100000") - d("1000") + d("1055"));
    assert_eq!(
        position_qty(&book.snapshot(), &margin, "AAPL"),
        Decimal::ZERO
    );
    let txs = TransactionPage::from_wire(book.transactions(&margin, &q(&[])).ok())
        .unwrap_or_else(|e| panic!("{e}"));
    let sold = &txs.transaction[0];
    assert_eq!(sold.transaction_type.as_deref(), Some("Sold"));
    assert_eq!(sold.amount, Some(d("1055")));
    let open = book.orders(&margin, &q(&[("status", "OPEN".into())]));
    assert!(matches!(open, Err(PaperError::Empty)));
}

#[test]
fn partial_fills_take_the_displayed_size() {
    let (_dir, book, market, margin, _ira) = setup();
    market.set("AAPL", base(), t("99.90", "100.00", 1_000, 30));
    let id = submit(
        &book,
        &margin,
        &eq("AAPL", "BUY", 100, "MARKET", None),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::IndividualFills);
    assert_eq!(o.legs[0].filled, d("30"));
    book.advance(mins(1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(order(&book, id).legs[0].filled, d("60"));
    book.advance(mins(2)).unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed);
    assert_eq!(o.legs[0].filled, d("100"));
    let s = book.snapshot();
    assert_eq!(position_qty(&s, &margin, "AAPL"), d("100"));
    assert_eq!(s.positions.values().map(|p| p.lots.len()).sum::<usize>(), 4);
    let orders =
        OrderList::from_wire(book.orders(&margin, &q(&[])).ok()).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<_> = orders.orders[0]
        .events
        .iter()
        .filter_map(|e| e.name.clone())
        .collect();
    assert_eq!(names.first().map(String::as_str), Some("ORDER_PLACED"));
    assert_eq!(names.last().map(String::as_str), Some("ORDER_EXECUTED"));
}

#[test]
fn all_or_none_waits_for_size() {
    let (_dir, book, market, margin, _ira) = setup();
    market.set("AAPL", base(), t("99.90", "100.00", 1_000, 30));
    let mut tk = eq("AAPL", "BUY", 100, "LIMIT", Some("100"));
    tk.aon = true;
    let id = submit(&book, &margin, &tk, None).unwrap_or_else(|e| panic!("{e}"));
    book.advance(mins(5)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(order(&book, id).legs[0].filled, Decimal::ZERO);
    market.set("AAPL", base() + mins(10), t("99.90", "100.00", 1_000, 500));
    book.advance(mins(10)).unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed);
    assert_eq!(o.executed_at, Some(base() + mins(10)));
}

#[test]
fn cancel_and_change() {
    let (_dir, book, _m, margin, _ira) = setup();
    let id = submit(
        &book,
        &margin,
        &eq("AAPL", "BUY", 10, "LIMIT", Some("90")),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let changed = submit(
        &book,
        &margin,
        &eq("AAPL", "BUY", 12, "LIMIT", Some("95")),
        Some(id),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(changed, id);
    let old = order(&book, id);
    assert_eq!(old.status, OrderStatus::Cancelled);
    assert_eq!(old.replaced_by, Some(changed));
    assert_eq!(order(&book, changed).replaces, Some(id));
    let list =
        OrderList::from_wire(book.orders(&margin, &q(&[])).ok()).unwrap_or_else(|e| panic!("{e}"));
    let old_detail = list
        .orders
        .iter()
        .find(|o| o.order_id == Some(id))
        .map(|o| o.order_detail[0].clone())
        .unwrap_or_else(|| panic!("old"));
    assert_eq!(old_detail.replaced_by_order_id, Some(changed));
    // A change of a cancelled order is refused.
    let again = submit(
        &book,
        &margin,
        &eq("AAPL", "BUY", 12, "LIMIT", Some("96")),
        Some(id),
    );
    assert_eq!(
        code_of(again.err().unwrap_or(PaperError::Empty)),
        codes::NOT_CHANGEABLE
    );
    let answer = book
        .cancel(
            &margin,
            &json!({"CancelOrderRequest": {"orderId": changed}}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let c = BrokerCancellation::from_wire(Some(answer)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.order_id, Some(changed));
    assert_eq!(order(&book, changed).status, OrderStatus::Cancelled);
    let twice = book.cancel(
        &margin,
        &json!({"CancelOrderRequest": {"orderId": changed}}),
    );
    match twice {
        Err(PaperError::Rejected {
            status,
            code,
            message,
        }) => {
            assert_eq!((status, code), (400, 5001));
            assert_eq!(message, codes::NOT_CANCELLABLE_MESSAGE);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn refusals() {
    let (_dir, book, _m, margin, ira) = setup();
    let e = book.preview(
        &ira,
        &preview_body(&eq("AAPL", "BUY", 300, "MARKET", None)),
        None,
    );
    match e {
        Err(PaperError::Rejected {
            status,
            code,
            message,
        }) => {
            assert_eq!((status, code), (400, 1021));
            assert_eq!(message, codes::INSUFFICIENT_FUNDS_MESSAGE);
        }
        other => panic!("{other:?}"),
    }
    let short = book.preview(
        &ira,
        &preview_body(&eq("AAPL", "SELL_SHORT", 1, "MARKET", None)),
        None,
    );
    assert_eq!(
        code_of(short.err().unwrap_or(PaperError::Empty)),
        codes::SHORT_IN_CASH_ACCOUNT
    );
    let oversell = book.preview(
        &ira,
        &preview_body(&eq("AAPL", "SELL", 1, "MARKET", None)),
        None,
    );
    assert_eq!(
        code_of(oversell.err().unwrap_or(PaperError::Empty)),
        codes::NOT_ENOUGH_SHARES
    );
    let unknown = book.preview(
        &margin,
        &preview_body(&eq("APPL", "BUY", 1, "MARKET", None)),
        None,
    );
    assert_eq!(code_of(unknown.err().unwrap_or(PaperError::Empty)), 1019);
    let option = json!({"PreviewOrderRequest": {"orderType": "OPTN", "clientOrderId": "opt1", "Order": [{
        "allOrNone": false, "priceType": "LIMIT", "limitPrice": 1.5, "orderTerm": "GOOD_FOR_DAY", "marketSession": "REGULAR",
        "Instrument": [{"Product": {"securityType": "OPTN", "symbol": "AAPL", "callPut": "CALL", "expiryYear": 2025,
            "expiryMonth": 6, "expiryDay": 20, "strikePrice": 150}, "orderAction": "BUY_OPEN", "quantityType": "QUANTITY", "quantity": 1}]}]}});
    assert_eq!(
        code_of(
            book.preview(&margin, &option, None)
                .err()
                .unwrap_or(PaperError::Empty)
        ),
        codes::OPTION_NOT_FOUND
    );
    // Margin short sale is fine.
    submit(
        &book,
        &margin,
        &eq("AAPL", "SELL_SHORT", 5, "MARKET", None),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(position_qty(&book.snapshot(), &margin, "AAPL"), d("-5"));
}

#[test]
fn place_needs_a_matching_unused_preview() {
    let (_dir, book, _m, margin, _ira) = setup();
    let tk = eq("AAPL", "BUY", 1, "MARKET", None);
    let mut no_ids = members(&tk);
    no_ids.remove("PreviewIds");
    let e = book.place(
        &margin,
        &json!({"PlaceOrderRequest": Value::Object(no_ids)}),
        None,
    );
    match e {
        Err(PaperError::Rejected {
            status,
            code,
            message,
        }) => {
            assert_eq!((status, code), (400, 101));
            assert!(message.starts_with("For your protection, we have timed out"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        code_of(
            book.place(&margin, &place_body(&tk, 42), None)
                .err()
                .unwrap_or(PaperError::Empty)
        ),
        101
    );
    let pid = preview_id(
        &book
            .preview(&margin, &preview_body(&tk), None)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    // A different order under that preview.
    let other = eq("AAPL", "BUY", 2, "MARKET", None);
    let mut other = other;
    other.client = tk.client.clone();
    assert_eq!(
        code_of(
            book.place(&margin, &place_body(&other, pid), None)
                .err()
                .unwrap_or(PaperError::Empty)
        ),
        101
    );
    book.place(&margin, &place_body(&tk, pid), None)
        .unwrap_or_else(|e| panic!("{e}"));
    // Used already.
    assert_eq!(
        code_of(
            book.place(&margin, &place_body(&tk, pid), None)
                .err()
                .unwrap_or(PaperError::Empty)
        ),
        101
    );
    // A fresh preview with the same clientOrderId: duplicate.
    let pid = preview_id(
        &book
            .preview(&margin, &preview_body(&tk), None)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    assert_eq!(
        code_of(
            book.place(&margin, &place_body(&tk, pid), None)
                .err()
                .unwrap_or(PaperError::Empty)
        ),
        codes::DUPLICATE_CLIENT_ORDER_ID
    );
    // A stale preview times out.
    let tk2 = eq("AAPL", "BUY", 1, "MARKET", None);
    let pid = preview_id(
        &book
            .preview(&margin, &preview_body(&tk2), None)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    book.advance(mins(16)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        code_of(
            book.place(&margin, &place_body(&tk2, pid), None)
                .err()
                .unwrap_or(PaperError::Empty)
        ),
        101
    );
}

#[test]
fn previews_older_than_a_day_are_dropped_with_the_next_preview() {
    let (dir, book, market, margin, _ira) = setup();
    let preview = |book: &PaperBook| {
        let tk = eq("AAPL", "BUY", 1, "LIMIT", Some("90"));
        preview_id(
            &book
                .preview(&margin, &preview_body(&tk), None)
                .unwrap_or_else(|e| panic!("{e}")),
        )
    };
    let kept =
        |book: &PaperBook| -> Vec<i64> { book.snapshot().previews.keys().copied().collect() };
    let first = preview(&book);
    // Exactly a day old is not older than a day.
    book.advance(SignedDuration::from_hours(24))
        .unwrap_or_else(|e| panic!("{e}"));
    let second = preview(&book);
    assert_eq!(kept(&book), vec![first, second]);
    book.advance(SignedDuration::from_nanos(1))
        .unwrap_or_else(|e| panic!("{e}"));
    let third = preview(&book);
    assert_eq!(kept(&book), vec![second, third]);

    // A preview whose commit fails drops nothing.
    book.advance(SignedDuration::from_hours(24))
        .unwrap_or_else(|e| panic!("{e}"));
    book.fail_next_commit();
    let tk = eq("AAPL", "BUY", 1, "LIMIT", Some("90"));
    assert!(book.preview(&margin, &preview_body(&tk), None).is_err());
    assert_eq!(kept(&book), vec![second, third]);

    // A book read from the file drops the same ones.
    drop(book);
    let book = open(&dir.path().join("paper.redb"), market);
    assert_eq!(kept(&book), vec![second, third]);
    let fourth = preview(&book);
    assert_eq!(kept(&book), vec![third, fourth]);
}

#[test]
fn good_for_day_expires_after_the_close() {
    let (_dir, book, _m, margin, _ira) = setup();
    let mut tk = eq("AAPL", "BUY", 10, "LIMIT", Some("90"));
    tk.term = "GOOD_FOR_DAY";
    let id = submit(&book, &margin, &tk, None).unwrap_or_else(|e| panic!("{e}"));
    book.advance(mins(5 * 60 + 59))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(order(&book, id).status, OrderStatus::Open);
    book.advance(mins(2)).unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Expired);
    assert!(matches!(
        book.orders(&margin, &q(&[("status", "OPEN".into())])),
        Err(PaperError::Empty)
    ));
    // The reserve is released.
    let b = Balance::from_wire(book.balance(&margin).ok()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        b.computed.and_then(|c| c.cash_buying_power),
        Some(d("100000"))
    );
}

#[test]
fn market_order_after_hours_fills_at_the_next_open() {
    let (_dir, book, market, margin, _ira) = setup();
    book.advance(mins(8 * 60)).unwrap_or_else(|e| panic!("{e}")); // 18:00
    let id = submit(&book, &margin, &eq("AAPL", "BUY", 10, "MARKET", None), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(order(&book, id).status, OrderStatus::Open);
    let open = time_zone()
        .to_timestamp(date(2025, 6, 12).at(9, 30, 0, 0))
        .unwrap_or(Timestamp::UNIX_EPOCH);
    market.set("AAPL", open, t("101.00", "101.10", 1_000, 1_000));
    book.advance(mins(16 * 60))
        .unwrap_or_else(|e| panic!("{e}")); // next day 10:00
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed);
    assert_eq!(o.executed_at, Some(open));
    assert_eq!(cash(&book, &margin), d("100000") - d("1011"));
}

#[test]
fn reopening_keeps_everything() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("book.redb");
    let market = Arc::new(TestMarket::default());
    market.set(
        "AAPL",
        Timestamp::UNIX_EPOCH,
        t("99.90", "100.00", 1_000, 1_000),
    );
    let (key, before, now) = {
        let book = open(&path, market.clone());
        let key = book
            .snapshot()
            .accounts
            .values()
            .find(|a| a.margin)
            .map(|a| a.key.clone())
            .unwrap_or_default();
        submit(&book, &key, &eq("AAPL", "BUY", 10, "MARKET", None), None)
            .unwrap_or_else(|e| panic!("{e}"));
        submit(
            &book,
            &key,
            &eq("AAPL", "SELL", 5, "LIMIT", Some("120")),
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        book.advance(mins(3)).unwrap_or_else(|e| panic!("{e}"));
        (key, book.snapshot(), book.now())
    };
    let book = open(&path, market);
    let after = book.snapshot();
    assert_eq!(after.accounts, before.accounts);
    assert_eq!(after.orders, before.orders);
    assert_eq!(after.positions, before.positions);
    assert_eq!(after.transactions, before.transactions);
    assert_eq!(after.ledger, before.ledger);
    assert_eq!(book.now(), now);
    assert_eq!(cash(&book, &key), d("99000"));
    if cfg!(unix) {
        assert_eq!(crate::platform::permission_bits(&path), Some(0o600));
    }
    book.reset(Some(d("5000")))
        .unwrap_or_else(|e| panic!("{e}"));
    let s = book.snapshot();
    assert!(s.orders.is_empty() && s.positions.is_empty());
    assert!(s.accounts.values().all(|a| a.cash == d("5000")));
    drop(book);
    let reopened = open(&path, Arc::new(TestMarket::default()));
    assert!(reopened.snapshot().orders.is_empty());
}

#[test]
fn spread_fills_all_legs_at_the_net() {
    let (_dir, book, market, margin, _ira) = setup();
    let c = |strike: i64| OptionContract {
        underlying: "AAPL".into(),
        expiration: date(2025, 7, 18),
        call_put: crate::paper::touch::CallPut::Call,
        strike: Decimal::from(strike),
    };
    {
        let mut o = market.options.lock().unwrap_or_else(|e| e.into_inner());
        o.push((c(100), t("5.00", "5.20", 50, 50)));
        o.push((c(110), t("1.00", "1.10", 50, 50)));
    }
    let leg = |strike: i64, action: &str| {
        json!({"Product": {"securityType": "OPTN", "symbol": "AAPL", "callPut": "CALL",
        "expiryYear": 2025, "expiryMonth": 7, "expiryDay": 18, "strikePrice": strike},
        "orderAction": action, "quantityType": "QUANTITY", "quantity": 2})
    };
    let m = json!({"orderType": "SPREADS", "clientOrderId": "spread1", "Order": [{"allOrNone": false,
        "priceType": "NET_DEBIT", "limitPrice": 4.25, "orderTerm": "GOOD_FOR_DAY", "marketSession": "REGULAR",
        "Instrument": [leg(100, "BUY_OPEN"), leg(110, "SELL_OPEN")]}]});
    let pv = book
        .preview(&margin, &json!({"PreviewOrderRequest": m.clone()}), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut place = m;
    if let Some(o) = place.as_object_mut() {
        o.insert("PreviewIds".into(), json!([{"previewId": preview_id(&pv)}]));
    }
    let placed = book
        .place(&margin, &json!({"PlaceOrderRequest": place}), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let id = BrokerPlacement::from_wire(Some(placed))
        .unwrap_or_else(|e| panic!("{e}"))
        .answer
        .order_ids[0]
        .order_id;
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed); // net 5.20 − 1.00 = 4.20 ≤ 4.25
    // 2 × 520 bought, 2 × 100 sold, 4 contracts × 0.65.
    assert_eq!(
        cash(&book, &margin),
        d("100000") - d("1040") + d("200") - d("2.60")
    );
    let s = book.snapshot();
    assert_eq!(s.positions.len(), 2);
    let quantities: Vec<Decimal> = s.positions.values().map(|p| p.quantity()).collect();
    assert!(quantities.contains(&d("2")) && quantities.contains(&d("-2")));
    PortfolioPage::from_wire(book.portfolio(&margin, &q(&[])).ok(), 1)
        .unwrap_or_else(|e| panic!("{e}"));
    OrderList::from_wire(book.orders(&margin, &q(&[])).ok()).unwrap_or_else(|e| panic!("{e}"));
}

/// A deterministic market whose prices move with time.
struct Wave;

impl MarketData for Wave {
    fn equity(&self, symbol: &str, at: Timestamp) -> Option<Touch> {
        let base = match symbol {
            "KO" => 50,
            "JNJ" => 120,
            _ => return None,
        };
        let minute = at.as_second().div_euclid(60);
        let wiggle = (minute * 7 + i64::from(base)).rem_euclid(11) - 5;
        let bid = Decimal::new((i64::from(base) * 100) + wiggle * 37, 2);
        let ask = bid + Decimal::new(5, 2);
        let size = u64::try_from(10 + minute.rem_euclid(5) * 15).unwrap_or(10);
        Some(Touch {
            bid,
            ask,
            bid_size: size,
            ask_size: size + 5,
            last: bid + Decimal::new(2, 2),
            volume: 0,
        })
    }

    fn option(&self, _c: &OptionContract, _at: Timestamp) -> Option<Touch> {
        None
    }

    fn source(&self) -> &'static str {
        "wave"
    }
}

#[derive(Debug, Clone)]
enum Op {
    Order {
        account: usize,
        symbol: usize,
        sell: bool,
        qty: u32,
        limit_offset: Option<i64>,
    },
    Cancel {
        pick: usize,
    },
    Advance {
        minutes: i64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..2usize, 0..2usize, any::<bool>(), 1..80u32, proptest::option::of(-300..300i64))
            .prop_map(|(account, symbol, sell, qty, limit_offset)| Op::Order { account, symbol, sell, qty, limit_offset }),
        1 => (0..50usize).prop_map(|pick| Op::Cancel { pick }),
        2 => (1..900i64).prop_map(|minutes| Op::Advance { minutes }),
    ]
}

/// Cash, ledger, transactions, fills, positions and lots all agree; no money appears or
/// disappears except through fills at their recorded prices and commissions.
fn check_conservation(s: &State) -> Result<(), TestCaseError> {
    for a in s.accounts.values() {
        let entries: Vec<_> = s
            .ledger
            .values()
            .filter(|e| e.account_key == a.key)
            .collect();
        let ledger: Decimal = entries.iter().map(|e| e.amount).sum();
        let deposits: Decimal = entries
            .iter()
            .filter(|e| e.kind == super::state::LedgerKind::Deposit)
            .map(|e| e.amount)
            .sum();
        // The opening deposit is the ledger's first entry.
        prop_assert_eq!(deposits, a.starting_cash);
        prop_assert_eq!(a.cash, ledger);
        let txs: Vec<_> = s
            .transactions
            .values()
            .filter(|t| t.account_key == a.key)
            .collect();
        let tx_sum: Decimal = txs.iter().map(|t| t.amount).sum();
        prop_assert_eq!(ledger, tx_sum);
        let mark = Decimal::ONE_HUNDRED;
        let mut fills_value = Decimal::ZERO;
        let mut by_instrument: BTreeMap<Instrument, Decimal> = BTreeMap::new();
        for t in &txs {
            let Some(i) = &t.instrument else {
                prop_assert_eq!(t.kind, TxKind::Deposit);
                continue;
            };
            let m = i.multiplier();
            let principal = super::engine::cents(t.quantity.abs() * t.price * m);
            let expected = if t.quantity > Decimal::ZERO {
                -principal - t.fee
            } else {
                principal - t.fee
            };
            prop_assert_eq!(t.amount, expected);
            *by_instrument.entry(i.clone()).or_default() += t.quantity;
            fills_value += t.quantity * mark * m + t.amount;
        }
        let mut held_value = Decimal::ZERO;
        for p in s.positions.values().filter(|p| p.account_key == a.key) {
            let q = p.quantity();
            prop_assert!(!q.is_zero());
            let lots: Decimal = p.lots.iter().map(|l| l.remaining_qty).sum();
            prop_assert_eq!(q, lots);
            prop_assert_eq!(Some(&q), by_instrument.get(&p.instrument));
            if !a.margin {
                prop_assert!(q > Decimal::ZERO);
            }
            held_value += q * mark * p.instrument.multiplier();
        }
        for (i, q) in &by_instrument {
            if s.position_of(&a.key, i).is_none() {
                prop_assert!(q.is_zero());
            }
        }
        // Orders' filled quantities are the fills.
        let mut by_orders: BTreeMap<Instrument, Decimal> = BTreeMap::new();
        for o in s.orders.values().filter(|o| o.account_key == a.key) {
            for l in &o.legs {
                *by_orders.entry(l.instrument.clone()).or_default() += l.action.sign() * l.filled;
            }
        }
        by_orders.retain(|_, q| !q.is_zero());
        by_instrument.retain(|_, q| !q.is_zero());
        prop_assert_eq!(by_orders, by_instrument);
        // Total value at a fixed mark moves only by the fills.
        prop_assert_eq!(a.cash - a.starting_cash + held_value, fills_value);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn conservation(ops in proptest::collection::vec(op(), 1..40)) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let book = PaperBook::open_with_clock(&dir.path().join("p.redb"), PaperConfig::default(), Arc::new(Wave), Arc::new(base))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let keys: Vec<String> = {
            let s = book.snapshot();
            let mut a: Vec<_> = s.accounts.values().collect();
            a.sort_by_key(|a| a.seq);
            a.iter().map(|a| a.key.clone()).collect()
        };
        for op in ops {
            match op {
                Op::Order { account, symbol, sell, qty, limit_offset } => {
                    let sym = ["KO", "JNJ"][symbol];
                    let now = book.now();
                    let bid = Wave.equity(sym, now).map(|t| t.bid).unwrap_or_default();
                    let limit = limit_offset.map(|o| (bid + Decimal::new(o, 2)).max(Decimal::ONE).to_string());
                    let action = if sell { "SELL" } else { "BUY" };
                    let price_type = if limit.is_some() { "LIMIT" } else { "MARKET" };
                    let tk = eq(sym, action, qty, price_type, limit.as_deref());
                    match submit(&book, &keys[account], &tk, None) {
                        Ok(_) | Err(PaperError::Rejected { .. }) => {}
                        Err(e) => return Err(TestCaseError::fail(e.to_string())),
                    }
                }
                Op::Cancel { pick } => {
                    let ids: Vec<(i64, String)> = book.snapshot().orders.values().map(|o| (o.order_id, o.account_key.clone())).collect();
                    if let Some((id, key)) = ids.get(pick % ids.len().max(1)) {
                        match book.cancel(key, &json!({"CancelOrderRequest": {"orderId": id}})) {
                            Ok(_) | Err(PaperError::Rejected { .. }) => {}
                            Err(e) => return Err(TestCaseError::fail(e.to_string())),
                        }
                    }
                }
                Op::Advance { minutes } => {
                    book.advance(mins(minutes)).map_err(|e| TestCaseError::fail(e.to_string()))?;
                }
            }
            check_conservation(&book.snapshot())?;
        }
        // Every answer still parses.
        for key in &keys {
            Balance::from_wire(book.balance(key).ok()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            PortfolioPage::from_wire(book.portfolio(key, &q(&[])).ok(), 1).map_err(|e| TestCaseError::fail(e.to_string()))?;
            OrderList::from_wire(book.orders(key, &q(&[("count", Param::Int(100))])).ok()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            TransactionPage::from_wire(book.transactions(key, &q(&[])).ok()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
    }
}

/// Query parameters as a request carries them.
fn q(params: &[(&'static str, Param)]) -> EtradeRequest {
    params
        .iter()
        .fold(EtradeRequest::read(Endpoint::Portfolio), |r, (k, v)| {
            r.with(k, v.clone())
        })
}
