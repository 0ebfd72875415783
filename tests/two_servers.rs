//! Two `etrade serve` processes on one profile share the trading database: each keeps
//! `trading.redb` open for a moment after an operation and hands it to the other when idle.
//! Previews and placements interleaved (and concurrent) on both servers, each seeing the
//! other's journal entries, a preview made on one placed through the other exactly once, and
//! `etrade approve` and `etrade halt`/`resume` working while both servers run.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

mod common;

use common::Client;
use common::sandbox::{CONSUMER_KEY, CONSUMER_SECRET, Sandbox, checked_call};
use fake_etrade::FakeConfig;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use std::collections::BTreeSet;

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
