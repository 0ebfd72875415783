//! The runtime models of E*TRADE's answers, generated from the output objects marked
//! `model:` (and every object beneath them): serde structs that read the wire (PascalCase
//! containers, one-or-many arrays, numbers sent as strings, epoch times) through the runtime's
//! readers and serialize under the output schema's names. So an answer's shape is written
//! once, in the spec: its output schema and its model come from the same fields.
//!
//! Names: a `model:` object takes that name; beneath it a named type keeps its type name
//! (or its own `model:`), and an inline object is named after its parent and field
//! (`Balance` + `cash` → `BalanceCash`).

use crate::check::pascal;
use crate::ir::{Catalog, Field, Object, Ty, TyNode};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

pub fn models_rs(catalog: &Catalog) -> String {
    let mut w = Walk::default();
    for t in &catalog.tools {
        w.scan(&t.output);
    }
    let items = w.items;
    let defaults = w.defaults;
    let file = quote! {
        use super::read;
        use serde::{Deserialize, Serialize};
        #(#items)*
        #(#defaults)*
    };
    crate::emit_rust::render(file)
}

#[derive(Default)]
struct Walk {
    seen: BTreeSet<String>,
    items: Vec<TokenStream>,
    defaults: Vec<TokenStream>,
}

impl Walk {
    /// Find the model roots of an output tree.
    fn scan(&mut self, o: &Object) {
        if let Some(name) = &o.model {
            self.model(o, name);
            return;
        }
        for f in &o.fields {
            self.scan_ty(&f.node.ty);
        }
    }

    fn scan_ty(&mut self, t: &Ty) {
        match t {
            Ty::Object(o) => self.scan(o),
            Ty::Array { items, .. } => self.scan_ty(&items.ty),
            _ => {}
        }
    }

