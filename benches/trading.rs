//! Durable journal cost: what one journaled placement costs in the trading store (a preview
//! claimed single-use with the daily limits checked, in one write transaction, then its
//! outcome recorded), next to a bare redb baseline doing the same number of durable write
//! transactions on a handle it keeps open — in the same run, on the same disk.
//!
//! Several `etrade serve` processes share one file and redb allows one open handle per file,
//! so the store keeps its handle only briefly after an operation (its lease); the ratio shows
//! what that sharing costs. Then journal pages read back to back (`list_order_journal`'s
//! store call) against the same read on bare redb's held-open handle, and the latency of a
//! read after the store has let go of the file (an open, as the first call after a pause pays).
//! Run: `cargo bench --bench trading` (env `BENCH_ITERS`, default 300). The last lines are
//! `REPORT` summary lines for `benches/run-all`.

#[path = "support/rounds.rs"]
mod rounds;
#[path = "support/report.rs"]
mod summary;

use jiff::Timestamp;
use redb::{Database, ReadableDatabase, TableDefinition};
use runtime::etrade::vocabulary::{
    MarketSession, OrderAction, OrderTerm, OrderType, PriceType, SecurityType,
};
use runtime::trading::store::{PreviewClaim, TradingStore};
use runtime::trading::*;
use rust_decimal::Decimal;
use std::time::{Duration, Instant};

const RECORDS: TableDefinition<u64, &[u8]> = TableDefinition::new("records");

fn summary() -> OrderSummary {
    OrderSummary {
        order_type: OrderType::Equity,
        price_type: PriceType::Limit,
        order_term: OrderTerm::GoodForDay,
        market_session: MarketSession::Regular,
        limit_price: Some(Decimal::new(17000, 2)),
        stop_price: None,
        all_or_none: false,
        legs: vec![LegSummary {
            symbol: "AAPL".into(),
            security_type: SecurityType::Equity,
            order_action: OrderAction::Buy,
            quantity: Decimal::from(10),
            call_put: None,
            expiration: None,
            strike_price: None,
        }],
        estimated_notional: Some(Decimal::new(170000, 2)),
    }
}

fn preview(id: &str, now: Timestamp) -> PreviewRecord {
    PreviewRecord {
        preview_id: id.into(),
        kind: PreviewKind::New,
        environment: "sandbox".into(),
        profile: "bench".into(),
        account_id_key: "JIdOIAcSpwR1Jva7RQBraQ".into(),
        order_fields: r#""orderType":"EQ","clientOrderId":"B1","Order":[]"#.into(),
        broker_preview_ids: vec![BrokerPreviewId {
            preview_id: 1,
            cash_margin: None,
        }],
        arguments_hash: "0".repeat(64),
        client_order_id: "B1".into(),
        summary: summary(),
        created_at: now,
        expires_at: now + jiff::SignedDuration::from_secs(600),
        used_at: None,
        used_by: None,
        journal_id: None,
        approval: None,
        context: Default::default(),
    }
}

