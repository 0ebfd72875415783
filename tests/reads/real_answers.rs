//! Answers recorded from the real E*TRADE (`tests/fixtures/etrade-answers/`, sources in its
//! SOURCES.md), replayed through every tool that reads them: the fake serves each body,
//! byte for byte, after its normal OAuth check, and the tool's result must hold every scalar
//! of the answer, validate against the advertised outputSchema and have text equal to
//! structuredContent (both checked by `Sandbox::call`).
//!
//! Leaf comparison: each non-null scalar of the answer is keyed by the name of the field
//! holding it (case-insensitive; the containers above it are not compared, since the result
//! may regroup them) and must appear in the result's `data` under a field of that name with
//! an equal value, as often as it appears in the answer. Numbers compare as decimals, so
//! `1700.0` equals the result's `"1700"`. The conversions the project makes on purpose are
//! listed once below, each with its reason; nothing else is skipped.
//!
//! The `odd-shapes/` folder holds bodies without E*TRADE's root container or with its
//! containers in another case: each must be refused as `invalid_broker_response`.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::FakeConfig;
use rust_decimal::Decimal;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";

/// How a field's value is turned into what the result carries.
#[derive(Clone, Copy, Debug)]
enum Conversion {
    /// Epoch milliseconds → RFC 3339 (seconds); 0 means "none" → null.
    Millis,
    /// Epoch seconds → RFC 3339; 0 → null.
    Seconds,
    /// Seen both ways in recorded answers: ≥ 10^11 milliseconds, else seconds; 0 → null.
    Either,
    /// `"true"`/`"false"` (and `"Y"`/`"N"`) flags → JSON booleans.
    Flag,
}

