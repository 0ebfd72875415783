//! Trailing stops and on-open/on-close orders as simulated time passes.

use super::*;

fn at(day: i8, h: i8, m: i8) -> Timestamp {
    time_zone()
        .to_timestamp(date(2025, 6, day).at(h, m, 0, 0))
        .unwrap_or(Timestamp::UNIX_EPOCH)
}

fn trailing(action: &str, qty: u32, price_type: &str, trail: &'static str) -> Ticket<'static> {
    let mut tk = eq("AAPL", action, qty, price_type, None);
    tk.stop = Some(trail);
    tk
}

fn day_order(action: &str, price_type: &str, limit: Option<&str>) -> Ticket<'static> {
    let mut tk = eq("AAPL", action, 10, price_type, limit);
    tk.term = "GOOD_FOR_DAY";
    tk
}

fn filled_price(book: &PaperBook, id: i64) -> Decimal {
    let o = order(book, id);
    let leg = &o.legs[0];
    leg.fill_value / leg.filled
}

#[test]
fn a_dollar_trailing_sell_follows_the_high_and_triggers_as_a_market_order() {
    let (dir, book, market, margin, _ira) = setup();
    submit(&book, &margin, &eq("AAPL", "BUY", 10, "MARKET", None), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let id = submit(
        &book,
        &margin,
        &trailing("SELL", 10, "TRAILING_STOP_CNST", "2"),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let placed = order(&book, id);
    assert_eq!(placed.status, OrderStatus::Open);
    assert_eq!(placed.trail_mark, Some(d("99.95")));
    // Up to 104.95: the trigger follows to 102.95.
    market.set(
        "AAPL",
        base() + mins(10),
        t("104.90", "105.00", 1_000, 1_000),
    );
    // Back to 103.95: above the trigger, and the mark stays at the high.
    market.set(
        "AAPL",
        base() + mins(20),
        t("103.90", "104.00", 1_000, 1_000),
    );
    // 102.45: through 102.95, so it sells at the bid.
    market.set(
        "AAPL",
        base() + mins(30),
        t("102.40", "102.50", 1_000, 1_000),
    );
    book.advance(mins(25)).unwrap_or_else(|e| panic!("{e}"));
    let waiting = order(&book, id);
    assert_eq!(waiting.status, OrderStatus::Open);
    assert_eq!(waiting.trail_mark, Some(d("104.95")));
    assert_eq!(waiting.trail_trigger(), Some(d("102.95")));
    // The mark is durable: a reopened book trails from the same high.
    drop(book);
    let book = open(&dir.path().join("paper.redb"), market.clone());
    assert_eq!(order(&book, id).trail_mark, Some(d("104.95")));
    book.advance(mins(10)).unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed);
    assert_eq!(o.executed_at, Some(base() + mins(30)));
    assert_eq!(o.stop_triggered_at, Some(base() + mins(30)));
    assert_eq!(filled_price(&book, id), d("102.40"));
    assert_eq!(cash(&book, &margin), d("100000") - d("1000") + d("1024"));
    // The listing names the trigger it crossed.
    let list =
        OrderList::from_wire(book.orders(&margin, &q(&[])).ok()).unwrap_or_else(|e| panic!("{e}"));
    let detail = list
        .orders
        .iter()
        .find(|o| o.order_id == Some(id))
        .and_then(|o| o.order_detail.first())
        .unwrap_or_else(|| panic!("order {id} listed"));
    let detail = serde_json::to_value(detail).unwrap_or_default();
    assert_eq!(detail["priceType"], "TRAILING_STOP_CNST");
    assert_eq!(detail["stopPrice"], "2");
    assert_eq!(detail["triggerPrice"], "102.95");
}

#[test]
fn a_percent_trailing_buy_follows_the_low() {
    let (_dir, book, market, margin, _ira) = setup();
    let id = submit(
        &book,
        &margin,
        &trailing("BUY", 10, "TRAILING_STOP_PRCT", "10"),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Down to 90.00: the trigger follows to 99.00 (10% above the low).
    market.set("AAPL", base() + mins(10), t("89.95", "90.05", 1_000, 1_000));
    // 95.05: still below 99.00.
    market.set("AAPL", base() + mins(20), t("95.00", "95.10", 1_000, 1_000));
    book.advance(mins(25)).unwrap_or_else(|e| panic!("{e}"));
    let waiting = order(&book, id);
    assert_eq!(waiting.status, OrderStatus::Open);
    assert_eq!(waiting.trail_mark, Some(d("90.00")));
    assert_eq!(
        waiting.trail_trigger().map(|p| p.normalize()),
        Some(d("99"))
    );
    // 99.05 crosses it: a market buy at the ask.
    market.set("AAPL", base() + mins(30), t("99.00", "99.10", 1_000, 1_000));
    book.advance(mins(10)).unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed);
    assert_eq!(o.executed_at, Some(base() + mins(30)));
    assert_eq!(filled_price(&book, id), d("99.10"));
    assert_eq!(position_qty(&book.snapshot(), &margin, "AAPL"), d("10"));
}

#[test]
fn market_on_open_placed_in_the_session_fills_at_the_next_open() {
    let (_dir, book, market, margin, _ira) = setup();
    let id = submit(
        &book,
        &margin,
        &day_order("BUY", "MARKET_ON_OPEN", None),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Today's later prices do not fill it: it waits for tomorrow's opening auction.
    book.advance(mins(3 * 60)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(order(&book, id).status, OrderStatus::Open);
    let open = at(12, 9, 30);
    market.set("AAPL", open, t("101.00", "101.10", 1_000, 1_000));
    market.set("AAPL", open + mins(5), t("110.00", "110.10", 1_000, 1_000));
    book.advance(mins(24 * 60))
        .unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    assert_eq!(o.status, OrderStatus::Executed);
    assert_eq!(o.executed_at, Some(open));
    // The opening print (the last trade at the open), not a later quote.
    assert_eq!(filled_price(&book, id), d("101.05"));
    assert_eq!(cash(&book, &margin), d("100000") - d("1010.50"));
}

#[test]
fn limit_on_open_fills_only_when_the_open_satisfies_its_limit() {
    let (_dir, book, market, margin, _ira) = setup();
    // Placed before the open: today's open is its auction.
    book.advance(mins(20 * 60 + 30))
        .unwrap_or_else(|e| panic!("{e}")); // 06-12 06:30
    let filled = submit(
        &book,
        &margin,
        &day_order("BUY", "LIMIT_ON_OPEN", Some("102")),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let missed = submit(
        &book,
        &margin,
        &day_order("BUY", "LIMIT_ON_OPEN", Some("100.50")),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let open = at(12, 9, 30);
    market.set("AAPL", open, t("101.00", "101.10", 1_000, 1_000));
    book.advance(mins(4 * 60)).unwrap_or_else(|e| panic!("{e}"));
    let f = order(&book, filled);
    assert_eq!(f.status, OrderStatus::Executed);
    assert_eq!(f.executed_at, Some(open));
    assert_eq!(filled_price(&book, filled), d("101.05"));
    let m = order(&book, missed);
    assert_eq!(m.status, OrderStatus::Expired);
    assert!(m.legs[0].filled.is_zero());
    assert_eq!(
        m.events.last().map(|e| e.name.as_str()),
        Some("ORDER_EXPIRED")
    );
}

#[test]
fn on_close_orders_trade_at_todays_close() {
    let (_dir, book, market, margin, _ira) = setup();
    submit(&book, &margin, &eq("AAPL", "BUY", 20, "MARKET", None), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let moc = submit(
        &book,
        &margin,
        &day_order("SELL", "MARKET_ON_CLOSE", None),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let loc = submit(
        &book,
        &margin,
        &day_order("SELL", "LIMIT_ON_CLOSE", Some("104")),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let close = at(11, 16, 0);
    market.set(
        "AAPL",
        close - mins(30),
        t("110.00", "110.10", 1_000, 1_000),
    );
    market.set("AAPL", close, t("103.00", "103.10", 1_000, 1_000));
    // A price above both limits during the day fills neither: they wait for the close.
    book.advance(mins(5 * 60 + 59))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(order(&book, moc).status, OrderStatus::Open);
    assert_eq!(order(&book, loc).status, OrderStatus::Open);
    book.advance(mins(30)).unwrap_or_else(|e| panic!("{e}"));
    let m = order(&book, moc);
    assert_eq!(m.status, OrderStatus::Executed);
    assert_eq!(m.executed_at, Some(close));
    assert_eq!(filled_price(&book, moc), d("103.05"));
    // The closing print 103.05 is below the sell limit of 104: it expires unfilled.
    assert_eq!(order(&book, loc).status, OrderStatus::Expired);
    assert_eq!(position_qty(&book.snapshot(), &margin, "AAPL"), d("10"));
}

#[test]
fn on_open_and_on_close_orders_are_refused_for_other_terms() {
    let (_dir, book, _market, margin, _ira) = setup();
    let gtc = eq("AAPL", "BUY", 10, "MARKET_ON_CLOSE", None);
    let refused = book.preview(&margin, &preview_body(&gtc), None);
    assert_eq!(
        refused.err().map(code_of),
        Some(codes::INVALID_ORDER_REQUEST)
    );
}

#[test]
fn a_book_written_before_trailing_stops_reads_without_a_mark() {
    let (_dir, book, _market, margin, _ira) = setup();
    let id = submit(
        &book,
        &margin,
        &eq("AAPL", "SELL_SHORT", 5, "LIMIT", Some("150")),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = order(&book, id);
    let text = serde_json::to_string(&o).unwrap_or_default();
    assert!(!text.contains("trail_mark"), "{text}");
    let back: super::super::state::OrderRec =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, o);
}
