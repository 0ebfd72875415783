//! Every tool that `spec/tools.yaml` binds to an E*TRADE endpoint answers from its spec entry
//! alone, in paper and against the fake E*TRADE. The tool list comes from the catalog and
//! each tool's arguments from its first valid example (with the ids it names replaced by ones
//! that exist), so a read tool added with YAML alone is covered here without a Rust change.

// Linux only: the harnesses keep E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::catalog::example_args;
use common::paper::Paper;
use common::sandbox::Sandbox;
use runtime::etrade::{Endpoint, Module};
use serde_json::{Map, Value, json};

/// Each bound tool and its endpoint, in catalog order.
fn bound_tools() -> Vec<(&'static str, Endpoint)> {
    etrade_mcp::generated::CATALOG
        .tools
        .iter()
        .filter_map(|t| Some((t.name, t.endpoint?)))
        .collect()
}

#[tokio::test]
async fn every_bound_tool_answers_in_paper() {
    let p = Paper::start(&["--allow-trading"]).await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"].clone();
    // A position and its transaction, so the tools that name one have one to name.
    let buy = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "1", "price_type": "MARKET"});
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": buy}),
        )
        .await;
    p.ok(
        "place_order",
        json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
    )
    .await;
    let portfolio = p.ok("get_portfolio", json!({"account_id_key": key})).await;
    let position = portfolio["accountPortfolio"][0]["position"][0]["positionId"].clone();
    let txs = p
        .ok("list_transactions", json!({"account_id_key": key}))
        .await;
    let transaction = txs["transaction"][0]["transactionId"].clone();
    let ids: Map<String, Value> = [
        ("account_id_key", key),
        ("position_id", position),
        ("transaction_id", transaction),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();

    let mut problems = Vec::new();
    for (tool, endpoint) in bound_tools() {
        let args = example_args(tool, &ids);
        let (err, payload) = p.call(tool, args.clone()).await;
        // Alerts are E*TRADE's inbox: the paper broker has none and says so.
        let want = if endpoint.shape().module == Module::Alerts {
            Some("tool_not_available")
        } else {
            None
        };
        let got = err.then(|| payload["error"]["code"].as_str().unwrap_or("?"));
        if got != want {
            problems.push(format!("{tool} {args}: want {want:?}, got {payload}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test]
async fn every_bound_tool_answers_against_the_fake() {
    let s = Sandbox::start("catalog-reads").await;
    let fixtures = s.fake.fixtures();
    let account = &fixtures.accounts[0];
    let ids: Map<String, Value> = [
        ("account_id_key", json!(account.account_id_key)),
        ("position_id", json!(10002345678u64)),
        (
            "transaction_id",
            json!(
                account
                    .transactions
                    .first()
                    .expect("a transaction")
                    .transaction_id
            ),
        ),
        (
            "alert_id",
            json!(s.fake.alert_ids().first().expect("an alert")),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();

    let mut problems = Vec::new();
    for (tool, endpoint) in bound_tools() {
        let shape = endpoint.shape();
        let pattern = format!("{} {}", shape.verb.method(), fake_pattern(shape.path));
        let before = s.requests_on(&pattern).len();
        let args = example_args(tool, &ids);
        let (err, payload) = s.call(tool, args.clone()).await;
        let sent = s.requests_on(&pattern).len() - before;
        if err || sent != 1 {
            problems.push(format!(
                "{tool} {args}: {sent} request(s) on {pattern}: {payload}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `/v1/accounts/{accountIdKey}/balance` → `/v1/accounts/*/balance` (the fake's patterns).
fn fake_pattern(path: &str) -> String {
    path.split('/')
        .map(|seg| if seg.starts_with('{') { "*" } else { seg })
        .collect::<Vec<_>>()
        .join("/")
}
