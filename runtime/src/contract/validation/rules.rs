//! Cross-field rules: checked on an object's already-typed fields, after each field's own
//! checks. A rule (other than require/forbid) that names a field which failed its own checks
//! is skipped, so one mistake is reported once, at the field.

use super::diagnostics::{Diagnostics, PathSegment};
use super::schema::{Condition, RuleCheck, RuleSchema};
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::str::FromStr;

pub(super) fn check(
    rules: &[RuleSchema],
    fields: &Map<String, Value>,
    failed: &HashSet<&'static str>,
    path: &mut Vec<PathSegment>,
    d: &mut Diagnostics,
) {
    let present = |name: &str| fields.get(name).is_some_and(|v| !v.is_null());
    for rule in rules {
        let holds = |c: &Condition| fields.get(c.field).is_some_and(|v| holds_one_of(v, c));
        if rule.when.as_ref().is_some_and(|c| !holds(c)) || rule.unless.as_ref().is_some_and(holds)
        {
            continue;
        }
        if reads_a_failed_field(&rule.check, failed) {
            continue;
        }
        let mut at = |field: &'static str, code: &'static str, d: &mut Diagnostics| {
            path.push(PathSegment::Key(field));
            d.push(path, rule.code.unwrap_or(code), rule.message);
            path.pop();
        };
        match &rule.check {
            RuleCheck::Conditional { require, forbid } => {
                if require.iter().any(|r| !present(r)) {
                    d.push(
                        path,
                        rule.code.unwrap_or("conditional_required"),
                        rule.message,
                    );
                }
                if forbid.iter().any(|f| present(f)) {
                    d.push(
                        path,
                        rule.code.unwrap_or("conditional_forbidden"),
                        rule.message,
                    );
                }
            }
            RuleCheck::Needs { field, needs } => {
                if present(field) {
                    for n in needs.iter().filter(|n| !present(n)) {
                        at(n, "missing", d);
                    }
                }
            }
            RuleCheck::Ordered {
                first,
                second,
                strict,
            } => {
                let order = fields
                    .get(*first)
                    .zip(fields.get(*second))
                    .and_then(|(a, b)| compare(a, b));
                let wrong = match order {
                    Some(Ordering::Greater) => true,
                    Some(Ordering::Equal) => *strict,
                    _ => false,
                };
                if wrong {
                    at(second, "out_of_range", d);
                }
            }
            RuleCheck::AtMostOne(list) => {
                for n in list.iter().filter(|n| present(n)).skip(1) {
                    at(n, "not_allowed", d);
                }
            }
            RuleCheck::Date { year, month, day } => {
                let part = |n: &str| fields.get(n).and_then(Value::as_i64);
                if let (Some(y), Some(m), Some(dd)) = (part(year), part(month), part(day)) {
                    let real = i16::try_from(y)
                        .ok()
                        .zip(i8::try_from(m).ok())
                        .zip(i8::try_from(dd).ok())
                        .is_some_and(|((y, m), dd)| jiff::civil::Date::new(y, m, dd).is_ok());
                    if !real {
                        at(day, "out_of_range", d);
                    }
                }
            }
            RuleCheck::MaxItems { field, max } => {
                let n = fields.get(*field).and_then(Value::as_array).map(Vec::len);
                if n.is_some_and(|n| n as u64 > *max) {
                    at(field, "too_many_items", d);
                }
            }
        }
    }
}

/// Whether a field's value is one of a condition's: an enum's value, or `true` / `false`.
fn holds_one_of(v: &Value, c: &Condition) -> bool {
    match v {
        Value::String(s) => c.one_of.contains(&s.as_str()),
        Value::Bool(b) => c.one_of.contains(&if *b { "true" } else { "false" }),
        _ => false,
    }
}

