//! What the runtime offers a spec binding, read from the runtime's own files so there is one
//! list: the endpoint table `runtime/src/etrade/endpoint_table.rs` (rows of data,
//! `Name = VERB MODULE "path";`, parsed with syn; the runtime expands the same rows into
//! `Endpoint`) and the answer models in `runtime/src/etrade/answers.rs`
//! (`impl BrokerAnswer for Name`), and the wire readers a generated model may name, the
//! public functions and re-exports of `runtime/src/etrade/models/read.rs`. build.rs copies the
//! three into OUT_DIR (from `runtime-facts/` in the published crate).

use std::sync::OnceLock;

pub const ENDPOINTS_FILE: &str = "runtime/src/etrade/endpoint_table.rs";
pub const ANSWERS_FILE: &str = "runtime/src/etrade/answers.rs";

const ENDPOINTS_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/endpoint_table.rs"));
const ANSWERS_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/answers.rs"));
pub const READERS_FILE: &str = "runtime/src/etrade/models/read.rs";
const READERS_SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/read.rs"));

/// One row of the runtime's endpoint table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointRow {
    pub variant: String,
    /// `GET`, `POST`, `PUT` or `DELETE`.
    pub verb: String,
    /// `ACCOUNTS`, `MARKET`, `ORDERS` or `ALERTS`.
    pub module: String,
    /// With E*TRADE's parameter names, e.g. `/v1/accounts/{accountIdKey}/balance`.
    pub path: String,
}

pub fn endpoints() -> &'static [EndpointRow] {
    static ROWS: OnceLock<Vec<EndpointRow>> = OnceLock::new();
    ROWS.get_or_init(|| endpoint_rows(ENDPOINTS_SOURCE))
}

pub fn answers() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| answer_names(ANSWERS_SOURCE))
}

/// The rows of the table's one `endpoints! { ... }` item; none if the file does not parse
/// (the binding check then names the file for every binding).
fn endpoint_rows(source: &str) -> Vec<EndpointRow> {
    let Ok(file) = syn::parse_file(source) else {
        return Vec::new();
    };
    file.items
        .iter()
        .find_map(|item| match item {
            syn::Item::Macro(m) if m.mac.path.is_ident("endpoints") => {
                m.mac.parse_body::<Table>().ok()
            }
            _ => None,
        })
        .map(|t| t.0)
        .unwrap_or_default()
}

struct Table(Vec<EndpointRow>);

impl syn::parse::Parse for Table {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Table> {
        let mut rows = Vec::new();
        while !input.is_empty() {
            let variant: syn::Ident = input.parse()?;
            input.parse::<syn::Token![=]>()?;
            let verb: syn::Ident = input.parse()?;
            let module: syn::Ident = input.parse()?;
            let path: syn::LitStr = input.parse()?;
            input.parse::<syn::Token![;]>()?;
            rows.push(EndpointRow {
                variant: variant.to_string(),
                verb: verb.to_string(),
                module: module.to_string(),
                path: path.value(),
            });
        }
        Ok(Table(rows))
    }
}

/// The names `runtime::etrade::models::read` offers: its `pub fn`s and `pub use`d items.
pub fn readers() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| reader_names(READERS_SOURCE))
}

fn reader_names(source: &str) -> Vec<String> {
    fn used(tree: &syn::UseTree, out: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => used(&p.tree, out),
            syn::UseTree::Name(n) => out.push(n.ident.to_string()),
            syn::UseTree::Rename(r) => out.push(r.rename.to_string()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| used(t, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let Ok(file) = syn::parse_file(source) else {
        return Vec::new();
    };
    let public = |v: &syn::Visibility| matches!(v, syn::Visibility::Public(_));
    let mut out = Vec::new();
    for item in &file.items {
        match item {
            syn::Item::Fn(f) if public(&f.vis) => out.push(f.sig.ident.to_string()),
            syn::Item::Use(u) if public(&u.vis) => used(&u.tree, &mut out),
            _ => {}
        }
    }
    out.sort();
    out
}

fn answer_names(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("impl BrokerAnswer for "))
        .filter_map(|rest| rest.strip_suffix(" {"))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_tables_are_found() {
        let rows = endpoints();
        assert!(rows.len() >= 19, "{rows:?}");
        assert!(rows.iter().any(|r| r.variant == "OptionExpireDates"
            && r.verb == "GET"
            && r.module == "MARKET"
            && r.path == "/v1/market/optionexpiredate"));
        assert!(answers().iter().any(|a| a == "ExpirationDates"));
        assert!(answers().iter().any(|a| a == "PortfolioPage"));
        for r in ["decimal_opt", "int", "one_or_many", "messages"] {
            assert!(readers().iter().any(|x| x == r), "{r}: {:?}", readers());
        }
    }
}
