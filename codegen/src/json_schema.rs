//! JSON Schema (draft 2020-12) for tool inputs and result envelopes.
//!
//! Input schemas are advertised as written: the model reads them. Output schemas exist in two
//! forms that accept exactly the same results: the documented one ([`documented_output_schema`],
//! with descriptions and `required` lists; `generated/schemas/` and the docs) and the compact
//! one advertised in tools/list ([`output_schema`], its [`compact`] form). Every tool's output
//! schema is sent with each tools/list and hosts read it only to validate `structuredContent`,
//! so the advertised form spends no bytes on prose or on spellings that validate the same.
//!
//! Input schemas are inlined (no `$ref`): some MCP clients do not resolve references in
//! them, and a model reads them best whole. An advertised output schema may refer to its own
//! `$defs` (`#/$defs/Name`, nothing outside the document): hosts only hand it to a JSON
//! Schema validator (Ajv in the TypeScript SDK, `jsonschema` in the Python SDK and here), and
//! those resolve local references; a subschema used several times is then sent once.

use crate::ir::{Catalog, Compact, DATE_PATTERN, DECIMAL_PATTERN, Object, Tool, Ty, TyNode};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy)]
enum Side {
    Input,
    Output,
}

/// Decimal strings in results: any length the broker sends.
const OUTPUT_DECIMAL_PATTERN: &str = "^-?[0-9]+(\\.[0-9]+)?$";

/// An input enum of more values than this is advertised by the shape of its values, and the
/// field's description names the common ones: a list of 85 E*TRADE column names costs every
/// conversation about a kilobyte and tells a model less than "e.g. MARKET_VALUE". The server
/// still accepts exactly the listed values, and says so in a typed `invalid_choice` error.
pub const LONGEST_LISTED_ENUM: usize = 32;

/// The tools whose errors may carry `alert_deletion_result`: the runtime fills it in only when
/// E*TRADE deletes some of the alerts `delete_alerts` named (`Desk::delete_alerts`); every
/// other tool's error has it null, and its schema says so.
pub const ALERT_DELETION_TOOLS: &[&str] = &["delete_alerts"];

/// The advertised `inputSchema`: canonical field names only.
pub fn input_schema(tool: &Tool) -> Value {
    object(&tool.input, Side::Input)
}

/// The advertised `outputSchema`: [`documented_output_schema`] in its [`compact`] form, with
/// repeated subschemas written once (see [`share_repeats`]).
pub fn output_schema(catalog: &Catalog, tool: &Tool) -> Value {
    share_repeats(compact(&documented_output_schema(catalog, tool)))
}

