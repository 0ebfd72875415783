//! Broker bindings: a tool's `broker:` checked against its input fields and against what the
//! runtime offers (its endpoint table and answer models), with a diagnostic at the spec line
//! for every mismatch.

use crate::diagnostics::Diagnostics;
use crate::ir::{self, BoundField, ParamKind, Ty};
use crate::model::{self, S};
use crate::runtime_facts::{self, ANSWERS_FILE, ENDPOINTS_FILE};
use std::collections::BTreeSet;

pub fn check(t: &model::ToolDef, input: &ir::Object, d: &mut Diagnostics) -> Option<ir::Binding> {
    let b = &t.broker.as_ref()?.value;
    if t.permission.value != "read" {
        d.at(
            &b.path,
            "only read tools bind to an endpoint here; order entry goes through the order desk",
        );
    }
    let verb = b.method.value.to_ascii_uppercase();
    if !["GET", "POST", "PUT", "DELETE"].contains(&verb.as_str()) {
        d.at(&b.method, "method is GET, POST, PUT or DELETE");
    }
    let module = b.module.value.to_ascii_uppercase();
    if !["ACCOUNTS", "MARKET", "ORDERS", "ALERTS"].contains(&module.as_str()) {
        d.at(&b.module, "module is accounts, market, orders or alerts");
    }
    let generated_handler = match b.handler.as_ref().map(|h| h.value.as_str()) {
        None | Some("generated") => true,
        Some("hand") => false,
        Some(_) => {
            if let Some(h) = &b.handler {
                d.at(h, "handler is `generated` (the default) or `hand`");
            }
            true
        }
    };

    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut path = Vec::new();
    let mut wire_path = String::new();
    let mut rest = b.path.value.as_str();
    while let Some(open) = rest.find('{') {
        wire_path.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            d.at(&b.path, "an unclosed `{` in the path");
            return None;
        };
        let name = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let Some(f) = bound(name, input, &b.path, d) else {
            wire_path.push_str("{?}");
            continue;
        };
        if !f.always {
            d.at(
                &b.path,
                format!("path field `{name}` must be required (and not nullable)"),
            );
        }
        if !used.insert(name.to_string()) {
            d.at(&b.path, format!("`{name}` is in the path twice"));
        }
        wire_path.push_str(&format!("{{{}}}", f.wire));
        path.push(f);
    }
    wire_path.push_str(rest);

    let mut query = Vec::new();
    for q in &b.query {
        let Some(f) = bound(&q.value, input, q, d) else {
            continue;
        };
        if !used.insert(q.value.clone()) {
            d.at(q, format!("`{}` is sent twice", q.value));
        }
        query.push(f);
    }
    for (field, value) in &b.defaults.0 {
        let Some(f) = query.iter_mut().find(|f| f.field == field.value) else {
            d.at(
                field,
                format!(
                    "a default is for a field in `query`; `{}` is not",
                    field.value
                ),
            );
            continue;
        };
        if f.always {
            d.at(
                field,
                format!("`{}` is required: a default never applies", field.value),
            );
        }
        if let Some(ir::Field {
            node:
                ir::TyNode {
                    ty: Ty::Enum { values, .. },
                    ..
                },
            ..
        }) = input.fields.iter().find(|x| x.name == field.value)
            && !values.contains(&value.value)
        {
            d.at(
                value,
                format!("`{}` is not a value of `{}`", value.value, field.value),
            );
        }
        f.default = Some(value.value.clone());
    }
    if generated_handler {
        for f in &input.fields {
            if !used.contains(&f.name) {
                d.at(
                    &b.path,
                    format!(
                        "input field `{}` is neither in the path nor in `query`: a generated handler would ignore it (send it, or write a `handler: hand`)",
                        f.name
                    ),
                );
            }
        }
    }

    let endpoints = runtime_facts::endpoints();
    let endpoint = endpoints
        .iter()
        .find(|r| r.verb == verb && r.path == wire_path && r.module == module);
    let endpoint = match endpoint {
        Some(e) => e.variant.clone(),
        None => {
            let near = endpoints.iter().find(|r| r.path == wire_path);
            let message = match near {
                Some(r) => format!(
                    "E*TRADE's {} is {} in the {} module; this binding says {verb} in {}",
                    r.path,
                    r.verb,
                    r.module.to_ascii_lowercase(),
                    module.to_ascii_lowercase()
                ),
                None => format!(
                    "no endpoint {verb} {wire_path} in {ENDPOINTS_FILE}: add its row there, answer it in runtime/src/paper/broker.rs, and serve it in tests/fake-etrade"
                ),
            };
            d.at(&b.path, message);
            String::new()
        }
    };
    if !runtime_facts::answers().contains(&b.answer.value) {
        d.at(
            &b.answer,
            format!(
                "no answer model `{}`: {ANSWERS_FILE} implements BrokerAnswer for {}",
                b.answer.value,
                runtime_facts::answers().join(", ")
            ),
        );
    }
    Some(ir::Binding {
        endpoint,
        display: format!("{verb} {}", b.path.value),
        path,
        query,
        answer: b.answer.value.clone(),
        generated_handler,
    })
}

/// The input field `name` as a broker parameter.
fn bound(
    name: &str,
    input: &ir::Object,
    at: &S<String>,
    d: &mut Diagnostics,
) -> Option<BoundField> {
    let Some(f) = input.fields.iter().find(|f| f.name == name) else {
        d.at(at, format!("no input field `{name}`"));
        return None;
    };
    let kind = match &f.node.ty {
        Ty::String { .. } | Ty::DateTime => ParamKind::Cloned,
        Ty::Array { items, .. } if matches!(items.ty, Ty::String { .. }) && !items.nullable => {
            ParamKind::Cloned
        }
        Ty::Integer { .. } | Ty::Boolean | Ty::Date | Ty::Decimal { .. } => ParamKind::Copied,
        Ty::Enum { .. } => ParamKind::Enum,
        _ => {
            d.at(
                at,
                format!("`{name}` cannot be sent as a parameter (strings, lists of strings, integers, booleans, dates, decimals and enums can)"),
            );
            return None;
        }
    };
    Some(BoundField {
        field: f.name.clone(),
        wire: f.alias.clone().unwrap_or_else(|| f.name.clone()),
        always: f.required && !f.node.nullable,
        kind,
        default: None,
    })
}
