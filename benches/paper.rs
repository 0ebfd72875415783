//! Durable paper placements per second: `PaperBook::preview` + `PaperBook::place` of a
//! market order that fills at once (each a committed redb write transaction: the preview, then
//! order + fill + cash + position + transaction), next to a bare redb baseline committing
//! the same number of durable write transactions on its own handle — same run, same disk.
//!
//! Orders alternate buy and sell, so the position stays at one lot and the figure does not
//! drift with a position growing thousands of lots (whose record is rewritten per fill).
//!
//! Run: `cargo bench --bench paper` (env `BENCH_ITERS`, default 500). The last line is a
//! `REPORT` summary line for `benches/run-all`.

#[path = "support/rounds.rs"]
mod rounds;
#[path = "support/report.rs"]
mod summary;

use redb::{Database, TableDefinition};
use runtime::paper::book::{PaperBook, PaperConfig};
use runtime::paper::market::SimulatedMarket;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const RECORDS: TableDefinition<u64, &[u8]> = TableDefinition::new("records");

fn main() {
    let iters: usize = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let dir = tempfile::tempdir().expect("temp dir");
    // A fixed instant inside a regular session, so every market order fills at once.
    let session: jiff::Timestamp = "2026-11-17T15:00:00Z".parse().expect("instant");
    let clock: runtime::paper::book::Clock = Arc::new(move || session);
    let mut config = PaperConfig::default();
    for a in &mut config.accounts {
        a.starting_cash = rust_decimal::Decimal::from(1_000_000_000);
    }
    let book = PaperBook::open_with_clock(
        &dir.path().join("paper.redb"),
        config,
        Arc::new(SimulatedMarket::new(1)),
        clock,
    )
    .expect("book");
    let accounts = book.accounts_list().expect("accounts");
    let key = accounts["AccountListResponse"]["Accounts"]["Account"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    let mut n = 0u64;
    let mut place = |count: usize| {
        let start = Instant::now();
        for _ in 0..count {
            n += 1;
            let members = json!({"orderType": "EQ", "clientOrderId": format!("B{n}"),
                "Order": [{"allOrNone": false, "priceType": "MARKET", "orderTerm": "GOOD_FOR_DAY",
                  "marketSession": "REGULAR", "Instrument": [{"Product": {"securityType": "EQ", "symbol": "AAPL"},
                  "orderAction": if n.is_multiple_of(2) { "SELL" } else { "BUY" }, "quantityType": "QUANTITY", "quantity": 1}]}]});
            let preview = book
                .preview(&key, &json!({"PreviewOrderRequest": members.clone()}), None)
                .expect("preview");
            let id = preview["PreviewOrderResponse"]["PreviewIds"][0]["previewId"].clone();
            let mut placed = members;
            placed["PreviewIds"] = json!([{"previewId": id}]);
            book.place(&key, &json!({"PlaceOrderRequest": placed}), None)
                .expect("place");
        }
        start.elapsed()
    };
    let db = Database::create(dir.path().join("bare.redb")).expect("bare");
    let payload = vec![7u8; 600];
    let mut k = 0u64;
    let mut bare = |count: usize| {
        let start = Instant::now();
        for _ in 0..count * 2 {
            k += 1;
            let tx = db.begin_write().expect("tx");
            {
                let mut t = tx.open_table(RECORDS).expect("table");
                t.insert(k, payload.as_slice()).expect("insert");
            }
            tx.commit().expect("commit");
        }
        start.elapsed()
    };
    place(20);
    bare(20);
    let (mut p, mut b) = (Duration::ZERO, Duration::ZERO);
    let (rounds, each) = rounds::split(iters);
    for _ in 0..rounds {
        b += bare(each);
        p += place(each);
    }
    let total = (rounds * each) as f64;
    println!(
        "paper preview+place (filled, durable): {:>8.1} placements/s  {:.3} ms each",
        total / p.as_secs_f64(),
        p.as_secs_f64() * 1000.0 / total
    );
    println!(
        "bare redb, 2 durable txns:             {:>8.1} pairs/s       {:.3} ms each",
        total / b.as_secs_f64(),
        b.as_secs_f64() * 1000.0 / total
    );
    println!(
        "ratio paper/bare time: {:.2}x",
        p.as_secs_f64() / b.as_secs_f64()
    );
    summary::report(
        "durable paper placements (preview + filled place)",
        total / p.as_secs_f64(),
        "placements/s",
        "bare redb, 2 durable txns",
        total / b.as_secs_f64(),
    );
}