/// Whether the check reads a field that failed its own checks (then it is skipped).
fn reads_a_failed_field(check: &RuleCheck, failed: &HashSet<&'static str>) -> bool {
    let any = |names: &[&'static str]| names.iter().any(|n| failed.contains(n));
    match check {
        // Presence alone decides these, so they stand whatever the fields' values.
        RuleCheck::Conditional { .. } => false,
        RuleCheck::Needs { field, needs } => failed.contains(field) || any(needs),
        RuleCheck::Ordered { first, second, .. } => any(&[*first, *second]),
        RuleCheck::AtMostOne(list) => any(list),
        RuleCheck::Date { year, month, day } => any(&[*year, *month, *day]),
        RuleCheck::MaxItems { field, .. } => failed.contains(field),
    }
}

/// Dates (`YYYY-MM-DD`, so text order is date order), decimals or integers.
fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            match (Decimal::from_str(x), Decimal::from_str(y)) {
                (Ok(x), Ok(y)) => Some(x.cmp(&y)),
                _ => Some(x.cmp(y)),
            }
        }
        (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::engine::validate;
    use super::super::schema::{FieldSchema, ObjectSchema, TypeKind, TypeSchema};
    use super::*;
    use serde_json::json;

    const fn field(name: &'static str, kind: TypeKind) -> FieldSchema {
        FieldSchema {
            name,
            alias: None,
            required: false,
            ty: TypeSchema {
                kind,
                nullable: false,
            },
        }
    }

    const INT: TypeKind = TypeKind::Integer {
        minimum: None,
        maximum: None,
    };

    static ITEM: TypeSchema = TypeSchema {
        kind: TypeKind::String {
            min_length: None,
            max_length: None,
            pattern: None,
            trim: false,
        },
        nullable: false,
    };

    const fn rule(check: RuleCheck, unless: Option<Condition>) -> RuleSchema {
        RuleSchema {
            when: None,
            unless,
            check,
            code: None,
            message: "Rule message.",
        }
    }

    static SCHEMA: ObjectSchema = ObjectSchema {
        fields: &[
            field("from", TypeKind::Date),
            field("to", TypeKind::Date),
            field(
                "low",
                TypeKind::Decimal {
                    greater_than: None,
                    less_than: None,
                },
            ),
            field(
                "high",
                TypeKind::Decimal {
                    greater_than: None,
                    less_than: None,
                },
            ),
            field("year", INT),
            field("month", INT),
            field("day", INT),
            field("a", TypeKind::Boolean),
            field("b", TypeKind::Boolean),
            field("c", TypeKind::Boolean),
            field("wide", TypeKind::Boolean),
            field(
                "list",
                TypeKind::Array {
                    items: &ITEM,
                    min_items: None,
                    max_items: Some(10),
                },
            ),
            field(
                "name",
                TypeKind::String {
                    min_length: Some(1),
                    max_length: Some(5),
                    pattern: None,
                    trim: true,
                },
            ),
        ],
        rules: &[
            rule(
                RuleCheck::Needs {
                    field: "day",
                    needs: &["month", "year"],
                },
                None,
            ),
            RuleSchema {
                code: Some("to_not_after_from"),
                ..rule(
                    RuleCheck::Ordered {
                        first: "from",
                        second: "to",
                        strict: true,
                    },
                    None,
                )
            },
            rule(
                RuleCheck::Ordered {
                    first: "low",
                    second: "high",
                    strict: false,
                },
                None,
            ),
            rule(RuleCheck::AtMostOne(&["a", "b", "c"]), None),
            rule(
                RuleCheck::Date {
                    year: "year",
                    month: "month",
                    day: "day",
                },
                None,
            ),
            rule(
                RuleCheck::MaxItems {
                    field: "list",
                    max: 3,
                },
                Some(Condition {
                    field: "wide",
                    one_of: &["true"],
                }),
            ),
        ],
        extension_fields: &[],
    };

    fn problems(v: Value) -> Vec<(String, &'static str)> {
        let Value::Object(m) = v else {
            unreachable!("tests pass objects")
        };
        match validate(&SCHEMA, m) {
            Ok(_) => Vec::new(),
            Err(errs) => errs
                .iter()
                .map(|e| (serde_json::to_string(&e.path).unwrap_or_default(), e.code))
                .collect(),
        }
    }

    fn one(path: &str, code: &'static str) -> Vec<(String, &'static str)> {
        vec![(path.to_string(), code)]
    }

    #[test]
    fn needs_reports_each_missing_field_at_its_own_path() {
        assert_eq!(
            problems(json!({"day": 5})),
            vec![
                ("[\"month\"]".to_string(), "missing"),
                ("[\"year\"]".to_string(), "missing")
            ]
        );
        assert_eq!(
            problems(json!({"day": 5, "year": 2027})),
            one("[\"month\"]", "missing")
        );
        assert_eq!(problems(json!({"year": 2027})), vec![]);
    }

    #[test]
    fn ordered_compares_dates_and_decimals_by_value_with_the_spec_code() {
        assert_eq!(
            problems(json!({"from": "2026-10-05", "to": "2026-10-01"})),
            one("[\"to\"]", "to_not_after_from")
        );
        // Strict: equal is refused too; the non-strict pair accepts equal values.
        assert_eq!(
            problems(json!({"from": "2026-10-01", "to": "2026-10-01"})),
            one("[\"to\"]", "to_not_after_from")
        );
        assert_eq!(
            problems(json!({"from": "2026-10-01", "to": "2026-10-02"})),
            vec![]
        );
        assert_eq!(problems(json!({"low": "1.50", "high": "1.5"})), vec![]);
        // As text "9" > "10"; as decimals it is in order.
        assert_eq!(problems(json!({"low": "9", "high": "10"})), vec![]);
        assert_eq!(
            problems(json!({"low": "10", "high": "9.99"})),
            one("[\"high\"]", "out_of_range")
        );
        // Only one of the pair: nothing to compare.
        assert_eq!(problems(json!({"to": "2026-10-01"})), vec![]);
    }

    #[test]
    fn a_field_that_failed_its_own_check_is_not_reported_again_by_a_rule() {
        assert_eq!(
            problems(json!({"from": "2026-02-30", "to": "2026-01-01"})),
            one("[\"from\"]", "invalid_date")
        );
    }

    #[test]
    fn at_most_one_reports_every_extra() {
        assert_eq!(problems(json!({"a": true})), vec![]);
        assert_eq!(
            problems(json!({"a": true, "b": false, "c": true})),
            vec![
                ("[\"b\"]".to_string(), "not_allowed"),
                ("[\"c\"]".to_string(), "not_allowed")
            ]
        );
    }

    #[test]
    fn date_parts_must_name_a_real_day() {
        assert_eq!(
            problems(json!({"year": 2028, "month": 2, "day": 29})),
            vec![]
        );
        assert_eq!(
            problems(json!({"year": 2027, "month": 2, "day": 29})),
            one("[\"day\"]", "out_of_range")
        );
        assert_eq!(
            problems(json!({"year": 2027, "month": 13, "day": 1})),
            one("[\"day\"]", "out_of_range")
        );
    }

    #[test]
    fn max_items_applies_unless_its_condition_holds() {
        let four = json!(["A", "B", "C", "D"]);
        assert_eq!(
            problems(json!({"list": four})),
            one("[\"list\"]", "too_many_items")
        );
        assert_eq!(
            problems(json!({"list": four, "wide": false})),
            one("[\"list\"]", "too_many_items")
        );
        assert_eq!(problems(json!({"list": four, "wide": true})), vec![]);
        assert_eq!(problems(json!({"list": ["A", "B", "C"]})), vec![]);
    }

    #[test]
    fn trim_checks_and_passes_on_the_trimmed_text() {
        let Value::Object(m) = json!({"name": "  abc \n"}) else {
            unreachable!()
        };
        let out = validate(&SCHEMA, m).expect("valid once trimmed");
        assert_eq!(out["name"], "abc");
        assert_eq!(
            problems(json!({"name": "   "})),
            one("[\"name\"]", "too_short")
        );
        assert_eq!(
            problems(json!({"name": " abcdef "})),
            one("[\"name\"]", "too_long")
        );
    }
}
