//! Semantic checks: turn the spec as written into the checked [`ir::Catalog`], collecting every
//! problem (with its line and column) instead of stopping at the first.

use crate::diagnostics::Diagnostics;
use crate::ir::{self, Ty, TyNode};
use crate::model::{self, Node, S};
use std::collections::{BTreeMap, BTreeSet};

/// The contract's fifteen error codes; the spec must declare each exactly once.
pub const CONTRACT_CODES: [&str; 15] = [
    "invalid_input",
    "execution_disabled",
    "tool_not_available",
    "authentication_required",
    "authorization_expired",
    "authentication_failed",
    "credential_coordination_failed",
    "broker_rejection",
    "rate_limited",
    "not_found",
    "service_unavailable",
    "invalid_broker_response",
    "transport_error",
    "uncertain_execution",
    "internal_error",
];
const CATEGORIES: [&str; 5] = ["request", "credentials", "broker", "uncertain", "internal"];
const GROUPS: [&str; 5] = ["status", "accounts", "market", "orders", "alerts"];
const BUILTIN_TYPES: [&str; 10] = [
    "string", "integer", "boolean", "decimal", "date", "datetime", "enum", "array", "object", "any",
];
/// The constraint keys of scalar types (and enums' `values`): what a named scalar may declare.
const SCALAR_KEYS: [&str; 8] = [
    "min_length",
    "max_length",
    "pattern",
    "minimum",
    "maximum",
    "greater_than",
    "less_than",
    "values",
];
/// A model field's wire keys: they describe a field, not a type or an array's items.
/// How the spec names one of E*TRADE's words (`etrade::OrderAction`).
pub const VOCABULARY_PREFIX: &str = "etrade::";

fn is_type_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

const WIRE_KEYS: [&str; 4] = ["wire", "read", "wire_required", "wire_default"];
/// Every tool may fail these ways, declared or not.
const IMPLICIT_CODES: [&str; 2] = ["invalid_input", "internal_error"];

#[derive(Clone, Copy, PartialEq)]
enum Side {
    Input,
    Output,
}

pub fn check(spec: &model::Spec, d: &mut Diagnostics) -> ir::Catalog {
    if spec.version.value != 1 {
        d.at(&spec.version, "unsupported spec version (expected 1)");
    }
    let permissions = check_permissions(spec, d);
    let error_codes = check_error_codes(spec, d);
    let types = TypeTable::new(spec, d);
    let endpoints = crate::binding::endpoints(spec, d);
    let mut tools = Vec::new();
    let mut apps = Vec::new();
    let mut seen: BTreeMap<&str, ()> = BTreeMap::new();
    for t in &spec.tools {
        if seen.insert(&t.name.value, ()).is_some() {
            d.at(&t.name, format!("duplicate tool `{}`", t.name.value));
        }
        let mut tool = check_tool(t, &permissions, &error_codes, &types, &endpoints, d);
        tool.ui = crate::apps::check(t, &mut apps, d);
        tools.push(tool);
    }
    ir::Catalog {
        permissions,
        endpoints,
        error_codes,
        tools,
        apps,
    }
}

fn check_permissions(spec: &model::Spec, d: &mut Diagnostics) -> Vec<ir::Permission> {
    let mut out: Vec<ir::Permission> = Vec::new();
    for p in &spec.permissions {
        if !is_snake(&p.name.value) {
            d.at(&p.name, "permission names are snake_case");
        }
        if out.iter().any(|q| q.name == p.name.value) {
            d.at(&p.name, format!("duplicate permission `{}`", p.name.value));
        }
        if let Some(flag) = &p.flag
            && !(flag.value.starts_with("--")
                && flag.value[2..]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-')
                && flag.value.len() > 2)
        {
            d.at(flag, "a permission flag looks like `--allow-something`");
        }
        out.push(ir::Permission {
            name: p.name.value.clone(),
            description: text(&p.description),
            flag: p.flag.as_ref().map(|f| f.value.clone()),
        });
    }
    out
}

