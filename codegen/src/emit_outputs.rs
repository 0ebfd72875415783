//! The runtime's tool outputs (`outputs.rs`): one serde struct per tool with logic of its own,
//! generated from its `output:` schema, and a struct or enum for every object and enum
//! beneath it. Handlers return these; the generated dispatch serializes them as the tool's
//! `data`. So a hand-written answer has the shape the tool advertises by construction.
//!
//! Names: the root is the tool's `…Output`; a named type keeps its name; an inline object or
//! enum is named after its parent and field (`ServerStatusOutput` + `market_data` →
//! `ServerStatusOutputMarketData`), as the checked catalog names them.
//!
//! Every output field is always present (the checker refuses `required` on outputs; a
//! nullable field is `null`, not absent), so no field is skipped when serializing. An object
//! with a `model:` is E*TRADE's answer read by that model and is carried whole: the field's
//! type is the runtime's model.

use crate::check::variant_name;
use crate::emit_models::snake;
use crate::emit_rust::{doc, field_ident};
use crate::ir::{Catalog, Object, Ty, TyNode};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// The generated outputs, keyed in [`crate::generate`]'s map (and the mirror) by this name.
pub const OUTPUTS_FILE: &str = "outputs.rs";

pub fn outputs_rs(catalog: &Catalog) -> String {
    let mut sink = Sink::default();
    let mut schemas = Vec::new();
    for t in catalog
        .tools
        .iter()
        .filter(|t| !crate::emit_rust::generated_handler(t))
    {
        let d = format!(
            "What `{}` answers: its `data` on success (the spec's `output:`).",
            t.name
        );
        match &t.output.model {
            // A read with a hand-written handler answers E*TRADE's answer whole: its output
            // is the answer model, carried as is.
            Some(model) => sink.carried(&t.output.rust_name, model, &d),
            None => sink.object(&t.output, &d),
        }
        let (name, ty) = (&t.name, format_ident!("{}", t.output.rust_name));
        schemas.push(quote! { (#name, schemars::schema_for!(#ty)) });
    }
    let count = proc_macro2::Literal::usize_unsuffixed(schemas.len());
    let items = sink.items.into_values();
    crate::emit_rust::render(quote! {
        use serde::Serialize;
        #(#items)*

        /// Each tool's output type as JSON Schema, by tool name, for the test that holds the
        /// types to the spec (a decimal, a date and a carried answer model read as strings and
        /// any value: their own shape is checked elsewhere).
        pub fn schemas() -> [(&'static str, schemars::Schema); #count] {
            [#(#schemas),*]
        }
    })
}

/// Generated items keyed by name, so a named type used by several tools is emitted once and
/// the file reads in a stable order.
#[derive(Default)]
struct Sink {
    items: BTreeMap<String, TokenStream>,
}

impl Sink {
    /// `o`'s struct; `fallback_doc` when the spec gives it no description.
    fn object(&mut self, o: &Object, fallback_doc: &str) {
        if self.items.contains_key(&o.rust_name) {
            return;
        }
        self.items.insert(o.rust_name.clone(), TokenStream::new());
        let fields: Vec<TokenStream> = o
            .fields
            .iter()
            .map(|f| {
                let rust = snake(&f.name);
                let ident = field_ident(&rust);
                let place = format!("the `{}` of [`{}`]", f.name, o.rust_name);
                let ty = self.rust_type(&f.node, &place);
                let d = f.node.description.as_deref().map(doc);
                let carried = model_of(&f.node).map(|m| {
                    doc(&format!(
                        "E*TRADE's answer as the runtime's `{m}` model reads it, carried unchanged."
                    ))
                });
                let rename = (rust != f.name).then(|| {
                    let n = &f.name;
                    quote! { #[serde(rename = #n)] }
                });
                let schema = schema_type(&f.node).map(|with| quote! { #[schemars(with = #with)] });
                quote! { #d #carried #rename #schema pub #ident: #ty, }
            })
            .collect();
        let ident = format_ident!("{}", o.rust_name);
        let d = doc(o.description.as_deref().unwrap_or(fallback_doc));
        self.items.insert(
            o.rust_name.clone(),
            quote! {
                #d
                #[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
                pub struct #ident {
                    #(#fields)*
                }
            },
        );
    }

    /// A tool's output that is an answer model: a transparent wrapper around it.
    fn carried(&mut self, rust_name: &str, model: &str, d: &str) {
        let ident = format_ident!("{}", rust_name);
        let m = format_ident!("{}", model);
        let d = doc(d);
        let carried = doc(&format!(
            "E*TRADE's answer as the runtime's `{model}` model reads it, carried unchanged."
        ));
        self.items.insert(
            rust_name.to_string(),
            quote! {
                #d
                #[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
                #[serde(transparent)]
                pub struct #ident(
                    #carried
                    #[schemars(with = "serde_json::Value")]
                    pub models::#m,
                );
            },
        );
    }

    /// The Rust type of a field's value; `place` names the field, for the docs of the
    /// types generated for it.
    fn rust_type(&mut self, n: &TyNode, place: &str) -> TokenStream {
        let inner = match &n.ty {
            Ty::String { .. } => quote! { String },
            // RFC 3339 as `runtime::time::rfc3339` writes it (UTC, at most milliseconds).
            Ty::DateTime => quote! { String },
            Ty::Integer { .. } => quote! { i64 },
            Ty::Boolean => quote! { bool },
            Ty::Decimal { .. } => quote! { rust_decimal::Decimal },
            Ty::Date => quote! { jiff::civil::Date },
            Ty::Any => quote! { serde_json::Value },
            Ty::Enum {
                vocabulary: Some(word),
                ..
            } => {
                let i = format_ident!("{}", word);
                quote! { crate::etrade::vocabulary::#i }
            }
            Ty::Enum {
                rust_name,
                values,
                vocabulary: None,
            } => {
                let fallback = format!("The values of {place}.");
                self.enumeration(
                    rust_name,
                    values,
                    n.description.as_deref().unwrap_or(&fallback),
                );
                let i = format_ident!("{}", rust_name);
                quote! { #i }
            }
            Ty::Array { items, .. } => {
                let item = self.rust_type(items, &format!("one item of {place}"));
                quote! { Vec<#item> }
            }
            Ty::Object(o) => match &o.model {
                Some(model) => {
                    let i = format_ident!("{}", model);
                    quote! { models::#i }
                }
                None => {
                    self.object(o, &format!("{}.", upper_first(place)));
                    let i = format_ident!("{}", o.rust_name);
                    quote! { #i }
                }
            },
        };
        if n.nullable {
            quote! { Option<#inner> }
        } else {
            inner
        }
    }

    fn enumeration(&mut self, rust_name: &str, values: &[String], description: &str) {
        if self.items.contains_key(rust_name) {
            return;
        }
        let ident = format_ident!("{}", rust_name);
        let variants: Vec<_> = values
            .iter()
            .map(|v| format_ident!("{}", variant_name(v)))
            .collect();
        let d = doc(description);
        self.items.insert(
            rust_name.to_string(),
            quote! {
                #d
                #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
                pub enum #ident {
                    #( #[serde(rename = #values)] #variants, )*
                }

                impl #ident {
                    /// The value as the output writes it.
                    pub fn as_str(&self) -> &'static str {
                        match self {
                            #( Self::#variants => #values, )*
                        }
                    }
                }
            },
        );
    }
}

/// The model a field carries (an object with `model:`, or a list of them).
fn model_of(n: &TyNode) -> Option<&str> {
    match &n.ty {
        Ty::Object(o) => o.model.as_deref(),
        Ty::Array { items, .. } => model_of(items),
        _ => None,
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The type schemars describes a field by, where its own type has no `JsonSchema`: decimals
/// and dates are strings, a carried model any value. `None`: the field's own type.
fn schema_type(n: &TyNode) -> Option<String> {
    let inner = match &n.ty {
        Ty::Decimal { .. } | Ty::Date => "String".to_string(),
        Ty::Object(o) if o.model.is_some() => "serde_json::Value".to_string(),
        Ty::Array { items, .. } => format!("Vec<{}>", schema_type(items)?),
        _ => return None,
    };
    Some(if n.nullable {
        format!("Option<{inner}>")
    } else {
        inner
    })
}
