//! Two `etrade serve` processes on one profile share the trading database: each keeps
//! `trading.redb` open for a moment after an operation and hands it to the other when idle.
//! Previews and placements interleaved (and concurrent) on both servers, each seeing the
//! other's journal entries, a preview made on one placed through the other exactly once, and
//! `etrade approve` and `etrade halt`/`resume` working while both servers run.
//!
//! The paper book is shared the same way: two paper servers on one profile see each other's
//! fills, cash and orders, placements made at once on both lose nothing, and `etrade paper
//! status|advance|reset` work beside them, the servers seeing the effect.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::Client;
use common::paper::{Paper, dec, into_session};
use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET, Sandbox, checked_call};
use fake_etrade::FakeConfig;
use rmcp::model::ProtocolVersion;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const PLACE: &str = "POST /v1/accounts/*/orders/place";
const REQUIRED: &str = "[profiles.{profile}.trading]\napproval = \"required\"\n";

/// Server A is the sandbox's own; B is a second `etrade serve` on the same home and profile.
struct Two {
    s: Sandbox,
    b: Client,
    _b_process: tokio::process::Child,
}

#[derive(Clone, Copy, Debug)]
enum Server {
    A,
    B,
}

impl Two {
    async fn start(name: &str, toml: &str) -> Two {
        let config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
        let s = Sandbox::start_opts(name, config, &["--allow-trading"], toml).await;
        let info = common::client_info(ProtocolVersion::V_2025_11_25);
        let (b, process) = s.serve_another(info, &["--allow-trading"]).await;
        Two {
            s,
            b,
            _b_process: process,
        }
    }

    async fn call(&self, on: Server, tool: &str, args: Value) -> (bool, Value) {
        match on {
            Server::A => self.s.call(tool, args).await,
            Server::B => checked_call(&self.b, tool, args, self.s.canaries()).await,
        }
    }

    async fn preview(&self, on: Server) -> String {
        let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
            "quantity": "7", "price_type": "LIMIT", "limit_price": "170.00"});
        let (err, p) = self
            .call(
                on,
                "preview_order",
                json!({"account_id_key": KEY, "request": order}),
            )
            .await;
        assert!(!err, "preview_order on {on:?}: {p}");
        p["data"]["preview_id"]
            .as_str()
            .expect("preview_id")
            .to_string()
    }

    async fn place(&self, on: Server, id: &str) -> (bool, Value) {
        self.call(
            on,
            "place_order",
            json!({"account_id_key": KEY, "preview_id": id}),
        )
        .await
    }

    async fn placed(&self, on: Server, id: &str) {
        let (err, p) = self.place(on, id).await;
        assert!(!err, "place_order {id} on {on:?}: {p}");
    }

    /// Every journal entry `on` lists, newest first, paging to the end.
    async fn journal(&self, on: Server) -> Vec<Value> {
        let mut all = Vec::new();
        let mut args = json!({"limit": 100});
        loop {
            let (err, p) = self.call(on, "list_order_journal", args.clone()).await;
            assert!(!err, "list_order_journal on {on:?}: {p}");
            all.extend(p["data"]["entries"].as_array().cloned().unwrap_or_default());
            match p["data"]["next_before"].as_i64() {
                Some(before) => args = json!({"limit": 100, "before": before}),
                None => return all,
            }
        }
    }

    fn placements(&self) -> usize {
        self.s.requests_on(PLACE).len()
    }
}

