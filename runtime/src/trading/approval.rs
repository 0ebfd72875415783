//! A person's approval of one stored preview before it is placed.
//!
//! An approval is part of the preview's record: bound to that preview (its id, the hash of
//! its arguments, its account, environment and profile), used up with it, and expiring with
//! it. It is also written into the preview's journal entry. Nothing the model can send
//! approves, and nothing it is sent lets it approve: approvals are recorded only by the
//! channels here — the MCP client's own elicitation form, `etrade approve` on a terminal,
//! the local approval page, whose address goes to the person's browser, and the order ticket
//! app, whose tools a host that renders apps keeps from the model.

pub use super::types::{ApprovalRecord, Channel, Decision, PreviewContext};
use super::types::{OrderSummary, PreviewRecord};
use crate::contract::errors::ToolError;
use crate::contract::validation::{ClientProblem, ClientReason, client_validation_error};
use crate::etrade::vocabulary::Trail;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub use crate::config::trading::{ApprovalMode, ChannelPolicy};

/// Who may be at the other end of the MCP connection a call came in on. It decides whether
/// that client's own channels — the elicitation form, URL elicitation and the order ticket —
/// may approve: over stdio only the host that started the server holds the pipe, while any
/// program on this machine can send HTTP requests to a loopback listener (a model's fetch
/// tool among them) unless every request must carry a bearer token it cannot read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientTrust {
    /// stdio: the MCP host that started `etrade serve`.
    Host,
    /// HTTP with the bearer token required on every request.
    Token,
    /// HTTP without a token: any local program can be the client. Its channels approve
    /// nothing; a person approves out of band (the terminal, or the page opened in their
    /// browser by the server itself).
    Anyone,
}

impl ClientTrust {
    pub fn may_approve(self) -> bool {
        self != ClientTrust::Anyone
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ClientTrust::Host => "host",
            ClientTrust::Token => "token",
            ClientTrust::Anyone => "anyone",
        }
    }
}

/// Compare a secret or a binding (a CSRF token, an arguments hash) without stopping at the
/// first difference.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether `record` approves placing `preview` now.
pub fn approves(record: Option<&ApprovalRecord>, preview: &PreviewRecord) -> bool {
    record.is_some_and(|a| {
        a.decision == Decision::Approved && a.arguments_hash == preview.arguments_hash
    })
}

/// The plain-words summary every channel shows.
pub fn summary(p: &PreviewRecord) -> String {
    let c = &p.context;
    let mut out = String::new();
    let account = match (&c.account_name, &c.account_last4) {
        (Some(n), Some(l)) if !n.is_empty() => format!("{n} (…{l})"),
        (_, Some(l)) => format!("…{l}"),
        _ => p.account_id_key.clone(),
    };
    let _ = writeln!(
        out,
        "Account: {account} — {} / {}",
        p.environment, p.profile
    );
    let _ = writeln!(out, "Order: {}", order_words(&p.summary));
    if let Some(t) = c.estimated_total {
        let _ = writeln!(out, "E*TRADE's estimated total: ${t}");
    }
    if let Some(f) = c.commission {
        let _ = writeln!(out, "Commission: ${f}");
    }
    for w in &c.warnings {
        let _ = writeln!(out, "E*TRADE says: {w}");
    }
    let _ = write!(out, "Preview {} expires at {}", p.preview_id, p.expires_at);
    out
}

