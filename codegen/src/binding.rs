//! E*TRADE's endpoints (the spec's `endpoints:`, once each) and the tools' broker bindings:
//! a tool's `broker:` names an endpoint and is checked against its input fields and the
//! spec's answer models, with a diagnostic at the spec line for every mismatch.

use crate::diagnostics::Diagnostics;
use crate::ir::{self, BoundField, ParamKind, Ty};
use crate::model::{self, S};
use std::collections::BTreeSet;

const VERBS: [&str; 4] = ["GET", "POST", "PUT", "DELETE"];
const MODULES: [&str; 4] = ["ACCOUNTS", "MARKET", "ORDERS", "ALERTS"];

/// The spec's `endpoints:`, checked: names are Rust variants, each method and path once.
pub fn endpoints(spec: &model::Spec, d: &mut Diagnostics) -> Vec<ir::Endpoint> {
    let mut out: Vec<ir::Endpoint> = Vec::new();
    for (name, def) in &spec.endpoints.0 {
        let e = &def.value;
        let variant = name.value.clone();
        if !variant.starts_with(|c: char| c.is_ascii_uppercase())
            || !variant.chars().all(|c| c.is_ascii_alphanumeric())
        {
            d.at(
                name,
                "an endpoint's name is UpperCamelCase (the runtime's `Endpoint` variant)",
            );
        }
        let verb = e.method.value.to_ascii_uppercase();
        if !VERBS.contains(&verb.as_str()) {
            d.at(&e.method, "method is GET, POST, PUT or DELETE");
        }
        let module = e.module.value.to_ascii_uppercase();
        if !MODULES.contains(&module.as_str()) {
            d.at(&e.module, "module is accounts, market, orders or alerts");
        }
        let path = e.path.value.clone();
        if !path.starts_with("/v1/")
            || path.contains(char::is_whitespace)
            || path.contains('"')
            || path.contains('\\')
        {
            d.at(
                &e.path,
                "an endpoint's path starts with /v1/ and has no spaces or quotes",
            );
        }
        for p in path_params(&path) {
            if p.is_empty() || !p.chars().all(|c| c.is_ascii_alphanumeric()) {
                d.at(
                    &e.path,
                    format!("path parameter `{{{p}}}` is letters and digits"),
                );
            }
        }
        // A repeated name is a duplicate YAML key, refused while parsing.
        if let Some(o) = out.iter().find(|o| o.verb == verb && o.path == path) {
            d.at(
                &e.path,
                format!("{verb} {path} is already endpoint `{}`", o.variant),
            );
        }
        out.push(ir::Endpoint {
            variant,
            verb,
            module,
            path,
        });
    }
    out
}

/// The `{param}` names of a path, in order (an unclosed `{` ends the list).
pub fn path_params(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(&rest[open + 1..open + close]);
        rest = &rest[open + close + 1..];
    }
    out
}

pub fn check(
    t: &model::ToolDef,
    input: &ir::Object,
    endpoints: &[ir::Endpoint],
    d: &mut Diagnostics,
) -> Option<ir::Binding> {
    let b = &t.broker.as_ref()?.value;
    if t.permission.value != "read" {
        d.at(
            &b.endpoint,
            "only read tools bind to an endpoint here; order entry goes through the order desk",
        );
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
    let Some(endpoint) = endpoints.iter().find(|e| e.variant == b.endpoint.value) else {
        let names: Vec<&str> = endpoints.iter().map(|e| e.variant.as_str()).collect();
        d.at(
            &b.endpoint,
            format!(
                "no endpoint `{}` in the spec's `endpoints:` ({}); add it there, answer it in runtime/src/paper/broker.rs, and serve it in tests/fake-etrade",
                b.endpoint.value,
                names.join(", ")
            ),
        );
        return None;
    };

    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut path = Vec::new();
    let mut display_path = endpoint.path.clone();
    for wire in path_params(&endpoint.path) {
        let Some(field) = input
            .fields
            .iter()
            .find(|f| f.alias.as_deref().unwrap_or(&f.name) == wire)
        else {
            d.at(
                &b.endpoint,
                format!(
                    "{} {} needs `{{{wire}}}`: no input field is named or aliased `{wire}`",
                    endpoint.verb, endpoint.path
                ),
            );
            continue;
        };
        let Some(f) = bound(&field.name, input, &b.endpoint, d) else {
            continue;
        };
        if !f.always {
            d.at(
                &b.endpoint,
                format!(
                    "path field `{}` must be required (and not nullable)",
                    f.field
                ),
            );
        }
        used.insert(f.field.clone());
        display_path = display_path.replace(&format!("{{{wire}}}"), &format!("{{{}}}", f.field));
        path.push(f);
    }
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
            // `detail` chooses the answer's projection here; E*TRADE never sees it.
            let local = t.compact.is_some() && f.name == ir::DETAIL_FIELD;
            if !used.contains(&f.name) && !local {
                d.at(
                    &b.endpoint,
                    format!(
                        "input field `{}` is neither in the path nor in `query`: a generated handler would ignore it (send it, or write a `handler: hand`)",
                        f.name
                    ),
                );
            }
        }
    }

    // The answer is a runtime type (`etrade::answers`): one the runtime lacks is a compile
    // error in the generated handler, which names it.
    if !b.answer.value.starts_with(|c: char| c.is_ascii_uppercase())
        || !b.answer.value.chars().all(|c| c.is_ascii_alphanumeric())
    {
        d.at(&b.answer, "an answer is a type name, e.g. `PortfolioPage`");
    }
    Some(ir::Binding {
        endpoint: endpoint.variant.clone(),
        display: format!("{} {display_path}", endpoint.verb),
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