/// Every deliberate conversion, by field name (lower case), with the reason. The unit of each
/// time field is what the recorded answers show (see docs/etrade-wire.md); a recorded value
/// whose magnitude disagrees with its listed unit fails the test.
const CONVERSIONS: &[(&str, Conversion, &str)] = &[
    // Milliseconds in every recording (13 digits).
    (
        "placedtime",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    (
        "previewtime",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    (
        "canceltime",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    (
        "dateacquired",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    (
        "acquireddate",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    (
        "transactiondate",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    (
        "postdate",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    (
        "settlementdate",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    // An order event's `dateTime` (a quote's `dateTime` is text and stays text).
    (
        "datetime",
        Conversion::Millis,
        "times are RFC 3339 in results",
    ),
    // Milliseconds once executed; orders not executed carry a 10-digit value.
    (
        "executedtime",
        Conversion::Either,
        "times are RFC 3339 in results",
    ),
    // Seconds in every recording (10 digits).
    (
        "datetimeutc",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "timeoflasttrade",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "exdividenddate",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "dividendpayabledate",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "week52hidate",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "week52lowdate",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "expirationdate",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "lasttradetime",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "timestamp",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "createtime",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "readtime",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    // Only 0 ("not deleted") recorded; alert times are read by magnitude.
    (
        "deletetime",
        Conversion::Either,
        "times are RFC 3339 in results",
    ),
    (
        "closeddate",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    (
        "asofdate",
        Conversion::Either,
        "times are RFC 3339 in results",
    ),
    (
        "fundinceptiondate",
        Conversion::Seconds,
        "times are RFC 3339 in results",
    ),
    // E*TRADE's string flags.
    (
        "adjustedflag",
        Conversion::Flag,
        "flags are booleans in results",
    ),
    ("ahflag", Conversion::Flag, "flags are booleans in results"),
    (
        "inthemoney",
        Conversion::Flag,
        "flags are booleans in results",
    ),
    (
        "ehdisclosureflag",
        Conversion::Flag,
        "flags are booleans in results",
    ),
    (
        "ahdisclosureflag",
        Conversion::Flag,
        "flags are booleans in results",
    ),
    (
        "conditionaldisclosureflag",
        Conversion::Flag,
        "flags are booleans in results",
    ),
    (
        "aodisclosureflag",
        Conversion::Flag,
        "flags are booleans in results",
    ),
];

fn conversion(key: &str) -> Option<Conversion> {
    CONVERSIONS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, c, _)| *c)
}

/// A scalar as compared: decimals by value, text as is, booleans.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Leaf {
    Num(Decimal),
    Text(String),
    Bool(bool),
}

fn number(n: &serde_json::Number) -> Option<Decimal> {
    let s = n.to_string();
    Decimal::from_str(&s)
        .or_else(|_| Decimal::from_scientific(&s))
        .ok()
        .map(|d| d.normalize())
}

fn leaf(v: &Value) -> Option<Leaf> {
    match v {
        Value::Number(n) => number(n).map(Leaf::Num),
        Value::String(s) => Some(match Decimal::from_str(s.trim()) {
            Ok(d) if !s.trim().is_empty() => Leaf::Num(d.normalize()),
            _ => Leaf::Text(s.clone()),
        }),
        Value::Bool(b) => Some(Leaf::Bool(*b)),
        _ => None,
    }
}

/// RFC 3339 UTC as the README promises it: whole seconds, with the milliseconds E*TRADE
/// sent (three digits) when there are any.
fn rfc3339(t: jiff::Timestamp) -> String {
    match t.subsec_millisecond() {
        0 => t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        ms => format!("{}.{ms:03}Z", t.strftime("%Y-%m-%dT%H:%M:%S")),
    }
}

/// The leaf the result should hold for the answer's `key: v`; None when it should hold none
/// (a 0 time, which means "no time").
fn expected(key: &str, v: &Value, file: &str) -> Option<Leaf> {
    let raw = leaf(v)?;
    let Some(c) = conversion(key) else {
        return Some(raw);
    };
    if let Conversion::Flag = c {
        return match &raw {
            Leaf::Text(s) => match s.to_ascii_lowercase().as_str() {
                "true" | "y" => Some(Leaf::Bool(true)),
                "false" | "n" => Some(Leaf::Bool(false)),
                "" => None,
                _ => Some(raw),
            },
            _ => Some(raw),
        };
    }
    let Leaf::Num(d) = raw else {
        // A text time (a quote's "15:59:59 EST 11-14-2023") stays text.
        return Some(raw);
    };
    let n: i64 = d.trunc().try_into().ok()?;
    if n == 0 {
        return None;
    }
    let millis = n >= 100_000_000_000;
    match c {
        Conversion::Millis => assert!(millis, "{file}: {key} = {n} is not in milliseconds"),
        Conversion::Seconds => assert!(!millis, "{file}: {key} = {n} is not in seconds"),
        _ => {}
    }
    let t = if millis {
        jiff::Timestamp::from_millisecond(n)
    } else {
        jiff::Timestamp::from_second(n)
    };
    Some(Leaf::Text(rfc3339(t.expect("a time in range"))))
}

/// (lower-case field name, leaf) → how many times.
type Leaves = BTreeMap<(String, Leaf), usize>;

fn walk(v: &Value, key: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| walk(x, k, out)),
        Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
        Value::Null => {}
        scalar => out.push((key.to_ascii_lowercase(), scalar.clone())),
    }
}

fn answer_leaves(answer: &Value, file: &str) -> Leaves {
    let mut raw = Vec::new();
    walk(answer, "", &mut raw);
    let mut out = Leaves::new();
    for (k, v) in raw {
        // E*TRADE sends "" for "no value" (`bidExchange: ""`, `accountName: ""`); a result
        // may carry it as null.
        if v.as_str().is_some_and(|s| s.trim().is_empty()) {
            continue;
        }
        if let Some(l) = expected(&k, &v, file) {
            *out.entry((k, l)).or_default() += 1;
        }
    }
    out
}

fn data_leaves(data: &Value) -> Leaves {
    let mut raw = Vec::new();
    walk(data, "", &mut raw);
    let mut out = Leaves::new();
    for (k, v) in raw {
        if let Some(l) = leaf(&v) {
            *out.entry((k, l)).or_default() += 1;
        }
    }
    out
}

/// Every leaf of the answer that the result does not hold (as often).
fn missing(answer: &Value, data: &Value, file: &str) -> Vec<String> {
    let have = data_leaves(data);
    answer_leaves(answer, file)
        .into_iter()
        .filter_map(|((k, l), n)| {
            let got = have.get(&(k.clone(), l.clone())).copied().unwrap_or(0);
            (got < n).then(|| format!("{k} = {l:?} ({got} of {n})"))
        })
        .collect()
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/etrade-answers")
}

/// The answers in one folder of the corpus: (file name, parsed body, exact text).
fn answers(dir: &str) -> Vec<(String, Value, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{dir}: no recorded answers");
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read answer");
            let body: Value = serde_json::from_str(&text).expect("answer is JSON");
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, body, text)
        })
        .collect()
}

async fn sandbox(name: &str) -> Sandbox {
    Sandbox::start_opts(
        name,
        FakeConfig::new(
            common::sandbox::CONSUMER_KEY,
            common::sandbox::CONSUMER_SECRET,
        ),
        &["--allow-trading", "--allow-alert-deletion"],
        "",
    )
    .await
}

fn args(tool: &str) -> Value {
    common::catalog::example_args(tool, &Map::new())
}

/// Serves the answer on `pattern` once, calls the tool, and compares leaf by leaf.
async fn replay(
    s: &Sandbox,
    pattern: &str,
    tool: &str,
    args: Value,
    file: &str,
    text: &str,
) -> Value {
    s.fake.serve_answer(pattern, text, Some(1));
    let (err, p) = s.call(tool, args).await;
    s.fake.clear_answers();
    assert!(!err, "{file} through {tool}: {p}");
    p
}

fn assert_whole(file: &str, tool: &str, answer: &Value, p: &Value) {
    let gone = missing(answer, &p["data"], file);
    assert!(
        gone.is_empty(),
        "{file} through {tool}: the result lacks {} of the answer's values:\n  {}\n{}",
        gone.len(),
        gone.join("\n  "),
        serde_json::to_string_pretty(&p["data"]).unwrap_or_default()
    );
}

/// Replays every answer in `dir` through `tool` with its example arguments.
async fn replay_dir(dir: &str, pattern: &str, tool: &str) {
    let s = sandbox(&format!("real-{dir}")).await;
    for (file, answer, text) in answers(dir) {
        let p = replay(&s, pattern, tool, args(tool), &file, &text).await;
        assert_whole(&file, tool, &answer, &p);
    }
}

#[tokio::test]
async fn account_lists() {
    replay_dir("account-list", "GET /v1/accounts/list", "list_accounts").await;
}

#[tokio::test]
async fn balances() {
    replay_dir(
        "balance",
        "GET /v1/accounts/*/balance",
        "get_account_balances",
    )
    .await;
}

#[tokio::test]
async fn portfolios() {
    replay_dir("portfolio", "GET /v1/accounts/*/portfolio", "get_portfolio").await;
}

#[tokio::test]
async fn position_lots() {
    replay_dir(
        "position-lots",
        "GET /v1/accounts/*/portfolio/*",
        "get_position_lots",
    )
    .await;
}

#[tokio::test]
async fn transactions() {
    replay_dir(
        "transactions",
        "GET /v1/accounts/*/transactions",
        "list_transactions",
    )
    .await;
}

#[tokio::test]
async fn transaction_details() {
    replay_dir(
        "transaction-details",
        "GET /v1/accounts/*/transactions/*",
        "get_transaction_details",
    )
    .await;
}

#[tokio::test]
async fn orders() {
    replay_dir("orders", "GET /v1/accounts/*/orders", "list_orders").await;
}

#[tokio::test]
async fn previews() {
    replay_dir(
        "preview-order",
        "POST /v1/accounts/*/orders/preview",
        "preview_order",
    )
    .await;
}

/// Each placement answer is served to a `place_order` of a preview the fake made itself.
#[tokio::test]
async fn placements() {
    let s = sandbox("real-place-order").await;
    for (file, answer, text) in answers("place-order") {
        let (err, preview) = s.call("preview_order", args("preview_order")).await;
        assert!(!err, "{preview}");
        let preview_id = preview["data"]["preview_id"].clone();
        let place = json!({"account_id_key": KEY, "preview_id": preview_id});
        let p = replay(
            &s,
            "POST /v1/accounts/*/orders/place",
            "place_order",
            place,
            &file,
            &text,
        )
        .await;
        assert!(
            p["data"]["order_id"].as_i64().is_some_and(|id| id > 0),
            "{file}: {p}"
        );
        assert_whole(&file, "place_order", &answer, &p);
    }
}

#[tokio::test]
async fn cancellations() {
    replay_dir(
        "cancel-order",
        "PUT /v1/accounts/*/orders/cancel",
        "cancel_order",
    )
    .await;
}

/// Quotes are asked for the symbols each answer quotes, as a client would.
#[tokio::test]
async fn quotes() {
    let s = sandbox("real-quotes").await;
    for (file, answer, text) in answers("quotes") {
        let symbols: Vec<String> = answer["QuoteResponse"]["QuoteData"]
            .as_array()
            .expect("QuoteData")
            .iter()
            .map(|q| quote_symbol(&q["Product"]))
            .collect();
        let detail = if answer.to_string().contains("\"MutualFund\"") {
            "MF_DETAIL"
        } else {
            "ALL"
        };
        let args = json!({"symbols": symbols, "detail_flag": detail});
        let p = replay(
            &s,
            "GET /v1/market/quote/*",
            "get_quotes",
            args,
            &file,
            &text,
        )
        .await;
        assert_whole(&file, "get_quotes", &answer, &p);
    }
}

/// The symbol a client asks for: the ticker, or E*TRADE's option symbol form.
fn quote_symbol(product: &Value) -> String {
    let symbol = product["symbol"].as_str().expect("symbol");
    if product["securityType"] != "OPTN" {
        return symbol.to_string();
    }
    format!(
        "{symbol}:{}:{}:{}:{}:{}",
        product["expiryYear"],
        product["expiryMonth"],
        product["expiryDay"],
        product["callPut"].as_str().expect("callPut"),
        product["strikePrice"]
    )
}

#[tokio::test]
async fn lookups() {
    replay_dir("lookup", "GET /v1/market/lookup/*", "lookup_product").await;
}

#[tokio::test]
async fn option_chains() {
    replay_dir(
        "option-chains",
        "GET /v1/market/optionchains",
        "get_option_chains",
    )
    .await;
}

#[tokio::test]
async fn option_expire_dates() {
    replay_dir(
        "option-expire-dates",
        "GET /v1/market/optionexpiredate",
        "get_option_expire_dates",
    )
    .await;
}

#[tokio::test]
async fn alerts() {
    replay_dir("alerts", "GET /v1/user/alerts", "list_alerts").await;
}

#[tokio::test]
async fn alert_details() {
    replay_dir(
        "alert-details",
        "GET /v1/user/alerts/*",
        "get_alert_details",
    )
    .await;
}

/// E*TRADE's SUCCESS, and its ERROR naming the ids it could not delete: the ERROR is a
/// `broker_rejection` whose `alert_deletion_result` names exactly those ids as failed and the
/// rest as deleted.
#[tokio::test]
async fn delete_alerts_reads_both_recorded_results() {
    let s = sandbox("real-delete-alerts").await;
    let as_ids = |v: &Value| -> Vec<i64> {
        let mut ids: Vec<i64> = v
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default();
        ids.sort_unstable();
        ids
    };
    for (file, answer, text) in answers("delete-alerts") {
        let failed = as_ids(&answer["AlertsResponse"]["FailedAlerts"]["alertId"]);
        let mut ids = vec![1101_i64];
        ids.extend(&failed);
        s.fake
            .serve_answer("DELETE /v1/user/alerts/*", text.as_str(), Some(1));
        let (err, p) = s.call("delete_alerts", json!({"alert_ids": ids})).await;
        s.fake.clear_answers();
        if failed.is_empty() {
            assert!(!err, "{file}: {p}");
            assert_eq!(as_ids(&p["data"]["deleted"]), [1101], "{file}: {p}");
        } else {
            assert!(err, "{file}: {p}");
            assert_eq!(p["error"]["code"], "broker_rejection", "{file}: {p}");
            let result = &p["error"]["alert_deletion_result"];
            assert_eq!(as_ids(&result["failed"]), failed, "{file}: {p}");
            assert_eq!(as_ids(&result["deleted"]), [1101], "{file}: {p}");
        }
    }
}

/// The tool and endpoint each odd-shaped body is served to, by the answer kind in its name.
fn odd_shape_target(file: &str) -> Option<(&'static str, &'static str)> {
    const TARGETS: &[(&str, &str, &str)] = &[
        ("account-list", "GET /v1/accounts/list", "list_accounts"),
        (
            "balance",
            "GET /v1/accounts/*/balance",
            "get_account_balances",
        ),
        ("portfolio", "GET /v1/accounts/*/portfolio", "get_portfolio"),
        (
            "transactions",
            "GET /v1/accounts/*/transactions",
            "list_transactions",
        ),
        (
            "transaction-details",
            "GET /v1/accounts/*/transactions/*",
            "get_transaction_details",
        ),
        ("alerts", "GET /v1/user/alerts", "list_alerts"),
        (
            "alert-details",
            "GET /v1/user/alerts/*",
            "get_alert_details",
        ),
        ("delete-alert", "DELETE /v1/user/alerts/*", "delete_alerts"),
        ("quote", "GET /v1/market/quote/*", "get_quotes"),
        ("lookup", "GET /v1/market/lookup/*", "lookup_product"),
        (
            "option-chains",
            "GET /v1/market/optionchains",
            "get_option_chains",
        ),
        (
            "option-expire-dates",
            "GET /v1/market/optionexpiredate",
            "get_option_expire_dates",
        ),
        ("orders", "GET /v1/accounts/*/orders", "list_orders"),
        (
            "cancel-order",
            "PUT /v1/accounts/*/orders/cancel",
            "cancel_order",
        ),
    ];
    let kind = file.strip_prefix("etradejs-docsample-")?;
    TARGETS
        .iter()
        .filter(|(k, _, _)| kind.starts_with(&format!("{k}-")))
        .max_by_key(|(k, _, _)| k.len())
        .map(|(_, p, t)| (*p, *t))
}

/// A body without E*TRADE's root container, or with its containers in another case, is
/// `invalid_broker_response` from every read tool: never an empty list, never a partial
/// result. A mutation's unreadable answer may still mean the change happened, so it is
/// `uncertain_execution` (and reconciled), never a success.
#[tokio::test]
async fn answers_in_shapes_e_trade_does_not_send_are_refused() {
    let s = sandbox("real-odd-shapes").await;
    let mut tried = 0;
    for (file, _, text) in answers("odd-shapes") {
        let Some((pattern, tool)) = odd_shape_target(&file) else {
            continue;
        };
        s.fake.serve_answer(pattern, text.as_str(), Some(1));
        let (err, p) = s.call(tool, args(tool)).await;
        s.fake.clear_answers();
        assert!(err, "{file} through {tool} was read: {p}");
        let expected = match tool {
            "cancel_order" | "delete_alerts" => "uncertain_execution",
            _ => "invalid_broker_response",
        };
        assert_eq!(p["error"]["code"], expected, "{file} through {tool}: {p}");
        tried += 1;
    }
    assert_eq!(tried, 14, "every etrade-js sample was tried");
}

/// The comparison itself: a dropped field, a changed number, a wrong time unit and
/// milliseconds cut to the second are caught.
#[test]
fn the_leaf_comparison_catches_what_it_should() {
    let answer = json!({"R": {"A": [{"price": 1.5, "dstFlag": false, "placedTime": 1_700_000_000_123_i64}]}});
    let whole = json!({"a": [{"price": "1.50", "dstFlag": false, "placedTime": "2023-11-14T22:13:20.123Z"}]});
    assert!(missing(&answer, &whole, "t").is_empty());
    let dropped = json!({"a": [{"price": "1.5", "placedTime": "2023-11-14T22:13:20.123Z"}]});
    assert_eq!(missing(&answer, &dropped, "t").len(), 1);
    let changed = json!({"a": [{"price": "1.51", "dstFlag": false, "placedTime": "2023-11-14T22:13:20.123Z"}]});
    assert_eq!(missing(&answer, &changed, "t").len(), 1);
    let seconds =
        json!({"a": [{"price": "1.5", "dstFlag": false, "placedTime": "+55831-06-09T04:28:43Z"}]});
    assert_eq!(missing(&answer, &seconds, "t").len(), 1);
    // E*TRADE's milliseconds cut to the second are a lost value.
    let cut =
        json!({"a": [{"price": "1.5", "dstFlag": false, "placedTime": "2023-11-14T22:13:20Z"}]});
    assert_eq!(missing(&answer, &cut, "t").len(), 1);
    let twice = json!({"R": [{"price": 1.5}, {"price": 1.5}]});
    assert_eq!(missing(&twice, &json!([{"price": "1.5"}]), "t").len(), 1);
}

/// Every list tool: its answer with the item container missing, or named in another case,
/// is `invalid_broker_response`; the container with zero items is an empty list.
#[tokio::test]
async fn a_list_without_its_container_is_refused_and_an_empty_container_is_empty() {
    // (tool, endpoint, root, containers from the root down to the list, the list in data)
    const LISTS: &[(&str, &str, &str, &[&str], &str)] = &[
        (
            "list_accounts",
            "GET /v1/accounts/list",
            "AccountListResponse",
            &["Accounts", "Account"],
            "/accounts",
        ),
        (
            "get_portfolio",
            "GET /v1/accounts/*/portfolio",
            "PortfolioResponse",
            &["AccountPortfolio"],
            "/accountPortfolio",
        ),
        (
            "get_position_lots",
            "GET /v1/accounts/*/portfolio/*",
            "PositionLotsResponse",
            &["PositionLot"],
            "/positionLot",
        ),
        (
            "list_transactions",
            "GET /v1/accounts/*/transactions",
            "TransactionListResponse",
            &["Transaction"],
            "/transaction",
        ),
        (
            "get_quotes",
            "GET /v1/market/quote/*",
            "QuoteResponse",
            &["QuoteData"],
            "/quotes",
        ),
        (
            "lookup_product",
            "GET /v1/market/lookup/*",
            "LookupResponse",
            &["Data"],
            "/products",
        ),
        (
            "get_option_chains",
            "GET /v1/market/optionchains",
            "OptionChainResponse",
            &["OptionPair"],
            "/optionPairs",
        ),
        (
            "get_option_expire_dates",
            "GET /v1/market/optionexpiredate",
            "OptionExpireDateResponse",
            &["ExpirationDate"],
            "/expirationDates",
        ),
        (
            "list_orders",
            "GET /v1/accounts/*/orders",
            "OrdersResponse",
            &["Order"],
            "/orders",
        ),
        (
            "list_alerts",
            "GET /v1/user/alerts",
            "AlertsResponse",
            &["Alert"],
            "/alerts",
        ),
    ];
    let s = sandbox("real-containers").await;
    for (tool, pattern, root, path, list) in LISTS {
        let nest = |names: &[String]| -> Value {
            names
                .iter()
                .rev()
                .fold(json!([]), |inner, name| json!({ name: inner }))
        };
        let names: Vec<String> = path.iter().map(|n| n.to_string()).collect();
        let upper: Vec<String> = path.iter().map(|n| n.to_ascii_uppercase()).collect();
        let unreadable = [
            json!({ *root: {} }),
            json!({ *root: nest(&upper) }),
            json!({ root.to_ascii_lowercase(): nest(&names) }),
        ];
        for body in unreadable {
            s.fake.serve_answer(*pattern, body.to_string(), Some(1));
            let (err, p) = s.call(tool, args(tool)).await;
            s.fake.clear_answers();
            assert!(err, "{tool} read {body} as {p}");
            assert_eq!(
                p["error"]["code"], "invalid_broker_response",
                "{tool}, {body}: {p}"
            );
        }
        let empty = json!({ *root: nest(&names) });
        s.fake.serve_answer(*pattern, empty.to_string(), Some(1));
        let (err, p) = s.call(tool, args(tool)).await;
        s.fake.clear_answers();
        assert!(!err, "{tool}, {empty}: {p}");
        assert_eq!(
            p["data"].pointer(list),
            Some(&json!([])),
            "{tool}, {empty}: {p}"
        );
    }
}

/// When a mutation's outcome is unclear, reconciliation reads E*TRADE's order or alert list.
/// Served a list it cannot read, it records `unknown` — never `not_found`, which would invite
/// a second order — even though here the change did happen (the fake applied it and dropped
/// the connection before answering).
#[tokio::test]
async fn reconciliation_that_cannot_read_the_list_is_unknown() {
    const ORDERS: &str = "GET /v1/accounts/*/orders";
    const ALERTS: &str = "GET /v1/user/alerts";
    let unreadable_orders = [
        json!({"OrdersResponse": {}}),
        json!({"OrdersResponse": {"ORDER": []}}),
        json!({"ordersResponse": {"Order": []}}),
    ];
    let s = sandbox("real-reconcile").await;
    let newest = || async {
        let (err, p) = s.call("list_order_journal", json!({"limit": 1})).await;
        assert!(!err, "{p}");
        p["data"]["entries"][0].clone()
    };
    let preview = || async {
        let (err, p) = s.call("preview_order", args("preview_order")).await;
        assert!(!err, "{p}");
        p["data"]["preview_id"].clone()
    };
    for body in &unreadable_orders {
        // A placement whose answer is lost.
        let place = json!({"account_id_key": KEY, "preview_id": preview().await});
        s.fake.inject_fault(
            "POST /v1/accounts/*/orders/place",
            fake_etrade::Fault::ResetBeforeResponse,
            Some(1),
        );
        s.fake.serve_answer(ORDERS, body.to_string(), None);
        let (err, p) = s.call("place_order", place).await;
        assert!(err && p["error"]["code"] == "uncertain_execution", "{p}");
        let entry = newest().await;
        s.fake.clear_answers();
        assert_eq!(entry["kind"], "place_order", "{entry}");
        assert_eq!(
            entry["reconciliation"]["status"], "unknown",
            "{body}: {entry}"
        );

        // A cancellation whose answer is lost, of an order that is really there.
        let place = json!({"account_id_key": KEY, "preview_id": preview().await});
        let (err, p) = s.call("place_order", place).await;
        assert!(!err, "{p}");
        let order_id = p["data"]["order_id"].clone();
        s.fake.inject_fault(
            "PUT /v1/accounts/*/orders/cancel",
            fake_etrade::Fault::ResetBeforeResponse,
            Some(1),
        );
        s.fake.serve_answer(ORDERS, body.to_string(), None);
        let (err, p) = s
            .call(
                "cancel_order",
                json!({"account_id_key": KEY, "order_id": order_id}),
            )
            .await;
        assert!(err && p["error"]["code"] == "uncertain_execution", "{p}");
        let entry = newest().await;
        s.fake.clear_answers();
        assert_eq!(entry["kind"], "cancel_order", "{entry}");
        assert_eq!(
            entry["reconciliation"]["status"], "unknown",
            "{body}: {entry}"
        );
    }
    for body in [
        json!({"AlertsResponse": {"totalAlerts": 3}}),
        json!({"AlertsResponse": {"ALERT": []}}),
        json!({"alertsResponse": {"Alert": []}}),
    ] {
        let alert = *s.fake.alert_ids().first().expect("an alert left");
        s.fake.inject_fault(
            "DELETE /v1/user/alerts/*",
            fake_etrade::Fault::ResetBeforeResponse,
            Some(1),
        );
        s.fake.serve_answer(ALERTS, body.to_string(), None);
        let (err, p) = s.call("delete_alerts", json!({"alert_ids": [alert]})).await;
        assert!(err && p["error"]["code"] == "uncertain_execution", "{p}");
        let entry = newest().await;
        s.fake.clear_answers();
        assert_eq!(entry["kind"], "delete_alerts", "{entry}");
        assert_eq!(
            entry["reconciliation"]["status"], "unknown",
            "{body}: {entry}"
        );
    }
}

/// No public recording of E*TRADE's change preview or change place was found. E*TRADE
/// documents both as answering the same `PreviewOrderResponse` / `PlaceOrderResponse` as a
/// new order, so the recorded preview and placement answers are replayed through the change
/// tools too, against an order the fake really holds.
#[tokio::test]
async fn change_previews_and_placements_read_the_recorded_answers() {
    let s = sandbox("real-change").await;
    // An open order in the fake; the fake applies each change it is sent (its own answer is
    // replaced by the recording), so each placement changes an order of its own.
    let open_order = || async {
        let (err, p) = s.call("preview_order", args("preview_order")).await;
        assert!(!err, "{p}");
        let place = json!({"account_id_key": KEY, "preview_id": p["data"]["preview_id"]});
        let (err, p) = s.call("place_order", place).await;
        assert!(!err, "{p}");
        let mut change = args("preview_change_order");
        change["order_id"] = p["data"]["order_id"].clone();
        change
    };
    let change = open_order().await;
    for (file, answer, text) in answers("preview-order") {
        let p = replay(
            &s,
            "PUT /v1/accounts/*/orders/*/change/preview",
            "preview_change_order",
            change.clone(),
            &file,
            &text,
        )
        .await;
        assert_whole(&file, "preview_change_order", &answer, &p);
    }
    for (file, answer, text) in answers("place-order") {
        let change = open_order().await;
        let (err, preview) = s.call("preview_change_order", change.clone()).await;
        assert!(!err, "{preview}");
        let place = json!({"account_id_key": KEY, "order_id": change["order_id"],
            "preview_id": preview["data"]["preview_id"]});
        let p = replay(
            &s,
            "PUT /v1/accounts/*/orders/*/change/place",
            "place_change_order",
            place,
            &file,
            &text,
        )
        .await;
        assert_whole(&file, "place_change_order", &answer, &p);
    }
}