/// `BUY 10 AAPL, LIMIT 170.00, GOOD_FOR_DAY, REGULAR session`.
fn order_words(s: &OrderSummary) -> String {
    let legs: Vec<String> = s
        .legs
        .iter()
        .map(|l| {
            let mut leg = format!("{} {} {}", l.order_action, l.quantity, l.symbol);
            if let (Some(cp), Some(exp), Some(strike)) = (&l.call_put, l.expiration, l.strike_price)
            {
                let _ = write!(leg, " {exp} {strike} {cp}");
            }
            leg
        })
        .collect();
    let mut price = s.price_type.to_string();
    if let Some(l) = s.limit_price {
        let _ = write!(price, " limit {l}");
    }
    // A trailing stop's stopPrice is its trail, not a price.
    match (s.stop_price, s.price_type.trail()) {
        (Some(st), Some(Trail::Dollars)) => {
            let _ = write!(price, " trail ${st}");
        }
        (Some(st), Some(Trail::Percent)) => {
            let _ = write!(price, " trail {st}%");
        }
        (Some(st), None) => {
            let _ = write!(price, " stop {st}");
        }
        (None, _) => {}
    }
    let aon = if s.all_or_none { ", all or none" } else { "" };
    format!(
        "{} — {price}, {}, {} session{aon}",
        legs.join(" + "),
        s.order_term,
        s.market_session
    )
}

/// The person's answer to an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// They submitted the form; `true` when they ticked "place it".
    Accept(bool),
    Decline,
    /// Cancelled, dismissed, timed out, or the client failed.
    NoAnswer,
    /// The question went out in this call's result (an MCP 2026-07-28 input request): the
    /// client asks the person and calls again with the answer.
    Pending,
    /// An answer that does not belong to this question (another preview, another way of
    /// asking), or is no answer at all: it approves nothing and is refused as invalid input.
    Forged,
}

/// The refusal of an answer to an approval question that was not asked for this call: a
/// forged, altered, replayed or expired `requestState`, or another preview's answer. It
/// approves nothing.
pub fn answer_refused() -> ToolError {
    client_validation_error([ClientProblem {
        path: Vec::new(),
        reason: ClientReason::Rule {
            code: "request_state_invalid",
            message: "This answer was not asked for this call, was used already or has expired; call again without inputResponses to be asked.",
        },
    }])
}

pub type AskFuture<'a> = Pin<Box<dyn Future<Output = Answer> + Send + 'a>>;

pub type DoneFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The one checkbox an approval form shows: its key in the answer, and the words a person
/// reads beside it (a form shows the key itself when it has no title).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkbox<'a> {
    pub name: &'a str,
    pub label: &'a str,
}

/// A way to ask the person at the MCP client, through the client's elicitation: a form
/// with one boolean, or a URL the client offers to open (the approval page). Each question
/// is about `preview`, so an answer that comes back in a later call can be checked against
/// the preview it was asked for.
pub trait AskPerson: Send + Sync {
    /// Whether the client declared form elicitation.
    fn can_ask(&self) -> bool;
    /// Show `message` with one checkbox, `field`, to place the order; wait at most `within`.
    fn confirm<'a>(
        &'a self,
        preview: &'a PreviewRecord,
        message: String,
        field: Checkbox<'a>,
        within: Duration,
    ) -> AskFuture<'a>;
    /// Whether the client declared URL-mode elicitation.
    fn can_open_links(&self) -> bool;
    /// Offer to open `url`; `Accept` means the person agreed to open it, nothing more.
    fn open_link<'a>(
        &'a self,
        preview: &'a PreviewRecord,
        message: String,
        url: String,
        id: String,
        within: Duration,
    ) -> AskFuture<'a>;
    /// Tell the client that the interaction behind the link `id` is over.
    fn link_done(&self, id: String) -> DoneFuture<'_>;
}

/// Where a person can approve a preview in a browser (the local approval page).
pub trait ApprovalLinks: Send + Sync {
    /// A one-time URL to hand the MCP client (URL-mode elicitation, which the client shows
    /// its user), or `None`. An address sent over MCP may reach the model, so it is offered
    /// only when the page asks for something the model cannot know: the PIN.
    fn link_for_client(&self, preview: &PreviewRecord) -> Option<String>;
    /// Open the page for `preview` in the person's browser, once per link; the address is
    /// never returned, so it cannot reach a tool result.
    fn show_to_person(&self, preview: &PreviewRecord) -> PageShown;
}

