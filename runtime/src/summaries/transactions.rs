//! Every transaction of a date range, totalled by transaction type (and by symbol): count,
//! net amount and fees, exactly as E*TRADE's pages state them.

use super::figures::Sum;
use super::paging;
use crate::broker::Broker;
use crate::contract::errors::ToolError;
use crate::etrade::models::transactions::Transaction;
use jiff::civil::Date;
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// How the rows are keyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    TransactionType,
    /// Transaction type and symbol.
    Symbol,
}

// `summarize_transactions`'s answer and its parts: the types generated from its `output:`.
use crate::outputs::{
    SummarizeTransactionsOutput, SummarizeTransactionsOutputGroupsItem as GroupRow,
    SummarizeTransactionsOutputTotals as Figures,
};

#[derive(Default)]
struct Tally {
    count: i64,
    net: Sum,
    fees: Decimal,
}

impl Tally {
    fn add(&mut self, t: &Transaction) {
        self.count += 1;
        self.net.add(t.amount);
        self.fees += t.brokerage.as_ref().and_then(|b| b.fee).unwrap_or_default();
    }

    fn figures(&self) -> Figures {
        Figures {
            count: self.count,
            net_amount: self.net.value(),
            fees: self.fees.normalize(),
        }
    }
}

pub async fn summarize(
    broker: &dyn Broker,
    account_id_key: &str,
    start: Date,
    end: Date,
    group_by: GroupBy,
    max_pages: u32,
) -> Result<SummarizeTransactionsOutput, ToolError> {
    let pages = paging::transactions(broker, account_id_key, start, end, max_pages).await?;
    let mut groups: BTreeMap<(String, Option<String>), Tally> = BTreeMap::new();
    let mut all = Tally::default();
    for t in &pages.items {
        let kind = t
            .transaction_type
            .clone()
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| "Unknown".into());
        let symbol = match group_by {
            GroupBy::TransactionType => None,
            GroupBy::Symbol => symbol(t),
        };
        groups.entry((kind, symbol)).or_default().add(t);
        all.add(t);
    }
    let complete = pages.stopped.is_none();
    Ok(SummarizeTransactionsOutput {
        account_id_key: account_id_key.to_string(),
        start_date: start,
        end_date: end,
        groups: groups
            .into_iter()
            .map(|((transaction_type, symbol), tally)| {
                let Figures {
                    count,
                    net_amount,
                    fees,
                } = tally.figures();
                GroupRow {
                    transaction_type,
                    symbol,
                    count,
                    net_amount,
                    fees,
                }
            })
            .collect(),
        totals: all.figures(),
        pages: pages.pages.into(),
        complete,
        incomplete_reason: pages.stopped,
    })
}

fn symbol(t: &Transaction) -> Option<String> {
    let b = t.brokerage.as_ref()?;
    b.display_symbol
        .clone()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| b.product.as_ref().and_then(|p| p.symbol.clone()))
        .filter(|s| !s.trim().is_empty())
}