/// The whole `{data, error, meta}` envelope, so success and failure results both validate;
/// with the spec's descriptions, for people.
pub fn documented_output_schema(catalog: &Catalog, tool: &Tool) -> Value {
    let mut data = object(&tool.output, Side::Output);
    if let Some(c) = &tool.compact {
        let row = compact_row(c);
        for path in &c.rows {
            offer_compact_rows(&mut data, path, &row);
        }
    }
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

/// A compact row (`detail: compact`): the listed keys with the full row's types, each left
/// out rather than null.
fn compact_row(c: &Compact) -> Value {
    let mut props = Map::new();
    for f in &c.fields {
        props.insert(f.name.clone(), node(&f.node, Side::Output));
    }
    json!({
        "type": "object",
        "description": "A compact row (detail: compact): null values are left out.",
        "properties": props,
        "additionalProperties": false,
    })
}

/// The rows at `path` (arrays walked into their items) may be full or compact.
fn offer_compact_rows(schema: &mut Value, path: &[String], row: &Value) {
    let mut at = schema;
    for key in path {
        let Some(next) = at.pointer_mut(&format!("/properties/{key}")) else {
            return;
        };
        at = next;
        while at.get("items").is_some() {
            let Some(items) = at.get_mut("items") else {
                return;
            };
            at = items;
        }
    }
    let full = at.take();
    *at = json!({ "anyOf": [full, row] });
}

fn error_schema(catalog: &Catalog, tool: &Tool) -> Value {
    let codes: Vec<&str> = catalog
        .error_codes
        .iter()
        .filter(|c| tool.errors.contains(&c.code))
        .map(|c| c.code.as_str())
        .collect();
    let alert_deletion_result = if ALERT_DELETION_TOOLS.contains(&tool.name.as_str()) {
        json!({
            "description": "Which alerts were and were not deleted, when E*TRADE deleted only some.",
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
        })
    } else {
        json!({ "description": "Only delete_alerts fills this in.", "type": "null" })
    };
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
            "alert_deletion_result": alert_deletion_result
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

/// A pattern of one character class repeated (`^[A-Za-z0-9_-]+$`) with both length bounds,
/// written as the class with those bounds (`^[A-Za-z0-9_-]{1,64}$`): each match of the class
/// is one character, as JSON Schema counts length, so it admits exactly the same strings, and
/// says the limits where the reader already looks.
fn bounded_class(pattern: &str, min: Option<u64>, max: Option<u64>) -> Option<String> {
    let class = pattern.strip_prefix("^[")?.strip_suffix("]+$")?;
    if class.is_empty() || class.contains(['[', ']', '\\']) || class.starts_with('^') {
        return None;
    }
    let min = min.unwrap_or(1).max(1);
    let max = max?;
    (min <= max).then(|| format!("^[{class}]{{{min},{max}}}$"))
}

/// `^[A-Z0-9_]{2,21}$` for a list of upper-case E*TRADE names: the characters the values use,
/// as ranges where they fill one, and the lengths they span.
fn value_shape(values: &[String]) -> String {
    let mut used: Vec<char> = values.iter().flat_map(|v| v.chars()).collect();
    used.sort_unstable();
    used.dedup();
    let mut class = String::new();
    for (range, first, last) in [("A-Z", 'A', 'Z'), ("a-z", 'a', 'z'), ("0-9", '0', '9')] {
        if used.iter().any(|c| (first..=last).contains(c)) {
            class.push_str(range);
        }
    }
    for c in used.iter().filter(|c| !c.is_ascii_alphanumeric()) {
        if matches!(c, '\\' | ']' | '^' | '-' | '[') {
            class.push('\\');
        }
        class.push(*c);
    }
    let lengths = values.iter().map(|v| v.chars().count());
    let (min, max) = (
        lengths.clone().min().unwrap_or(0),
        lengths.max().unwrap_or(0),
    );
    format!("^[{class}]{{{min},{max}}}$")
}

fn ty(t: &Ty, side: Side) -> Value {
    match t {
        Ty::String {
            min_length,
            max_length,
            pattern,
            ..
        } => {
            let mut m = Map::new();
            m.insert("type".into(), "string".into());
            if let Some(p) = pattern
                .as_deref()
                .and_then(|p| bounded_class(p, *min_length, *max_length))
            {
                m.insert("pattern".into(), p.into());
                return Value::Object(m);
            }
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
        Ty::Enum { values, .. }
            if matches!(side, Side::Input) && values.len() > LONGEST_LISTED_ENUM =>
        {
            json!({ "type": "string", "pattern": value_shape(values) })
        }
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

/// Properties with byte-identical schemas are grouped into one `patternProperties` entry from
/// this many on.
const GROUP_MIN: usize = 2;

/// An equivalent schema — one that accepts exactly the instances `schema` accepts — without
/// descriptions, and with the shorter spellings below. Subschemas are compacted first.
///
/// - `required` naming every property of an object with `additionalProperties: false`
///   becomes `minProperties`: its keys are a subset of the declared ones, so at least as many
///   keys means all of them.
/// - Properties sharing a schema become one `patternProperties` entry `^(a|b|c)$`. Names are
///   plain identifiers (others stay in `properties`), so the anchored alternation matches
///   exactly those names, and the entries stay disjoint from `properties`.
/// - `anyOf: [S, {type: null}]` becomes S with `null` added to its `type` when all of S's
///   other keywords apply only to S's type (and so ignore null).
/// - `type` is dropped beside an `enum` whose every value already has that type.
///
/// Keywords not listed in [`subschema_keywords`] are copied unchanged.
pub fn compact(schema: &Value) -> Value {
    let Value::Object(m) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (k, v) in m {
        let v = match (k.as_str(), v) {
            // An annotation: it never changes what validates.
            ("description", Value::String(_)) => continue,
            (k, Value::Object(map)) if SCHEMA_MAPS.contains(&k) => Value::Object(
                map.iter()
                    .map(|(name, s)| (name.clone(), compact(s)))
                    .collect(),
            ),
            (k, Value::Array(list)) if SCHEMA_LISTS.contains(&k) => {
                Value::Array(list.iter().map(compact).collect())
            }
            (k, s) if SCHEMAS.contains(&k) => compact(s),
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    if let Some(folded) = fold_null_branch(&out) {
        return folded;
    }
    drop_implied_type(&mut out);
    required_to_min_properties(&mut out);
    group_properties(&mut out);
    Value::Object(out)
}

/// Keywords whose value is a map of name → subschema.
const SCHEMA_MAPS: [&str; 4] = [
    "properties",
    "patternProperties",
    "$defs",
    "dependentSchemas",
];
/// Keywords whose value is a list of subschemas.
const SCHEMA_LISTS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value is one subschema.
const SCHEMAS: [&str; 9] = [
    "items",
    "additionalProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
];

/// The keywords that constrain only instances of a type, and so accept every other value.
fn applies_only_to(ty: &str, keyword: &str) -> bool {
    let keywords: &[&str] = match ty {
        "object" => &[
            "properties",
            "patternProperties",
            "additionalProperties",
            "required",
            "minProperties",
            "maxProperties",
            "propertyNames",
        ],
        "array" => &[
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "uniqueItems",
        ],
        "string" => &["minLength", "maxLength", "pattern", "format"],
        "integer" | "number" => &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
        _ => &[],
    };
    keywords.contains(&keyword)
}

/// `{anyOf: [S, {type: null}]}` (either order, nothing else beside) as S accepting null too.
fn fold_null_branch(m: &Map<String, Value>) -> Option<Value> {
    let null = json!({ "type": "null" });
    let Some(Value::Array(branches)) = m.get("anyOf") else {
        return None;
    };
    let other = match branches.as_slice() {
        [s, n] | [n, s] if m.len() == 1 && *n == null && *s != null => s.as_object()?,
        _ => return None,
    };
    let ty = other.get("type")?.as_str()?;
    if !other.keys().all(|k| k == "type" || applies_only_to(ty, k)) {
        return None;
    }
    let mut folded = other.clone();
    folded.insert("type".into(), json!([ty, "null"]));
    Some(Value::Object(folded))
}

/// Drop `type` when the `enum` beside it already admits only values of that type.
fn drop_implied_type(m: &mut Map<String, Value>) {
    let (Some(Value::Array(values)), Some(ty)) = (m.get("enum"), m.get("type")) else {
        return;
    };
    let types: Vec<&str> = match ty {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return,
    };
    if values.iter().all(|v| types.iter().any(|t| has_type(v, t))) {
        m.remove("type");
    }
}

fn has_type(v: &Value, ty: &str) -> bool {
    match ty {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

/// `required: [every property]` under `additionalProperties: false` as `minProperties`.
fn required_to_min_properties(m: &mut Map<String, Value>) {
    if m.get("additionalProperties") != Some(&Value::Bool(false))
        || m.contains_key("patternProperties")
        || m.contains_key("minProperties")
    {
        return;
    }
    let (Some(Value::Object(props)), Some(Value::Array(required))) =
        (m.get("properties"), m.get("required"))
    else {
        return;
    };
    let named: BTreeSet<&str> = required.iter().filter_map(Value::as_str).collect();
    let declared: BTreeSet<&str> = props.keys().map(String::as_str).collect();
    if named.is_empty() || named.len() != required.len() || named != declared {
        return;
    }
    let n = named.len();
    m.remove("required");
    m.insert("minProperties".into(), n.into());
}

/// Properties with one schema, [`GROUP_MIN`] or more, as one `patternProperties` entry.
fn group_properties(m: &mut Map<String, Value>) {
    if m.contains_key("patternProperties") {
        return;
    }
    let Some(Value::Object(props)) = m.get("properties") else {
        return;
    };
    let mut by_schema: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, s) in props {
        if is_plain_name(name) {
            by_schema.entry(s.to_string()).or_default().push(name);
        }
    }
    let mut kept = props.clone();
    let mut patterns = Map::new();
    for names in by_schema.values().filter(|n| n.len() >= GROUP_MIN) {
        let schema = kept.get(names[0]).cloned().unwrap_or(Value::Bool(true));
        for n in names {
            kept.remove(*n);
        }
        patterns.insert(anchored_alternation(names), schema);
    }
    if patterns.is_empty() {
        return;
    }
    if kept.is_empty() {
        m.remove("properties");
    } else {
        m.insert("properties".into(), Value::Object(kept));
    }
    m.insert("patternProperties".into(), Value::Object(patterns));
}

/// A pattern matching exactly `names` (plain names, see [`is_plain_name`]) and nothing else,
/// with shared prefixes written once: `^(ask(Size)?|bid)$` for `ask`, `askSize` and `bid`.
fn anchored_alternation(names: &[&str]) -> String {
    let mut words: Vec<&str> = names.to_vec();
    words.sort_unstable();
    words.dedup();
    let (body, alternation) = alternation(&words);
    if alternation {
        format!("^({body})$")
    } else {
        format!("^{body}$")
    }
}

/// A regular expression for exactly `words` (sorted, distinct; "" allowed), and whether it is
/// an alternation at its top level (and so needs parentheses before anything is appended).
fn alternation(words: &[&str]) -> (String, bool) {
    let empty = words.first() == Some(&"");
    let rest = if empty { &words[1..] } else { words };
    let mut branches = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let first = rest[i].as_bytes()[0];
        let end = i + rest[i..]
            .iter()
            .take_while(|w| w.as_bytes()[0] == first)
            .count();
        let group = &rest[i..end];
        branches.push(if let [one] = group {
            (*one).to_string()
        } else {
            let prefix = common_prefix(group);
            let tails: Vec<&str> = group.iter().map(|w| &w[prefix.len()..]).collect();
            let (tail, alternation) = alternation(&tails);
            if alternation {
                format!("{prefix}({tail})")
            } else {
                format!("{prefix}{tail}")
            }
        });
        i = end;
    }
    let body = branches.join("|");
    match (empty, branches.len()) {
        (false, n) => (body, n > 1),
        (true, 0) => (String::new(), false),
        (true, 1) if body.len() == 1 => (format!("{body}?"), false),
        (true, _) => (format!("({body})?"), false),
    }
}

/// The longest prefix all of `words` share (at least their first byte, as grouped above).
fn common_prefix<'a>(words: &[&'a str]) -> &'a str {
    let first = words[0];
    let mut len = first.len();
    for w in &words[1..] {
        len = first
            .bytes()
            .zip(w.bytes())
            .take(len)
            .take_while(|(a, b)| a == b)
            .count();
    }
    &first[..len]
}

/// Letters, digits and underscores: no character means anything in a regular expression.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `schema` with each subschema that occurs more than once written once, under `$defs`, and
/// referred to as `{"$ref": "#/$defs/name"}` wherever it occurs — when that is shorter. Names
/// are short (`a`, `b`, … `z`, `ba`, …): hosts only hand these schemas to a validator, and the
/// documented form keeps the spec's names for people. Local references only, each alone in
/// its subschema (so draft-07 validators, which ignore a reference's siblings, read it the
/// same). The most bytes are saved first, and the counts are taken again after each choice,
/// so a subschema inside a shared one counts once per place it is still written.
pub fn share_repeats(mut schema: Value) -> Value {
    let mut defs = Map::new();
    loop {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        count_subschemas(&schema, &mut counts);
        for d in defs.values() {
            count_subschemas(d, &mut counts);
        }
        let name = short_name(defs.len());
        let reference = reference_to(&name).to_string().len();
        let best = counts
            .into_iter()
            .filter_map(|(text, n)| {
                // n copies, or n references plus one `"name":{…},` entry (and `"$defs":{},`).
                let entry = name.len() + 4 + text.len() + if defs.is_empty() { 11 } else { 0 };
                let saved = (n * text.len()).checked_sub(n * reference + entry)?;
                (n > 1 && saved > 0).then_some((saved, text))
            })
            .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
        let Some(shared) = best.and_then(|(_, text)| serde_json::from_str::<Value>(&text).ok())
        else {
            break;
        };
        let by = reference_to(&name);
        replace_subschemas(&mut schema, &shared, &by);
        for d in defs.values_mut() {
            replace_subschemas(d, &shared, &by);
        }
        defs.insert(name, shared);
    }
    if let (false, Value::Object(m)) = (defs.is_empty(), &mut schema) {
        m.insert("$defs".into(), Value::Object(defs));
    }
    schema
}

/// `a` … `z`, `ba` … `zz`, `baa` …: the `i`-th name, in base 26 with letters for digits.
fn short_name(mut i: usize) -> String {
    let mut letters = vec![b'a' + (i % 26) as u8];
    i /= 26;
    while i > 0 {
        letters.push(b'a' + (i % 26) as u8);
        i /= 26;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

fn reference_to(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// Each subschema below `v` (not `v` itself), by its JSON text.
fn count_subschemas(v: &Value, counts: &mut BTreeMap<String, usize>) {
    for_each_subschema(v, &mut |s| {
        *counts.entry(s.to_string()).or_default() += 1;
        count_subschemas(s, counts);
    });
}

/// Every subschema below `v` equal to `target` replaced by `by`.
fn replace_subschemas(v: &mut Value, target: &Value, by: &Value) {
    for_each_subschema_mut(v, &mut |s| {
        if s == target {
            *s = by.clone();
        } else {
            replace_subschemas(s, target, by);
        }
    });
}

fn for_each_subschema(v: &Value, f: &mut dyn FnMut(&Value)) {
    let Value::Object(m) = v else { return };
    for (k, x) in m {
        match (k.as_str(), x) {
            (k, Value::Object(map)) if SCHEMA_MAPS.contains(&k) && k != "$defs" => {
                map.values().for_each(&mut *f);
            }
            (k, Value::Array(list)) if SCHEMA_LISTS.contains(&k) => list.iter().for_each(&mut *f),
            (k, s @ Value::Object(_)) if SCHEMAS.contains(&k) => f(s),
            _ => {}
        }
    }
}

fn for_each_subschema_mut(v: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    let Value::Object(m) = v else { return };
    for (k, x) in m.iter_mut() {
        match (k.as_str(), x) {
            (k, Value::Object(map)) if SCHEMA_MAPS.contains(&k) && k != "$defs" => {
                map.values_mut().for_each(&mut *f);
            }
            (k, Value::Array(list)) if SCHEMA_LISTS.contains(&k) => {
                list.iter_mut().for_each(&mut *f);
            }
            (k, s @ Value::Object(_)) if SCHEMAS.contains(&k) => f(s),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validator(schema: &Value) -> jsonschema::Validator {
        jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{e}: {schema}"))
    }

    #[test]
    fn a_long_enum_is_advertised_by_the_shape_of_its_values() {
        let values: Vec<String> = ["SYMBOL", "TOTAL_GAIN_PCT", "WEEK_52_HIGH", "PE_RATIO"]
            .into_iter()
            .map(String::from)
            .collect();
        let shape = value_shape(&values);
        assert_eq!(shape, "^[A-Z0-9_]{6,14}$");
        let v = validator(&json!({ "type": "string", "pattern": shape }));
        for x in &values {
            assert!(v.is_valid(&json!(x)), "{x}");
        }
        for x in ["symbol", "TOTAL GAIN", "X", "A_VERY_LONG_COLUMN_NAME"] {
            assert!(!v.is_valid(&json!(x)), "{x}");
        }
        let odd: Vec<String> = ["a-b", "c]d", "e^f"]
            .into_iter()
            .map(String::from)
            .collect();
        let v = validator(&json!({ "type": "string", "pattern": value_shape(&odd) }));
        assert!(odd.iter().all(|x| v.is_valid(&json!(x))));
        assert!(!v.is_valid(&json!("a+b")));

        let long: Vec<String> = (0..=LONGEST_LISTED_ENUM).map(|i| format!("V{i}")).collect();
        let short = long[..LONGEST_LISTED_ENUM].to_vec();
        let schema = |values: &[String], side| {
            ty(
                &Ty::Enum {
                    rust_name: "E".into(),
                    values: values.to_vec(),
                    vocabulary: None,
                },
                side,
            )
        };
        assert!(schema(&long, Side::Input).get("enum").is_none());
        assert!(
            schema(&long, Side::Output).get("enum").is_some(),
            "outputs stay exact"
        );
        assert!(schema(&short, Side::Input).get("enum").is_some());
    }

    #[test]
    fn a_bounded_class_admits_exactly_the_bounded_strings() {
        let folded = bounded_class("^[A-Za-z0-9_-]+$", Some(1), Some(64)).expect("folds");
        assert_eq!(folded, "^[A-Za-z0-9_-]{1,64}$");
        let written = json!({
            "type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z0-9_-]+$"
        });
        let (w, f) = (
            validator(&written),
            validator(&json!({ "type": "string", "pattern": folded })),
        );
        let mut accepted = 0;
        for len in 0..70 {
            for fill in ["a", "_", "é", "$", "\n"] {
                let x = Value::from(fill.repeat(len));
                assert_eq!(w.is_valid(&x), f.is_valid(&x), "{x}");
                accepted += usize::from(w.is_valid(&x));
            }
        }
        assert_eq!(accepted, 128, "a and _ at every length from 1 to 64");
        assert_eq!(
            bounded_class("^[0-9]+$", None, Some(32)).as_deref(),
            Some("^[0-9]{1,32}$")
        );
        assert_eq!(
            bounded_class("^[0-9]+$", Some(3), None),
            None,
            "no upper bound"
        );
        assert_eq!(
            bounded_class("^[^a]+$", Some(1), Some(4)),
            None,
            "negated class"
        );
        assert_eq!(
            bounded_class("^[a]+[b]+$", Some(1), Some(4)),
            None,
            "two classes"
        );
    }

    /// The documented and compact forms accept and reject each instance alike; returns how
    /// many were accepted, so a test can show it exercised both outcomes.
    fn agree(documented: &Value, instances: &[Value]) -> usize {
        let compacted = compact(documented);
        let (d, c) = (validator(documented), validator(&compacted));
        let mut accepted = 0;
        for x in instances {
            let ok = d.is_valid(x);
            assert_eq!(
                ok,
                c.is_valid(x),
                "{x}\ndocumented: {documented}\ncompact: {compacted}"
            );
            accepted += usize::from(ok);
        }
        accepted
    }

    #[test]
    fn required_naming_every_property_becomes_min_properties() {
        let s = json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["a", "b"],
            "properties": { "a": { "type": "string" }, "b": { "type": ["integer", "null"] } }
        });
        let c = compact(&s);
        assert_eq!(c["minProperties"], 2);
        assert!(c.get("required").is_none());
        let cases = [
            json!({"a": "x", "b": 1}),
            json!({"a": "x", "b": null}),
            json!({"a": "x"}),
            json!({"b": 1}),
            json!({}),
            json!({"a": "x", "b": 1, "c": 2}),
            json!({"a": "x", "c": 2}),
            json!({"a": 1, "b": 1}),
            json!({"a": "x", "b": "1"}),
            json!({"a": null, "b": 1}),
            json!(null),
            json!("ab"),
            json!([1, 2]),
        ];
        assert_eq!(agree(&s, &cases), 2);
    }

    #[test]
    fn required_is_kept_unless_it_names_every_property_of_a_closed_object() {
        let partial = json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["a"],
            "properties": { "a": { "type": "string" }, "b": { "type": "integer" } }
        });
        assert_eq!(compact(&partial)["required"], json!(["a"]));
        let open = json!({
            "type": "object",
            "required": ["a"],
            "properties": { "a": { "type": "string" } }
        });
        assert_eq!(compact(&open)["required"], json!(["a"]));
        let cases = [
            json!({"a": "x"}),
            json!({"a": "x", "b": 1}),
            json!({"b": 1}),
            json!({"a": "x", "c": 1}),
        ];
        assert_eq!(agree(&partial, &cases), 2);
        assert_eq!(agree(&open, &cases), 3);
    }

    #[test]
    fn properties_sharing_a_schema_become_one_anchored_pattern() {
        let s = json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["ask", "bid", "last", "volume"],
            "properties": {
                "ask": { "type": ["string", "null"], "pattern": "^[0-9]+$" },
                "bid": { "type": ["string", "null"], "pattern": "^[0-9]+$" },
                "last": { "type": ["string", "null"], "pattern": "^[0-9]+$" },
                "volume": { "type": "integer" }
            }
        });
        let c = compact(&s);
        assert_eq!(
            c["patternProperties"]["^(ask|bid|last)$"],
            json!({ "type": ["string", "null"], "pattern": "^[0-9]+$" })
        );
        assert_eq!(c["properties"], json!({ "volume": { "type": "integer" } }));
        let ok = json!({"ask": "1", "bid": null, "last": "2", "volume": 3});
        let mut cases = vec![ok.clone()];
        for key in ["ask", "volume"] {
            let mut missing = ok.clone();
            missing.as_object_mut().map(|m| m.remove(key));
            cases.push(missing.clone());
            // A near miss of a grouped name is an extra key, not a match.
            for near in [
                format!("{key}\n"),
                format!("{key}x"),
                format!("x{key}"),
                format!("{key}|"),
                "ask|bid".to_string(),
                String::new(),
            ] {
                let mut renamed = missing.clone();
                renamed[near.as_str()] = ok[key].clone();
                cases.push(renamed);
            }
        }
        let mut extra = ok.clone();
        extra["spread"] = json!("1");
        cases.push(extra);
        for (key, bad) in [
            ("bid", json!(1)),
            ("bid", json!("1.5")),
            ("volume", json!(null)),
        ] {
            let mut wrong = ok.clone();
            wrong[key] = bad;
            cases.push(wrong);
        }
        assert_eq!(agree(&s, &cases), 1);
    }

    #[test]
    fn only_plain_names_are_grouped() {
        let s = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "a.b": { "type": "string" },
                "a|b": { "type": "string" },
                "ab": { "type": "string" },
                "a": { "type": "string" }
            }
        });
        let c = compact(&s);
        assert_eq!(
            c["patternProperties"],
            json!({ "^ab?$": { "type": "string" } })
        );
        assert!(c["properties"].get("a.b").is_some() && c["properties"].get("a|b").is_some());
        let cases = [
            json!({"a.b": "x", "a|b": "x", "ab": "x", "a": "x"}),
            json!({"aXb": "x"}),
            json!({"a": "x", "b": "x"}),
            json!({"a.b": 1}),
        ];
        assert_eq!(agree(&s, &cases), 1);
    }

    #[test]
    fn a_null_branch_folds_into_type_only_beside_type_specific_keywords() {
        let object = json!({ "anyOf": [
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["deleted"],
                "properties": { "deleted": { "type": "array", "items": { "type": "integer" } } }
            },
            { "type": "null" }
        ]});
        let c = compact(&object);
        assert_eq!(c["type"], json!(["object", "null"]));
        assert!(c.get("anyOf").is_none());
        let cases = [
            json!(null),
            json!({"deleted": [1]}),
            json!({"deleted": []}),
            json!({}),
            json!({"deleted": [1], "failed": []}),
            json!({"deleted": ["1"]}),
            json!({"deleted": null}),
            json!([]),
            json!("x"),
            json!(0),
        ];
        assert_eq!(agree(&object, &cases), 3);
        // `enum` does not ignore null: the branch stays.
        let listed = json!({ "anyOf": [{ "type": "string", "enum": ["a"] }, { "type": "null" }] });
        assert!(compact(&listed).get("anyOf").is_some());
        let constant = json!({ "anyOf": [{ "type": "string", "const": "a" }, { "type": "null" }] });
        assert!(compact(&constant).get("anyOf").is_some());
        assert_eq!(
            agree(&constant, &[json!("a"), json!(null), json!("b"), json!(1)]),
            2
        );
    }

    #[test]
    fn an_enum_implies_its_type() {
        let plain = json!({ "type": "string", "enum": ["paper", "sandbox"] });
        assert_eq!(compact(&plain), json!({ "enum": ["paper", "sandbox"] }));
        let nullable = json!({ "type": ["string", "null"], "enum": ["paper", null] });
        assert_eq!(compact(&nullable), json!({ "enum": ["paper", null] }));
        // A value of another type keeps `type`, which rejects it.
        let mixed = json!({ "type": "string", "enum": ["1", 1] });
        assert_eq!(compact(&mixed), mixed);
        let cases = [
            json!("paper"),
            json!("sandbox"),
            json!(null),
            json!("Paper"),
            json!(1),
            json!("1"),
            json!(["paper"]),
        ];
        assert_eq!(agree(&plain, &cases), 2);
        assert_eq!(agree(&nullable, &cases), 2);
        assert_eq!(agree(&mixed, &cases), 1);
    }

    #[test]
    fn descriptions_go_but_a_property_named_description_stays() {
        let s = json!({
            "type": "object",
            "description": "A broker message.",
            "additionalProperties": false,
            "required": ["description"],
            "properties": {
                "description": { "type": "string", "description": "The text." }
            }
        });
        let c = compact(&s);
        assert_eq!(
            c,
            json!({
                "type": "object",
                "additionalProperties": false,
                "minProperties": 1,
                "properties": { "description": { "type": "string" } }
            })
        );
        let cases = [
            json!({"description": "x"}),
            json!({"description": 1}),
            json!({}),
            json!({"description": "x", "text": "y"}),
        ];
        assert_eq!(agree(&s, &cases), 1);
    }

    fn catalog() -> Catalog {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../", "spec/tools.yaml");
        let text = std::fs::read_to_string(path).expect("spec/tools.yaml");
        crate::load(&text).expect("the spec is valid")
    }

    /// A value the (documented) schema accepts: every property, the first non-null branch.
    fn sample(s: &Value) -> Value {
        if let Some(Value::Array(values)) = s.get("enum") {
            return values
                .iter()
                .find(|v| !v.is_null())
                .cloned()
                .unwrap_or(Value::Null);
        }
        if let Some(Value::Array(branches)) = s.get("anyOf") {
            let branch = branches.iter().find(|b| b["type"] != "null");
            return branch.map_or(Value::Null, sample);
        }
        let ty = match s.get("type") {
            Some(Value::Array(ts)) => ts.iter().find(|t| *t != "null").cloned(),
            other => other.cloned(),
        };
        match ty.as_ref().and_then(Value::as_str) {
            Some("object") => Value::Object(
                s["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), sample(v)))
                    .collect(),
            ),
            Some("array") => {
                let n = s["minItems"].as_u64().unwrap_or(1).max(1);
                Value::Array((0..n).map(|_| sample(&s["items"])).collect())
            }
            Some("string") if s["format"] == "date-time" => "2026-10-17T12:00:00Z".into(),
            Some("string") => {
                let pattern = s["pattern"].as_str().unwrap_or("");
                let re = regex_lite::Regex::new(pattern).expect("pattern");
                [
                    "12.5",
                    "2026-10-17",
                    "123",
                    "AAPL",
                    "JIdOIAcSpwR1Jva7RQBraQ",
                ]
                .into_iter()
                .find(|c| re.is_match(c))
                .unwrap_or("x")
                .into()
            }
            Some("integer") => s["minimum"].as_i64().unwrap_or(1).into(),
            Some("boolean") => true.into(),
            Some("null") => Value::Null,
            _ => "anything".into(),
        }
    }

    /// `base` with one change at one place each: a key removed, renamed or added, a value
    /// replaced by one of another type (or null, or a malformed string), an item added.
    fn mutations(base: &Value) -> Vec<Value> {
        let mut out = Vec::new();
        mutate(base, &mut |v| v.clone(), &mut out);
        out
    }

    fn mutate(v: &Value, rebuild: &mut dyn FnMut(&Value) -> Value, out: &mut Vec<Value>) {
        let replacements = [
            json!(null),
            json!(7),
            json!(1.5),
            json!("x!"),
            json!(""),
            json!(true),
            json!({}),
            json!([]),
        ];
        for r in replacements.iter().filter(|r| *r != v) {
            out.push(rebuild(r));
        }
        match v {
            Value::Object(m) => {
                let mut extra = m.clone();
                extra.insert("zz_extra".into(), json!(1));
                out.push(rebuild(&Value::Object(extra)));
                for (k, x) in m {
                    let mut missing = m.clone();
                    missing.remove(k);
                    out.push(rebuild(&Value::Object(missing.clone())));
                    let mut renamed = missing.clone();
                    renamed.insert(format!("{k}\n"), x.clone());
                    out.push(rebuild(&Value::Object(renamed)));
                    let mut inner = |y: &Value| {
                        let mut m2 = m.clone();
                        m2.insert(k.clone(), y.clone());
                        rebuild(&Value::Object(m2))
                    };
                    mutate(x, &mut inner, out);
                }
            }
            Value::Array(items) => {
                if let Some(first) = items.first() {
                    let mut longer = items.clone();
                    longer.push(first.clone());
                    out.push(rebuild(&Value::Array(longer)));
                    let mut inner = |y: &Value| {
                        let mut l = items.clone();
                        l[0] = y.clone();
                        rebuild(&Value::Array(l))
                    };
                    mutate(first, &mut inner, out);
                }
            }
            _ => {}
        }
    }

    /// Every tool's advertised output schema accepts exactly what its documented one does, on
    /// a full result and on every one-change variant of it.
    #[test]
    fn every_advertised_output_schema_agrees_with_the_documented_one() {
        let catalog = catalog();
        let mut rejected = 0;
        for tool in &catalog.tools {
            let documented = documented_output_schema(&catalog, tool);
            let advertised = output_schema(&catalog, tool);
            let (d, a) = (validator(&documented), validator(&advertised));
            let full = sample(&documented);
            assert!(d.is_valid(&full), "{}: {full}", tool.name);
            assert!(a.is_valid(&full), "{}: {full}", tool.name);
            assert!(!input_schema(tool).to_string().contains("$ref"));
            assert_references_resolve(&advertised, &advertised);
            // Among them: `data` null (an error result) and `error` null (a success).
            for x in mutations(&full) {
                let ok = d.is_valid(&x);
                assert_eq!(ok, a.is_valid(&x), "{}: {x}", tool.name);
                rejected += usize::from(!ok);
            }
        }
        assert!(rejected > 5_000, "{rejected}");
    }

    /// Every `$ref` is alone in its subschema and names an entry of the root's `$defs`.
    fn assert_references_resolve(root: &Value, v: &Value) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref") {
                    assert_eq!(m.len(), 1, "{v}");
                    let name = r.as_str().and_then(|r| r.strip_prefix("#/$defs/"));
                    assert!(name.is_some_and(|n| root["$defs"].get(n).is_some()), "{r}");
                }
                m.values().for_each(|x| assert_references_resolve(root, x));
            }
            Value::Array(l) => l.iter().for_each(|x| assert_references_resolve(root, x)),
            _ => {}
        }
    }

    #[test]
    fn repeated_subschemas_are_written_once_under_their_names() {
        let decimal = json!({ "type": ["string", "null"], "pattern": "^-?[0-9]+(\\.[0-9]+)?$" });
        let leg = json!({
            "type": "object",
            "additionalProperties": false,
            "minProperties": 2,
            "properties": { "symbol": { "type": "string" }, "price": decimal }
        });
        let s = json!({
            "type": "object",
            "additionalProperties": false,
            "minProperties": 5,
            "properties": {
                "legs": { "type": "array", "items": leg },
                "closing": { "type": "array", "items": leg, "maxItems": 2 },
                "limit": decimal,
                "stop": decimal,
                "note": { "type": "string" }
            }
        });
        let shared = share_repeats(s.clone());
        assert_references_resolve(&shared, &shared);
        // The leg saves the most, so it is `a`; the decimal, now in it and in two properties,
        // is `b`.
        assert_eq!(
            shared["properties"]["legs"]["items"],
            json!({ "$ref": "#/$defs/a" })
        );
        assert_eq!(
            shared["properties"]["limit"],
            json!({ "$ref": "#/$defs/b" })
        );
        assert_eq!(
            shared["$defs"]["a"]["properties"]["price"],
            json!({ "$ref": "#/$defs/b" })
        );
        // Shorter than a reference: written in place.
        assert_eq!(shared["properties"]["note"], json!({ "type": "string" }));
        assert_eq!(shared["$defs"].as_object().map(Map::len), Some(2));
        assert!(shared.to_string().len() < s.to_string().len());
        let (d, c) = (validator(&s), validator(&shared));
        let leg_ok = json!({"symbol": "AAPL", "price": "1.5"});
        let full =
            json!({"legs": [leg_ok], "closing": [leg_ok], "limit": null, "stop": "2", "note": "x"});
        let mut cases = vec![full.clone()];
        for x in mutations(&full) {
            cases.push(x);
        }
        let mut accepted = 0;
        for x in &cases {
            assert_eq!(d.is_valid(x), c.is_valid(x), "{x}");
            accepted += usize::from(d.is_valid(x));
        }
        assert!(accepted > 1 && accepted < cases.len() / 2, "{accepted}");
        // Nothing repeated: unchanged.
        assert_eq!(share_repeats(leg.clone()), leg);
    }

    #[test]
    fn short_names_are_distinct() {
        let names: BTreeSet<String> = (0..26 * 27 + 3).map(short_name).collect();
        assert_eq!(names.len(), 26 * 27 + 3);
        assert_eq!(
            [0, 25, 26, 27, 26 * 26].map(short_name),
            ["a", "z", "ba", "bb", "baa"]
        );
    }

    /// Each pattern matches its names and nothing else: not a prefix, an extension, a
    /// concatenation or a mix of two of them.
    #[test]
    fn an_alternation_matches_exactly_its_names() {
        let sets: &[&[&str]] = &[
            &["ask", "askSize", "bid", "bidSize"],
            &["expiryDay", "expiryMonth", "expiryYear"],
            &["a", "ab", "abc", "abd", "b"],
            &["x", "y"],
            &[
                "change",
                "changeClose",
                "changeClosePercentage",
                "high",
                "high52",
            ],
            &["only"],
            &["s", "sS"],
        ];
        for names in sets {
            let pattern = anchored_alternation(names);
            let re = regex_lite::Regex::new(&pattern).expect("compiles");
            let set: BTreeSet<&str> = names.iter().copied().collect();
            let mut probes: Vec<String> = vec![String::new(), "z".into()];
            for a in names.iter() {
                assert!(re.is_match(a), "{pattern} matches {a}");
                probes.push(format!("{a}x"));
                probes.push(format!("x{a}"));
                probes.extend((0..a.len()).map(|i| a[..i].to_string()));
                probes.extend((1..a.len()).map(|i| a[i..].to_string()));
                for b in names.iter() {
                    probes.push(format!("{a}{b}"));
                    probes.push(format!("{a}|{b}"));
                    let cut = a.len().min(b.len()) / 2;
                    probes.push(format!("{}{}", &a[..cut], &b[cut..]));
                }
            }
            for p in probes.iter().filter(|p| !set.contains(p.as_str())) {
                assert!(!re.is_match(p), "{pattern} must not match {p:?}");
            }
        }
        assert_eq!(
            anchored_alternation(&["expiryDay", "expiryMonth", "expiryYear"]),
            "^expiry(Day|Month|Year)$"
        );
        assert_eq!(
            anchored_alternation(&["ask", "askSize", "bid"]),
            "^(ask(Size)?|bid)$"
        );
    }
}
