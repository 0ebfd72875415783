//! Property tests of input validation over every tool's input schema, plus the
//! kitchen-sink fixture (every input feature at once), generated from the schema tables:
//!
//! - random and mutated arguments never panic, every diagnostic respects the contract's
//!   limits, and no message contains a submitted string or an unknown key;
//! - valid examples always pass;
//! - differential: for constraints JSON Schema can express, the runtime validator accepts
//!   exactly what the `jsonschema` crate accepts against the advertised inputSchema.
//!
//! New tools are covered without extra work: the cases come from `TOOLS`.

#[path = "../support/tables.rs"]
mod tables;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use runtime::contract::validation::{
    ObjectSchema, PathSegment, TypeKind, TypeSchema, ValidationError, limits, validate,
};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use tables::leak_object;

/// One input schema under test: the runtime table, the advertised JSON Schema, examples.
struct Case {
    name: String,
    table: &'static ObjectSchema,
    json_schema: Value,
    valid_examples: Vec<Value>,
}

fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    let spec = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/tools.yaml"))
        .expect("spec");
    let catalog = codegen::load(&spec).expect("spec valid");
    for d in etrade_mcp::generated::TOOLS.iter() {
        let tool = catalog
            .tools
            .iter()
            .find(|t| t.name == d.name)
            .expect("in spec");
        out.push(Case {
            name: d.name.to_string(),
            table: d.input_table,
            json_schema: serde_json::from_str(d.input_schema).expect("schema JSON"),
            valid_examples: tool.valid_examples.clone(),
        });
    }
    let sink = tables::kitchen_sink();
    for t in &sink.tools {
        out.push(Case {
            name: format!("fixture:{}", t.name),
            table: leak_object(&t.input),
            json_schema: codegen::json_schema::input_schema(t),
            valid_examples: t.valid_examples.clone(),
        });
    }
    out
}

// ---- strategies: mostly plausible values, with junk and mutations mixed in ----

#[derive(Clone, Copy)]
struct Gen {
    /// Use client aliases (not in the differential test: JSON Schema advertises canonical
    /// names only).
    aliases: bool,
    /// Chance of an unknown key in each object.
    unknown_keys: f64,
    /// Weight of null/junk against 64 for a plausible value: high to hunt for panics and
    /// leaks, low for the differential test, which needs many fully valid objects too.
    noise: u32,
}

fn junk() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        "[a-zA-Z0-9 ._:-]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Mostly `good`, sometimes `bad`, as the generator's noise level says.
fn mix(good: BoxedStrategy<Value>, bad: BoxedStrategy<Value>, g: Gen) -> BoxedStrategy<Value> {
    prop_oneof![16 => good, g.noise => bad].boxed()
}

fn text_of_len(lo: usize, hi_inclusive: usize) -> BoxedStrategy<Value> {
    prop::collection::vec(
        prop_oneof![
            prop::char::range('a', 'z'),
            prop::char::range('A', 'Z'),
            Just('é'),
            Just(' ')
        ],
        lo..=hi_inclusive,
    )
    .prop_map(|c| Value::from(c.into_iter().collect::<String>()))
    .boxed()
}

