//! Whole-account answers, over MCP: `get_account_overview` against the fake E*TRADE with a
//! portfolio of three pages (every position once, one request per page, totals equal to the
//! sums of the full pages to the cent, a fraction of their bytes), every account, a failed
//! page; `summarize_transactions` over a multi-page range; both in paper.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::paper::{Paper, dec};
use common::sandbox::Sandbox;
use fake_etrade::{FakeConfig, Fault, Fixtures};
use rust_decimal::Decimal;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const PORTFOLIO: &str = "GET /v1/accounts/*/portfolio";
const TRANSACTIONS: &str = "GET /v1/accounts/*/transactions";
/// The overview's page size (`limits.page_size` of the tool in the spec).
const PAGE: usize = etrade_mcp::generated::GetAccountOverviewInput::PAGE_SIZE as usize;

/// The trading account with its positions copied until it holds two full pages and a bit.
fn big_portfolio() -> Fixtures {
    let mut f = Fixtures::default();
    let base = f.accounts[0].positions.clone();
    let mut all = Vec::new();
    for i in 0..(2 * PAGE + 37) {
        let mut p = base[i % base.len()].clone();
        p.position_id = 30_000_000_000 + i as i64;
        p.quantity += (i / base.len()) as f64;
        all.push(p);
    }
    f.accounts[0].positions = all;
    f
}

async fn sandbox(name: &str, fixtures: Fixtures) -> Sandbox {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    )
    .with_fixtures(fixtures);
    Sandbox::start_with(name, config).await
}

async fn ok(s: &Sandbox, tool: &str, args: Value) -> (Value, usize) {
    let (err, p) = s.call(tool, args).await;
    assert!(!err, "{tool}: {p}");
    let bytes = serde_json::to_string(&p["data"]).map_or(0, |t| t.len());
    (p["data"].clone(), bytes)
}

fn d(v: &Value) -> Decimal {
    dec(v)
}

fn sum(rows: &[Value], field: &str) -> Decimal {
    rows.iter().map(|r| d(&r[field])).sum()
}

