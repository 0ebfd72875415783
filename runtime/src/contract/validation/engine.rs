//! The interpreter: check arguments against an [`ObjectSchema`] in one pass, collecting every
//! problem, and return the arguments with canonical field names (aliases resolved).

use super::diagnostics::{Diagnostics, PathSegment, ValidationError};
use super::schema::{FieldSchema, ObjectSchema, TypeKind, TypeSchema};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::str::FromStr;
use std::sync::{OnceLock, RwLock};

/// Decimal syntax; must equal codegen's `DECIMAL_PATTERN` (a generated test compares them).
pub const DECIMAL_PATTERN: &str = "^-?[0-9]{1,20}(\\.[0-9]{1,10})?$";
pub const DATE_PATTERN: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";

const UNKNOWN_FIELD: &str = "Contains a field that is not accepted here.";

/// Validate `args` against `schema`. On success the map has canonical names only.
pub fn validate(
    schema: &ObjectSchema,
    args: Map<String, Value>,
) -> Result<Map<String, Value>, Vec<ValidationError>> {
    let mut d = Diagnostics::default();
    let mut path = Vec::new();
    let out = object(schema, args, &mut path, &mut d);
    if d.is_empty() {
        Ok(out)
    } else {
        Err(d.finish())
    }
}

fn object(
    schema: &ObjectSchema,
    args: Map<String, Value>,
    path: &mut Vec<PathSegment>,
    d: &mut Diagnostics,
) -> Map<String, Value> {
    let mut out = Map::new();
    let mut given: HashMap<&'static str, bool> = HashMap::new();
    let mut failed: HashSet<&'static str> = HashSet::new();
    for (key, value) in args {
        if let Some((f, via_alias)) = find_field(schema, &key) {
            path.push(PathSegment::Key(f.name));
            if given.insert(f.name, via_alias).is_some() {
                d.push(
                    path,
                    "duplicate_field",
                    "Given both under its name and its alias; give it once.",
                );
            } else {
                let before = d.pushed();
                let v = typed(&f.ty, value, path, d);
                if d.pushed() > before {
                    failed.insert(f.name);
                }
                out.insert(f.name.to_string(), v);
            }
            path.pop();
        } else if let Some(ext) = schema.extension_fields.iter().find(|e| **e == key) {
            out.insert((*ext).to_string(), value);
        } else {
            d.push(path, "unknown_field", UNKNOWN_FIELD);
        }
    }
    for f in schema.fields {
        if f.required && !given.contains_key(f.name) {
            path.push(PathSegment::Key(f.name));
            d.push(path, "missing", "Required.");
            path.pop();
        }
    }
    super::rules::check(schema.rules, &out, &failed, path, d);
    out
}

fn find_field<'s>(schema: &'s ObjectSchema, key: &str) -> Option<(&'s FieldSchema, bool)> {
    schema.fields.iter().find_map(|f| {
        if f.name == key {
            Some((f, false))
        } else if f.alias == Some(key) {
            Some((f, true))
        } else {
            None
        }
    })
}

