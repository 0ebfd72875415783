//! One "now" per answer in paper: after `etrade paper advance`, the envelope's observed_at,
//! server_status's simulated time, a preview's previewTime and expiry and the journal's
//! intent time are all on the book's simulated clock, not some on the wall clock.

use crate::common;

use common::paper::Paper;
use jiff::Timestamp;
use serde_json::{Value, json};

fn time(v: &Value) -> Timestamp {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("an RFC 3339 time: {v}"))
}

fn apart(a: Timestamp, b: Timestamp) -> i64 {
    a.duration_since(b).as_secs().abs()
}

#[tokio::test]
async fn after_paper_advance_each_answer_has_one_now() {
    let p = Paper::start(&["--allow-trading"]).await;
    p.cli(&["advance", "3d"]).await;
    let wall = Timestamp::now();

    let (err, status) = p.call("server_status", json!({})).await;
    assert!(!err, "{status}");
    let simulated = time(&status["data"]["market_data"]["simulated_time"]);
    assert!(
        simulated.duration_since(wall).as_secs() >= 3 * 86_400 - 60,
        "the book is ahead: {status}"
    );
    assert_eq!(
        status["meta"]["observed_at"], status["data"]["market_data"]["simulated_time"],
        "server_status reads the clock once"
    );

    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"].clone();
    let (err, pv) = p
        .call(
            "preview_order",
            json!({"account_id_key": key, "request": {"order_type": "EQ", "symbol": "AAPL",
                "order_action": "BUY", "quantity": "1", "price_type": "LIMIT", "limit_price": "1.00"}}),
        )
        .await;
    assert!(!err, "{pv}");
    let observed = time(&pv["meta"]["observed_at"]);
    let preview_time = time(&pv["data"]["broker_preview"]["previewTime"]);
    let expires = time(&pv["data"]["expires_at"]);
    assert!(apart(observed, preview_time) < 60, "{pv}");
    let ttl = expires.duration_since(preview_time).as_secs();
    assert!(
        (170..=181).contains(&ttl),
        "expires {ttl} s after the preview: {pv}"
    );

    let placed = p
        .ok(
            "place_order",
            json!({"account_id_key": key, "preview_id": pv["data"]["preview_id"]}),
        )
        .await;
    let placed_time = time(&placed["broker_response"]["placedTime"]);
    let (err, journal) = p.call("list_order_journal", json!({})).await;
    assert!(!err, "{journal}");
    let entry = &journal["data"]["entries"][0];
    assert!(
        apart(time(&entry["intent_at"]), placed_time) < 60,
        "{journal}"
    );
    assert!(
        apart(time(&journal["meta"]["observed_at"]), placed_time) < 60,
        "{journal}"
    );
}

/// `etrade approve` with `input` on standard input, on this paper's profile.
async fn approve(p: &Paper, args: &[&str], input: &str) -> (bool, String) {
    use tokio::io::AsyncWriteExt;
    let mut full = vec!["approve"];
    full.extend_from_slice(args);
    let mut child = p
        .command(&full)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("etrade approve");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).await.expect("stdin");
    }
    let out = child.wait_with_output().await.expect("approve ends");
    (out.status.success(), common::output_text(&out))
}

/// Paper's simulated clock is the server's clock, but not the PIN's: moving the book days
/// ahead (`etrade paper advance`, which a shell can run) does not end a PIN lockout.
#[tokio::test]
async fn paper_advance_does_not_end_a_pin_lockout() {
    const PIN: &str = "4829-paper";
    let mut p = Paper::start(&["--allow-trading"]).await;
    p.set_trading("approval = \"required\"").await;
    let (set, said) = approve(&p, &["--set-pin"], &format!("{PIN}\n{PIN}\n")).await;
    assert!(set, "{said}");
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"].clone();
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": {"order_type": "EQ", "symbol": "AAPL",
                "order_action": "BUY", "quantity": "1", "price_type": "LIMIT", "limit_price": "1.00"}}),
        )
        .await;
    let id = pv["preview_id"].as_str().expect("preview_id").to_string();
    for guess in 0..5 {
        let (ok, said) = approve(&p, &[&id, "--yes"], &format!("wrong-{guess}\n")).await;
        assert!(!ok && said.contains("wrong PIN"), "{said}");
    }
    p.cli(&["advance", "3d"]).await;
    let (ok, said) = approve(&p, &[&id, "--yes"], &format!("{PIN}\n")).await;
    assert!(!ok && said.contains("locked until"), "still locked: {said}");
}