fn arb_type(ty: &'static TypeSchema, g: Gen) -> BoxedStrategy<Value> {
    let plausible: BoxedStrategy<Value> = match &ty.kind {
        TypeKind::String {
            min_length,
            max_length,
            pattern,
            ..
        } => {
            let lo = min_length.unwrap_or(0) as usize;
            let hi = max_length.map(|m| m as usize).unwrap_or(lo + 24);
            // proptest's generator has no anchors; the spec's patterns match whole values.
            let unanchored = pattern.map(|p| p.trim_start_matches('^').trim_end_matches('$'));
            let good = match unanchored.and_then(|p| proptest::string::string_regex(p).ok()) {
                Some(re) => re.prop_map(Value::from).boxed(),
                None => text_of_len(lo, hi),
            };
            let bad = prop_oneof![
                text_of_len(hi + 1, hi + 3),
                text_of_len(0, lo.saturating_sub(1)),
                "[0-9 !?]{1,6}".prop_map(Value::from),
            ]
            .boxed();
            mix(good, bad, g)
        }
        TypeKind::Integer { minimum, maximum } => {
            let lo = minimum.unwrap_or(-1000);
            let hi = maximum.unwrap_or(1000);
            let good = prop_oneof![
                4 => (lo..=hi).prop_map(Value::from),
                1 => (lo..=hi).prop_map(|n| json!(n as f64)),
            ]
            .boxed();
            let bad = prop_oneof![
                Just(json!(lo.saturating_sub(1))),
                Just(json!(hi.saturating_add(1))),
                Just(json!(2.5)),
                Just(json!("7")),
            ]
            .boxed();
            mix(good, bad, g)
        }
        TypeKind::Boolean => mix(
            any::<bool>().prop_map(Value::from).boxed(),
            Just(json!("yes")).boxed(),
            g,
        ),
        TypeKind::Decimal { .. } => {
            let good = ("-?[0-9]{1,6}", proptest::option::of("[0-9]{1,4}"))
                .prop_map(|(i, f)| {
                    Value::from(match f {
                        Some(f) => format!("{i}.{f}"),
                        None => i,
                    })
                })
                .boxed();
            let bad = prop_oneof![
                Just(Value::from("1.2.3")),
                Just(Value::from(" 1")),
                Just(json!(10.25)),
                "[0-9]{25}".prop_map(Value::from),
            ]
            .boxed();
            mix(good, bad, g)
        }
        TypeKind::Date => {
            let good = (1990u32..2100, 0u32..14, 0u32..33)
                .prop_map(|(y, m, d)| Value::from(format!("{y:04}-{m:02}-{d:02}")))
                .boxed();
            let bad = prop_oneof![
                Just(Value::from("2026-1-5")),
                Just(Value::from("01/15/2027"))
            ]
            .boxed();
            mix(good, bad, g)
        }
        TypeKind::DateTime => mix(
            prop_oneof![
                Just(Value::from("2026-10-17T12:00:00Z")),
                Just(Value::from("2026-10-17T12:00:00-04:00")),
            ]
            .boxed(),
            Just(Value::from("yesterday")).boxed(),
            g,
        ),
        TypeKind::Enum { values } => {
            let picks: Vec<Value> = values.iter().map(|v| Value::from(*v)).collect();
            mix(
                proptest::sample::select(picks).boxed(),
                "[A-Z_]{1,8}".prop_map(Value::from).boxed(),
                g,
            )
        }
        TypeKind::Array {
            items,
            min_items,
            max_items,
        } => {
            let lo = min_items.unwrap_or(0) as usize;
            let hi = max_items.map(|m| m as usize).unwrap_or(3);
            let good = prop::collection::vec(arb_type(items, g), lo..=hi)
                .prop_map(Value::from)
                .boxed();
            let bad = prop_oneof![
                prop::collection::vec(arb_type(items, g), hi + 1..=hi + 2).prop_map(Value::from),
                prop::collection::vec(arb_type(items, g), 0..=lo.saturating_sub(1))
                    .prop_map(Value::from),
            ]
            .boxed();
            mix(good, bad, g)
        }
        TypeKind::Object(o) => arb_object(o, g),
        TypeKind::Any => junk(),
    };
    let null_weight = if ty.nullable { g.noise * 2 } else { g.noise };
    prop_oneof![64 => plausible, null_weight => Just(Value::Null), g.noise => junk()].boxed()
}

fn arb_object(o: &'static ObjectSchema, g: Gen) -> BoxedStrategy<Value> {
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = o
        .fields
        .iter()
        .map(|f| {
            let include = if f.required {
                1.0 - 0.01 * f64::from(g.noise)
            } else {
                0.5
            };
            let alias = f.alias.filter(|_| g.aliases);
            (
                prop::bool::weighted(include),
                any::<bool>(),
                arb_type(&f.ty, g),
            )
                .prop_map(move |(inc, use_alias, v)| {
                    let key = match alias {
                        Some(a) if use_alias => a,
                        _ => f.name,
                    };
                    inc.then(|| (key.to_string(), v))
                })
                .boxed()
        })
        .collect();
    let ext: Vec<&'static str> = o.extension_fields.to_vec();
    let unknown = proptest::option::weighted(g.unknown_keys, "Unk[a-zA-Z]{4,8}");
    (fields, unknown, proptest::option::weighted(0.3, junk()))
        .prop_map(move |(pairs, unknown, ext_value)| {
            let mut m = Map::new();
            for (k, v) in pairs.into_iter().flatten() {
                m.insert(k, v);
            }
            if let Some(k) = unknown {
                m.insert(k, json!("UnknownValueMarker"));
            }
            if let (Some(e), Some(v)) = (ext.first(), ext_value) {
                m.insert((*e).to_string(), v);
            }
            Value::Object(m)
        })
        .boxed()
}

// ---- checks ----

