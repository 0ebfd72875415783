//! The generated output types say what the spec's `output:` says: for every tool with a
//! hand-written handler, its output struct's JSON Schema (schemars, from the Rust types and
//! their serde names) has exactly the spec's fields, each with the spec's type, nullability,
//! enum values and items, all the way down. (That every result also validates against the
//! advertised outputSchema is checked on each call the paper tests make.)

use codegen::ir::{Object, Ty, TyNode};
use serde_json::Value;
use std::collections::BTreeSet;

fn catalog() -> codegen::ir::Catalog {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join(codegen::SPEC_PATH)).expect("spec");
    codegen::load(&spec).expect("spec is valid")
}

/// A `$ref` into the root's `$defs`, followed.
fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/$defs/");
            resolve(root, &root["$defs"][name])
        }
        None => s,
    }
}

/// The schema without its `null` alternative, and whether it had one.
fn split_null<'a>(root: &'a Value, s: &'a Value) -> (Value, bool) {
    let s = resolve(root, s);
    if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
        let is_null = |v: &Value| v.get("type") == Some(&Value::from("null"));
        let rest: Vec<&Value> = any.iter().filter(|v| !is_null(v)).collect();
        if rest.len() == 1 && rest.len() < any.len() {
            return (resolve(root, rest[0]).clone(), true);
        }
    }
    let mut s = s.clone();
    let nullable = match s.get("type").cloned() {
        Some(Value::Array(types)) => {
            let rest: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
            let had = s["type"].as_array().map_or(0, Vec::len) > rest.len();
            s["type"] = match rest.as_slice() {
                [one] => one.clone(),
                _ => Value::Array(rest),
            };
            had
        }
        _ => false,
    };
    let mut null_value = false;
    if let Some(Value::Array(values)) = s.get_mut("enum") {
        let before = values.len();
        values.retain(|v| !v.is_null());
        null_value = values.len() < before;
    }
    (s, nullable || null_value)
}

/// The string values an enum schema allows (`enum`, or `oneOf` of `const`s).
fn enum_values(root: &Value, s: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        out.extend(values.iter().filter_map(|v| v.as_str().map(str::to_string)));
    }
    for alt in s
        .get("oneOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let alt = resolve(root, alt);
        if let Some(c) = alt.get("const").and_then(Value::as_str) {
            out.insert(c.to_string());
        }
        out.extend(enum_values(root, alt));
    }
    out
}

fn check_node(root: &Value, n: &TyNode, schema: &Value, at: &str, problems: &mut Vec<String>) {
    let (s, nullable) = split_null(root, schema);
    if matches!(n.ty, Ty::Any) || matches!(&n.ty, Ty::Object(o) if o.model.is_some()) {
        // Carried as any value: the answer model's own tests hold its shape.
        if !(s == Value::Bool(true) || s.as_object().is_some_and(|m| m.get("type").is_none())) {
            problems.push(format!("{at}: a carried answer, not {s}"));
        }
        return;
    }
    if nullable != n.nullable {
        problems.push(format!(
            "{at}: nullable is {nullable}, the spec says {}",
            n.nullable
        ));
    }
    let ty = s.get("type").and_then(Value::as_str).unwrap_or("");
    let want = match &n.ty {
        Ty::String { .. } | Ty::DateTime | Ty::Decimal { .. } | Ty::Date | Ty::Enum { .. } => {
            "string"
        }
        Ty::Integer { .. } => "integer",
        Ty::Boolean => "boolean",
        Ty::Array { .. } => "array",
        Ty::Object(_) => "object",
        Ty::Any => unreachable!("handled above"),
    };
    if ty != want {
        problems.push(format!("{at}: type {ty:?}, the spec says {want}"));
        return;
    }
    match &n.ty {
        Ty::Enum { values, .. } => {
            let have = enum_values(root, &s);
            let want: BTreeSet<String> = values.iter().cloned().collect();
            if have != want {
                problems.push(format!("{at}: values {have:?}, the spec says {want:?}"));
            }
        }
        Ty::Array { items, .. } => {
            check_node(root, items, &s["items"], &format!("{at}[]"), problems);
        }
        Ty::Object(o) => check_object(root, o, &s, at, problems),
        _ => {}
    }
}