fn check_error_codes(spec: &model::Spec, d: &mut Diagnostics) -> Vec<ir::ErrorCode> {
    let mut out: Vec<ir::ErrorCode> = Vec::new();
    for e in &spec.error_codes {
        if !CONTRACT_CODES.contains(&e.code.value.as_str()) {
            d.at(
                &e.code,
                format!(
                    "`{}` is not one of the contract's error codes",
                    e.code.value
                ),
            );
        }
        if out.iter().any(|x| x.code == e.code.value) {
            d.at(&e.code, format!("duplicate error code `{}`", e.code.value));
        }
        if !CATEGORIES.contains(&e.category.value.as_str()) {
            d.at(
                &e.category,
                format!(
                    "unknown error category `{}` (expected one of {})",
                    e.category.value,
                    CATEGORIES.join(", ")
                ),
            );
        }
        match &e.message {
            Some(m) if !m.value.trim().is_empty() => {}
            _ => d.at(
                &e.code,
                format!("error code `{}` needs a summary message", e.code.value),
            ),
        }
        out.push(ir::ErrorCode {
            code: e.code.value.clone(),
            category: e.category.value.clone(),
            message: text(&e.message),
            when: text(&e.when),
            host_action: text(&e.host_action),
        });
    }
    if let Some(first) = spec.error_codes.first().map(|e| &e.code) {
        for code in CONTRACT_CODES {
            if !out.iter().any(|e| e.code == code) {
                d.at(first, format!("the error-code catalog is missing `{code}`"));
            }
        }
    } else {
        d.at(&spec.version, "the spec declares no error codes");
    }
    out
}

struct TypeTable<'a> {
    named: BTreeMap<&'a str, &'a Node>,
}

impl<'a> TypeTable<'a> {
    fn new(spec: &'a model::Spec, d: &mut Diagnostics) -> Self {
        let mut named = BTreeMap::new();
        for (name, node) in &spec.types.0 {
            if !is_pascal(&name.value) || BUILTIN_TYPES.contains(&name.value.as_str()) {
                d.at(name, "named types are PascalCase, e.g. `OrderLeg`");
            }
            if named.insert(name.value.as_str(), node).is_some() {
                d.at(name, format!("duplicate type `{}`", name.value));
            }
        }
        TypeTable { named }
    }
}