/// Strings that may legitimately appear in messages: everything the spec itself says.
fn vocabulary(o: &ObjectSchema, out: &mut BTreeSet<String>) {
    fn ty(t: &TypeSchema, out: &mut BTreeSet<String>) {
        match &t.kind {
            TypeKind::Enum { values } => out.extend(values.iter().map(|v| v.to_string())),
            TypeKind::Array { items, .. } => ty(items, out),
            TypeKind::Object(o) => vocabulary(o, out),
            TypeKind::Decimal {
                greater_than,
                less_than,
            } => out.extend(greater_than.iter().chain(less_than).map(|s| s.to_string())),
            _ => {}
        }
    }
    for f in o.fields {
        out.insert(f.name.to_string());
        out.extend(f.alias.map(str::to_string));
        ty(&f.ty, out);
    }
    for r in o.rules {
        out.insert(r.message.to_string());
    }
}

fn submitted_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| submitted_strings(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                submitted_strings(x, out);
            }
        }
        _ => {}
    }
}

fn check_diagnostics(case: &Case, args: &Value, errs: &[ValidationError]) -> Result<(), String> {
    if errs.is_empty() || errs.len() > limits::MAX_ENTRIES {
        return Err(format!("{}: {} diagnostics", case.name, errs.len()));
    }
    let mut seen = BTreeSet::new();
    let mut vocab = BTreeSet::new();
    vocabulary(case.table, &mut vocab);
    let mut submitted = Vec::new();
    submitted_strings(args, &mut submitted);
    let text_of_spec = vocab.iter().cloned().collect::<Vec<_>>().join("\n");
    for e in errs {
        let line = serde_json::to_string(e).map_err(|x| x.to_string())?;
        if !seen.insert(line.clone()) {
            return Err(format!("{}: duplicate diagnostic {line}", case.name));
        }
        if e.path.len() > limits::MAX_PATH || e.message.chars().count() > limits::MAX_MESSAGE {
            return Err(format!("{}: limits broken by {line}", case.name));
        }
        for s in &submitted {
            // Short random strings collide with the fixed messages' own words ("at m" in
            // "at most" was seen); from 8 characters a chance match is negligible, while a
            // real echo of a value shows up at any length. Spec vocabulary may be quoted.
            if s.chars().count() >= 8
                && !text_of_spec.contains(s.as_str())
                && e.message.contains(s.as_str())
            {
                return Err(format!(
                    "{}: message quotes submitted {s:?}: {line}",
                    case.name
                ));
            }
        }
    }
    Ok(())
}

