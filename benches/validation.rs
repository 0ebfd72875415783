//! Validation of a worst-case invalid input (well over 20 problems) with the runtime's
//! validator, next to the `jsonschema` crate collecting every error for the same input
//! against the advertised inputSchema, in the same run.
//!
//! Run: `cargo bench --bench validation` (env `BENCH_ITERS`, default 20000). The last line is a
//! `REPORT` summary line for `benches/run-all`.

#[path = "support/report.rs"]
mod summary;
#[path = "../tests/support/tables.rs"]
mod tables;

use serde_json::{Map, Value, json};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn worst_case() -> Value {
    let bad_leg = json!({"symbol": 5, "callPut": "X", "expiration": "2027-02-30",
        "strike_price": 150.5, "quantity": 0, "extra": true});
    json!({
        "account_id_key": 1, "count": 1000, "include_lots": "yes", "memo": "x".repeat(40),
        "side": "UP", "symbols": [], "start_date": "01/02/2026", "since": "yesterday",
        "unknown_one": 1, "unknown_two": 2,
        "request": {"priceType": "LIMIT", "quantity": "-1", "limit_price": 10.25,
            "legs": [bad_leg.clone(), bad_leg.clone(), bad_leg.clone(), bad_leg.clone(), bad_leg],
            "tags": ["c", null, 3]}
    })
}

fn time<F: FnMut()>(iters: u32, mut f: F) -> Duration {
    for _ in 0..iters / 10 {
        f();
    }
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed() / iters
}

fn main() {
    let iters: u32 = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let catalog = tables::kitchen_sink();
    let tool = &catalog.tools[0];
    let table = tables::leak_object(&tool.input);
    let schema = codegen::json_schema::input_schema(tool);
    let reference = jsonschema::validator_for(&schema).expect("schema compiles");
    let args = worst_case();
    let map: Map<String, Value> = args.as_object().cloned().unwrap_or_default();

    let problems = match runtime::contract::validation::validate(table, map.clone()) {
        Err(errs) => errs.len(),
        Ok(_) => panic!("the worst case must be invalid"),
    };
    let reference_problems = reference.iter_errors(&args).count();
    assert!(
        reference_problems >= 20,
        "worst case has {reference_problems} schema errors"
    );

    let ours = time(iters, || {
        let r = runtime::contract::validation::validate(black_box(table), black_box(map.clone()));
        black_box(r.err().map(|e| e.len()));
    });
    let clone_only = time(iters, || {
        black_box(black_box(&map).clone());
    });
    let theirs = time(iters, || {
        black_box(reference.iter_errors(black_box(&args)).count());
    });
    println!("| validator | problems reported | time per call |");
    println!("|---|---|---|");
    println!(
        "| etrade-mcp runtime (incl. argument clone {clone_only:?}) | {problems} (capped at 20) | {ours:?} |"
    );
    println!("| jsonschema 0.61 iter_errors (baseline) | {reference_problems} | {theirs:?} |");
    println!(
        "ratio runtime/jsonschema: {:.2}",
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
    summary::report(
        &format!("validate a worst-case input ({reference_problems} schema errors)"),
        ours.as_secs_f64() * 1e6,
        "µs",
        "jsonschema 0.61 iter_errors",
        theirs.as_secs_f64() * 1e6,
    );
}
