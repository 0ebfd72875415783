//! What the runtime offers a spec binding, read from the runtime's own source so there is
//! one list: the endpoint table in `runtime/src/etrade/request.rs` (one
//! `Endpoint::Name => shape(VERB, MODULE, "path"),` row each; a runtime test keeps that form)
//! and the answer models in `runtime/src/etrade/answers.rs` (`impl BrokerAnswer for Name`).

use std::sync::OnceLock;

pub const ENDPOINTS_FILE: &str = "runtime/src/etrade/request.rs";
pub const ANSWERS_FILE: &str = "runtime/src/etrade/answers.rs";

const ENDPOINTS_SOURCE: &str = include_str!("../../runtime/src/etrade/request.rs");
const ANSWERS_SOURCE: &str = include_str!("../../runtime/src/etrade/answers.rs");

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

fn endpoint_rows(source: &str) -> Vec<EndpointRow> {
    let Ok(re) = regex_lite::Regex::new(
        r#"^Endpoint::(\w+) => shape\((GET|POST|PUT|DELETE), (ACCOUNTS|MARKET|ORDERS|ALERTS), "([^"]+)"\),$"#,
    ) else {
        return Vec::new();
    };
    source
        .lines()
        .filter_map(|l| re.captures(l.trim()))
        .map(|c| EndpointRow {
            variant: c[1].to_string(),
            verb: c[2].to_string(),
            module: c[3].to_string(),
            path: c[4].to_string(),
        })
        .collect()
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
    }
}