/// What [`ApprovalLinks::show_to_person`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageShown {
    /// Opened in the person's browser now.
    Opened,
    /// Opened before, at `at`; not opened again (an agent calling in a loop must not
    /// flood the person's screen).
    AlreadyOpened { at: Timestamp },
    /// No browser could be opened here.
    Unavailable,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etrade::vocabulary::*;
    use crate::trading::types::{LegSummary, PreviewKind};
    use rust_decimal::Decimal;

    fn preview() -> PreviewRecord {
        PreviewRecord {
            preview_id: "p1".into(),
            kind: PreviewKind::New,
            environment: "production".into(),
            profile: "default".into(),
            account_id_key: "k".into(),
            order_fields: String::new(),
            broker_preview_ids: Vec::new(),
            arguments_hash: "h1".into(),
            client_order_id: "c".into(),
            summary: OrderSummary {
                order_type: OrderType::Equity,
                price_type: PriceType::Limit,
                order_term: OrderTerm::GoodForDay,
                market_session: MarketSession::Regular,
                limit_price: Some(Decimal::new(17000, 2)),
                stop_price: None,
                all_or_none: false,
                legs: vec![LegSummary {
                    symbol: "AAPL".into(),
                    security_type: SecurityType::Equity,
                    order_action: OrderAction::Buy,
                    quantity: Decimal::from(10),
                    call_put: None,
                    expiration: None,
                    strike_price: None,
                }],
                estimated_notional: None,
            },
            created_at: Timestamp::UNIX_EPOCH,
            expires_at: Timestamp::UNIX_EPOCH,
            used_at: None,
            used_by: None,
            journal_id: None,
            approval: None,
            context: PreviewContext {
                account_name: Some("Trading".into()),
                account_last4: Some("0429".into()),
                estimated_total: Some(Decimal::new(170499, 2)),
                commission: Some(Decimal::new(499, 2)),
                warnings: vec!["Market is closed.".into()],
            },
        }
    }

    #[test]
    fn the_summary_names_everything_a_person_needs() {
        let s = summary(&preview());
        for part in [
            "Trading (…0429)",
            "BUY 10 AAPL",
            "LIMIT limit 170.00",
            "GOOD_FOR_DAY",
            "REGULAR session",
            "$1704.99",
            "Commission: $4.99",
            "E*TRADE says: Market is closed.",
            "Preview p1",
        ] {
            assert!(s.contains(part), "{part} missing from:\n{s}");
        }
    }

    /// A person approving a trailing stop reads its trail as a trail, never as a stop price.
    #[test]
    fn a_trail_reads_as_a_trail() {
        let mut p = preview();
        p.summary.price_type = PriceType::TrailingStopConstant;
        p.summary.limit_price = None;
        p.summary.stop_price = Some(Decimal::new(250, 2));
        let s = summary(&p);
        assert!(s.contains("TRAILING_STOP_CNST trail $2.50,"), "{s}");
        assert!(!s.contains("stop 2.50"), "{s}");
        p.summary.price_type = PriceType::TrailingStopPercent;
        p.summary.stop_price = Some(Decimal::from(5));
        assert!(summary(&p).contains("TRAILING_STOP_PRCT trail 5%,"));
    }

    #[test]
    fn an_approval_covers_only_its_own_arguments() {
        let p = preview();
        let mut a = ApprovalRecord {
            decision: Decision::Approved,
            channel: Channel::Terminal,
            at: Timestamp::UNIX_EPOCH,
            arguments_hash: "h1".into(),
            peer: None,
        };
        assert!(approves(Some(&a), &p));
        a.arguments_hash = "h2".into();
        assert!(!approves(Some(&a), &p));
        a.arguments_hash = "h1".into();
        a.decision = Decision::Rejected;
        assert!(!approves(Some(&a), &p));
        assert!(!approves(None, &p));
    }
}
