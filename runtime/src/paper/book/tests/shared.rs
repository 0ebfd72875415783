//! Two books on one file, as two processes have them: each holds the file only during an
//! operation (and a moment after), so both can be open at once, and each must act on what
//! the other committed.

use std::collections::BTreeSet;
use std::thread;
use std::time::{Duration, Instant};

use super::*;
use crate::store_lease::open_when_released;

/// Longer than the lease's idle window: the book that last used the file has let go of it,
/// so the next operation opens it anew.
const PAST_IDLE: Duration = Duration::from_millis(300);

fn two() -> (
    tempfile::TempDir,
    PaperBook,
    PaperBook,
    Arc<TestMarket>,
    String,
) {
    let (dir, a, market, margin, _ira) = setup();
    let b = open(&dir.path().join("paper.redb"), market.clone());
    (dir, a, b, market, margin)
}

fn placed(book: &PaperBook, key: &str, tk: &Ticket<'_>) -> i64 {
    submit(book, key, tk, None).unwrap_or_else(|e| panic!("{e}"))
}

fn order_ids(book: &PaperBook, key: &str) -> Vec<i64> {
    let list = OrderList::from_wire(book.orders(key, &q(&[("count", Param::Int(100))])).ok())
        .unwrap_or_else(|e| panic!("{e}"));
    list.orders.iter().filter_map(|o| o.order_id).collect()
}

#[test]
fn a_placement_on_one_book_is_seen_by_the_other() {
    let (_dir, a, b, _market, margin) = two();
    let bought = placed(&a, &margin, &eq("AAPL", "BUY", 10, "MARKET", None));
    assert_eq!(position_qty(&b.snapshot(), &margin, "AAPL"), d("10"));
    assert_eq!(cash(&b, &margin), d("99000"));
    assert_eq!(order(&b, bought).status, OrderStatus::Executed);
    assert_eq!(order_ids(&b, &margin), vec![bought]);
    let page = PortfolioPage::from_wire(b.portfolio(&margin, &q(&[])).ok(), 1)
        .unwrap_or_else(|e| panic!("{e}"));
    let quantities: Vec<Decimal> = page
        .account_portfolio
        .iter()
        .flat_map(|a| a.position.iter().map(|p| p.quantity))
        .collect();
    assert_eq!(quantities, vec![d("10")]);

    // And back: B's order, on top of A's, is A's to see.
    let more = placed(&b, &margin, &eq("MSFT", "BUY", 5, "MARKET", None));
    assert_ne!(more, bought, "ids continue from the other book's");
    let s = a.snapshot();
    assert_eq!(position_qty(&s, &margin, "AAPL"), d("10"));
    assert_eq!(position_qty(&s, &margin, "MSFT"), d("5"));
    assert_eq!(cash(&a, &margin), d("99000") - d("2000"));
    let mut ids = order_ids(&a, &margin);
    ids.sort_unstable();
    assert_eq!(ids, vec![bought.min(more), bought.max(more)]);

    // Simulated time and a reset travel too.
    a.advance(mins(90)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.now(), base() + mins(90));
    b.reset(Some(d("5000"))).unwrap_or_else(|e| panic!("{e}"));
    let s = a.snapshot();
    assert!(s.orders.is_empty() && s.positions.is_empty());
    assert_eq!(cash(&a, &margin), d("5000"));
    assert_eq!(a.now(), base());
}

#[test]
fn a_resting_order_fills_once_whichever_book_catches_up() {
    let (_dir, a, b, market, margin) = two();
    let id = placed(&a, &margin, &eq("AAPL", "BUY", 10, "LIMIT", Some("99")));
    assert_eq!(order(&b, id).status, OrderStatus::Open);
    market.set("AAPL", base() + mins(10), t("98.40", "98.50", 1_000, 1_000));
    b.advance(mins(20)).unwrap_or_else(|e| panic!("{e}"));
    for book in [&a, &b] {
        let o = order(book, id);
        assert_eq!(o.status, OrderStatus::Executed);
        assert_eq!(o.executed_at, Some(base() + mins(10)));
        assert_eq!(position_qty(&book.snapshot(), &margin, "AAPL"), d("10"));
        assert_eq!(cash(book, &margin), d("100000") - d("985"));
    }
    // A's catch-up runs on B's evaluation, not its own stale one: nothing fills twice.
    a.advance(mins(20)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cash(&b, &margin), d("100000") - d("985"));
    let fills = b
        .snapshot()
        .transactions
        .values()
        .filter(|t| t.kind == TxKind::Bought)
        .count();
    assert_eq!(fills, 1);
}

