//! Cross-field rules of an input object: which keys make which kind of rule, and whether the
//! fields they name exist and have a type the rule can read.

use crate::diagnostics::Diagnostics;
use crate::ir::{self, Check, Condition, Ty};
use crate::model::{RuleDef, S, WhenDef};

/// One rule of an object whose fields are `fields`, or `None` (with diagnostics) if it is wrong.
pub(crate) fn rule(d: &mut Diagnostics, r: &S<RuleDef>, fields: &[ir::Field]) -> Option<ir::Rule> {
    let v = &r.value;
    let before = d.len();
    let when = v.when.as_ref().map(|w| condition(d, w, fields));
    let unless = v.unless.as_ref().map(|w| condition(d, w, fields));
    let kinds = [
        !v.require.is_empty() || !v.forbid.is_empty(),
        v.needs.is_some(),
        v.max_items.is_some(),
        v.ordered.is_some(),
        v.at_most_one.is_some(),
        v.date.is_some(),
    ];
    if kinds.iter().filter(|k| **k).count() != 1 {
        d.at(
            r,
            "a rule is exactly one of: `require`/`forbid`, `needs`, `max_items`, `ordered`, `at_most_one`, `date`",
        );
        return None;
    }
    let named = |x: &S<String>, want: &[&str], d: &mut Diagnostics| -> String {
        match fields.iter().find(|f| f.name == x.value) {
            None => d.at(x, format!("no field `{}` here", x.value)),
            Some(f) if !want.is_empty() && !want.contains(&kind(&f.node.ty)) => d.at(
                x,
                format!("`{}` must be {} for this rule", x.value, want.join(" or ")),
            ),
            Some(_) => {}
        }
        x.value.clone()
    };
    let field = |d: &mut Diagnostics| match &v.field {
        Some(f) => Some(f),
        None => {
            d.at(r, "this rule needs `field`");
            None
        }
    };
    if v.field.is_some() && v.needs.is_none() && v.max_items.is_none() {
        d.at(r, "`field` goes with `needs` or `max_items`");
    }
    if v.strict.is_some() && v.ordered.is_none() {
        d.at(r, "`strict` goes with `ordered`");
    }
    let check = if v.needs.is_some() || v.max_items.is_some() {
        let f = field(d)?;
        if let Some(needs) = &v.needs {
            let field = named(f, &[], d);
            let needs: Vec<String> = needs.value.iter().map(|n| named(n, &[], d)).collect();
            if needs.is_empty() {
                d.at(r, "`needs` names at least one field");
            }
            Check::Needs { field, needs }
        } else {
            let field = named(f, &["array"], d);
            let max = v.max_items.as_ref().map(|m| m.value).unwrap_or_default();
            Check::MaxItems { field, max }
        }
    } else if let Some(list) = &v.ordered {
        let names: Vec<String> = list
            .value
            .iter()
            .map(|n| named(n, &["date", "integer", "decimal"], d))
            .collect();
        let [first, second] = <[String; 2]>::try_from(names).ok().or_else(|| {
            d.at(list, "`ordered` names two fields: [earlier, later]");
            None
        })?;
        Check::Ordered {
            first,
            second,
            strict: v.strict.as_ref().is_some_and(|s| s.value),
        }
    } else if let Some(list) = &v.at_most_one {
        if list.value.len() < 2 {
            d.at(list, "`at_most_one` names two or more fields");
        }
        Check::AtMostOne(list.value.iter().map(|n| named(n, &[], d)).collect())
    } else if let Some(list) = &v.date {
        let names: Vec<String> = list
            .value
            .iter()
            .map(|n| named(n, &["integer"], d))
            .collect();
        let [year, month, day] = <[String; 3]>::try_from(names).ok().or_else(|| {
            d.at(
                list,
                "`date` names three integer fields: [year, month, day]",
            );
            None
        })?;
        Check::Date { year, month, day }
    } else {
        let require = v.require.iter().map(|n| named(n, &[], d)).collect();
        let forbid = v.forbid.iter().map(|n| named(n, &[], d)).collect();
        if v.when.is_none() {
            d.at(r, "`require`/`forbid` needs `when`");
        }
        Check::Conditional { require, forbid }
    };
    if let Some(code) = &v.code
        && !(code.value.len() <= 40
            && code.value.starts_with(|c: char| c.is_ascii_lowercase())
            && code
                .value
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_'))
    {
        d.at(code, "a rule code is snake_case, at most 40 characters");
    }
    let message = v.message.value.trim();
    if message.is_empty() || message.len() > 256 {
        d.at(&v.message, "a rule message is 1 to 256 characters");
    }
    (d.len() == before).then(|| ir::Rule {
        when: when.flatten(),
        unless: unless.flatten(),
        check,
        code: v.code.as_ref().map(|c| c.value.clone()),
        message: message.to_string(),
    })
}

/// `when` / `unless`: an enum field and some of its values, or a boolean and `true`/`false`.
fn condition(d: &mut Diagnostics, w: &S<WhenDef>, fields: &[ir::Field]) -> Option<Condition> {
    let w = &w.value;
    let allowed: Vec<String> = match fields.iter().find(|f| f.name == w.field.value) {
        Some(f) => match &f.node.ty {
            Ty::Enum { values, .. } => values.clone(),
            Ty::Boolean => vec!["true".into(), "false".into()],
            _ => {
                d.at(
                    &w.field,
                    "a rule's condition field must be an enum or a boolean",
                );
                return None;
            }
        },
        None => {
            d.at(&w.field, format!("no field `{}` here", w.field.value));
            return None;
        }
    };
    for v in &w.one_of {
        if !allowed.contains(&v.value) {
            d.at(
                v,
                format!("`{}` is not a value of `{}`", v.value, w.field.value),
            );
        }
    }
    Some(Condition {
        field: w.field.value.clone(),
        one_of: w.one_of.iter().map(|v| v.value.clone()).collect(),
    })
}

fn kind(ty: &Ty) -> &'static str {
    match ty {
        Ty::Array { .. } => "array",
        Ty::Date => "date",
        Ty::Integer { .. } => "integer",
        Ty::Decimal { .. } => "decimal",
        _ => "other",
    }
}
