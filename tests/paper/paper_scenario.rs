//! The paper broker through MCP, as a user meets it: quotes → preview → market buy →
//! position and cash exact → a limit sell rests → simulated time advances → it fills →
//! the transaction history shows both, and the cash ledger adds up to the cent. The machine
//! holds canary E*TRADE credentials for the profile throughout (see tests/common/paper.rs).

use crate::common;

use common::paper::{Paper, dec};
use rust_decimal::Decimal;
use serde_json::{Value, json};

async fn transactions(p: &Paper, key: &str) -> Vec<Value> {
    let d = p
        .ok("list_transactions", json!({"account_id_key": key}))
        .await;
    d["transaction"].as_array().cloned().unwrap_or_default()
}

async fn cash(p: &Paper, key: &str) -> Decimal {
    let d = p
        .ok("get_account_balances", json!({"account_id_key": key}))
        .await;
    dec(&d["computed"]["cashBalance"])
}

#[tokio::test]
async fn quotes_preview_buy_rest_advance_fill_history() {
    let p = Paper::start(&["--allow-trading"]).await;
    let status = p.ok("server_status", json!({})).await;
    assert_eq!(status["environment"], "paper");
    assert_eq!(status["market_data"]["source"], "simulated");
    // The harness's canary sandbox login is two days old: the live path is set up, but an
    // expired login never reaches E*TRADE and the simulator serves every quote.
    assert_eq!(status["market_data"]["live_quotes"], "etrade_sandbox");

    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    let start = cash(&p, &key).await;
    assert_eq!(start, Decimal::from(100_000));

    let q = p.ok("get_quotes", json!({"symbols": ["AAPL"]})).await;
    assert_eq!(q["quotes"][0]["source"], "simulated");
    assert!(dec(&q["quotes"][0]["all"]["ask"]) > Decimal::ZERO);

    // Market buy 10 AAPL: previewed, placed by preview_id, filled at the ask at once.
    let buy = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "10", "price_type": "MARKET"});
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": buy}),
        )
        .await;
    let placed = p
        .ok(
            "place_order",
            json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
        )
        .await;
    let buy_id = placed["order_id"].as_i64().expect("order id");

    let bought: Vec<Value> = transactions(&p, &key)
        .await
        .into_iter()
        .filter(|t| t["brokerage"]["transactionType"] == "Bought")
        .collect();
    assert_eq!(bought.len(), 1, "one buy transaction");
    let price = dec(&bought[0]["brokerage"]["price"]);
    let amount = dec(&bought[0]["amount"]);
    let fee = dec(&bought[0]["brokerage"]["fee"]);
    assert_eq!(
        amount,
        -(price * Decimal::from(10) + fee),
        "amount = shares × fill price + fees, exactly"
    );
    assert_eq!(
        cash(&p, &key).await,
        start + amount,
        "cash moved by exactly the amount"
    );
    let pf = p.ok("get_portfolio", json!({"account_id_key": key})).await;
    let pos = &pf["accountPortfolio"][0]["position"][0];
    assert_eq!(pos["product"]["symbol"], "AAPL");
    assert_eq!(dec(&pos["quantity"]), Decimal::from(10));

    // A limit sell a little above the bid rests.
    let q = p.ok("get_quotes", json!({"symbols": ["AAPL"]})).await;
    let limit = (dec(&q["quotes"][0]["all"]["bid"]) * Decimal::new(1005, 3)).round_dp(2);
    let sell = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "SELL", "quantity": "10",
        "price_type": "LIMIT", "limit_price": limit.to_string(), "order_term": "GOOD_UNTIL_CANCEL"});
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": sell}),
        )
        .await;
    let placed = p
        .ok(
            "place_order",
            json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
        )
        .await;
    let sell_id = placed["order_id"].as_i64().expect("order id");
    let open = p
        .ok(
            "list_orders",
            json!({"account_id_key": key, "status": "OPEN"}),
        )
        .await;
    assert!(
        open["orders"]
            .as_array()
            .expect("orders")
            .iter()
            .any(|o| o["orderId"] == sell_id),
        "{open}"
    );

    // Simulated time advances, through the CLI beside the running server (they share the
    // book), until the market trades through the limit.
    let mut filled = false;
    for _ in 0..30 {
        p.cli(&["advance", "6h"]).await;
        let done = p
            .ok(
                "list_orders",
                json!({"account_id_key": key, "status": "EXECUTED"}),
            )
            .await;
        if done["orders"]
            .as_array()
            .is_some_and(|o| o.iter().any(|o| o["orderId"] == sell_id))
        {
            filled = true;
            break;
        }
    }
    assert!(
        filled,
        "the resting limit sell filled as simulated time passed"
    );

    let history = transactions(&p, &key).await;
    let sold: Vec<&Value> = history
        .iter()
        .filter(|t| t["brokerage"]["transactionType"] == "Sold")
        .collect();
    assert_eq!(sold.len(), 1, "{history:?}");
    assert!(
        dec(&sold[0]["brokerage"]["price"]) >= limit,
        "filled at the limit or better"
    );
    assert!(
        history
            .iter()
            .any(|t| t["brokerage"]["transactionType"] == "Bought")
    );
    let total: Decimal = history.iter().map(|t| dec(&t["amount"])).sum();
    assert_eq!(
        cash(&p, &key).await,
        total,
        "cash = the sum of every transaction (deposit, buy, sell)"
    );
    let executed = p
        .ok(
            "list_orders",
            json!({"account_id_key": key, "status": "EXECUTED"}),
        )
        .await;
    let ids: Vec<i64> = executed["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .filter_map(|o| o["orderId"].as_i64())
        .collect();
    assert!(ids.contains(&buy_id) && ids.contains(&sell_id), "{ids:?}");

    // The journal saw the paper orders too: the same desk serves paper and E*TRADE.
    let j = p.ok("list_order_journal", json!({})).await;
    let kinds: Vec<&str> = j["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        kinds,
        [
            "place_order",
            "preview_order",
            "place_order",
            "preview_order"
        ]
    );
}