/// The preview ids of the succeeded place_order entries in `journal`.
fn placed_ids(journal: &[Value]) -> BTreeSet<String> {
    journal
        .iter()
        .filter(|e| e["kind"] == "place_order" && e["outcome"]["status"] == "succeeded")
        .filter_map(|e| e["preview_id"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn both_servers_place_and_share_one_journal() {
    let two = Two::start("two-servers", "").await;
    let mut ids = BTreeSet::new();
    // In turns: each operation finds the file held (idle) by the other server.
    for _ in 0..2 {
        for on in [Server::A, Server::B] {
            let id = two.preview(on).await;
            two.placed(on, &id).await;
            ids.insert(id);
        }
    }
    // At once: both servers preview and place while the other does the same.
    let both = |on: Server| {
        let two = &two;
        async move {
            let mut mine = Vec::new();
            for _ in 0..3 {
                let id = two.preview(on).await;
                two.placed(on, &id).await;
                mine.push(id);
            }
            mine
        }
    };
    let (a, b) = tokio::join!(both(Server::A), both(Server::B));
    ids.extend(a.into_iter().chain(b));
    assert_eq!(ids.len(), 10);
    assert_eq!(two.placements(), 10);

    let on_a = two.journal(Server::A).await;
    let on_b = two.journal(Server::B).await;
    assert_eq!(on_a, on_b, "both servers list the same journal");
    assert_eq!(
        placed_ids(&on_a),
        ids,
        "every placement, from either server"
    );
    let journal_ids: Vec<i64> = on_a.iter().filter_map(|e| e["id"].as_i64()).collect();
    let distinct: BTreeSet<i64> = journal_ids.iter().copied().collect();
    assert_eq!(journal_ids.len(), 20, "a preview and a placement each");
    assert_eq!(distinct.len(), 20, "no id given out twice: {journal_ids:?}");
}

#[tokio::test]
async fn a_preview_is_placed_once_across_servers() {
    let two = Two::start("two-once", "").await;
    let id = two.preview(Server::A).await;
    two.placed(Server::B, &id).await;
    for on in [Server::A, Server::B] {
        let (err, p) = two.place(on, &id).await;
        assert!(err, "placed twice through {on:?}: {p}");
        let problem = &p["error"]["validation_errors"][0];
        assert_eq!(problem["code"], "preview_used", "{p}");
    }
    assert_eq!(two.placements(), 1);

    // Both place one preview at once: exactly one of them sends it.
    let id = two.preview(Server::B).await;
    let (a, b) = tokio::join!(two.place(Server::A, &id), two.place(Server::B, &id));
    assert!(a.0 != b.0, "exactly one placement succeeds: {a:?} {b:?}");
    assert_eq!(two.placements(), 2);
}

#[tokio::test]
async fn the_cli_works_while_both_servers_run() {
    let two = Two::start("two-cli", REQUIRED).await;
    let from_a = two.preview(Server::A).await;
    let from_b = two.preview(Server::B).await;

    // While the servers keep using the file, the CLI processes still get their turn.
    let busy = async {
        for _ in 0..5 {
            two.journal(Server::A).await;
            two.journal(Server::B).await;
        }
    };
    let (listed, ()) = tokio::join!(two.s.cli(&["approve", "--list"], ""), busy);
    assert!(listed.status.success(), "{}", common::output_text(&listed));
    for id in [&from_a, &from_b] {
        assert!(
            common::output_text(&listed).contains(id.as_str()),
            "{id}: {}",
            common::output_text(&listed)
        );
    }

    let (err, p) = two.place(Server::B, &from_a).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    let approved = two.s.cli(&["approve", &from_a, "--yes"], "").await;
    assert!(
        approved.status.success(),
        "{}",
        common::output_text(&approved)
    );
    two.placed(Server::B, &from_a).await;
    let (err, p) = two.place(Server::A, &from_a).await;
    assert!(err, "placed twice: {p}");
    assert_eq!(two.placements(), 1);

    let halt = two.s.cli(&["halt", "--reason", "two servers"], "").await;
    assert!(halt.status.success(), "{}", common::output_text(&halt));
    let approved = two.s.cli(&["approve", &from_b, "--yes"], "").await;
    assert!(
        approved.status.success(),
        "{}",
        common::output_text(&approved)
    );
    for on in [Server::A, Server::B] {
        let (err, p) = two.place(on, &from_b).await;
        assert!(
            err && p["error"]["code"] == "execution_disabled",
            "{on:?}: {p}"
        );
    }
    assert_eq!(two.placements(), 1, "nothing sent while halted");
    let resume = two.s.cli(&["resume"], "").await;
    assert!(resume.status.success(), "{}", common::output_text(&resume));
    two.placed(Server::A, &from_b).await;
    assert_eq!(two.placements(), 2);

    let journal = two.journal(Server::B).await;
    let decided: BTreeSet<&str> = journal
        .iter()
        .filter(|e| e["kind"] == "preview_order" && e["approval"]["decision"] == "approved")
        .filter_map(|e| e["preview_id"].as_str())
        .collect();
    assert_eq!(decided, BTreeSet::from([from_a.as_str(), from_b.as_str()]));
}

/// Two paper servers on one profile: A is the [`Paper`]'s own, B a second `etrade serve`.
struct TwoPaper {
    p: Paper,
    b: Client,
    b_process: tokio::process::Child,
}

impl TwoPaper {
    async fn start() -> TwoPaper {
        let p = Paper::start(&["--allow-trading"]).await;
        let (b, b_process) = p.serve_another(&["--allow-trading"]).await;
        TwoPaper { p, b, b_process }
    }

    /// `data` of a successful call on `on`.
    async fn ok(&self, on: Server, tool: &str, args: Value) -> Value {
        let (err, p) = match on {
            Server::A => self.p.call(tool, args).await,
            Server::B => checked_call(&self.b, tool, args, self.p.canaries()).await,
        };
        assert!(!err, "{tool} on {on:?}: {p}");
        p["data"].clone()
    }

    /// Preview and place a market buy on `on`; the new order's id.
    async fn buy(&self, on: Server, key: &str, symbol: &str, quantity: u32) -> i64 {
        let order = json!({"order_type": "EQ", "symbol": symbol, "order_action": "BUY",
            "quantity": quantity.to_string(), "price_type": "MARKET"});
        let preview = self
            .ok(
                on,
                "preview_order",
                json!({"account_id_key": key, "request": order}),
            )
            .await;
        let placed = self
            .ok(
                on,
                "place_order",
                json!({"account_id_key": key, "preview_id": preview["preview_id"]}),
            )
            .await;
        placed["order_id"].as_i64().expect("order id")
    }

    async fn cash(&self, on: Server, key: &str) -> Decimal {
        let d = self
            .ok(on, "get_account_balances", json!({"account_id_key": key}))
            .await;
        dec(&d["computed"]["cashBalance"])
    }

    /// Symbol → quantity held, from get_portfolio.
    async fn positions(&self, on: Server, key: &str) -> BTreeMap<String, Decimal> {
        let d = self
            .ok(on, "get_portfolio", json!({"account_id_key": key}))
            .await;
        d["accountPortfolio"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|a| a["position"].as_array().cloned().unwrap_or_default())
            .map(|p| {
                let symbol = p["product"]["symbol"].as_str().unwrap_or("").to_string();
                (symbol, dec(&p["quantity"]))
            })
            .collect()
    }

    /// The ids of the executed orders, from list_orders.
    async fn executed(&self, on: Server, key: &str) -> BTreeSet<i64> {
        let d = self
            .ok(
                on,
                "list_orders",
                json!({"account_id_key": key, "status": "EXECUTED"}),
            )
            .await;
        d["orders"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|o| o["orderId"].as_i64())
            .collect()
    }

    /// The sum of every transaction's amount: what the cash must be.
    async fn ledger(&self, on: Server, key: &str) -> Decimal {
        let d = self
            .ok(on, "list_transactions", json!({"account_id_key": key}))
            .await;
        d["transaction"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| dec(&t["amount"]))
            .sum()
    }

    async fn simulated_time(&self, on: Server) -> jiff::Timestamp {
        let d = self.ok(on, "server_status", json!({})).await;
        d["market_data"]["simulated_time"]
            .as_str()
            .expect("simulated time")
            .parse()
            .expect("a timestamp")
    }

    /// `etrade paper ARGS` while both servers run; its JSON status.
    async fn cli(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.p.cli(args).await).expect("etrade paper prints JSON")
    }

    /// Both servers agree on the account, and it is what is expected.
    async fn both_see(
        &self,
        key: &str,
        positions: &[(&str, u32)],
        orders: &BTreeSet<i64>,
    ) -> Decimal {
        let want: BTreeMap<String, Decimal> = positions
            .iter()
            .map(|(s, q)| (s.to_string(), Decimal::from(*q)))
            .collect();
        let cash = self.cash(Server::A, key).await;
        for on in [Server::A, Server::B] {
            assert_eq!(self.positions(on, key).await, want, "positions on {on:?}");
            assert_eq!(&self.executed(on, key).await, orders, "orders on {on:?}");
            assert_eq!(self.cash(on, key).await, cash, "cash on {on:?}");
            assert_eq!(
                self.ledger(on, key).await,
                cash,
                "cash = transactions on {on:?}"
            );
        }
        cash
    }

    async fn stop(self) {
        common::stop_stdio_server(self.b, self.b_process).await;
    }
}

#[tokio::test]
async fn two_paper_servers_share_one_book() {
    let two = TwoPaper::start().await;
    let accounts = two.ok(Server::B, "list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    assert_eq!(two.cash(Server::B, &key).await, Decimal::from(100_000));

    // A buys; B sees the position, the cash and the order. Then the other way round.
    let mut orders = BTreeSet::from([two.buy(Server::A, &key, "AAPL", 10).await]);
    let after_a = two.both_see(&key, &[("AAPL", 10)], &orders).await;
    assert!(after_a < Decimal::from(100_000));
    orders.insert(two.buy(Server::B, &key, "MSFT", 5).await);
    let after_b = two
        .both_see(&key, &[("AAPL", 10), ("MSFT", 5)], &orders)
        .await;
    assert!(after_b < after_a);

    // Both at once: no placement overwrites another.
    let burst = |on: Server| {
        let (two, key) = (&two, key.as_str());
        async move {
            let mut ids = Vec::new();
            for _ in 0..3 {
                ids.push(two.buy(on, key, "AAPL", 1).await);
            }
            ids
        }
    };
    let (a, b) = tokio::join!(burst(Server::A), burst(Server::B));
    orders.extend(a.into_iter().chain(b));
    assert_eq!(orders.len(), 8, "no order id given out twice");
    let cash = two
        .both_see(&key, &[("AAPL", 16), ("MSFT", 5)], &orders)
        .await;

    // The CLI beside both servers: it reads their book, and they see its changes.
    let status = two.cli(&["status"]).await;
    let account = &status["accounts"][0];
    assert_eq!(account["accountIdKey"], key.as_str());
    assert_eq!(
        account["cash"].to_string().parse::<Decimal>().ok(),
        Some(cash)
    );
    assert_eq!(account["positions"], 2);
    assert_eq!(status["orders"], 8);
    let before = two.simulated_time(Server::A).await;
    two.cli(&["advance", "1h"]).await;
    for on in [Server::A, Server::B] {
        let moved = two
            .simulated_time(on)
            .await
            .duration_since(before)
            .as_secs();
        assert!((3600..3600 + 60).contains(&moved), "{on:?} moved {moved} s");
    }
    two.cli(&["reset", "--cash", "5000"]).await;
    two.cli(&["advance", &format!("{}s", into_session())]).await;
    two.both_see(&key, &[], &BTreeSet::new()).await;
    assert_eq!(two.cash(Server::B, &key).await, Decimal::from(5000));

    // A reset book is shared like any other: B buys, A sees it.
    let orders = BTreeSet::from([two.buy(Server::B, &key, "AAPL", 2).await]);
    let cash = two.both_see(&key, &[("AAPL", 2)], &orders).await;
    assert!(cash < Decimal::from(5000));
    let status = two.cli(&["status"]).await;
    assert_eq!(status["accounts"][0]["positions"], 1);
    assert_eq!(status["orders"], 1);
    two.stop().await;
}