fn check_tool(
    t: &model::ToolDef,
    permissions: &[ir::Permission],
    codes: &[ir::ErrorCode],
    types: &TypeTable,
    endpoints: &[ir::Endpoint],
    d: &mut Diagnostics,
) -> ir::Tool {
    let name = &t.name.value;
    let name_ok = !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !name_ok {
        d.at(
            &t.name,
            format!("tool name `{name}` must match [A-Za-z0-9_.-]{{1,128}}"),
        );
    } else if !is_snake(name) {
        d.at(
            &t.name,
            format!("tool name `{name}` must be snake_case so it can name a handler method"),
        );
    }
    let description = match &t.description {
        Some(s) if !s.value.trim().is_empty() => s.value.trim().to_string(),
        _ => {
            d.at(&t.name, format!("tool `{name}` has no description"));
            String::new()
        }
    };
    if !GROUPS.contains(&t.group.value.as_str()) {
        d.at(
            &t.group,
            format!(
                "unknown group `{}` (expected one of {})",
                t.group.value,
                GROUPS.join(", ")
            ),
        );
    }
    let permission = permissions.iter().find(|p| p.name == t.permission.value);
    if permission.is_none() {
        d.at(
            &t.permission,
            format!("unknown permission `{}`", t.permission.value),
        );
    }
    let a = &t.annotations.value;
    match t.permission.value.as_str() {
        "read" if !a.read_only.value => d.at(
            &a.read_only,
            format!("tool `{name}` has permission `read` but is not marked read_only"),
        ),
        "read" | "preview" if a.destructive.value => d.at(
            &a.destructive,
            format!(
                "tool `{name}` has permission `{}` but is marked destructive",
                t.permission.value
            ),
        ),
        p if p != "read" && a.read_only.value => d.at(
            &a.read_only,
            format!("tool `{name}` has permission `{p}` but is marked read_only"),
        ),
        _ => {}
    }
    let mut errors: BTreeSet<&str> = IMPLICIT_CODES.into_iter().collect();
    if permission.is_some_and(|p| p.flag.is_some()) {
        errors.insert("execution_disabled");
    }
    let mut declared = BTreeSet::new();
    for e in &t.errors {
        if !codes.iter().any(|c| c.code == e.value) {
            d.at(
                e,
                format!("error code `{}` is not in the error-code catalog", e.value),
            );
        } else if !declared.insert(e.value.as_str()) {
            d.at(e, format!("error code `{}` is listed twice", e.value));
        }
        errors.insert(e.value.as_str());
    }
    let errors: Vec<String> = codes
        .iter()
        .filter(|c| errors.contains(c.code.as_str()))
        .map(|c| c.code.clone())
        .collect();

    let mut ctx = NodeCx {
        types,
        d,
        stack: Vec::new(),
        in_model: 0,
    };
    let input = ctx.root(&t.input, &format!("{}Input", pascal(name)), Side::Input);
    let output = ctx.root(&t.output, &format!("{}Output", pascal(name)), Side::Output);
    let binding = crate::binding::check(t, &input, endpoints, d);
    let compact = t
        .compact
        .as_ref()
        .and_then(|c| crate::compact::check(c, &input, &output, d));
    if t.compact.is_none() && input.fields.iter().any(|f| f.name == ir::DETAIL_FIELD) {
        d.at(
            &t.input,
            format!(
                "input field `{}` chooses a compact projection: the tool needs `compact:`",
                ir::DETAIL_FIELD
            ),
        );
    }

    let mut invalid_examples = Vec::new();
    for ex in &t.examples.invalid {
        if !errors.contains(&ex.value.code.value) {
            d.at(
                &ex.value.code,
                format!(
                    "example expects `{}`, which tool `{name}` does not declare",
                    ex.value.code.value
                ),
            );
        }
        invalid_examples.push((ex.value.args.clone(), ex.value.code.value.clone()));
    }
    let mut limits = Vec::new();
    for (key, value) in &t.limits.0 {
        let ok_name = key.value.starts_with(|c: char| c.is_ascii_lowercase())
            && key
                .value
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !ok_name {
            d.at(
                key,
                format!("limit `{}` must be a snake_case name", key.value),
            );
        } else if value.value == 0 {
            d.at(value, format!("limit `{}` must be at least 1", key.value));
        } else {
            limits.push((key.value.clone(), value.value));
        }
    }
    ir::Tool {
        name: name.clone(),
        title: t
            .title
            .as_ref()
            .map(|s| s.value.clone())
            .unwrap_or_else(|| name.clone()),
        group: t.group.value.clone(),
        permission: t.permission.value.clone(),
        description,
        read_only: a.read_only.value,
        destructive: a.destructive.value,
        idempotent: a.idempotent.value,
        open_world: a.open_world.value,
        input,
        output,
        errors,
        valid_examples: t.examples.valid.iter().map(|v| v.value.clone()).collect(),
        invalid_examples,
        output_example: t.examples.output.as_ref().map(|v| v.value.clone()),
        binding,
        limits,
        ui: None,
        compact,
    }
}

struct NodeCx<'a, 'd> {
    types: &'a TypeTable<'a>,
    d: &'d mut Diagnostics,
    /// Named types being resolved, to refuse recursive definitions.
    stack: Vec<String>,
    /// How many `model:` objects enclose the node being checked.
    in_model: usize,
}

impl NodeCx<'_, '_> {
    fn root(&mut self, node: &S<Node>, rust_name: &str, side: Side) -> ir::Object {
        let n = &node.value;
        match n.ty.as_ref().map(|t| t.value.as_str()) {
            None | Some("object") => {}
            Some(_) => {
                let at =
                    n.ty.as_ref()
                        .map(|t| t.referenced)
                        .unwrap_or(node.referenced);
                self.d.at_loc(at, "a tool's input and output are objects");
            }
        }
        if n.fields.is_none() {
            self.d
                .at(node, "an object needs `fields` (use `fields: []` for none)");
        }
        self.reject(
            n,
            &["name", "alias", "required", "nullable"],
            "a tool's input or output",
        );
        self.object(n, rust_name, side)
    }

    fn object(&mut self, n: &Node, rust_name: &str, side: Side) -> ir::Object {
        let model = n.model.as_ref().map(|m| m.value.clone());
        if let Some(m) = &n.model {
            if side == Side::Input {
                self.d
                    .at(m, "`model` is for outputs (models read E*TRADE's answers)");
            } else if !is_pascal(&m.value) {
                self.d.at(m, "a model name is PascalCase, e.g. `Position`");
            }
        }
        if model.is_some() {
            self.in_model += 1;
        }
        let object = self.object_fields(n, rust_name, side);
        if model.is_some() {
            self.in_model -= 1;
        }
        ir::Object { model, ..object }
    }