#[tokio::test]
async fn paper_mutations_need_the_same_flags() {
    let p = Paper::start(&[]).await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"].clone();
    let buy = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "1", "price_type": "MARKET"});
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": buy}),
        )
        .await;
    let (err, out) = p
        .call(
            "place_order",
            json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
        )
        .await;
    assert!(err);
    assert_eq!(out["error"]["code"], "execution_disabled");
    let orders = p.ok("list_orders", json!({"account_id_key": key})).await;
    assert_eq!(orders["orders"], json!([]), "nothing was placed");
    let (err, out) = p.call("list_alerts", json!({})).await;
    assert!(err);
    assert_eq!(
        out["error"]["code"], "tool_not_available",
        "alerts have no paper meaning: {out}"
    );
}

/// Paper lists real symbols only, so a rehearsal meets the mistakes E*TRADE would refuse: a
/// typo is not quoted, not found by lookup and not tradable, while class shares and their
/// options work under E*TRADE's spelling.
#[tokio::test]
async fn a_rehearsal_catches_a_symbol_typo() {
    let p = Paper::start(&[]).await;
    let key = p.ok("list_accounts", json!({})).await["accounts"][0]["accountIdKey"].clone();

    // Beside a good symbol, the typo is named and the call succeeds.
    let q = p
        .ok("get_quotes", json!({"symbols": ["AAPL", "APPL"]}))
        .await;
    assert_eq!(q["quotes"].as_array().map(Vec::len), Some(1), "{q}");
    assert_eq!(q["quotes"][0]["product"]["symbol"], "AAPL");
    assert_eq!(q["unquotedSymbols"], json!(["APPL"]));
    assert_eq!(q["messages"][0]["code"], "1019");

    // Alone, nothing could be quoted: the call fails, as the tool's description says.
    let (err, out) = p
        .call("get_quotes", json!({"symbols": ["APPL", "XYZQ"]}))
        .await;
    assert!(err, "{out}");
    assert_eq!(out["data"], Value::Null);
    assert_eq!(out["error"]["code"], "broker_rejection", "{out}");
    assert_eq!(out["error"]["broker_code"], "1019");
    assert_eq!(
        out["error"]["broker_message"],
        "APPL is not a valid symbol. XYZQ is not a valid symbol."
    );
    assert_eq!(out["error"]["status_code"], Value::Null);

    // Lookup finds the real company, never a ticker made of the search.
    let l = p.ok("lookup_product", json!({"search": "apple"})).await;
    let symbols: Vec<&str> = l["products"]
        .as_array()
        .map(|a| a.iter().filter_map(|p| p["symbol"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(symbols, ["AAPL"], "{l}");

    // The typo cannot be previewed; E*TRADE's invalid-symbol refusal.
    let typo = json!({"order_type": "EQ", "symbol": "APPL", "order_action": "BUY", "quantity": "1", "price_type": "MARKET"});
    let (err, out) = p
        .call(
            "preview_order",
            json!({"account_id_key": key, "request": typo}),
        )
        .await;
    assert!(err, "{out}");
    assert_eq!(out["error"]["code"], "broker_rejection", "{out}");
    assert_eq!(out["error"]["broker_code"], "1019");

    // Class shares: quoted, previewed and optioned as BRK.B.
    let q = p.ok("get_quotes", json!({"symbols": ["BRK.B"]})).await;
    assert_eq!(q["quotes"][0]["product"]["symbol"], "BRK.B", "{q}");
    let brk = json!({"order_type": "EQ", "symbol": "BRK.B", "order_action": "BUY", "quantity": "1", "price_type": "MARKET"});
    p.ok(
        "preview_order",
        json!({"account_id_key": key, "request": brk}),
    )
    .await;
    let chain = p.ok("get_option_chains", json!({"symbol": "BRK.B"})).await;
    assert!(
        chain["optionPairs"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{chain}"
    );
}