#[tokio::test]
async fn the_overview_holds_every_page_exactly_in_a_fraction_of_the_bytes() {
    let s = sandbox("sum-overview", big_portfolio()).await;
    let before = s.requests_on(PORTFOLIO).len();
    let (overview, overview_bytes) =
        ok(&s, "get_account_overview", json!({"account_id_key": KEY})).await;
    let pages_read = s.requests_on(PORTFOLIO).len() - before;

    // The same pages, in full, as get_portfolio gives them.
    let mut positions = Vec::new();
    let mut page_bytes = 0;
    let mut page = 1;
    loop {
        let (p, bytes) = ok(
            &s,
            "get_portfolio",
            json!({"account_id_key": KEY, "count": PAGE, "page_number": page, "view": "COMPLETE"}),
        )
        .await;
        page_bytes += bytes;
        let portfolio = &p["accountPortfolio"][0];
        positions.extend(
            portfolio["position"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
        );
        match portfolio["nextPageNo"].as_i64() {
            Some(n) => page = n,
            None => break,
        }
    }
    assert_eq!(page, 3, "the fixture spans three pages");
    assert_eq!(pages_read, 3, "one request per page");

    let account = &overview["accounts"][0];
    assert_eq!(overview["complete"], true, "{overview}");
    assert_eq!(account["complete"], true);
    assert_eq!(account["portfolio_pages"], 3);
    assert_eq!(account["account"]["account_id_key"], KEY);
    let rows = account["positions"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), positions.len());
    for (row, full) in rows.iter().zip(&positions) {
        assert_eq!(d(&row["quantity"]), d(&full["quantity"]));
        assert_eq!(d(&row["market_value"]), d(&full["marketValue"]));
        assert_eq!(d(&row["cost"]), d(&full["totalCost"]));
        assert_eq!(d(&row["days_gain"]), d(&full["daysGain"]));
    }

    let totals = &account["totals"];
    let market_value = sum(&positions, "marketValue");
    assert_eq!(d(&totals["market_value"]), market_value);
    assert_eq!(d(&totals["total_cost"]), sum(&positions, "totalCost"));
    assert_eq!(d(&totals["total_gain"]), sum(&positions, "totalGain"));
    assert_eq!(d(&totals["days_gain"]), sum(&positions, "daysGain"));
    let balance = ok(
        &s,
        "get_account_balances",
        json!({"account_id_key": KEY, "real_time_nav": true}),
    )
    .await
    .0;
    let total_value = d(&balance["computed"]["realTimeValues"]["totalAccountValue"]);
    assert_eq!(d(&totals["total_account_value"]), total_value);
    assert_eq!(d(&totals["cash"]), d(&balance["computed"]["cashBalance"]));
    let expected_pct = (sum(&positions, "totalGain") * Decimal::ONE_HUNDRED
        / sum(&positions, "totalCost"))
    .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    assert_eq!(d(&totals["total_gain_pct"]), expected_pct);

    // Allocation by security type adds up to the positions plus cash.
    let allocation = account["allocation"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut by_type: BTreeMap<String, Decimal> = BTreeMap::new();
    for p in &positions {
        let t = p["product"]["securityType"].as_str().unwrap_or("UNKNOWN");
        *by_type.entry(t.to_string()).or_default() += d(&p["marketValue"]);
    }
    for (t, v) in &by_type {
        let row = allocation
            .iter()
            .find(|a| a["security_type"] == t.as_str())
            .unwrap_or_else(|| panic!("{t} in {allocation:?}"));
        assert_eq!(d(&row["market_value"]), *v);
    }
    assert!(allocation.iter().any(|a| a["security_type"] == "CASH"));

    // The options: underlier and delta-adjusted shares from E*TRADE's greeks.
    let exposure = account["option_exposure"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut want: BTreeMap<String, Decimal> = BTreeMap::new();
    for p in positions
        .iter()
        .filter(|p| p["product"]["securityType"] == "OPTN")
    {
        let u = p["product"]["symbol"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        *want.entry(u).or_default() +=
            d(&p["quantity"]) * d(&p["complete"]["delta"]) * d(&p["complete"]["optionMultiplier"]);
    }
    assert!(!want.is_empty(), "the fixture holds options");
    for (u, delta_shares) in &want {
        let row = exposure
            .iter()
            .find(|e| e["underlier"] == u.as_str())
            .unwrap_or_else(|| panic!("{u} in {exposure:?}"));
        assert_eq!(d(&row["option_delta_shares"]), *delta_shares);
    }

    assert!(
        overview_bytes * 100 <= page_bytes * 40,
        "overview {overview_bytes} bytes vs pages {page_bytes}"
    );
    println!(
        "overview: {} positions over {} pages: {overview_bytes} bytes, pages {page_bytes} bytes ({:.1} %)",
        rows.len(),
        pages_read,
        overview_bytes as f64 * 100.0 / page_bytes as f64
    );
}

#[tokio::test]
async fn without_an_account_the_overview_covers_every_account_and_a_failed_page_is_reported() {
    let s = sandbox("sum-all", Fixtures::default()).await;
    let listed = ok(&s, "list_accounts", json!({})).await.0;
    let keys: Vec<&str> = listed["accounts"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x["accountIdKey"].as_str())
                .collect()
        })
        .unwrap_or_default();
    let overview = ok(&s, "get_account_overview", json!({})).await.0;
    let covered: Vec<&str> = overview["accounts"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x["account"]["account_id_key"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(covered, keys);

    s.fake
        .inject_fault(PORTFOLIO, Fault::Status5xx(503), Some(1));
    let (err, p) = s
        .call("get_account_overview", json!({"account_id_key": KEY}))
        .await;
    assert!(!err, "a failed page is not an error for the call: {p}");
    let account = &p["data"]["accounts"][0];
    assert_eq!(p["data"]["complete"], false);
    assert_eq!(account["complete"], false);
    let reason = account["incomplete_reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("portfolio page 1 failed (service_unavailable)"),
        "{reason}"
    );
    assert!(
        account["totals"]["total_account_value"].is_string(),
        "the balance still counts: {account}"
    );

    let (err, p) = s
        .call(
            "get_account_overview",
            json!({"account_id_key": "NoSuchKey"}),
        )
        .await;
    assert!(err && p["error"]["code"] == "not_found", "{p}");
}

#[tokio::test]
async fn the_summary_counts_every_transaction_once_over_every_page() {
    let s = sandbox("sum-txn", Fixtures::default()).await;
    let range =
        json!({"account_id_key": KEY, "start_date": "2023-01-01", "end_date": "2023-12-31"});
    let before = s.requests_on(TRANSACTIONS).len();
    let summary = ok(&s, "summarize_transactions", range.clone()).await.0;
    let pages_read = s.requests_on(TRANSACTIONS).len() - before;

    let mut all = Vec::new();
    let mut marker: Option<String> = None;
    loop {
        let mut args = json!({"account_id_key": KEY, "start_date": "2023-01-01",
            "end_date": "2023-12-31", "count": 50});
        if let Some(m) = &marker {
            args["marker"] = json!(m);
        }
        let page = ok(&s, "list_transactions", args).await.0;
        let items = page["transaction"].as_array().cloned().unwrap_or_default();
        let empty = items.is_empty();
        all.extend(items);
        match page["marker"].as_str() {
            Some(m) if !empty => marker = Some(m.to_string()),
            _ => break,
        }
    }
    assert!(pages_read >= 3, "a multi-page range: {pages_read} pages");
    assert_eq!(summary["pages"], pages_read);
    assert_eq!(summary["complete"], true, "{summary}");
    let totals = &summary["totals"];
    assert_eq!(totals["count"], all.len());
    assert_eq!(d(&totals["net_amount"]), sum(&all, "amount"));
    let fees: Decimal = all
        .iter()
        .map(|t| {
            t["brokerage"]["fee"]
                .as_str()
                .map_or(Decimal::ZERO, |_| d(&t["brokerage"]["fee"]))
        })
        .sum();
    assert_eq!(d(&totals["fees"]), fees);
    let groups = summary["groups"].as_array().cloned().unwrap_or_default();
    let mut by_type: BTreeMap<String, (u64, Decimal)> = BTreeMap::new();
    for t in &all {
        let e = by_type
            .entry(
                t["transactionType"]
                    .as_str()
                    .unwrap_or("Unknown")
                    .to_string(),
            )
            .or_default();
        e.0 += 1;
        e.1 += d(&t["amount"]);
    }
    assert_eq!(groups.len(), by_type.len());
    for g in &groups {
        let (count, net) = by_type[g["transaction_type"].as_str().unwrap_or_default()];
        assert_eq!(g["count"], count);
        assert_eq!(d(&g["net_amount"]), net);
    }

    let mut by_symbol = range.clone();
    by_symbol["group_by"] = json!("symbol");
    let s2 = ok(&s, "summarize_transactions", by_symbol).await.0;
    assert_eq!(s2["totals"], summary["totals"]);
    let rows = s2["groups"].as_array().cloned().unwrap_or_default();
    assert!(rows.len() >= groups.len());
    assert!(rows.iter().any(|r| r["symbol"].is_string()), "{s2}");

    s.fake
        .inject_fault(TRANSACTIONS, Fault::MalformedJson, Some(1));
    let (err, p) = s.call("summarize_transactions", range.clone()).await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["complete"], false);
    assert!(
        p["data"]["incomplete_reason"]
            .as_str()
            .is_some_and(|r| r.contains("transaction page 1 failed (invalid_broker_response)")),
        "{p}"
    );

    let mut backwards = range;
    backwards["start_date"] = json!("2024-01-01");
    let (err, p) = s.call("summarize_transactions", backwards).await;
    assert!(err && p["error"]["code"] == "invalid_input", "{p}");
}

#[tokio::test]
async fn paper_answers_both_from_its_book() {
    let p = Paper::start(&["--allow-trading"]).await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"].clone();
    let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "5", "price_type": "MARKET"});
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": order}),
        )
        .await;
    p.ok(
        "place_order",
        json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
    )
    .await;

    // And two calls, for the delta exposure: the first listed expiry, the strike nearest.
    let expiries = p
        .ok("get_option_expire_dates", json!({"symbol": "AAPL"}))
        .await;
    let e = &expiries["expirationDates"][0];
    let chain = p
        .ok(
            "get_option_chains",
            json!({"symbol": "AAPL", "expiry_year": e["year"], "expiry_month": e["month"],
                "expiry_day": e["day"], "no_of_strikes": 1, "chain_type": "CALL"}),
        )
        .await;
    let call = &chain["optionPairs"][0]["call"];
    let expiration = format!(
        "{:04}-{:02}-{:02}",
        e["year"].as_i64().unwrap_or_default(),
        e["month"].as_i64().unwrap_or_default(),
        e["day"].as_i64().unwrap_or_default()
    );
    let option = json!({"order_type": "OPTN", "symbol": "AAPL", "order_action": "BUY_OPEN",
        "quantity": "2", "price_type": "MARKET", "call_put": "CALL",
        "expiration": expiration, "strike_price": call["strikePrice"]});
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": option}),
        )
        .await;
    p.ok(
        "place_order",
        json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
    )
    .await;

    let overview = p.ok("get_account_overview", json!({})).await;
    assert_eq!(overview["complete"], true, "{overview}");
    assert_eq!(
        overview["accounts"].as_array().map(Vec::len),
        accounts["accounts"].as_array().map(Vec::len)
    );
    let account = &overview["accounts"][0];
    let portfolio = p
        .ok(
            "get_portfolio",
            json!({"account_id_key": key, "view": "COMPLETE"}),
        )
        .await;
    let positions = portfolio["accountPortfolio"][0]["position"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!positions.is_empty(), "the buy filled: {portfolio}");
    assert_eq!(
        account["positions"].as_array().map(Vec::len),
        Some(positions.len())
    );
    // Paper prices move with the clock between two calls, so the sums are checked against
    // the overview's own rows, and the holdings against the portfolio.
    let rows = account["positions"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        dec(&account["totals"]["market_value"]),
        rows.iter()
            .map(|x| dec(&x["market_value"]))
            .sum::<Decimal>()
    );
    for (row, full) in rows.iter().zip(&positions) {
        assert_eq!(dec(&row["quantity"]), dec(&full["quantity"]));
        // A contract is named by its OSI symbol in the overview as in the portfolio.
        let option = row["security_type"] == "OPTN";
        assert_eq!(
            row["osi_key"],
            if option {
                full["osiKey"].clone()
            } else {
                Value::Null
            },
            "{row}"
        );
        assert!(!option || row["osi_key"].is_string(), "{row}");
    }
    let exposure = &account["option_exposure"][0];
    assert_eq!(exposure["underlier"], "AAPL", "{account}");
    assert_eq!(dec(&exposure["shares"]), Decimal::from(5));
    let option_delta = dec(&exposure["option_delta_shares"]);
    assert!(
        option_delta > Decimal::ZERO && option_delta < Decimal::from(200),
        "2 calls × delta × 100: {exposure}"
    );
    assert_eq!(
        dec(&exposure["net_delta_shares"]),
        option_delta + Decimal::from(5)
    );
    let balance = p
        .ok(
            "get_account_balances",
            json!({"account_id_key": key, "real_time_nav": true}),
        )
        .await;
    assert_eq!(
        dec(&account["totals"]["cash"]),
        dec(&balance["computed"]["cashBalance"])
    );

    let today = jiff::tz::Offset::UTC
        .to_datetime(jiff::Timestamp::now())
        .date();
    let start = today
        .checked_sub(jiff::Span::new().days(30))
        .unwrap_or(today);
    let end = today
        .checked_add(jiff::Span::new().days(30))
        .unwrap_or(today);
    let summary = p
        .ok(
            "summarize_transactions",
            json!({"account_id_key": key, "start_date": start.to_string(), "end_date": end.to_string()}),
        )
        .await;
    let listed = p
        .ok(
            "list_transactions",
            json!({"account_id_key": key, "start_date": start.to_string(), "end_date": end.to_string()}),
        )
        .await;
    let txns = listed["transaction"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!txns.is_empty(), "{listed}");
    assert_eq!(summary["totals"]["count"], txns.len(), "{summary}");
    assert_eq!(
        dec(&summary["totals"]["net_amount"]),
        txns.iter().map(|t| dec(&t["amount"])).sum::<Decimal>()
    );
}
