//! A list tool's compact projection (`compact:`): the rows a model reasons with, without the
//! null keys and the views of the full answer. The spec names where the rows are and, per
//! compact key, the path in the full row it comes from; the key's type is the full field's,
//! so the compact row's schema, the runtime's projection table and the docs all follow from
//! that one list.

use crate::diagnostics::Diagnostics;
use crate::ir::{self, Object, Ty, TyNode};
use crate::model::{CompactDef, S};
use proc_macro2::TokenStream;
use quote::quote;

/// The values of the `detail` input field, in the order the spec must list them.
const DETAIL_VALUES: [&str; 2] = [ir::DETAIL_COMPACT, "full"];

pub fn check(
    def: &S<CompactDef>,
    input: &Object,
    output: &Object,
    d: &mut Diagnostics,
) -> Option<ir::Compact> {
    let c = &def.value;
    match input.fields.iter().find(|f| f.name == ir::DETAIL_FIELD) {
        Some(f) => {
            let values_ok = matches!(&f.node.ty, Ty::Enum { values, vocabulary: None, .. }
                if values.iter().map(String::as_str).eq(DETAIL_VALUES));
            if !values_ok || f.required {
                d.at(
                    def,
                    format!(
                        "`{}` must be an optional enum of [{}]",
                        ir::DETAIL_FIELD,
                        DETAIL_VALUES.join(", ")
                    ),
                );
            }
        }
        None => d.at(
            def,
            format!(
                "a tool with `compact:` needs the input field `{}`",
                ir::DETAIL_FIELD
            ),
        ),
    }
    if c.rows.is_empty() {
        d.at(def, "`compact.rows` names at least one path to the rows");
        return None;
    }
    let mut row: Option<&Object> = None;
    let mut rows = Vec::new();
    for r in &c.rows {
        let path = split(&r.value);
        match row_at(output, &path) {
            Some(found) if row.is_none_or(|seen| seen == found) => {
                row = Some(found);
                rows.push(path);
            }
            Some(_) => d.at(
                r,
                "every path in `compact.rows` must reach the same row type",
            ),
            None => d.at(
                r,
                format!("`{}` does not lead to objects in the output", r.value),
            ),
        }
    }
    let row = row?;
    let mut fields: Vec<ir::CompactField> = Vec::new();
    for (name, path) in &c.fields.0 {
        let ok_name = name.value.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok_name {
            d.at(name, "a compact key is a lowerCamelCase or snake_case name");
            continue;
        }
        if fields.iter().any(|f| f.name == name.value) {
            d.at(
                name,
                format!("compact key `{}` is listed twice", name.value),
            );
            continue;
        }
        let mut paths = Vec::new();
        let mut node: Option<&TyNode> = None;
        for alternative in path.value.split('|') {
            let segments = split(alternative.trim());
            match scalar_at(row, &segments) {
                Some(found) if node.is_none_or(|seen| seen.ty == found.ty) => {
                    node = Some(found);
                    paths.push(segments);
                }
                Some(_) => d.at(
                    path,
                    format!("`{alternative}` is not of the same type as the paths before it"),
                ),
                None => d.at(
                    path,
                    format!(
                        "`{alternative}` is not a scalar of the row (an array needs an index: `legs.0.symbol`)"
                    ),
                ),
            }
        }
        let Some(node) = node else {
            continue;
        };
        fields.push(ir::CompactField {
            name: name.value.clone(),
            paths,
            node: TyNode {
                nullable: false,
                ..node.clone()
            },
        });
    }
    if fields.is_empty() {
        d.at(def, "`compact.fields` keeps at least one field");
    }
    Some(ir::Compact { rows, fields })
}

fn split(path: &str) -> Vec<String> {
    path.split('.').map(str::to_string).collect()
}

/// Arrays on the way (and at the end) are walked into their items.
fn row_at<'a>(o: &'a Object, path: &[String]) -> Option<&'a Object> {
    let (first, rest) = path.split_first()?;
    let mut node = &o.fields.iter().find(|f| &f.name == first)?.node;
    while let Ty::Array { items, .. } = &node.ty {
        node = items;
    }
    let Ty::Object(next) = &node.ty else {
        return None;
    };
    if rest.is_empty() {
        Some(next)
    } else {
        row_at(next, rest)
    }
}

fn scalar_at<'a>(o: &'a Object, path: &[String]) -> Option<&'a TyNode> {
    let (first, rest) = path.split_first()?;
    let mut node = &o.fields.iter().find(|f| &f.name == first)?.node;
    let mut rest = rest;
    loop {
        match &node.ty {
            Ty::Object(next) => return scalar_at(next, rest),
            Ty::Array { items, .. } => {
                let (index, after) = rest.split_first()?;
                if index.is_empty() || !index.chars().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                node = items;
                rest = after;
            }
            Ty::Any => return None,
            _ => return rest.is_empty().then_some(node),
        }
    }
}

/// The runtime's projection table (`runtime::__codegen::Compaction`).
pub fn table(c: &ir::Compact) -> TokenStream {
    let rows = c.rows.iter().map(|r| quote! { &[#(#r),*] });
    let fields = c.fields.iter().map(|f| {
        let name = &f.name;
        let paths = f.paths.iter().map(|p| quote! { &[#(#p),*] });
        quote! { (#name, &[#(#paths),*]) }
    });
    quote! {
        ::runtime::__codegen::Compaction {
            rows: &[#(#rows),*],
            fields: &[#(#fields),*],
        }
    }
}
