//! How each answer model reads E*TRADE's answer to a request: the models a spec binding may
//! name as its `answer`. The code generator reads the `impl BrokerAnswer for NAME` lines of
//! this file to check those names, so every implementation lives here.

use super::body::BrokerBody;
use super::failure::BrokerError;
use super::request::{EtradeRequest, Param};
use serde::Serialize;

pub use super::models::accounts::AccountList;
pub use super::models::alerts::{AlertDetails, AlertList};
pub use super::models::balances::Balance;
pub use super::models::lookup::LookupList;
pub use super::models::options::{ExpirationDates, OptionChain};
pub use super::models::orders::OrderList;
pub use super::models::portfolio::{PortfolioPage, PositionLots};
pub use super::models::quotes::QuoteList;
pub use super::models::transactions::{TransactionDetails, TransactionPage};

/// A client model that reads E*TRADE's answer (`None`: the empty answer) to `request`.
pub trait BrokerAnswer: Serialize + Sized {
    fn from_answer(
        body: Option<BrokerBody>,
        request: &EtradeRequest,
    ) -> Result<Self, serde_json::Error>;

    /// An error answer that means an empty result rather than a failure.
    fn from_refusal(_error: &BrokerError) -> Option<Self> {
        None
    }

    /// A successful answer that nonetheless refuses the whole request: E*TRADE says why
    /// only in the answer's messages (a quote answer where no symbol could be quoted).
    fn refusal(&self) -> Option<AnswerRefusal> {
        None
    }
}

/// The broker's reason, from a 200 answer, for giving nothing that was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerRefusal {
    /// The first message's code, as the broker sent it.
    pub code: Option<String>,
    /// Every message's text, in order.
    pub message: Option<String>,
}

impl BrokerAnswer for AccountList {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        AccountList::from_wire(body)
    }
}

impl BrokerAnswer for Balance {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        Balance::from_wire(body)
    }
}

impl BrokerAnswer for PortfolioPage {
    /// The page says which page it is: the one asked for, else the first.
    fn from_answer(body: Option<BrokerBody>, r: &EtradeRequest) -> Result<Self, serde_json::Error> {
        let page = r.query_param("pageNumber").and_then(Param::as_int);
        PortfolioPage::from_wire(body, page.unwrap_or(1))
    }
}

impl BrokerAnswer for PositionLots {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        PositionLots::from_wire(body)
    }
}

impl BrokerAnswer for TransactionPage {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        TransactionPage::from_wire(body)
    }
}

impl BrokerAnswer for TransactionDetails {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        TransactionDetails::from_wire(body)
    }
}

impl BrokerAnswer for QuoteList {
    /// Symbols that got no quote are named beside the quotes.
    fn from_answer(body: Option<BrokerBody>, r: &EtradeRequest) -> Result<Self, serde_json::Error> {
        let requested = r
            .path_param("symbols")
            .and_then(Param::as_list)
            .unwrap_or_default();
        Ok(QuoteList::from_wire(body)?.with_requested(requested))
    }

    /// No quote and a reason for each symbol: the call fails (as the tool says), carrying
    /// E*TRADE's code and messages.
    fn refusal(&self) -> Option<AnswerRefusal> {
        if !self.quotes.is_empty() || self.messages.is_empty() {
            return None;
        }
        let texts: Vec<&str> = self
            .messages
            .iter()
            .filter_map(|m| m.description.as_deref())
            .collect();
        Some(AnswerRefusal {
            code: self.messages.iter().find_map(|m| m.code.clone()),
            message: (!texts.is_empty()).then(|| texts.join(" ")),
        })
    }
}

impl BrokerAnswer for LookupList {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        LookupList::from_wire(body)
    }
}

impl BrokerAnswer for OptionChain {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        OptionChain::from_wire(body)
    }
}

impl BrokerAnswer for ExpirationDates {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        ExpirationDates::from_wire(body)
    }
}

impl BrokerAnswer for OrderList {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        OrderList::from_wire(body)
    }
}

impl BrokerAnswer for AlertList {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        AlertList::from_wire(body)
    }

    /// E*TRADE answers an empty inbox with HTTP 404, code 53 ("There are currently no
    /// alerts in your inbox.").
    fn from_refusal(e: &BrokerError) -> Option<Self> {
        (e.http_refusal() == Some((404, Some("53")))).then(AlertList::empty)
    }
}

impl BrokerAnswer for AlertDetails {
    fn from_answer(body: Option<BrokerBody>, _: &EtradeRequest) -> Result<Self, serde_json::Error> {
        AlertDetails::from_wire(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etrade::failure::{BrokerFailure, Operation, TransportFailure};

    /// Only E*TRADE's 404 with code 53 is an empty inbox: any other refusal is a failure
    /// (reconciliation then records `unknown`, not "the alerts are gone").
    #[test]
    fn only_404_code_53_is_an_empty_inbox() {
        let refusal = |status: u16, code: i64| {
            BrokerError::refusal(
                status,
                code,
                "There are currently no alerts.",
                Operation::Read,
            )
        };
        assert!(AlertList::from_refusal(&refusal(404, 53)).is_some());
        let no_code = BrokerError::new(
            BrokerFailure::Http {
                status: 404,
                body: Default::default(),
            },
            Operation::Read,
        );
        let transport = BrokerError::new(
            BrokerFailure::Transport(TransportFailure::Timeout),
            Operation::Read,
        );
        for e in [no_code, refusal(404, 10033), refusal(400, 53), transport] {
            assert!(AlertList::from_refusal(&e).is_none(), "{e:?}");
        }
    }

    /// A quote answer refuses the request only when it quotes nothing and says why.
    #[test]
    fn a_quote_answer_with_only_messages_is_a_refusal() {
        let read = |wire: serde_json::Value| {
            QuoteList::from_wire(Some(wire)).unwrap_or_else(|e| panic!("{e}"))
        };
        let only_messages = read(
            serde_json::json!({"QuoteResponse": {"Messages": {"Message": [
            {"description": "APPL is not a valid symbol.", "code": 1019, "type": "WARNING"},
            {"description": "XYZQ is not a valid symbol.", "code": 1019, "type": "WARNING"}]}}}),
        );
        assert_eq!(
            only_messages.refusal(),
            Some(AnswerRefusal {
                code: Some("1019".into()),
                message: Some("APPL is not a valid symbol. XYZQ is not a valid symbol.".into()),
            })
        );
        let some_quoted = read(serde_json::json!({"QuoteResponse": {
            "QuoteData": [{"Product": {"symbol": "AAPL", "securityType": "EQ"}}],
            "Messages": {"Message": {"description": "APPL is not a valid symbol.", "code": 1019}}}}));
        assert_eq!(some_quoted.refusal(), None);
        assert_eq!(
            read(serde_json::json!({"QuoteResponse": {"QuoteData": []}})).refusal(),
            None
        );
    }
}