    /// Emit the model `name` for `o`, and the models beneath it (once each, parents first).
    fn model(&mut self, o: &Object, name: &str) {
        if !self.seen.insert(name.to_string()) {
            return;
        }
        let slot = self.items.len();
        self.items.push(TokenStream::new());
        let fields: Vec<TokenStream> = o.fields.iter().map(|f| self.field(f, name)).collect();
        let ident = format_ident!("{}", name);
        let docs = o.description.as_deref().map(crate::emit_rust::doc);
        // An answer that may be empty (E*TRADE's 204) is the model's default.
        let empty = o
            .fields
            .iter()
            .all(|f| f.node.nullable || matches!(f.node.ty, Ty::Array { .. }));
        let default = empty.then(|| quote! { Default, });
        self.items[slot] = quote! {
            #docs
            #[derive(Debug, Clone, PartialEq, #default Deserialize, Serialize)]
            #[serde(rename_all = "camelCase")]
            pub struct #ident {
                #(#fields)*
            }
        };
    }

    fn field(&mut self, f: &Field, parent: &str) -> TokenStream {
        let rust = snake(&f.name);
        let ident = crate::emit_rust::field_ident(&rust);
        let ty = self.rust_type(&f.node, parent, &f.name);
        let docs = f.node.description.as_deref().map(crate::emit_rust::doc);

        let mut args: Vec<TokenStream> = Vec::new();
        let serialized = camel(&rust) == f.name;
        let keys = if f.wire.keys.is_empty() {
            default_keys(f)
        } else {
            f.wire.keys.clone()
        };
        match keys.first() {
            Some(primary) if serialized => args.push(quote! { rename(deserialize = #primary) }),
            Some(primary) => {
                let name = &f.name;
                args.push(quote! { rename(serialize = #name, deserialize = #primary) });
            }
            None if !serialized => {
                let name = &f.name;
                args.push(quote! { rename = #name });
            }
            None => {}
        }
        let aliases = keys
            .iter()
            .skip(1)
            .chain((!keys.is_empty() && !keys.contains(&f.name)).then_some(&f.name));
        for a in aliases {
            args.push(quote! { alias = #a });
        }
        if let Some(value) = &f.wire.default {
            let fname = format!("{}_{}", snake(parent), rust);
            let fn_ident = format_ident!("{}", fname);
            self.defaults.push(quote! {
                fn #fn_ident() -> String {
                    #value.to_string()
                }
            });
            args.push(quote! { default = #fname });
        } else if f.node.nullable || matches!(f.node.ty, Ty::Array { .. }) && !f.wire.required {
            args.push(quote! { default });
        }
        if let Some(reader) = f.wire.read.clone().or_else(|| default_reader(&f.node)) {
            let path = format!("read::{reader}");
            args.push(quote! { deserialize_with = #path });
        }
        let attr = (!args.is_empty()).then(|| quote! { #[serde(#(#args),*)] });
        quote! {
            #docs
            #attr
            pub #ident: #ty,
        }
    }

    fn rust_type(&mut self, n: &TyNode, parent: &str, field: &str) -> TokenStream {
        let inner = match &n.ty {
            Ty::String { .. } | Ty::Enum { .. } | Ty::Date | Ty::DateTime => quote! { String },
            Ty::Integer { .. } => quote! { i64 },
            Ty::Decimal { .. } => quote! { rust_decimal::Decimal },
            Ty::Boolean => quote! { bool },
            Ty::Any => quote! { serde_json::Value },
            Ty::Object(o) => {
                let name = child_name(o, parent, field);
                self.model(o, &name);
                let ident = format_ident!("{}", name);
                quote! { #ident }
            }
            Ty::Array { items, .. } => {
                let item = self.rust_type(items, parent, field);
                quote! { Vec<#item> }
            }
        };
        match &n.ty {
            // Boxed: E*TRADE's optional views (a position's Quick, Complete, Performance, ...)
            // would otherwise each take their whole size in every element of an array, and a
            // 10,000-position page is read into one growing `Vec` (at 2,960 bytes a position
            // unboxed, 72 MiB at its last doubling).
            Ty::Object(_) if n.nullable => quote! { Option<Box<#inner>> },
            _ if n.nullable => quote! { Option<#inner> },
            _ => inner,
        }
    }
}

fn child_name(o: &Object, parent: &str, field: &str) -> String {
    o.model
        .clone()
        .or_else(|| o.type_name.clone())
        .unwrap_or_else(|| format!("{parent}{}", pascal(field)))
}

/// E*TRADE sends objects (and arrays of objects) under PascalCase keys (`Product`, `Cash`)
/// and scalars under the output's own camelCase name.
fn default_keys(f: &Field) -> Vec<String> {
    let object = match &f.node.ty {
        Ty::Object(_) => true,
        Ty::Array { items, .. } => matches!(items.ty, Ty::Object(_)),
        _ => false,
    };
    let upper = upper_first(&f.name);
    if object && upper != f.name {
        vec![upper]
    } else {
        Vec::new()
    }
}

/// The reader a field's type implies (`None`: serde's own).
fn default_reader(n: &TyNode) -> Option<String> {
    let (opt, req) = match &n.ty {
        Ty::String { .. } | Ty::Enum { .. } => ("string_opt", "string"),
        Ty::Integer { .. } => ("int_opt", "int"),
        Ty::Decimal { .. } => ("decimal_opt", "decimal"),
        Ty::Boolean => ("flag_opt", "flag"),
        Ty::DateTime => ("epoch_opt", "epoch_opt"),
        Ty::Array { .. } => ("one_or_many_opt", "one_or_many"),
        Ty::Date | Ty::Any | Ty::Object(_) => return None,
    };
    Some(if n.nullable { opt } else { req }.to_string())
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// An output name as a Rust field: `daysGainPct` → `days_gain_pct`, `dateTimeUTC` →
/// `date_time_utc` (a run of capitals is one word).
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if i > 0 && !out.ends_with('_') && (!prev_upper || next_lower) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// serde's `rename_all = "camelCase"` of a Rust field name.
fn camel(rust: &str) -> String {
    let mut out = String::with_capacity(rust.len());
    let mut upper = false;
    for c in rust.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_camel_case() {
        for n in [
            "daysGainPct",
            "perform1Month",
            "sv10DaysAvg",
            "week52High",
            "quotestatus",
        ] {
            assert_eq!(camel(&snake(n)), n, "{n}");
        }
        assert_eq!(snake("dateTimeUtc"), "date_time_utc");
        assert_eq!(snake("dateTimeUTC"), "date_time_utc");
        assert_eq!(snake("selectedED"), "selected_ed");
        // Not a camelCase name: the field gets an explicit rename.
        assert_ne!(camel(&snake("incomplete_reason")), "incomplete_reason");
    }
}