#[test]
fn interleaved_writes_from_two_books_lose_nothing() {
    let (_dir, a, b, _market, margin) = two();
    const EACH: usize = 6;
    let ids: Vec<i64> = thread::scope(|s| {
        let runs = [&a, &b].map(|book| {
            let margin = margin.as_str();
            s.spawn(move || {
                (0..EACH)
                    .map(|_| placed(book, margin, &eq("AAPL", "BUY", 1, "MARKET", None)))
                    .collect::<Vec<i64>>()
            })
        });
        runs.into_iter()
            .flat_map(|run| run.join().unwrap_or_else(|_| panic!("a placing thread")))
            .collect()
    });
    let distinct: BTreeSet<i64> = ids.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        2 * EACH,
        "no order id given out twice: {ids:?}"
    );
    for book in [&a, &b] {
        let s = book.snapshot();
        assert_eq!(
            s.orders.keys().copied().collect::<BTreeSet<i64>>(),
            distinct
        );
        assert_eq!(position_qty(&s, &margin, "AAPL"), d("12"));
        assert_eq!(s.accounts[&margin].cash, d("100000") - d("1200"));
        let previews: BTreeSet<i64> = s.previews.keys().copied().collect();
        assert_eq!(previews.len(), 2 * EACH);
    }
}

#[test]
fn an_unchanged_file_is_not_reloaded() {
    let (_dir, a, b, _market, margin) = two();
    // Reads with no order open commit nothing, so neither book has anything to reload.
    for _ in 0..2 {
        a.balance(&margin).unwrap_or_else(|e| panic!("{e}"));
        thread::sleep(PAST_IDLE);
        b.balance(&margin).unwrap_or_else(|e| panic!("{e}"));
        thread::sleep(PAST_IDLE);
    }
    assert_eq!((a.reloads(), b.reloads()), (0, 0));

    placed(&a, &margin, &eq("AAPL", "BUY", 1, "MARKET", None));
    assert_eq!(cash(&b, &margin), d("99900"));
    assert_eq!(b.reloads(), 1, "one reload for A's change");
    // The file opened again, and nothing changed since.
    thread::sleep(PAST_IDLE);
    assert_eq!(cash(&b, &margin), d("99900"));
    assert_eq!((a.reloads(), b.reloads()), (0, 1));
}

#[test]
fn a_failed_commit_rolls_back_and_the_other_book_never_sees_it() {
    let (_dir, a, b, _market, margin) = two();
    let tk = eq("AAPL", "BUY", 10, "MARKET", None);
    let preview = preview_id(
        &a.preview(&margin, &preview_body(&tk), None)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    let before = a.snapshot();
    a.fail_next_commit();
    let failed = a.place(&margin, &place_body(&tk, preview), None);
    assert!(matches!(failed, Err(PaperError::Store(_))), "{failed:?}");
    let after = a.snapshot();
    assert_eq!(after.orders, before.orders);
    assert_eq!(after.accounts, before.accounts);
    assert_eq!(after.previews, before.previews, "the preview is unused");
    assert_eq!(after.meta, before.meta);
    assert!(b.snapshot().orders.is_empty());
    assert_eq!(cash(&b, &margin), d("100000"));

    // The same preview places now, and B sees it once.
    a.place(&margin, &place_body(&tk, preview), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(b.snapshot().orders.len(), 1);
    assert_eq!(cash(&b, &margin), d("99000"));
    assert_eq!(a.reloads(), 0, "A's memory never left the file's history");
}

#[test]
fn busy_when_another_process_keeps_the_file() {
    let (dir, a, _market, margin, _ira) = setup();
    let a = a.with_lock_timeout(Duration::from_millis(200));
    let held = open_when_released(&dir.path().join("paper.redb"));
    let started = Instant::now();
    let refused = submit(&a, &margin, &eq("AAPL", "BUY", 1, "MARKET", None), None);
    assert!(matches!(refused, Err(PaperError::Busy)), "{refused:?}");
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(
        PaperError::Busy.to_string(),
        "another etrade process is using the paper book"
    );
    drop(held);
    assert!(a.snapshot().orders.is_empty(), "nothing was placed");
    placed(&a, &margin, &eq("AAPL", "BUY", 1, "MARKET", None));
    assert_eq!(cash(&a, &margin), d("99900"));
}

#[test]
fn a_client_order_id_used_on_one_book_is_taken_on_the_other() {
    let (dir, a, market, margin, ira) = setup();
    let tk = eq("AAPL", "BUY", 1, "MARKET", None);
    placed(&a, &margin, &tk);
    thread::sleep(PAST_IDLE);
    // B reads the book from the file: its lookups must know A's order.
    let b = open(&dir.path().join("paper.redb"), market);
    let again = eq("MSFT", "BUY", 1, "MARKET", None);
    let again = Ticket {
        client: tk.client.clone(),
        ..again
    };
    assert_eq!(
        code_of(
            submit(&b, &margin, &again, None)
                .err()
                .unwrap_or(PaperError::Empty)
        ),
        codes::DUPLICATE_CLIENT_ORDER_ID
    );
    // The id is the account's: another account may use it.
    placed(&b, &ira, &again);
    // A refused placement left nothing behind: a fresh id still goes through on both.
    placed(&b, &margin, &eq("MSFT", "BUY", 1, "MARKET", None));
    placed(&a, &margin, &eq("MSFT", "BUY", 1, "MARKET", None));
}