fn check_object(root: &Value, o: &Object, s: &Value, at: &str, problems: &mut Vec<String>) {
    let s = resolve(root, s);
    let props = s["properties"].as_object().cloned().unwrap_or_default();
    let have: BTreeSet<&str> = props.keys().map(String::as_str).collect();
    let want: BTreeSet<&str> = o.fields.iter().map(|f| f.name.as_str()).collect();
    if have != want {
        problems.push(format!("{at}: fields {have:?}, the spec says {want:?}"));
    }
    let required: BTreeSet<&str> = s["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for f in &o.fields {
        let path = format!("{at}.{}", f.name);
        // Every output field is always written; schemars leaves only an Option out of
        // `required`.
        if !f.node.nullable && !required.contains(f.name.as_str()) {
            problems.push(format!("{path}: not required"));
        }
        if let Some(p) = props.get(&f.name) {
            check_node(root, &f.node, p, &path, problems);
        }
    }
}

#[test]
fn every_hand_written_tool_has_an_output_type_that_matches_its_output_schema() {
    let catalog = catalog();
    let schemas = runtime::outputs::schemas();
    let hand: Vec<&codegen::ir::Tool> = catalog
        .tools
        .iter()
        .filter(|t| !t.binding.as_ref().is_some_and(|b| b.generated_handler))
        .collect();
    assert_eq!(
        schemas
            .iter()
            .map(|(name, _)| *name)
            .collect::<BTreeSet<_>>(),
        hand.iter()
            .map(|t| t.name.as_str())
            .collect::<BTreeSet<_>>(),
        "one output type per tool with a hand-written handler"
    );
    let mut problems = Vec::new();
    for (name, schema) in &schemas {
        let tool = hand.iter().find(|t| t.name == *name).expect("listed");
        let root = schema.as_value();
        if tool.output.model.is_some() {
            // The whole output is a carried answer: the model's own tests hold its shape.
            if root.get("type").is_some() {
                problems.push(format!("{name}: a carried answer, not {root}"));
            }
            continue;
        }
        check_object(root, &tool.output, root, name, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_check_finds_a_field_the_spec_lacks() {
    let catalog = catalog();
    let tool = catalog
        .tools
        .iter()
        .find(|t| t.name == "delete_alerts")
        .expect("delete_alerts");
    let mut output = tool.output.clone();
    output.fields.retain(|f| f.name != "journal_id");
    let schemas = runtime::outputs::schemas();
    let (_, schema) = schemas
        .iter()
        .find(|(n, _)| *n == "delete_alerts")
        .expect("schema");
    let mut problems = Vec::new();
    check_object(
        schema.as_value(),
        &output,
        schema.as_value(),
        "delete_alerts",
        &mut problems,
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
}

#[test]
fn the_check_reaches_nested_nullability_and_enum_values() {
    let catalog = catalog();
    let tool = catalog
        .tools
        .iter()
        .find(|t| t.name == "list_order_journal")
        .expect("list_order_journal");
    let mut output = tool.output.clone();
    let Ty::Array { items, .. } = &mut output.fields[0].node.ty else {
        panic!("entries is a list");
    };
    let Ty::Object(entry) = &mut items.ty else {
        panic!("of journal entries");
    };
    for f in &mut entry.fields {
        match (f.name.as_str(), &mut f.node.ty) {
            ("outcome", Ty::Object(outcome)) => {
                let at = outcome.fields.iter_mut().find(|f| f.name == "at");
                at.expect("outcome.at").node.nullable = false;
            }
            ("kind", Ty::Enum { values, .. }) => {
                values.pop();
            }
            _ => {}
        }
    }
    let schemas = runtime::outputs::schemas();
    let (_, schema) = schemas
        .iter()
        .find(|(n, _)| *n == "list_order_journal")
        .expect("schema");
    let mut problems = Vec::new();
    let root = schema.as_value();
    check_object(root, &output, root, "list_order_journal", &mut problems);
    // The enum's values; the field is an Option where the spec wants a value always there
    // (so also not required).
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0].contains("entries[].kind: values"),
        "{problems:?}"
    );
    assert!(
        problems[1].contains("entries[].outcome.at: not required"),
        "{problems:?}"
    );
    assert!(
        problems[2].contains("entries[].outcome.at: nullable"),
        "{problems:?}"
    );
}
