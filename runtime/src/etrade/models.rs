//! Client models of E*TRADE responses: they read the wire JSON (PascalCase containers,
//! lowerCamel leaves, one-or-many arrays, epoch times) and serialize under the lowerCamel
//! names the tools' output schemas advertise.
//!
//! The shapes are generated from the spec (`generated`, from its `model:` objects), so an
//! answer's fields are written once. Each topic module here re-exports its models and adds
//! what is not a shape: the answer's root (`from_wire`: the `…Response` envelope, what an empty
//! answer means) and logic on the models. `read` holds the wire readers the generated code
//! names.

pub mod accounts;
pub mod alerts;
pub mod balances;
pub mod contracts;
pub mod generated;
pub mod lookup;
pub mod money;
pub mod options;
pub mod order_entry;
pub mod orders;
pub mod portfolio;
pub mod quotes;
pub mod read;
pub mod scalars;
mod time;
pub mod transactions;

pub use time::epoch_opt;

/// Every recorded E*TRADE answer a read model reads (`tests/fixtures/etrade-answers/`) reads
/// the same from its text as from its tree: the E*TRADE session hands reads over as text,
/// the paper broker as trees, and the tools must not tell them apart.
#[cfg(test)]
mod text_and_tree {
    use super::*;
    use crate::etrade::BrokerBody;
    use serde::Serialize;
    use std::path::Path;

    fn both<T: Serialize>(
        text: &str,
        read: impl Fn(Option<BrokerBody>) -> Result<T, serde_json::Error>,
    ) -> Result<Option<serde_json::Value>, String> {
        let tree: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let from_text = read(Some(BrokerBody::Text(text.to_string())));
        let from_tree = read(Some(BrokerBody::Tree(tree)));
        match (from_text, from_tree) {
            (Ok(a), Ok(b)) => {
                let (a, b) = (serde_json::to_value(a), serde_json::to_value(b));
                let (a, b) = (a.map_err(|e| e.to_string())?, b.map_err(|e| e.to_string())?);
                if a == b {
                    Ok(Some(a))
                } else {
                    Err("the readings differ".into())
                }
            }
            (Err(_), Err(_)) => Ok(None),
            (a, b) => Err(format!(
                "text read {}, tree read {}",
                if a.is_ok() { "ok" } else { "an error" },
                if b.is_ok() { "ok" } else { "an error" }
            )),
        }
    }

    fn read_as(kind: &str, text: &str) -> Result<Option<serde_json::Value>, String> {
        match kind {
            "account-list" => both(text, accounts::AccountList::from_wire),
            "alerts" => both(text, alerts::AlertList::from_wire),
            "alert-details" => both(text, alerts::AlertDetails::from_wire),
            "balance" => both(text, balances::Balance::from_wire),
            "lookup" => both(text, lookup::LookupList::from_wire),
            "option-chains" => both(text, options::OptionChain::from_wire),
            "option-expire-dates" => both(text, options::ExpirationDates::from_wire),
            "orders" => both(text, orders::OrderList::from_wire),
            "portfolio" => both(text, |b| portfolio::PortfolioPage::from_wire(b, 1)),
            "position-lots" => both(text, portfolio::PositionLots::from_wire),
            "quotes" => both(text, quotes::QuoteList::from_wire),
            "transactions" => both(text, transactions::TransactionPage::from_wire),
            "transaction-details" => both(text, transactions::TransactionDetails::from_wire),
            // Mutations and odd shapes: every model must refuse or read them alike.
            _ => {
                let all = [
                    "account-list",
                    "alerts",
                    "alert-details",
                    "balance",
                    "lookup",
                    "option-chains",
                    "option-expire-dates",
                    "orders",
                    "portfolio",
                    "position-lots",
                    "quotes",
                    "transactions",
                    "transaction-details",
                ];
                for k in all {
                    read_as(k, text).map_err(|e| format!("as {k}: {e}"))?;
                }
                Ok(None)
            }
        }
    }

    #[test]
    fn every_recorded_answer_reads_alike_from_text_and_tree() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/etrade-answers");
        let mut read = 0;
        let mut failures = Vec::new();
        for kind in std::fs::read_dir(&root).expect("the recorded answers") {
            let kind = kind.expect("entry").path();
            let Some(name) = kind
                .file_name()
                .and_then(|n| n.to_str())
                .map(str::to_string)
            else {
                continue;
            };
            if !kind.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&kind).expect("folder") {
                let file = file.expect("entry").path();
                if file.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let text = std::fs::read_to_string(&file).expect("answer");
                match read_as(&name, &text) {
                    Ok(Some(_)) => read += 1,
                    Ok(None) => {}
                    Err(e) => failures.push(format!("{}: {e}", file.display())),
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
        // 31 recorded answers of read kinds when this was written; each must read.
        assert!(
            read >= 31,
            "only {read} recorded answers were read by their model"
        );
    }
}
