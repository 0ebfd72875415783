//! Answer sizes on a 200-position paper account: every list tool's default answer stays under
//! the bound its description states (`under N KB`, 1 KB = 1,000 bytes of JSON; 75 KB is about
//! Claude Code's default 25k-token cap on a tool's output), and every compact row
//! (`detail: compact`) under 200 bytes, with no null keys. `list_alerts` is E*TRADE's inbox,
//! which paper does not have: it is measured against the fake E*TRADE.
//!
//! Prints a table of the measured bytes (run with `--no-capture`); docs/performance.md
//! ("Answer sizes") records one.

use crate::common;

use common::paper::Paper;
use common::sandbox::Sandbox;
use serde_json::{Value, json};

const POSITIONS: usize = 200;
/// The option positions among them, so compact rows carry an `osiKey`.
const OPTION_POSITIONS: usize = 4;
const COMPACT_ROW_BOUND: usize = 200;
const TOKEN_CAP_BYTES: usize = 75_000;

/// `ANSWER_SIZES_MAIN=1`: only measure the default answers, for a build without compact rows
/// or stated bounds (the "before" column of docs/performance.md).
fn measuring_main() -> bool {
    std::env::var_os("ANSWER_SIZES_MAIN").is_some()
}

fn bytes(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

/// The bound a tool's description states: "under N KB".
fn stated_bound(tool: &str) -> usize {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join(codegen::SPEC_PATH)).expect("spec");
    let catalog = codegen::load(&spec).expect("spec is valid");
    let t = catalog
        .tools
        .iter()
        .find(|t| t.name == tool)
        .expect("tool in the spec");
    let words: Vec<&str> = t.description.split_whitespace().collect();
    let kb = words
        .windows(3)
        .find_map(|w| (w[0] == "under" && w[2].starts_with("KB")).then(|| w[1].parse::<usize>()))
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("{tool}'s description states no bound (\"under N KB\")"));
    assert!(
        kb * 1000 <= TOKEN_CAP_BYTES,
        "{tool}: {kb} KB is past the cap"
    );
    kb * 1000
}

/// The rows at `path` (arrays walked through).
fn collect_rows<'a>(data: &'a Value, path: &[&str], out: &mut Vec<&'a Value>) {
    match (data, path.split_first()) {
        (Value::Array(items), _) => {
            for i in items {
                collect_rows(i, path, out);
            }
        }
        (Value::Object(o), Some((key, rest))) => {
            if let Some(next) = o.get(*key) {
                collect_rows(next, rest, out);
            }
        }
        (Value::Object(_), None) => out.push(data),
        _ => {}
    }
}

fn no_nulls(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Array(a) => a.iter().all(no_nulls),
        Value::Object(o) => o.values().all(no_nulls),
        _ => true,
    }
}

struct Row {
    tool: &'static str,
    default: usize,
    compact: usize,
    rows: usize,
    largest_row: usize,
    example: String,
}

/// Calls `tool` with `args`, then with `detail: compact`, checks both, and records them.
async fn measure<F, Fut>(
    call: F,
    tool: &'static str,
    args: Value,
    rows_at: &[&[&str]],
    table: &mut Vec<Row>,
) where
    F: Fn(&'static str, Value) -> Fut,
    Fut: std::future::Future<Output = (bool, Value)>,
{
    let (err, full) = call(tool, args.clone()).await;
    assert!(!err, "{tool}: {full}");
    let default = bytes(&full);
    if measuring_main() {
        table.push(Row {
            tool,
            default,
            compact: 0,
            rows: 0,
            largest_row: 0,
            example: String::new(),
        });
        return;
    }
    let bound = stated_bound(tool);
    assert!(
        default < bound,
        "{tool}: the default answer is {default} bytes, past its stated {bound}"
    );
    let mut compact_args = args;
    compact_args["detail"] = json!("compact");
    let (err, compact) = call(tool, compact_args).await;
    assert!(!err, "{tool} compact: {compact}");
    let mut found = Vec::new();
    for path in rows_at {
        collect_rows(&compact["data"], path, &mut found);
    }
    let mut full_rows = Vec::new();
    for path in rows_at {
        collect_rows(&full["data"], path, &mut full_rows);
    }
    assert_eq!(
        found.len(),
        full_rows.len(),
        "{tool}: one compact row per full row"
    );
    assert!(!found.is_empty(), "{tool}: rows to measure");
    let mut largest_row = 0;
    let mut example = String::new();
    for row in &found {
        let n = bytes(row);
        if n > largest_row {
            largest_row = n;
            example = row.to_string();
        }
        assert!(
            n <= COMPACT_ROW_BOUND,
            "{tool}: a {n}-byte compact row: {row}"
        );
        assert!(no_nulls(row), "{tool}: a compact row with a null: {row}");
    }
    table.push(Row {
        tool,
        default,
        compact: bytes(&compact),
        rows: found.len(),
        largest_row,
        example,
    });
}

async fn place(p: &Paper, key: &str, request: Value) {
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": request}),
        )
        .await;
    p.ok(
        "place_order",
        json!({"account_id_key": key, "preview_id": pv["preview_id"]}),
    )
    .await;
}

/// Equity symbols of the paper market, in its order.
fn equities(n: usize) -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let tsv = std::fs::read_to_string(root.join("runtime/data/paper-universe.tsv")).expect("tsv");
    tsv.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.get(2) == Some(&"EQUITY")).then(|| cols[0].to_string())
        })
        .take(n)
        .collect()
}