    fn object_fields(&mut self, n: &Node, rust_name: &str, side: Side) -> ir::Object {
        let mut fields: Vec<ir::Field> = Vec::new();
        let mut names: BTreeSet<String> = BTreeSet::new();
        for f in n.fields.iter().flat_map(|v| v.value.iter()) {
            let Some(fname) = &f.value.name else {
                self.d.at(f, "a field needs a `name`");
                continue;
            };
            let name_ok = match side {
                Side::Input => is_snake(&fname.value),
                Side::Output => is_ident_like(&fname.value),
            };
            if !name_ok {
                let rule = if side == Side::Input {
                    "input field names are snake_case"
                } else {
                    "output field names are letters, digits and underscores"
                };
                self.d.at(fname, format!("`{}`: {rule}", fname.value));
            }
            if !names.insert(fname.value.clone()) {
                self.d
                    .at(fname, format!("duplicate field `{}`", fname.value));
            }
            if let Some(alias) = &f.value.alias {
                if side == Side::Output {
                    self.d.at(
                        alias,
                        "output fields have no alias: the name is the JSON name",
                    );
                } else if !is_ident_like(&alias.value) {
                    self.d
                        .at(alias, "an alias is letters, digits and underscores");
                } else if !names.insert(alias.value.clone()) {
                    self.d.at(
                        alias,
                        format!("alias `{}` collides with another field", alias.value),
                    );
                }
            }
            let child = format!("{rust_name}{}", pascal(&fname.value));
            let node = self.node(f, &child, side);
            let required = match side {
                Side::Input => f.value.required.as_ref().is_some_and(|r| r.value),
                Side::Output => {
                    if let Some(r) = &f.value.required {
                        self.d.at(
                            r,
                            "output fields are always present; use `nullable: true` instead",
                        );
                    }
                    true
                }
            };
            let wire = self.wire(&f.value, &node, side);
            fields.push(ir::Field {
                name: fname.value.clone(),
                alias: f.value.alias.as_ref().map(|a| a.value.clone()),
                required,
                node,
                wire,
            });
        }
        let mut extension_fields = Vec::new();
        for e in n.extension_fields.iter().flat_map(|v| v.value.iter()) {
            if side == Side::Output {
                self.d.at(e, "extension fields are for inputs only");
            } else if !is_ident_like(&e.value) {
                self.d.at(
                    e,
                    "an extension field name is letters, digits and underscores",
                );
            } else if !names.insert(e.value.clone()) {
                self.d.at(
                    e,
                    format!("extension field `{}` collides with a field", e.value),
                );
            }
            extension_fields.push(e.value.clone());
        }
        let mut rules = Vec::new();
        for r in n.rules.iter().flat_map(|v| v.value.iter()) {
            if side == Side::Output {
                self.d.at(r, "rules are for inputs only");
            }
            rules.extend(crate::rules::rule(self.d, r, &fields));
        }
        ir::Object {
            rust_name: rust_name.to_string(),
            description: n.description.as_ref().map(|s| s.value.trim().to_string()),
            fields,
            rules,
            extension_fields,
            model: None,
            type_name: None,
        }
    }

    /// A field's wire keys (`wire`, `read`, `wire_required`, `wire_default`): outputs only,
    /// each where it means something.
    fn wire(&mut self, f: &Node, node: &TyNode, side: Side) -> ir::Wire {
        if side == Side::Input {
            self.reject(
                f,
                &["wire", "read", "wire_required", "wire_default"],
                "an input field (wire keys describe E*TRADE's answers)",
            );
            return ir::Wire::default();
        }
        let mut keys = Vec::new();
        if let Some(w) = &f.wire {
            if w.value.0.is_empty() {
                self.d.at(w, "`wire` needs at least one key");
            }
            for k in &w.value.0 {
                if !is_ident_like(k) {
                    self.d.at(
                        w,
                        format!("wire key `{k}` is letters, digits and underscores"),
                    );
                }
            }
            keys = w.value.0.clone();
        }
        // A reader the runtime lacks is a compile error in the generated model, which
        // names it: `etrade::models::read::NAME`.
        let read = f.read.as_ref().map(|r| {
            if !is_ident_like(&r.value) {
                self.d
                    .at(r, format!("reader `{}` is not a function name", r.value));
            }
            r.value.clone()
        });
        let required = match &f.wire_required {
            Some(r) if !matches!(node.ty, Ty::Array { .. }) || node.nullable => {
                self.d
                    .at(r, "`wire_required` applies to non-nullable arrays");
                false
            }
            Some(r) => r.value,
            None => false,
        };
        let default = f.wire_default.as_ref().map(|v| {
            match &node.ty {
                Ty::String { .. } if !node.nullable => {}
                Ty::Enum { values, .. } if !node.nullable => {
                    if !values.contains(&v.value) {
                        self.d
                            .at(v, format!("`{}` is not one of the enum's values", v.value));
                    }
                }
                _ => self.d.at(
                    v,
                    "`wire_default` applies to non-nullable strings and enums",
                ),
            }
            v.value.clone()
        });
        if self.in_model > 0
            && read.is_none()
            && !node.nullable
            && matches!(node.ty, Ty::DateTime | Ty::Date)
            && let Some(at) = &f.ty
        {
            self.d.at(
                at,
                "a model's time is nullable (E*TRADE sends 0 or nothing for none) unless it names a `read:`",
            );
        }
        ir::Wire {
            keys,
            read,
            required,
            default,
        }
    }