fn as_map(v: &Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// `default` cases per tool, or `ETRADE_FUZZ_CASES` for a long run:
/// `ETRADE_FUZZ_CASES=20000 cargo test --release --test validation_props -- --nocapture`.
fn case_count(default: u32) -> u32 {
    std::env::var("ETRADE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases: case_count(cases),
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn random_and_mutated_arguments_are_handled_within_the_contract() {
    let all = cases();
    println!(
        "validation_props: {} input schemas × {} random/mutated argument objects each",
        all.len(),
        case_count(512)
    );
    for case in all {
        let strategy = arb_object(
            case.table,
            Gen {
                aliases: true,
                unknown_keys: 0.2,
                noise: 4,
            },
        );
        let result = runner(512).run(&strategy, |args| {
            let outcome = std::panic::catch_unwind(|| validate(case.table, as_map(&args)));
            let Ok(outcome) = outcome else {
                return Err(TestCaseError::fail(format!(
                    "{}: panicked on {args}",
                    case.name
                )));
            };
            if let Err(errs) = outcome {
                check_diagnostics(&case, &args, &errs).map_err(TestCaseError::fail)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
    }
}

#[test]
fn non_object_arguments_and_unknown_keys_never_leak() {
    for case in cases() {
        let mut args = Map::new();
        args.insert("SecretLookingKey123".into(), json!("hunter2hunter2"));
        let errs = validate(case.table, args).expect_err("unknown key refused");
        let text = serde_json::to_string(&errs).unwrap_or_default();
        assert!(
            !text.contains("SecretLookingKey123") && !text.contains("hunter2"),
            "{text}"
        );
        assert!(
            errs.iter()
                .any(|e| e.code == "unknown_field" && e.path.is_empty())
        );
    }
}

#[test]
fn valid_examples_always_pass() {
    for case in cases() {
        for ex in &case.valid_examples {
            if let Err(errs) = validate(case.table, as_map(ex)) {
                panic!("{}: valid example {ex} refused: {errs:?}", case.name);
            }
        }
    }
}

#[test]
fn many_problems_are_capped_with_an_omission_notice() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "fixture:kitchen_sink")
        .expect("fixture");
    let bad_legs: Vec<Value> = (0..30)
        .map(|_| json!({"symbol": 5, "call_put": "X", "expiration": "x", "strike_price": 1, "quantity": 0}))
        .collect();
    let args = json!({"account_id_key": 1, "side": "UP", "request": {"price_type": "LIMIT", "quantity": "-1", "legs": bad_legs}});
    let errs = validate(case.table, as_map(&args)).expect_err("invalid");
    assert_eq!(errs.len(), limits::MAX_ENTRIES);
    assert_eq!(errs[limits::MAX_ENTRIES - 1].code, "omitted");
    check_diagnostics(&case, &args, &errs).expect("within limits");
}

/// Codes for checks the advertised schema does not express: the runtime may refuse where the
/// schema accepts, but only for these reasons. A long enum is advertised by the shape of its
/// values, so a value of that shape outside the list is one of them; a cross-field rule
/// reports with its own message from the spec.
fn beyond_json_schema(schema: &Value, table: &ObjectSchema, e: &ValidationError) -> bool {
    rule_messages(table).contains(e.message.as_str())
        || matches!(
            e.code,
            "greater_than" | "less_than" | "conditional_required" | "conditional_forbidden"
        )
        || (e.code == "invalid_date" && e.message.contains("real calendar date"))
        || e.code == "invalid_datetime"
        || (e.code == "invalid_choice"
            && advertised_at(schema, &e.path).is_some_and(|s| s.get("enum").is_none()))
}

/// Every rule message in an object's tables, nested objects included.
fn rule_messages(o: &ObjectSchema) -> BTreeSet<&'static str> {
    fn ty(t: &TypeSchema, out: &mut BTreeSet<&'static str>) {
        match &t.kind {
            TypeKind::Array { items, .. } => ty(items, out),
            TypeKind::Object(o) => out.extend(rule_messages(o)),
            _ => {}
        }
    }
    let mut out: BTreeSet<&'static str> = o.rules.iter().map(|r| r.message).collect();
    for f in o.fields {
        ty(&f.ty, &mut out);
    }
    out
}

/// `args` with the values of `trim: true` strings trimmed, as the runtime checks them.
fn trimmed(table: &ObjectSchema, args: &Value) -> Value {
    let Value::Object(map) = args else {
        return args.clone();
    };
    let mut out = map.clone();
    for f in table.fields {
        for key in std::iter::once(f.name).chain(f.alias) {
            if let Some(v) = out.get_mut(key) {
                *v = trimmed_value(&f.ty, v);
            }
        }
    }
    Value::Object(out)
}

fn trimmed_value(ty: &TypeSchema, v: &Value) -> Value {
    match (&ty.kind, v) {
        (TypeKind::String { trim: true, .. }, Value::String(s)) => Value::from(s.trim()),
        (TypeKind::Object(o), _) => trimmed(o, v),
        (TypeKind::Array { items, .. }, Value::Array(list)) => {
            Value::Array(list.iter().map(|x| trimmed_value(items, x)).collect())
        }
        _ => v.clone(),
    }
}

/// The advertised subschema of the field at `path`.
fn advertised_at<'a>(schema: &'a Value, path: &[PathSegment]) -> Option<&'a Value> {
    path.iter().try_fold(schema, |s, step| match step {
        PathSegment::Key(k) => s.get("properties")?.get(*k),
        PathSegment::Index(_) => s.get("items"),
    })
}

#[test]
fn runtime_validator_agrees_with_jsonschema_on_schema_level_constraints() {
    for case in cases() {
        let validator = jsonschema::validator_for(&case.json_schema).expect("schema compiles");
        let strategy = arb_object(
            case.table,
            Gen {
                aliases: false,
                unknown_keys: 0.1,
                noise: 1,
            },
        );
        let accepted = std::cell::Cell::new(0u32);
        let result = runner(1024).run(&strategy, |args| {
            // A `trim: true` string is checked once trimmed, on purpose (JSON Schema cannot
            // say "the length without surrounding space"): compare on what the runtime checks.
            let schema_ok = validator.is_valid(&trimmed(case.table, &args));
            accepted.set(accepted.get() + u32::from(schema_ok));
            match validate(case.table, as_map(&args)) {
                Ok(_) if !schema_ok => Err(TestCaseError::fail(format!(
                    "{}: runtime accepted what jsonschema refuses: {args}",
                    case.name
                ))),
                Err(errs)
                    if schema_ok
                        && !errs
                            .iter()
                            .all(|e| beyond_json_schema(&case.json_schema, case.table, e)) =>
                {
                    Err(TestCaseError::fail(format!(
                        "{}: runtime refused what jsonschema accepts: {args} -> {errs:?}",
                        case.name
                    )))
                }
                _ => Ok(()),
            }
        });
        if let Err(e) = result {
            panic!("{e}");
        }
        // Both sides of the comparison must be exercised, or agreement proves nothing.
        let n = accepted.get();
        assert!(
            (50..=974).contains(&n),
            "{}: {n} of 1024 cases schema-valid",
            case.name
        );
    }
}
