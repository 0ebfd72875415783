//! `get_portfolio` and `get_position_lots` against the fake over MCP.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::{Fault, OauthProblem};
use serde_json::{Value, json};
use std::collections::BTreeSet;

const TRADING: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const EMPTY: &str = "4Wq1Lm9ZcT7nYbRk2XsHvA";

fn positions(p: &Value) -> Vec<Value> {
    p["data"]["accountPortfolio"]
        .as_array()
        .expect("accountPortfolio")
        .iter()
        .flat_map(|ap| ap["position"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn portfolio_first_page_has_quick_view_and_decimals() {
    let s = Sandbox::start("acct-portfolio").await;
    let (err, p) = s
        .call("get_portfolio", json!({"account_id_key": TRADING}))
        .await;
    assert!(!err, "{p}");
    let d = &p["data"];
    assert_eq!(d["pageNumber"], 1);
    assert!(d["totals"].is_null());
    let ap = &d["accountPortfolio"][0];
    assert_eq!(ap["totalPages"], 1);
    assert!(ap["nextPageNo"].is_null());
    let ps = positions(&p);
    assert_eq!(ps.len(), s.fake.fixtures().accounts[0].positions.len());
    let aapl = &ps[0];
    assert_eq!(aapl["positionId"], 10002345678u64);
    assert_eq!(aapl["product"]["symbol"], "AAPL");
    assert_eq!(aapl["pricePaid"], "150.25");
    assert_eq!(aapl["quantity"], "10");
    assert_eq!(aapl["quick"]["lastTrade"], "174.56");
    assert!(aapl["complete"].is_null());
    assert!(aapl["positionLot"].is_null());
    assert_eq!(aapl["dateAcquired"], "2020-02-24T05:00:00Z");
    let short = ps
        .iter()
        .find(|x| x["positionType"] == "SHORT")
        .expect("short");
    assert_eq!(short["quantity"], "-5");
    let call = ps.iter().find(|x| x["osiKey"].is_string()).expect("option");
    assert_eq!(call["product"]["callPut"], "CALL");
    assert_eq!(call["product"]["strikePrice"], "180");
}

#[tokio::test]
async fn portfolio_pages_through_every_position() {
    let s = Sandbox::start("acct-portfolio-pages").await;
    let want: BTreeSet<i64> = s.fake.fixtures().accounts[0]
        .positions
        .iter()
        .map(|p| p.position_id)
        .collect();
    let mut seen = Vec::new();
    let mut page = 1;
    let mut calls = 0;
    loop {
        calls += 1;
        assert!(calls <= 10, "paging does not end");
        let (err, p) = s
            .call(
                "get_portfolio",
                json!({"account_id_key": TRADING, "count": 3, "page_number": page, "sort_by": "SYMBOL", "sort_order": "ASC"}),
            )
            .await;
        assert!(!err, "{p}");
        assert_eq!(p["data"]["pageNumber"], page);
        let ps = positions(&p);
        assert!(ps.len() <= 3);
        seen.extend(ps.iter().filter_map(|x| x["positionId"].as_i64()));
        let ap = &p["data"]["accountPortfolio"][0];
        assert_eq!(ap["totalPages"], 4);
        match ap["nextPageNo"].as_i64() {
            Some(n) => {
                assert_eq!(n, page + 1);
                assert!(ap["next"].is_string());
                page = n;
            }
            None => break,
        }
    }
    assert_eq!(calls, 4);
    assert_eq!(seen.len(), want.len(), "no position twice");
    assert_eq!(seen.iter().copied().collect::<BTreeSet<_>>(), want);
    // Past the last page E*TRADE answers 204: an empty page, not an error.
    let (err, p) = s
        .call(
            "get_portfolio",
            json!({"account_id_key": TRADING, "count": 3, "page_number": 5}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["accountPortfolio"], json!([]));
}

#[tokio::test]
async fn portfolio_complete_view_totals_lots_and_empty_account() {
    let s = Sandbox::start("acct-portfolio-views").await;
    let (err, p) = s
        .call(
            "get_portfolio",
            json!({"accountIdKey": TRADING, "view": "COMPLETE", "totalsRequired": true,
                   "lots_required": true, "market_session": "EXTENDED"}),
        )
        .await;
    assert!(!err, "{p}");
    let totals = &p["data"]["totals"];
    assert!(totals["totalMarketValue"].is_string(), "{totals}");
    assert_eq!(totals["cashBalance"], "12500.11");
    let ps = positions(&p);
    let first = &ps[0];
    assert!(first["quick"].is_null());
    assert_eq!(first["complete"]["lastTrade"], "174.56");
    assert_eq!(first["complete"]["marginable"], true);
    let lots = first["positionLot"].as_array().expect("lots");
    assert_eq!(lots[0]["positionId"], first["positionId"]);
    for (view, key) in [
        ("PERFORMANCE", "performance"),
        ("FUNDAMENTAL", "fundamental"),
        ("OPTIONSWATCH", "optionsWatch"),
    ] {
        let (err, p) = s
            .call(
                "get_portfolio",
                json!({"account_id_key": TRADING, "view": view}),
            )
            .await;
        assert!(!err, "{p}");
        assert!(positions(&p)[0][key]["lastTrade"].is_string(), "{view}");
    }
    let (err, p) = s
        .call("get_portfolio", json!({"account_id_key": EMPTY}))
        .await;
    assert!(!err, "204 is an empty portfolio: {p}");
    assert_eq!(p["data"]["accountPortfolio"], json!([]));
    assert!(p["data"]["totals"].is_null());
}

#[tokio::test]
async fn portfolio_invalid_input_sends_nothing() {
    let s = Sandbox::start("acct-portfolio-invalid").await;
    for args in [
        json!({"account_id_key": TRADING, "count": 0}),
        json!({"account_id_key": TRADING, "count": 65536}),
        json!({"account_id_key": TRADING, "page_number": 0}),
        json!({"account_id_key": TRADING, "view": "FULL"}),
        json!({"account_id_key": TRADING, "sort_by": "INTRINSIC_VALUE"}),
        json!({"account_id_key": TRADING, "count": "10"}),
        json!({"account_id_key": TRADING, "unknown": true}),
        json!({"count": 5}),
    ] {
        let (err, p) = s.call("get_portfolio", args.clone()).await;
        assert!(err, "{args}");
        assert_eq!(p["error"]["code"], "invalid_input", "{args}");
    }
    let (err, p) = s
        .call(
            "get_position_lots",
            json!({"account_id_key": TRADING, "position_id": -1}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "invalid_input");
    assert_eq!(
        p["error"]["validation_errors"][0]["path"],
        json!(["position_id"])
    );
    assert_eq!(s.fake.count("GET", "/v1/accounts/"), 0);
}

#[tokio::test]
async fn portfolio_broker_errors() {
    let s = Sandbox::start("acct-portfolio-errors").await;
    let (err, p) = s
        .call(
            "get_portfolio",
            json!({"account_id_key": "NoSuchAccountKey00000"}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection");
    assert_eq!(p["error"]["broker_code"], "100");
    assert_eq!(
        p["error"]["broker_message"],
        "Account key does not belong to user."
    );
    s.expect_broker_faults(
        "GET /v1/accounts/*/portfolio",
        "get_portfolio",
        json!({"account_id_key": TRADING}),
    )
    .await;
}

#[tokio::test]
async fn position_lots_success_and_errors() {
    let s = Sandbox::start("acct-lots").await;
    let (err, p) = s
        .call(
            "get_position_lots",
            json!({"account_id_key": TRADING, "positionId": 10002345678u64}),
        )
        .await;
    assert!(!err, "{p}");
    let lot = &p["data"]["positionLot"][0];
    assert_eq!(lot["positionId"], 10002345678u64);
    assert_eq!(lot["price"], "150.25");
    assert_eq!(lot["remainingQty"], "10");
    assert_eq!(lot["acquiredDate"], "2020-02-24T05:00:00Z");
    assert_eq!(lot["settlementCurrency"], "USD");
    // Unknown position: E*TRADE's rejection, with its explanation.
    let (err, p) = s
        .call(
            "get_position_lots",
            json!({"account_id_key": TRADING, "position_id": 1}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection");
    assert_eq!(p["error"]["broker_message"], "Invalid position id.");
    for (fault, code) in [
        (Fault::Status5xx(503), "service_unavailable"),
        (
            Fault::Unauthorized(OauthProblem::TokenExpired),
            "authorization_expired",
        ),
        (Fault::MalformedJson, "invalid_broker_response"),
    ] {
        s.fake
            .inject_fault("GET /v1/accounts/*/portfolio/*", fault, Some(1));
        let (err, p) = s
            .call(
                "get_position_lots",
                json!({"account_id_key": TRADING, "position_id": 10002345678u64}),
            )
            .await;
        assert!(err);
        assert_eq!(p["error"]["code"], code, "{p}");
    }
}

/// A page far over the size from which the server writes a result's JSON once and streams
/// it (`runtime::mcp::held_results`): whole, and the same JSON in the text block and in
/// structuredContent, over stdio, an HTTP session and a 2026-07-28 HTTP request.
#[tokio::test]
async fn a_big_page_arrives_whole_in_both_copies_over_stdio_and_http() {
    const COUNT: usize = 1_200;
    let mut fixtures = fake_etrade::Fixtures::default();
    let template = fixtures.accounts[0].positions[0].clone();
    fixtures.accounts[0].positions = (0..COUNT)
        .map(|i| {
            let mut p = template.clone();
            p.position_id = 40_000_000_000 + i as i64;
            p.symbol = format!("B{i:04}\u{e9}\"\\");
            p
        })
        .collect();
    let config = fake_etrade::FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    )
    .with_fixtures(fixtures);
    let s = Sandbox::start_with("acct-portfolio-big", config).await;
    let want: BTreeSet<i64> = (0..COUNT as i64).map(|i| 40_000_000_000 + i).collect();
    let args = json!({"account_id_key": TRADING, "count": COUNT});
    let ids = |p: &Value| -> BTreeSet<i64> {
        positions(p)
            .iter()
            .filter_map(|x| x["positionId"].as_i64())
            .collect()
    };

    // stdio (the sandbox's client checks text == structuredContent and the output schema).
    let (err, over_stdio) = s.call("get_portfolio", args.clone()).await;
    assert!(!err, "{}", over_stdio["error"]);
    let bytes = serde_json::to_string(&over_stdio).map_or(0, |t| t.len());
    assert!(
        bytes > 2 * runtime::mcp::held_results::HELD_FROM_BYTES,
        "the page ({bytes} bytes) is not big enough to be held"
    );
    assert_eq!(ids(&over_stdio), want);
    let escaped = serde_json::to_string(&over_stdio).unwrap_or_default();
    assert!(
        escaped.contains("\u{e9}\\\"\\\\"),
        "the symbols' quote, backslash and accent came through: {}",
        positions(&over_stdio)[0]
    );

    // HTTP, on the same home and profile.
    let mut server = s
        .command(&[
            "serve",
            "--transport",
            "http",
            "--listen",
            "127.0.0.1:0",
            "--profile",
            &s.profile,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("etrade serve over HTTP");
    let stderr = server.stderr.take().expect("stderr");
    let (url, _lines, seen) = common::listening_url(stderr).await;
    let url = url.unwrap_or_else(|| panic!("no listening line: {seen}"));
    let client = common::http_client(&url).await;
    for _ in 0..2 {
        let (err, over_http) = common::call_payload(&client, "get_portfolio", args.clone()).await;
        assert!(!err, "{}", over_http["error"]);
        assert_eq!(ids(&over_http), want, "HTTP");
    }
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "get_portfolio", "arguments": args,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let answer = common::modern_post_to(&url, &body, "tools/call", Some("get_portfolio"))
        .send()
        .await
        .expect("POST")
        .text()
        .await
        .expect("body");
    let message = common::jsonrpc_in(&answer).expect("a JSON-RPC answer");
    assert_eq!(message["id"], 9, "{}", &answer[..answer.len().min(400)]);
    let result = &message["result"];
    let text = result["content"][0]["text"].as_str();
    let text =
        text.unwrap_or_else(|| panic!("no text block: {}", &answer[..answer.len().min(600)]));
    let text: Value = serde_json::from_str(text).expect("the text block is JSON");
    assert_eq!(
        text, result["structuredContent"],
        "text block equals structuredContent"
    );
    assert_eq!(ids(&text), want, "2026-07-28 HTTP");
}