    /// A field or array-items node.
    fn node(&mut self, node: &S<Node>, rust_name: &str, side: Side) -> TyNode {
        let n = &node.value;
        let Some(ty) = &n.ty else {
            self.d.at(node, "a field needs a `type`");
            return TyNode {
                ty: Ty::Any,
                nullable: false,
                description: None,
            };
        };
        let nullable = n.nullable.as_ref().is_some_and(|b| b.value);
        let mut description = n.description.as_ref().map(|s| s.value.trim().to_string());
        let t = match ty.value.as_str() {
            "string" => {
                self.only(
                    n,
                    &["min_length", "max_length", "pattern", "trim"],
                    "string",
                );
                if let Some(p) = &n.pattern
                    && let Err(e) = regex_lite::Regex::new(&p.value)
                {
                    self.d.at(p, format!("invalid pattern: {e}"));
                }
                self.ordered(&n.min_length, &n.max_length, "min_length", "max_length");
                Ty::String {
                    min_length: n.min_length.as_ref().map(|v| v.value),
                    max_length: n.max_length.as_ref().map(|v| v.value),
                    pattern: n.pattern.as_ref().map(|v| v.value.clone()),
                    trim: n.trim.as_ref().is_some_and(|v| v.value),
                }
            }
            "integer" => {
                self.only(n, &["minimum", "maximum"], "integer");
                self.ordered(&n.minimum, &n.maximum, "minimum", "maximum");
                Ty::Integer {
                    minimum: n.minimum.as_ref().map(|v| v.value),
                    maximum: n.maximum.as_ref().map(|v| v.value),
                }
            }
            "boolean" => {
                self.only(n, &[], "boolean");
                Ty::Boolean
            }
            "decimal" => {
                self.only(n, &["greater_than", "less_than"], "decimal");
                let re = regex_lite::Regex::new(ir::DECIMAL_PATTERN).ok();
                for b in [&n.greater_than, &n.less_than].into_iter().flatten() {
                    if !re.as_ref().is_some_and(|r| r.is_match(&b.value)) {
                        self.d
                            .at(b, "a decimal bound is a decimal string, e.g. \"0\"");
                    }
                }
                Ty::Decimal {
                    greater_than: n.greater_than.as_ref().map(|v| v.value.clone()),
                    less_than: n.less_than.as_ref().map(|v| v.value.clone()),
                }
            }
            "date" => {
                self.only(n, &[], "date");
                Ty::Date
            }
            "datetime" => {
                self.only(n, &[], "datetime");
                Ty::DateTime
            }
            "any" => {
                self.only(n, &[], "any");
                Ty::Any
            }
            "enum" => {
                self.only(n, &["values"], "enum");
                let values = self.enum_values(n, ty, side, description.is_none());
                Ty::Enum {
                    rust_name: rust_name.to_string(),
                    values,
                    vocabulary: None,
                }
            }
            word if word.starts_with(VOCABULARY_PREFIX) => {
                let name = &word[VOCABULARY_PREFIX.len()..];
                if !is_type_name(name) {
                    self.d.at(
                        ty,
                        format!("`{word}` names no type: E*TRADE's words are `etrade::UpperCamel`"),
                    );
                }
                self.only(n, &["values"], word);
                let values = self.enum_values(n, ty, side, description.is_none());
                Ty::Enum {
                    rust_name: rust_name.to_string(),
                    values,
                    vocabulary: Some(name.to_string()),
                }
            }
            "array" => {
                self.only(n, &["items", "min_items", "max_items"], "array");
                self.ordered(&n.min_items, &n.max_items, "min_items", "max_items");
                let items = match &n.items {
                    Some(items) => {
                        self.reject(&items.value, &["name", "alias", "required"], "array items");
                        self.reject(
                            &items.value,
                            &WIRE_KEYS,
                            "array items (wire keys belong to the array)",
                        );
                        self.node(items, &format!("{rust_name}Item"), side)
                    }
                    None => {
                        self.d.at(ty, "an array needs `items`");
                        TyNode {
                            ty: Ty::Any,
                            nullable: false,
                            description: None,
                        }
                    }
                };
                Ty::Array {
                    items: Box::new(items),
                    min_items: n.min_items.as_ref().map(|v| v.value),
                    max_items: n.max_items.as_ref().map(|v| v.value),
                }
            }
            "object" => {
                self.only(
                    n,
                    &["fields", "rules", "extension_fields", "model"],
                    "object",
                );
                if n.fields.is_none() {
                    self.d.at(ty, "an object needs `fields`");
                }
                Ty::Object(Box::new(self.object(n, rust_name, side)))
            }
            other => match self.types.named.get(other) {
                Some(def) => {
                    self.only(n, &[], "a named-type reference");
                    let named = self.named(other, def, ty, side);
                    // A named scalar (an `AccountIdKey`) carries its description to every use.
                    if description.is_none() && !matches!(named, Ty::Object(_) | Ty::Enum { .. }) {
                        description = def.description.as_ref().map(|s| s.value.trim().to_string());
                    }
                    named
                }
                None => {
                    self.d.at(ty, format!("unknown type `{other}`"));
                    Ty::Any
                }
            },
        };
        TyNode {
            ty: t,
            nullable,
            description,
        }
    }

