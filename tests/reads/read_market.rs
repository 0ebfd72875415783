//! Market tools against the fake over MCP: get_quotes (per-symbol problems next to good
//! quotes, symbol limits), lookup_product, get_option_chains, get_option_expire_dates.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use serde_json::{Value, json};

fn invalid(p: &Value) -> &Vec<Value> {
    assert_eq!(p["error"]["code"], "invalid_input", "{p}");
    p["error"]["validation_errors"]
        .as_array()
        .expect("validation errors")
}

fn letters(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            format!(
                "{}{}",
                char::from(b'A' + (i / 26) as u8),
                char::from(b'A' + (i % 26) as u8)
            )
        })
        .collect()
}

#[tokio::test]
async fn get_quotes_reports_bad_symbols_next_to_good_quotes() {
    let s = Sandbox::start("get-quotes").await;
    let (err, p) = s
        .call(
            "get_quotes",
            json!({"symbols": ["AAPL", "XXQQ", "IBM:2027:1:15:CALL:200.000000"]}),
        )
        .await;
    assert!(!err, "{p}");
    let quotes = p["data"]["quotes"].as_array().expect("quotes");
    assert_eq!(quotes.len(), 2, "{p}");
    assert_eq!(quotes[0]["product"]["symbol"], "AAPL");
    assert_eq!(quotes[0]["all"]["lastTrade"], "174.56");
    assert_eq!(quotes[0]["ahFlag"], false);
    assert!(
        quotes[0]["dateTimeUTC"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    assert!(quotes[0]["fundamental"].is_null());
    assert_eq!(quotes[1]["product"]["securityType"], "OPTN");
    assert_eq!(quotes[1]["product"]["callPut"], "CALL");
    assert_eq!(quotes[1]["product"]["strikePrice"], "200");
    let messages = p["data"]["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1, "{p}");
    assert_eq!(messages[0]["code"], "1019");
    assert!(
        messages[0]["description"]
            .as_str()
            .is_some_and(|d| d.contains("XXQQ"))
    );
    assert_eq!(
        p["data"]["unquotedSymbols"],
        serde_json::json!(["XXQQ"]),
        "the bad symbol is named per symbol; the option request is not guessed at"
    );

    // Detail blocks: OPTIONS carries greeks; aliases work.
    let (err, p) = s
        .call(
            "get_quotes",
            json!({"symbols": ["IBM:2027:1:15:PUT:190"], "detailFlag": "OPTIONS"}),
        )
        .await;
    assert!(!err, "{p}");
    let o = &p["data"]["quotes"][0]["option"];
    assert!(o["optionGreeks"]["delta"].as_str().is_some(), "{p}");
    assert!(p["data"]["quotes"][0]["all"].is_null());
    assert_eq!(p["data"]["messages"], json!([]));
    let (err, p) = s
        .call(
            "get_quotes",
            json!({"symbols": ["AAPL"], "detail_flag": "ALL", "require_earnings_date": true}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(
        p["data"]["quotes"][0]["all"]["nextEarningDate"],
        "01/27/2027"
    );
    let (err, p) = s
        .call(
            "get_quotes",
            json!({"symbols": ["VTSAX"], "detail_flag": "MF_DETAIL"}),
        )
        .await;
    assert!(!err, "{p}");
    assert!(p["data"]["quotes"][0]["mutualFund"]["netAssetValue"].is_string());

    // Symbol limits: 25 plain, 50 with the override — refused locally, nothing sent.
    let before = s.fake.count("GET", "/v1/market/quote");
    let (err, p) = s.call("get_quotes", json!({"symbols": letters(26)})).await;
    assert!(err);
    let v = invalid(&p);
    assert_eq!(v[0]["path"], json!(["symbols"]), "{p}");
    assert_eq!(v[0]["code"], "too_many_items");
    let (err, p) = s
        .call(
            "get_quotes",
            json!({"symbols": letters(51), "override_symbol_count": true}),
        )
        .await;
    assert!(err);
    assert_eq!(invalid(&p)[0]["path"], json!(["symbols"]));
    assert_eq!(s.fake.count("GET", "/v1/market/quote"), before);
    let (err, p) = s
        .call(
            "get_quotes",
            json!({"symbols": letters(40), "overrideSymbolCount": true}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["quotes"].as_array().map(Vec::len), Some(40));

    // Other invalid input.
    for args in [
        json!({"symbols": ["AAPL"], "verbose": true}),
        json!({"symbols": []}),
        json!({"symbols": ["AA PL"]}),
        json!({"symbols": ["AAPL"], "detail_flag": "EVERYTHING"}),
        json!({}),
    ] {
        let (err, p) = s.call("get_quotes", args).await;
        assert!(err);
        invalid(&p);
    }

    // No symbol quotable: E*TRADE's 400 1019.
    let (err, p) = s.call("get_quotes", json!({"symbols": ["XXQQ"]})).await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection", "{p}");
    assert_eq!(p["error"]["status_code"], 400);
    assert_eq!(p["error"]["broker_code"], "1019");
    assert_eq!(p["error"]["broker_message"], "Invalid symbol.");

    s.expect_broker_faults(
        "GET /v1/market/quote/*",
        "get_quotes",
        json!({"symbols": ["AAPL"]}),
    )
    .await;
}

#[tokio::test]
async fn lookup_product_matches_names() {
    let s = Sandbox::start("lookup-product").await;
    let (err, p) = s.call("lookup_product", json!({"search": "apple"})).await;
    assert!(!err, "{p}");
    let symbols: Vec<&str> = p["data"]["products"]
        .as_array()
        .expect("products")
        .iter()
        .filter_map(|x| x["symbol"].as_str())
        .collect();
    assert_eq!(symbols, ["AAPL", "APLE"]);
    assert_eq!(p["data"]["products"][0]["type"], "EQUITY");
    let (err, p) = s
        .call(
            "lookup_product",
            json!({"search": "international business"}),
        )
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["products"][0]["symbol"], "IBM");
    let (err, p) = s
        .call("lookup_product", json!({"search": "nothing like this"}))
        .await;
    assert!(!err, "{p}");
    assert_eq!(p["data"]["products"], json!([]));
    for args in [
        json!({"search": "a/b"}),
        json!({"search": ""}),
        json!({"search": "apple", "symbol": "AAPL"}),
    ] {
        let (err, p) = s.call("lookup_product", args).await;
        assert!(err);
        invalid(&p);
    }
    s.expect_broker_faults(
        "GET /v1/market/lookup/*",
        "lookup_product",
        json!({"search": "apple"}),
    )
    .await;
}

#[tokio::test]
async fn option_expiries_and_chains_with_greeks() {
    let s = Sandbox::start("option-chains").await;
    let (err, p) = s
        .call("get_option_expire_dates", json!({"symbol": "IBM"}))
        .await;
    assert!(!err, "{p}");
    let dates = p["data"]["expirationDates"].as_array().expect("dates");
    assert!(dates.len() >= 6, "{p}");
    let (err, p) = s
        .call(
            "get_option_expire_dates",
            json!({"symbol": "IBM", "expiryType": "MONTHLY"}),
        )
        .await;
    assert!(!err, "{p}");
    let monthly = p["data"]["expirationDates"].as_array().expect("dates");
    assert_eq!(monthly.len(), 6);
    assert!(monthly.iter().all(|d| d["expiryType"] == "MONTHLY"));
    let first = monthly[1].clone();

    let (err, p) = s
        .call(
            "get_option_chains",
            json!({"symbol": "IBM", "expiry_year": first["year"], "expiry_month": first["month"],
                "expiry_day": first["day"], "no_of_strikes": 4, "strike_price_near": "200"}),
        )
        .await;
    assert!(!err, "{p}");
    let d = &p["data"];
    assert_eq!(d["selectedED"]["day"], first["day"]);
    assert_eq!(d["nearPrice"], "200");
    let pairs = d["optionPairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 4, "{p}");
    for pair in pairs {
        assert_eq!(pair["pairType"], "CALLPUT");
        for side in ["call", "put"] {
            let g = &pair[side]["optionGreeks"];
            for k in ["delta", "gamma", "theta", "vega", "rho", "iv"] {
                assert!(g[k].is_string(), "{side} {k}: {pair}");
            }
            assert!(
                pair[side]["osiKey"]
                    .as_str()
                    .is_some_and(|k| k.starts_with("IBM---"))
            );
        }
    }
    let (err, p) = s
        .call(
            "get_option_chains",
            json!({"symbol": "AAPL", "chainType": "PUT", "priceType": "ALL", "includeWeekly": true}),
        )
        .await;
    assert!(!err, "{p}");
    let pairs = p["data"]["optionPairs"].as_array().expect("pairs");
    assert!(pairs.len() > 10);
    assert!(
        pairs
            .iter()
            .all(|x| x["call"].is_null() && x["put"].is_object())
    );

    // An option symbol built from a chain quotes with greeks.
    let link = pairs[0]["put"]["quoteDetail"].as_str().expect("link");
    let symbol = link.rsplit('/').next().expect("symbol");
    let (err, p) = s
        .call(
            "get_quotes",
            json!({"symbols": [symbol], "detail_flag": "OPTIONS"}),
        )
        .await;
    assert!(!err, "{p}");
    assert!(p["data"]["quotes"][0]["option"]["optionGreeks"].is_object());

    // Invalid input, locally.
    for (args, path) in [
        (
            json!({"symbol": "IBM", "expiry_month": 1}),
            Some("expiry_year"),
        ),
        (
            json!({"symbol": "IBM", "expiry_year": 2027, "expiry_day": 5}),
            Some("expiry_month"),
        ),
        (
            json!({"symbol": "IBM", "expiry_year": 2027, "expiry_month": 2, "expiry_day": 30}),
            Some("expiry_day"),
        ),
        (json!({"symbol": "IBM", "expiry_month": 13}), None),
        (json!({"symbol": "IBM", "strike_price_near": 200}), None),
        (json!({"symbol": "IBM", "chain_type": "BOTH"}), None),
        (json!({"symbol": "IBM", "no_of_strikes": 0}), None),
        (json!({"symbol": "IBM", "unknown": 1}), None),
    ] {
        let (err, p) = s.call("get_option_chains", args).await;
        assert!(err);
        let v = invalid(&p);
        if let Some(path) = path {
            assert_eq!(v[0]["path"], json!([path]), "{p}");
        }
    }
    let (err, p) = s
        .call(
            "get_option_expire_dates",
            json!({"symbol": "IBM", "expiry_type": "YEARLY"}),
        )
        .await;
    assert!(err);
    invalid(&p);

    // Broker refusals and faults.
    let (err, p) = s.call("get_option_chains", json!({"symbol": "NOPE"})).await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection");
    assert_eq!(p["error"]["broker_code"], "1019");
    let (err, p) = s
        .call(
            "get_option_chains",
            json!({"symbol": "IBM", "expiry_year": 2001}),
        )
        .await;
    assert!(err);
    assert_eq!(p["error"]["code"], "broker_rejection");
    assert!(p["error"]["broker_message"].is_string());
    s.expect_broker_faults(
        "GET /v1/market/optionchains",
        "get_option_chains",
        json!({"symbol": "IBM"}),
    )
    .await;
    s.expect_broker_faults(
        "GET /v1/market/optionexpiredate",
        "get_option_expire_dates",
        json!({"symbol": "IBM"}),
    )
    .await;
}
