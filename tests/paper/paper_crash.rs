//! Crash safety of the paper broker: bursts of orders with the server killed (SIGKILL) at
//! random moments (each once the round's burst is under way). After each restart every acknowledged order exists exactly once, and
//! cash and positions reconcile with the transaction ledger to the cent. The machine holds
//! canary E*TRADE credentials for the profile, which appear in no log, output or state file.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring and kills servers with SIGKILL.
#![cfg(target_os = "linux")]

use crate::common;

use common::paper::{PaperCredentials, dec, into_session};
use common::{call, payload};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

const SYMBOLS: [&str; 3] = ["AAPL", "MSFT", "IBM"];

/// A server on the canary profile (see tests/common/paper.rs), logging at debug into the
/// state folder; returns the client, the process and its pid.
async fn start(
    home: &tempfile::TempDir,
    credentials: &PaperCredentials,
) -> (common::Client, tokio::process::Child, u32) {
    let (client, child) = credentials.serve(home, &["--allow-trading"]).await;
    let pid = child.id().expect("pid");
    (client, child, pid)
}

async fn data(client: &common::Client, tool: &str, args: Value) -> Option<Value> {
    let r = call(client, tool, args).await.ok()?;
    (r.is_error != Some(true)).then(|| payload(&r)["data"].clone())
}

/// Every page of a marker-paged list.
async fn all_pages(client: &common::Client, tool: &str, key: &str, items: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut marker: Option<Value> = None;
    loop {
        let mut args =
            json!({"account_id_key": key, "count": if tool == "list_orders" { 100 } else { 50 }});
        if let Some(m) = &marker {
            args["marker"] = m.clone();
        }
        let d = data(client, tool, args).await.expect("list");
        out.extend(d[items].as_array().cloned().unwrap_or_default());
        match &d["marker"] {
            Value::String(_) => marker = Some(d["marker"].clone()),
            _ => return out,
        }
    }
}

/// A few pseudo-random numbers without a dependency: the clock's nanoseconds.
fn jitter(max: u64) -> u64 {
    let n = jiff::Timestamp::now().subsec_nanosecond().unsigned_abs() as u64;
    n % max
}

#[tokio::test]
async fn acknowledged_orders_survive_kill_9_exactly_once() {
    let home = common::home();
    let credentials = PaperCredentials::install(&home);
    credentials
        .cli(&home, &["advance", &format!("{}s", into_session())])
        .await;
    let mut killed_servers = Vec::new();
    let acknowledged: Arc<Mutex<BTreeSet<i64>>> = Arc::default();
    let mut key = String::new();

    for round in 0..4 {
        let (client, child, pid) = start(&home, &credentials).await;
        killed_servers.push(child);
        let client = Arc::new(client);
        if key.is_empty() {
            let a = data(&client, "list_accounts", json!({}))
                .await
                .expect("accounts");
            key = a["accounts"][0]["accountIdKey"]
                .as_str()
                .expect("key")
                .to_string();
        }
        let mut tasks = Vec::new();
        for i in 0..6 {
            let (client, key, acked) = (client.clone(), key.clone(), acknowledged.clone());
            tasks.push(tokio::spawn(async move {
                for n in 0..50 {
                    let order = json!({"order_type": "EQ", "symbol": SYMBOLS[(i + n) % 3],
                        "order_action": "BUY", "quantity": "1", "price_type": "MARKET"});
                    let Some(pv) = data(
                        &client,
                        "preview_order",
                        json!({"account_id_key": key, "request": order}),
                    )
                    .await
                    else {
                        return;
                    };
                    let Some(placed) = data(
                        &client,
                        "place_order",
                        json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
                    )
                    .await
                    else {
                        return;
                    };
                    if let Some(id) = placed["order_id"].as_i64() {
                        acked.lock().expect("lock").insert(id);
                    }
                }
            }));
        }
        // Kill at a random moment once this round is under way (at least two more orders
        // acknowledged), so a loaded machine cannot turn a round into a no-op.
        let target = acknowledged.lock().expect("lock").len() + 2;
        let started = std::time::Instant::now();
        while acknowledged.lock().expect("lock").len() < target {
            assert!(
                started.elapsed().as_secs() < 60,
                "round {round}: no orders acknowledged"
            );
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(jitter(400))).await;
        let killed = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .expect("kill");
        assert!(killed.success(), "round {round}: kill -9");
        for t in tasks {
            let _ = t.await;
        }
    }

    let (client, _server, _) = start(&home, &credentials).await;
    let orders = all_pages(&client, "list_orders", &key, "orders").await;
    let mut seen = BTreeMap::new();
    for o in &orders {
        *seen.entry(o["orderId"].as_i64().expect("id")).or_insert(0) += 1;
    }
    let acked = acknowledged.lock().expect("lock").clone();
    assert!(
        acked.len() >= 4,
        "the bursts placed orders before each kill: {}",
        acked.len()
    );
    for id in &acked {
        assert_eq!(
            seen.get(id),
            Some(&1),
            "acknowledged order {id} exists exactly once"
        );
    }
    assert!(seen.values().all(|n| *n == 1), "no order is listed twice");

    let history = all_pages(&client, "list_transactions", &key, "transaction").await;
    let ledger: Decimal = history.iter().map(|t| dec(&t["amount"])).sum();
    let b = data(
        &client,
        "get_account_balances",
        json!({"account_id_key": key}),
    )
    .await
    .expect("balance");
    assert_eq!(
        dec(&b["computed"]["cashBalance"]),
        ledger,
        "cash = Σ ledger"
    );

    let mut held: BTreeMap<String, Decimal> = BTreeMap::new();
    for t in &history {
        let kind = t["brokerage"]["transactionType"].as_str().unwrap_or("");
        let sign = match kind {
            "Bought" => Decimal::ONE,
            "Sold" => Decimal::NEGATIVE_ONE,
            _ => continue,
        };
        let symbol = t["brokerage"]["product"]["symbol"]
            .as_str()
            .unwrap_or("")
            .to_string();
        *held.entry(symbol).or_default() += sign * dec(&t["brokerage"]["quantity"]).abs();
    }
    let executed = orders
        .iter()
        .filter(|o| o["orderDetail"][0]["status"] == "EXECUTED")
        .count();
    let bought = history
        .iter()
        .filter(|t| t["brokerage"]["transactionType"] == "Bought")
        .count();
    assert_eq!(
        executed, bought,
        "one fill transaction per executed market order"
    );
    let pf = data(&client, "get_portfolio", json!({"account_id_key": key}))
        .await
        .expect("portfolio");
    let mut positions: BTreeMap<String, Decimal> = BTreeMap::new();
    for p in pf["accountPortfolio"][0]["position"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        positions.insert(
            p["product"]["symbol"].as_str().unwrap_or("").to_string(),
            dec(&p["quantity"]),
        );
    }
    held.retain(|_, q| !q.is_zero());
    assert_eq!(positions, held, "positions = Σ fills per symbol");
    // Secret canaries: nothing in the book written under kill -9, the trading database,
    // the debug logs of all five servers or the copy of everything they sent.
    credentials.assert_clean(&home);
    drop(killed_servers);
    println!(
        "acknowledged {} orders over 4 kills; {} listed; {} transactions",
        acked.len(),
        orders.len(),
        history.len()
    );
}