    /// The `values` of an enum or of one of E*TRADE's words: non-empty, distinct, each a
    /// possible Rust variant; a long input list needs a description.
    fn enum_values(
        &mut self,
        n: &Node,
        ty: &S<String>,
        side: Side,
        undescribed: bool,
    ) -> Vec<String> {
        let values = match &n.values {
            Some(v) if !v.value.is_empty() => {
                let mut seen = BTreeSet::new();
                let mut variants = BTreeSet::new();
                for x in &v.value {
                    if !seen.insert(x) {
                        self.d.at(v, format!("duplicate enum value `{x}`"));
                    } else if x.is_empty() || !variants.insert(variant_name(x)) {
                        self.d.at(
                            v,
                            format!("enum value `{x}` cannot name a distinct Rust variant"),
                        );
                    }
                }
                v.value.clone()
            }
            _ => {
                self.d.at(ty, "an enum needs a non-empty `values` list");
                Vec::new()
            }
        };
        if matches!(side, Side::Input)
            && values.len() > crate::json_schema::LONGEST_LISTED_ENUM
            && undescribed
        {
            self.d.at(
                ty,
                format!(
                    "an input enum of more than {} values is advertised by its shape, \
                     not its values: give it a description that names the common ones",
                    crate::json_schema::LONGEST_LISTED_ENUM
                ),
            );
        }
        values
    }

    fn named(&mut self, name: &str, def: &Node, at: &S<String>, side: Side) -> Ty {
        if self.stack.iter().any(|s| s == name) {
            self.d.at(at, format!("type `{name}` refers to itself"));
            return Ty::Any;
        }
        self.stack.push(name.to_string());
        self.reject(def, &["name", "alias", "required"], "a named type");
        self.reject(
            def,
            &WIRE_KEYS,
            "a named type (wire keys belong to the fields that use it)",
        );
        let ty = match def.ty.as_ref().map(|t| t.value.as_str()) {
            None | Some("object") => {
                if def.fields.is_none() {
                    self.d.at(at, format!("type `{name}` needs `fields`"));
                }
                let mut object = self.object(def, name, side);
                object.type_name = Some(name.to_string());
                Ty::Object(Box::new(object))
            }
            Some(_) => {
                let wrapped = S {
                    value: Node {
                        ty: def.ty.as_ref().map(clone_s),
                        values: def.values.as_ref().map(clone_s),
                        min_length: def.min_length.as_ref().map(clone_s),
                        max_length: def.max_length.as_ref().map(clone_s),
                        pattern: def.pattern.as_ref().map(clone_s),
                        minimum: def.minimum.as_ref().map(clone_s),
                        maximum: def.maximum.as_ref().map(clone_s),
                        greater_than: def.greater_than.as_ref().map(clone_s),
                        less_than: def.less_than.as_ref().map(clone_s),
                        ..Node::default()
                    },
                    referenced: at.referenced,
                    defined: at.defined,
                };
                self.only(
                    def,
                    &SCALAR_KEYS,
                    "a named type (objects, enums and scalars)",
                );
                self.node(&wrapped, name, side).ty
            }
        };
        self.stack.pop();
        ty
    }