fn typed(ty: &TypeSchema, value: Value, path: &mut Vec<PathSegment>, d: &mut Diagnostics) -> Value {
    if value.is_null() {
        if !ty.nullable && !matches!(ty.kind, TypeKind::Any) {
            d.push(path, "wrong_type", expected(&ty.kind));
        }
        return value;
    }
    match &ty.kind {
        TypeKind::String {
            min_length,
            max_length,
            pattern,
            trim,
        } => {
            let Some(raw) = value.as_str() else {
                d.push(path, "wrong_type", expected(&ty.kind));
                return value;
            };
            let s = if *trim { raw.trim() } else { raw };
            let len = s.chars().count() as u64;
            if let Some(min) = min_length
                && len < *min
            {
                d.push(
                    path,
                    "too_short",
                    format!("Must be at least {min} characters."),
                );
            }
            if let Some(max) = max_length
                && len > *max
            {
                d.push(
                    path,
                    "too_long",
                    format!("Must be at most {max} characters."),
                );
            }
            if let Some(p) = pattern
                && !matches(p, s)
            {
                d.push(path, "pattern", "Does not have the expected format.");
            }
            if s.len() != raw.len() {
                return Value::String(s.to_string());
            }
        }
        TypeKind::Integer { minimum, maximum } => match integer(&value) {
            None => d.push(path, "wrong_type", expected(&ty.kind)),
            Some(n) => {
                if let Some(min) = minimum
                    && n < i128::from(*min)
                {
                    d.push(path, "at_least", format!("Must be at least {min}."));
                }
                if let Some(max) = maximum
                    && n > i128::from(*max)
                {
                    d.push(path, "at_most", format!("Must be at most {max}."));
                }
            }
        },
        TypeKind::Boolean => {
            if !value.is_boolean() {
                d.push(path, "wrong_type", expected(&ty.kind));
            }
        }
        TypeKind::Decimal {
            greater_than,
            less_than,
        } => decimal(&value, *greater_than, *less_than, path, d),
        TypeKind::Date => match value.as_str() {
            None => d.push(path, "wrong_type", expected(&ty.kind)),
            Some(s) => {
                if !matches(DATE_PATTERN, s) {
                    d.push(path, "invalid_date", "Must be a date in YYYY-MM-DD form.");
                } else if jiff::civil::Date::from_str(s).is_err() {
                    d.push(path, "invalid_date", "Must be a real calendar date.");
                }
            }
        },
        TypeKind::DateTime => match value.as_str() {
            None => d.push(path, "wrong_type", expected(&ty.kind)),
            Some(s) => {
                if jiff::Timestamp::from_str(s).is_err() {
                    d.push(
                        path,
                        "invalid_datetime",
                        "Must be an RFC 3339 date-time such as 2026-10-17T12:00:00Z.",
                    );
                }
            }
        },
        TypeKind::Enum { values } => match value.as_str() {
            Some(s) if values.contains(&s) => {}
            Some(_) => d.push(
                path,
                "invalid_choice",
                format!("Must be one of: {}.", values.join(", ")),
            ),
            None => d.push(path, "wrong_type", expected(&ty.kind)),
        },
        TypeKind::Array {
            items,
            min_items,
            max_items,
        } => {
            let Value::Array(list) = value else {
                d.push(path, "wrong_type", expected(&ty.kind));
                return value;
            };
            let n = list.len() as u64;
            if let Some(min) = min_items
                && n < *min
            {
                d.push(
                    path,
                    "too_few_items",
                    format!("Must have at least {min} item(s)."),
                );
            }
            if let Some(max) = max_items
                && n > *max
            {
                d.push(
                    path,
                    "too_many_items",
                    format!("Must have at most {max} item(s)."),
                );
            }
            let mut out = Vec::with_capacity(list.len());
            for (i, item) in list.into_iter().enumerate() {
                path.push(PathSegment::Index(i));
                out.push(typed(items, item, path, d));
                path.pop();
            }
            return Value::Array(out);
        }
        TypeKind::Object(schema) => {
            let Value::Object(map) = value else {
                d.push(path, "wrong_type", expected(&ty.kind));
                return value;
            };
            return Value::Object(object(schema, map, path, d));
        }
        TypeKind::Any => {}
    }
    value
}

fn decimal(
    value: &Value,
    greater_than: Option<&str>,
    less_than: Option<&str>,
    path: &[PathSegment],
    d: &mut Diagnostics,
) {
    let s = match value {
        Value::String(s) => s,
        // Never through f64: a JSON number loses the exact text, so ask for a string.
        Value::Number(_) => {
            d.push(
                path,
                "wrong_type",
                "Must be a decimal string such as \"10.25\", not a JSON number.",
            );
            return;
        }
        _ => {
            d.push(
                path,
                "wrong_type",
                "Must be a decimal string such as \"10.25\".",
            );
            return;
        }
    };
    if !matches(DECIMAL_PATTERN, s) {
        d.push(
            path,
            "invalid_decimal",
            "Must be a decimal string such as \"10.25\" (digits, optional point, up to 10 decimals).",
        );
        return;
    }
    let Ok(x) = Decimal::from_str(s) else {
        d.push(
            path,
            "invalid_decimal",
            "Must be a decimal string such as \"10.25\".",
        );
        return;
    };
    if let Some(g) = greater_than.and_then(|g| Decimal::from_str(g).ok().map(|v| (g, v)))
        && x <= g.1
    {
        d.push(
            path,
            "greater_than",
            format!("Must be greater than {}.", g.0),
        );
    }
    if let Some(l) = less_than.and_then(|l| Decimal::from_str(l).ok().map(|v| (l, v)))
        && x >= l.1
    {
        d.push(path, "less_than", format!("Must be less than {}.", l.0));
    }
}