fn main() {
    let iters: usize = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let dir = tempfile::tempdir().expect("temp dir");
    let now = Timestamp::now();

    // Baseline: a held-open redb handle, two durable write transactions per placement
    // (the same count as claim + outcome), each adding a record of similar size, as a journal
    // does. Its table starts with as many records as the store's seeded previews: the height
    // of a B-tree is what a commit pays for, and rewriting a hundred keys over and over would
    // time a tree a level lower than any journal's.
    let seeded = iters * 2 + 20;
    let db = Database::create(dir.path().join("bare.redb")).expect("bare db");
    let payload = serde_json::to_vec(&preview("pv-x", now)).expect("json");
    {
        let tx = db.begin_write().expect("tx");
        {
            let mut t = tx.open_table(RECORDS).expect("table");
            for key in 0..seeded as u64 {
                t.insert(key, payload.as_slice()).expect("seed");
            }
        }
        tx.commit().expect("commit");
    }
    let mut next_key = seeded as u64;
    let mut bare = |n: usize| {
        let start = Instant::now();
        for _ in 0..n * 2 {
            let tx = db.begin_write().expect("tx");
            {
                let mut t = tx.open_table(RECORDS).expect("table");
                t.insert(next_key, payload.as_slice()).expect("insert");
            }
            tx.commit().expect("commit");
            next_key += 1;
        }
        start.elapsed()
    };

    let store = TradingStore::open(dir.path().join("trading.redb")).expect("store");
    for i in 0..seeded {
        store
            .insert_preview(&preview(&format!("pv-{i}"), now))
            .expect("seed");
    }
    let mut next = 0usize;
    let mut journaled = |n: usize| {
        let start = Instant::now();
        for _ in 0..n {
            let id = format!("pv-{next}");
            next += 1;
            let intent = JournalIntent {
                kind: MutationKind::PlaceOrder,
                environment: "sandbox".into(),
                profile: "bench".into(),
                account_id_key: Some("JIdOIAcSpwR1Jva7RQBraQ".into()),
                preview_id: Some(id.clone()),
                client_order_id: Some("B1".into()),
                target_order_id: None,
                alert_ids: vec![],
                summary: Some(summary()),
                intent_at: now,
                peer: None,
            };
            let check = |_: &DailyUsage, _: &OrderSummary| Ok(());
            let claimed = store
                .claim_preview(&PreviewClaim {
                    preview_id: &id,
                    environment: "sandbox",
                    profile: "bench",
                    account_id_key: "JIdOIAcSpwR1Jva7RQBraQ",
                    kind: PreviewKind::New,
                    now,
                    trading_day: runtime::calendar::trading_day(now),
                    daily_check: &check,
                    intent: &intent,
                    approval_required: false,
                })
                .expect("claim");
            store
                .record_outcome(
                    claimed.journal_id,
                    &Outcome::Succeeded {
                        at: now,
                        order_id: Some(1),
                        deleted_alert_ids: vec![],
                    },
                )
                .expect("outcome");
        }
        start.elapsed()
    };

    // Warm up both, then alternate so background load hits both alike.
    bare(10);
    journaled(10);
    let mut b = Duration::ZERO;
    let mut j = Duration::ZERO;
    let (rounds, each) = rounds::split(iters);
    for _ in 0..rounds {
        b += bare(each);
        j += journaled(each);
    }
    let per = |d: Duration| d / (rounds * each) as u32;
    let rate = |d: Duration| (rounds * each) as f64 / d.as_secs_f64();
    println!(
        "journaled placements (claim + outcome):                     {:>8.1}/s  {:?} each",
        rate(j),
        per(j)
    );
    println!(
        "bare redb, 2 durable write txns on a held-open handle:      {:>8.1}/s  {:?} each",
        rate(b),
        per(b)
    );
    println!(
        "ratio journaled/bare time: {:.2}x",
        j.as_secs_f64() / b.as_secs_f64()
    );

    // Reads: a 20-entry journal page, newest first, decoded, as list_order_journal reads it;
    // the baseline reads the newest 20 records on its held-open handle and decodes them into
    // their type (a PreviewRecord, a little larger than a journal entry).
    let pages = iters * 2;
    let page = || {
        let start = Instant::now();
        for _ in 0..pages {
            let page = store
                .journal_page("sandbox", "bench", None, 20)
                .expect("page");
            assert_eq!(page.entries.len(), 20);
        }
        start.elapsed()
    };
    let bare_page = || {
        let start = Instant::now();
        for _ in 0..pages {
            let tx = db.begin_read().expect("read tx");
            let t = tx.open_table(RECORDS).expect("table");
            let mut n = 0;
            for item in t.range(0u64..).expect("range").rev().take(20) {
                let (_, v) = item.expect("item");
                let _: PreviewRecord = serde_json::from_slice(v.value()).expect("json");
                n += 1;
            }
            assert_eq!(n, 20);
        }
        start.elapsed()
    };
    bare_page();
    page();
    let (mut pb, mut pj) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..2 {
        pb += bare_page();
        pj += page();
    }
    let page_rate = |d: Duration| (pages * 2) as f64 / d.as_secs_f64();
    println!(
        "journal pages (20 entries), back to back: {:>8.1}/s  {:?} each",
        page_rate(pj),
        pj / (pages as u32 * 2)
    );
    println!(
        "bare redb, 20 records on a held handle:   {:>8.1}/s  {:?} each",
        page_rate(pb),
        pb / (pages as u32 * 2)
    );
    // After a pause longer than the store's idle window, a read opens the file again.
    let mut cold = Duration::ZERO;
    for _ in 0..10 {
        std::thread::sleep(Duration::from_millis(300));
        let start = Instant::now();
        store
            .journal_page("sandbox", "bench", None, 20)
            .expect("page");
        cold += start.elapsed();
    }
    println!("journal page after a 300 ms pause: {:?} each", cold / 10);

    summary::report(
        "journaled placements (claim + outcome)",
        rate(j),
        "placements/s",
        "bare redb, 2 durable txns",
        rate(b),
    );
    summary::report(
        "journal pages read back to back (20 entries)",
        page_rate(pj),
        "pages/s",
        "bare redb, same read on a held handle",
        page_rate(pb),
    );
}