    /// Complain about keys that do not apply to a node of this kind.
    fn only(&mut self, n: &Node, allowed: &[&str], kind: &str) {
        let all = SCALAR_KEYS.into_iter().chain([
            "trim",
            "items",
            "min_items",
            "max_items",
            "fields",
            "rules",
            "extension_fields",
            "model",
        ]);
        let banned: Vec<&str> = all.filter(|k| !allowed.contains(k)).collect();
        self.reject(n, &banned, kind);
    }

    fn reject(&mut self, n: &Node, keys: &[&str], kind: &str) {
        for k in keys {
            if let Some(loc) = present(n, k) {
                self.d
                    .at_loc(loc, format!("`{k}` does not apply to {kind}"));
            }
        }
    }

    fn ordered<T: PartialOrd + std::fmt::Display>(
        &mut self,
        lo: &Option<S<T>>,
        hi: &Option<S<T>>,
        lo_name: &str,
        hi_name: &str,
    ) {
        if let (Some(l), Some(h)) = (lo, hi)
            && l.value > h.value
        {
            self.d.at(h, format!("{hi_name} is below {lo_name}"));
        }
    }
}

fn clone_s<T: Clone>(s: &S<T>) -> S<T> {
    S {
        value: s.value.clone(),
        referenced: s.referenced,
        defined: s.defined,
    }
}

fn present(n: &Node, key: &str) -> Option<serde_saphyr::Location> {
    fn l<T>(s: &Option<S<T>>) -> Option<serde_saphyr::Location> {
        s.as_ref().map(|s| s.referenced)
    }
    match key {
        "name" => l(&n.name),
        "alias" => l(&n.alias),
        "required" => l(&n.required),
        "nullable" => l(&n.nullable),
        "min_length" => l(&n.min_length),
        "max_length" => l(&n.max_length),
        "pattern" => l(&n.pattern),
        "trim" => l(&n.trim),
        "minimum" => l(&n.minimum),
        "maximum" => l(&n.maximum),
        "greater_than" => l(&n.greater_than),
        "less_than" => l(&n.less_than),
        "values" => l(&n.values),
        "items" => n.items.as_ref().map(|s| s.referenced),
        "min_items" => l(&n.min_items),
        "max_items" => l(&n.max_items),
        "fields" => l(&n.fields),
        "rules" => l(&n.rules),
        "extension_fields" => l(&n.extension_fields),
        "model" => l(&n.model),
        "wire" => n.wire.as_ref().map(|s| s.referenced),
        "read" => l(&n.read),
        "wire_required" => l(&n.wire_required),
        "wire_default" => l(&n.wire_default),
        _ => None,
    }
}

fn text(s: &Option<S<String>>) -> String {
    s.as_ref()
        .map(|s| s.value.trim().to_string())
        .unwrap_or_default()
}

pub fn is_snake(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn is_pascal(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

fn is_ident_like(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `account_id_key` → `AccountIdKey`, `accountIdKey` → `AccountIdKey`.
pub fn pascal(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            if up {
                out.push(c.to_ascii_uppercase());
            } else {
                out.push(c);
            }
            up = false;
        } else {
            up = true;
        }
    }
    out
}

/// Rust variant name for an enum value: `STOP_LIMIT` → `StopLimit`, `2025-06-18` → `V20250618`.
pub fn variant_name(value: &str) -> String {
    let lower = if value.chars().any(|c| c.is_ascii_lowercase()) {
        value.to_string()
    } else {
        value.to_ascii_lowercase()
    };
    let p = pascal(&lower);
    if p.chars().next().is_some_and(|c| c.is_ascii_digit()) || p.is_empty() {
        format!("V{p}")
    } else {
        p
    }
}