#[tokio::test]
async fn default_answers_fit_their_bounds_and_compact_rows_fit_200_bytes() {
    let mut p = Paper::start(&["--allow-trading"]).await;
    p.stop().await;
    p.cli(&["reset", "--cash", "100000000"]).await;
    let secs = common::paper::into_session();
    p.cli(&["advance", &format!("{secs}s")]).await;
    p.restart().await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();

    let symbols = equities(POSITIONS - OPTION_POSITIONS);
    assert_eq!(
        symbols.len(),
        POSITIONS - OPTION_POSITIONS,
        "enough equities"
    );
    for s in &symbols {
        place(
            &p,
            &key,
            json!({"order_type": "EQ", "symbol": s, "order_action": "BUY", "quantity": "3", "price_type": "MARKET"}),
        )
        .await;
    }
    let chain = p.ok("get_option_chains", json!({"symbol": "AAPL"})).await;
    let expiry = &chain["selectedED"];
    let expiration = format!(
        "{:04}-{:02}-{:02}",
        expiry["year"].as_i64().expect("year"),
        expiry["month"].as_i64().expect("month"),
        expiry["day"].as_i64().expect("day")
    );
    let pairs = chain["optionPairs"].as_array().expect("pairs");
    for pair in pairs.iter().take(OPTION_POSITIONS) {
        let strike = pair["call"]["strikePrice"].as_str().expect("strike");
        place(
            &p,
            &key,
            json!({"order_type": "OPTN", "symbol": "AAPL", "order_action": "BUY_OPEN", "quantity": "1",
                "price_type": "MARKET", "call_put": "CALL", "expiration": expiration, "strike_price": strike}),
        )
        .await;
    }
    let mut whole_account = json!({"account_id_key": key, "count": 1000});
    if !measuring_main() {
        whole_account["detail"] = json!("compact");
    }
    let all = p.ok("get_portfolio", whole_account).await;
    let held = all["accountPortfolio"][0]["position"]
        .as_array()
        .unwrap_or_else(|| {
            panic!(
                "positions: {}",
                &all.to_string()[..all.to_string().len().min(600)]
            )
        });
    assert_eq!(held.len(), POSITIONS, "a position per order");
    let position_id = held[0]["positionId"].clone();

    let call = |tool: &'static str, args: Value| p.call(tool, args);
    let mut table = Vec::new();
    let account = json!({"account_id_key": key});
    measure(
        call,
        "get_portfolio",
        account.clone(),
        &[&["accountPortfolio", "position"]],
        &mut table,
    )
    .await;
    measure(
        call,
        "get_position_lots",
        json!({"account_id_key": key, "position_id": position_id}),
        &[&["positionLot"]],
        &mut table,
    )
    .await;
    measure(
        call,
        "list_transactions",
        account.clone(),
        &[&["transaction"]],
        &mut table,
    )
    .await;
    measure(
        call,
        "list_orders",
        account.clone(),
        &[&["orders"]],
        &mut table,
    )
    .await;
    measure(
        call,
        "get_option_chains",
        json!({"symbol": "AAPL"}),
        &[&["optionPairs", "call"], &["optionPairs", "put"]],
        &mut table,
    )
    .await;
    let mut quoted: Vec<String> = symbols.iter().take(23).cloned().collect();
    assert!(
        held.iter().any(|r| r["osiKey"].is_string()),
        "compact option positions carry their osiKey"
    );
    let first = &pairs[0];
    let strike = first["call"]["strikePrice"].as_str().expect("strike");
    quoted.push(format!(
        "AAPL:{}:{}:{}:CALL:{strike}",
        expiry["year"], expiry["month"], expiry["day"]
    ));
    quoted.push(format!(
        "AAPL:{}:{}:{}:PUT:{strike}",
        expiry["year"], expiry["month"], expiry["day"]
    ));
    measure(
        call,
        "get_quotes",
        json!({"symbols": quoted}),
        &[&["quotes"]],
        &mut table,
    )
    .await;
    measure(
        call,
        "list_order_journal",
        json!({}),
        &[&["entries"]],
        &mut table,
    )
    .await;

    let s = Sandbox::start("answer-sizes").await;
    let sandbox_call = |tool: &'static str, args: Value| s.call(tool, args);
    measure(
        sandbox_call,
        "list_alerts",
        json!({}),
        &[&["alerts"]],
        &mut table,
    )
    .await;

    eprintln!("| tool | default (bytes) | compact (bytes) | rows | largest compact row |");
    eprintln!("|---|---:|---:|---:|---:|");
    for r in &table {
        eprintln!(
            "| `{}` | {} | {} | {} | {} |",
            r.tool, r.default, r.compact, r.rows, r.largest_row
        );
    }
    for r in &table {
        eprintln!("{} largest compact row: {}", r.tool, r.example);
    }
    if measuring_main() {
        return;
    }
    let (err, page) = p
        .call(
            "get_portfolio",
            json!({"account_id_key": key, "count": POSITIONS, "detail": "compact"}),
        )
        .await;
    assert!(!err);
    assert!(
        bytes(&page) < TOKEN_CAP_BYTES,
        "the whole account, compact, is one answer under the cap: {} bytes",
        bytes(&page)
    );
    let (err, complete) = p
        .call(
            "get_portfolio",
            json!({"account_id_key": key, "view": "COMPLETE"}),
        )
        .await;
    assert!(!err);
    let (err, whole) = p
        .call(
            "get_portfolio",
            json!({"account_id_key": key, "count": POSITIONS}),
        )
        .await;
    assert!(!err);
    eprintln!(
        "get_portfolio: {POSITIONS} positions compact {} bytes; full {} bytes; view COMPLETE (default page) {} bytes",
        bytes(&page),
        bytes(&whole),
        bytes(&complete)
    );
}