/// JSON Schema counts 5.0 as an integer; so does this.
fn integer(v: &Value) -> Option<i128> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 1e30).then_some(f as i128)
}

fn expected(kind: &TypeKind) -> &'static str {
    match kind {
        TypeKind::String { .. } => "Must be a string.",
        TypeKind::Integer { .. } => "Must be a whole number.",
        TypeKind::Boolean => "Must be true or false.",
        TypeKind::Decimal { .. } => "Must be a decimal string such as \"10.25\".",
        TypeKind::Date => "Must be a date string in YYYY-MM-DD form.",
        TypeKind::DateTime => "Must be an RFC 3339 date-time string.",
        TypeKind::Enum { .. } => "Must be one of the listed choices (a string).",
        TypeKind::Array { .. } => "Must be an array.",
        TypeKind::Object(_) => "Must be an object.",
        TypeKind::Any => "Must not be null.",
    }
}

/// Patterns come from the spec (checked at build time); compiled once each.
fn matches(pattern: &'static str, s: &str) -> bool {
    static CACHE: OnceLock<RwLock<HashMap<&'static str, Option<regex_lite::Regex>>>> =
        OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(map) = cache.read()
        && let Some(re) = map.get(pattern)
    {
        return re.as_ref().is_some_and(|r| r.is_match(s));
    }
    let re = regex_lite::Regex::new(pattern).ok();
    let hit = re.as_ref().is_some_and(|r| r.is_match(s));
    if let Ok(mut map) = cache.write() {
        map.insert(pattern, re);
    }
    hit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::validation::schema::{Condition, RuleCheck, RuleSchema};
    use serde_json::json;

    static LEG: ObjectSchema = ObjectSchema {
        fields: &[FieldSchema {
            name: "quantity",
            alias: None,
            required: true,
            ty: TypeSchema {
                kind: TypeKind::Decimal {
                    greater_than: Some("0"),
                    less_than: None,
                },
                nullable: false,
            },
        }],
        rules: &[],
        extension_fields: &[],
    };

    static REQUEST: ObjectSchema = ObjectSchema {
        fields: &[
            FieldSchema {
                name: "price_type",
                alias: Some("priceType"),
                required: true,
                ty: TypeSchema {
                    kind: TypeKind::Enum {
                        values: &["MARKET", "LIMIT"],
                    },
                    nullable: false,
                },
            },
            FieldSchema {
                name: "limit_price",
                alias: Some("limitPrice"),
                required: false,
                ty: TypeSchema {
                    kind: TypeKind::Decimal {
                        greater_than: Some("0"),
                        less_than: None,
                    },
                    nullable: false,
                },
            },
            FieldSchema {
                name: "quantity",
                alias: None,
                required: true,
                ty: TypeSchema {
                    kind: TypeKind::Decimal {
                        greater_than: Some("0"),
                        less_than: None,
                    },
                    nullable: false,
                },
            },
            FieldSchema {
                name: "expiration",
                alias: None,
                required: false,
                ty: TypeSchema {
                    kind: TypeKind::Date,
                    nullable: false,
                },
            },
            FieldSchema {
                name: "legs",
                alias: None,
                required: false,
                ty: TypeSchema {
                    kind: TypeKind::Array {
                        items: &TypeSchema {
                            kind: TypeKind::Object(&LEG),
                            nullable: false,
                        },
                        min_items: Some(1),
                        max_items: Some(4),
                    },
                    nullable: false,
                },
            },
        ],
        rules: &[RuleSchema {
            when: Some(Condition {
                field: "price_type",
                one_of: &["LIMIT"],
            }),
            unless: None,
            check: RuleCheck::Conditional {
                require: &["limit_price"],
                forbid: &[],
            },
            code: None,
            message: "A LIMIT order needs limit_price.",
        }],
        extension_fields: &["clientExtra"],
    };

    static ROOT: ObjectSchema = ObjectSchema {
        fields: &[FieldSchema {
            name: "request",
            alias: None,
            required: true,
            ty: TypeSchema {
                kind: TypeKind::Object(&REQUEST),
                nullable: false,
            },
        }],
        rules: &[],
        extension_fields: &[],
    };

    fn run(v: Value) -> Result<Map<String, Value>, Vec<ValidationError>> {
        match v {
            Value::Object(m) => validate(&ROOT, m),
            _ => unreachable!("tests pass objects"),
        }
    }

    fn paths(errs: &[ValidationError]) -> Vec<(String, &'static str)> {
        errs.iter()
            .map(|e| (serde_json::to_string(&e.path).unwrap_or_default(), e.code))
            .collect()
    }

    #[test]
    fn contract_example_zero_quantity() {
        let errs = run(json!({"request": {"price_type": "MARKET", "quantity": "0"}})).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(
            serde_json::to_value(&errs[0]).unwrap(),
            json!({
                "path": ["request", "quantity"], "code": "greater_than", "message": "Must be greater than 0."
            })
        );
    }

    #[test]
    fn limit_without_price_points_at_the_containing_object() {
        let errs = run(json!({"request": {"priceType": "LIMIT", "quantity": "1"}})).unwrap_err();
        assert_eq!(
            paths(&errs),
            vec![("[\"request\"]".to_string(), "conditional_required")]
        );
    }

    #[test]
    fn aliases_normalize_to_canonical_names() {
        let ok = run(json!({"request": {"priceType": "LIMIT", "limitPrice": "1.5", "quantity": "2", "clientExtra": {"x": 1}}}))
            .unwrap();
        assert_eq!(
            ok["request"],
            json!({"price_type": "LIMIT", "limit_price": "1.5", "quantity": "2", "clientExtra": {"x": 1}})
        );
    }

    #[test]
    fn one_pass_collects_everything_with_canonical_paths() {
        let errs = run(json!({"request": {
            "priceType": "STOP", "limitPrice": 10.5, "quantity": "abc", "expiration": "2026-02-30",
            "legs": [{"quantity": "-1"}, {"bogus": true}], "secretKeyName": "hunter2"
        }, "other": 1}))
        .unwrap_err();
        let got = paths(&errs);
        for want in [
            ("[\"request\",\"price_type\"]", "invalid_choice"),
            ("[\"request\",\"limit_price\"]", "wrong_type"),
            ("[\"request\",\"quantity\"]", "invalid_decimal"),
            ("[\"request\",\"expiration\"]", "invalid_date"),
            ("[\"request\",\"legs\",0,\"quantity\"]", "greater_than"),
            ("[\"request\",\"legs\",1]", "unknown_field"),
            ("[\"request\",\"legs\",1,\"quantity\"]", "missing"),
            ("[\"request\"]", "unknown_field"),
            ("[]", "unknown_field"),
        ] {
            assert!(
                got.contains(&(want.0.to_string(), want.1)),
                "missing {want:?} in {got:?}"
            );
        }
        let text = serde_json::to_string(&errs).unwrap();
        for leak in [
            "hunter2",
            "secretKeyName",
            "bogus",
            "other",
            "abc",
            "STOP",
            "10.5",
        ] {
            assert!(!text.contains(leak), "{leak} leaked: {text}");
        }
    }

    #[test]
    fn name_and_alias_together_is_one_problem() {
        let errs = run(
            json!({"request": {"price_type": "MARKET", "priceType": "MARKET", "quantity": "1"}}),
        )
        .unwrap_err();
        assert_eq!(
            paths(&errs),
            vec![(
                "[\"request\",\"price_type\"]".to_string(),
                "duplicate_field"
            )]
        );
    }

    #[test]
    fn array_bounds() {
        let errs = run(json!({"request": {"price_type": "MARKET", "quantity": "1", "legs": []}}))
            .unwrap_err();
        assert_eq!(
            paths(&errs),
            vec![("[\"request\",\"legs\"]".to_string(), "too_few_items")]
        );
    }

    #[test]
    fn missing_root_field() {
        let errs = run(json!({})).unwrap_err();
        assert_eq!(paths(&errs), vec![("[\"request\"]".to_string(), "missing")]);
    }

    #[test]
    fn integer_accepts_whole_floats_like_json_schema() {
        assert_eq!(integer(&json!(5.0)), Some(5));
        assert_eq!(integer(&json!(5.5)), None);
        assert_eq!(integer(&json!(u64::MAX)), Some(i128::from(u64::MAX)));
    }
}
