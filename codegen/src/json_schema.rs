//! JSON Schema (draft 2020-12) for tool inputs and result envelopes, as advertised in
//! tools/list. Everything is inlined (no `$ref`): some MCP clients do not resolve references.

use crate::ir::{Catalog, DATE_PATTERN, DECIMAL_PATTERN, Object, Tool, Ty, TyNode};
use serde_json::{Map, Value, json};

#[derive(Clone, Copy)]
enum Side {
    Input,
    Output,
}

/// Decimal strings in results: any length the broker sends.
const OUTPUT_DECIMAL_PATTERN: &str = "^-?[0-9]+(\\.[0-9]+)?$";

/// The advertised `inputSchema`: canonical field names only.
pub fn input_schema(tool: &Tool) -> Value {
    object(&tool.input, Side::Input)
}

/// The advertised `outputSchema`: the whole `{data, error, meta}` envelope, so success and
/// failure results both validate.
pub fn output_schema(catalog: &Catalog, tool: &Tool) -> Value {
    let data = object(&tool.output, Side::Output);
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["data", "error", "meta"],
        "properties": {
            "data": { "anyOf": [data, { "type": "null" }] },
            "error": { "anyOf": [error_schema(catalog, tool), { "type": "null" }] },
            "meta": meta_schema(),
        }
    })
}

fn error_schema(catalog: &Catalog, tool: &Tool) -> Value {
    let codes: Vec<&str> = catalog
        .error_codes
        .iter()
        .filter(|c| tool.errors.contains(&c.code))
        .map(|c| c.code.as_str())
        .collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": [
            "code", "message", "status_code", "broker_code", "broker_message",
            "request_id", "validation_errors", "alert_deletion_result"
        ],
        "properties": {
            "code": { "type": "string", "enum": codes },
            "message": { "type": "string" },
            "status_code": { "type": ["integer", "null"] },
            "broker_code": { "type": ["string", "null"], "pattern": "^[0-9]{1,16}$" },
            "broker_message": { "type": ["string", "null"], "maxLength": 1000 },
            "request_id": { "type": ["string", "null"], "maxLength": 128 },
            "validation_errors": {
                "type": "array",
                "maxItems": 20,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["path", "code", "message"],
                    "properties": {
                        "path": {
                            "type": "array",
                            "maxItems": 16,
                            "items": { "type": ["string", "integer"] }
                        },
                        "code": { "type": "string" },
                        "message": { "type": "string", "maxLength": 256 }
                    }
                }
            },
            "alert_deletion_result": {
                "anyOf": [
                    { "type": "null" },
                    {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["deleted", "failed"],
                        "properties": {
                            "deleted": { "type": "array", "items": { "type": "integer" } },
                            "failed": { "type": "array", "items": { "type": "integer" } }
                        }
                    }
                ]
            }
        }
    })
}

fn meta_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["environment", "profile", "observed_at"],
        "properties": {
            "environment": { "type": "string", "enum": ["paper", "sandbox", "production"] },
            "profile": { "type": "string" },
            "observed_at": { "type": "string", "format": "date-time" }
        }
    })
}

fn object(o: &Object, side: Side) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for f in &o.fields {
        props.insert(f.name.clone(), node(&f.node, side));
        if f.required {
            required.push(Value::String(f.name.clone()));
        }
    }
    for e in &o.extension_fields {
        props.insert(
            e.clone(),
            json!({ "description": "Extension field, passed to the broker unchanged." }),
        );
    }
    let mut m = Map::new();
    m.insert("type".into(), "object".into());
    if let Some(d) = &o.description {
        m.insert("description".into(), d.clone().into());
    }
    m.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        m.insert("required".into(), Value::Array(required));
    }
    m.insert("additionalProperties".into(), false.into());
    Value::Object(m)
}

fn node(n: &TyNode, side: Side) -> Value {
    let mut v = ty(&n.ty, side);
    if let Value::Object(m) = &mut v {
        if let Some(d) = &n.description {
            m.insert("description".into(), d.clone().into());
        }
        if n.nullable {
            make_nullable(m);
        }
    }
    v
}

fn make_nullable(m: &mut Map<String, Value>) {
    match m.get("type").cloned() {
        Some(Value::String(t)) => {
            m.insert("type".into(), json!([t, "null"]));
            if let Some(Value::Array(values)) = m.get_mut("enum") {
                values.push(Value::Null);
            }
        }
        _ => {
            // `any` already admits null.
        }
    }
}

fn ty(t: &Ty, side: Side) -> Value {
    match t {
        Ty::String {
            min_length,
            max_length,
            pattern,
        } => {
            let mut m = Map::new();
            m.insert("type".into(), "string".into());
            if let Some(v) = min_length {
                m.insert("minLength".into(), (*v).into());
            }
            if let Some(v) = max_length {
                m.insert("maxLength".into(), (*v).into());
            }
            if let Some(p) = pattern {
                m.insert("pattern".into(), p.clone().into());
            }
            Value::Object(m)
        }
        Ty::Integer { minimum, maximum } => {
            let mut m = Map::new();
            m.insert("type".into(), "integer".into());
            if let Some(v) = minimum {
                m.insert("minimum".into(), (*v).into());
            }
            if let Some(v) = maximum {
                m.insert("maximum".into(), (*v).into());
            }
            Value::Object(m)
        }
        Ty::Boolean => json!({ "type": "boolean" }),
        Ty::Decimal {
            greater_than,
            less_than,
        } => {
            let mut m = Map::new();
            m.insert("type".into(), "string".into());
            // Inputs are bounded so they fit rust_decimal; outputs say only "a decimal".
            let pattern = match side {
                Side::Input => DECIMAL_PATTERN,
                Side::Output => OUTPUT_DECIMAL_PATTERN,
            };
            m.insert("pattern".into(), pattern.into());
            let mut hint = String::from("Decimal string, e.g. \"10.25\"");
            if let Some(g) = greater_than {
                hint.push_str(&format!("; greater than {g}"));
            }
            if let Some(l) = less_than {
                hint.push_str(&format!("; less than {l}"));
            }
            hint.push('.');
            m.insert("description".into(), hint.into());
            Value::Object(m)
        }
        Ty::Date => json!({ "type": "string", "format": "date", "pattern": DATE_PATTERN }),
        Ty::DateTime => json!({ "type": "string", "format": "date-time" }),
        Ty::Enum { values, .. } => json!({ "type": "string", "enum": values }),
        Ty::Array {
            items,
            min_items,
            max_items,
        } => {
            let mut m = Map::new();
            m.insert("type".into(), "array".into());
            m.insert("items".into(), node(items, side));
            if let Some(v) = min_items {
                m.insert("minItems".into(), (*v).into());
            }
            if let Some(v) = max_items {
                m.insert("maxItems".into(), (*v).into());
            }
            Value::Object(m)
        }
        Ty::Object(o) => object(o, side),
        Ty::Any => json!({}),
    }
}
