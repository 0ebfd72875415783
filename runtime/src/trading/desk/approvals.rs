//! The desk's side of approvals: what a preview shows a person, asking through the MCP
//! client's form, recording decisions, and the refusal that says how to approve.

use super::{OrderDesk, blocking, store_error};
use crate::contract::broker_message::{KnownSecrets, sanitize};
use crate::contract::errors::ToolError;
use crate::etrade::models::accounts::AccountList;
use crate::etrade::models::order_entry::BrokerPreview;
use crate::etrade::{Endpoint, EtradeRequest};
use crate::trading::approval::{
    self, Answer, ApprovalLinks, AskPerson, Channel, ChannelPolicy, Checkbox, Decision, PageShown,
    PreviewContext,
};
use crate::trading::store::{ApprovalError, DecisionFor};
use crate::trading::types::PreviewRecord;
use std::sync::Arc;
use std::time::Duration;

/// The elicitation form's one checkbox.
const PLACE_FIELD: Checkbox<'static> = Checkbox {
    name: "place_order",
    label: "Place this order",
};
/// How often a call waiting on the approval page looks for the person's decision.
const DECISION_POLL: Duration = Duration::from_millis(200);

impl OrderDesk {
    /// How the person runs `etrade` in a terminal, for the approval commands this desk names.
    pub fn with_approve_program(mut self, program: String) -> OrderDesk {
        self.approve_program = program;
        self
    }

    /// The command that approves `preview_id` here.
    pub fn approve_command(&self, preview_id: &str) -> String {
        approve_command(
            &self.approve_program,
            preview_id,
            &self.environment,
            &self.profile,
        )
    }

    /// Offer the local approval page in refusals.
    pub fn with_approval_links(mut self, links: Arc<dyn ApprovalLinks>) -> OrderDesk {
        self.approval_links = Some(links);
        self
    }

    /// E*TRADE's view of a preview that a person approving it sees. The account's name
    /// costs one account-list request, made only when approvals are required.
    pub(super) async fn preview_context(
        &self,
        account_id_key: &str,
        broker: &BrokerPreview,
    ) -> PreviewContext {
        let mut context = PreviewContext {
            account_name: None,
            account_last4: None,
            estimated_total: broker.estimated_total(),
            commission: broker.total_commission,
            warnings: broker
                .messages
                .iter()
                .chain(broker.order.iter().flat_map(|o| o.messages.iter()))
                .filter_map(|m| sanitize(m.description.as_deref(), &KnownSecrets::default()))
                .collect(),
        };
        if !self.policy.approval_required() {
            return context;
        }
        let listed = self
            .session
            .call(&EtradeRequest::read(Endpoint::AccountList))
            .await
            .ok()
            .and_then(|body| AccountList::from_wire(body).ok());
        let account = listed
            .iter()
            .flat_map(|l| l.accounts.iter())
            .find(|a| a.account_id_key == account_id_key);
        if let Some(a) = account {
            context.account_name = a.account_name.clone().filter(|n| !n.is_empty());
            context.account_last4 = Some(last4(&a.account_id));
        } else if let Some(id) = &broker.account_id {
            context.account_last4 = Some(last4(id));
        }
        context
    }

    /// The stored preview, when a person still has to decide on it before it is placed.
    /// `None` when no approval is required, or the preview is decided, used, unknown or
    /// another profile's (placing it then reports why). While trading is halted nobody is
    /// asked: the halt refusal comes first.
    pub async fn awaiting_approval(
        &self,
        preview_id: &str,
    ) -> Result<Option<PreviewRecord>, ToolError> {
        self.check_halt()?;
        if !self.policy.approval_required() {
            return Ok(None);
        }
        let id = preview_id.to_string();
        let found = blocking(&self.store, move |s| s.preview(&id))
            .await?
            .map_err(|e| store_error(&e))?;
        Ok(found.filter(|p| {
            p.environment == self.environment
                && p.profile == self.profile
                && p.used_at.is_none()
                && p.approval.is_none()
                && (self.clock)() < p.expires_at
        }))
    }

    /// Ask the person through the MCP client, and record or await their answer. A client
    /// that opens links is offered the approval page when it is on and asks for the PIN,
    /// whatever the channel policy: agreeing to open a page approves nothing, the PIN on it
    /// does. A client with a form is asked there when the policy allows and no PIN is set:
    /// the form cannot ask for the PIN (MCP forbids secrets in form elicitation), so with a
    /// PIN it would be a way around it. Otherwise, or without an answer, the refusal says how
    /// to approve out of band (and the page, when on, opens in the person's browser).
    ///
    /// `ask` is the client's way of asking; the caller passes `None` for a client whose
    /// channels may not approve ([`approval::ClientTrust`]).
    pub async fn ask_approval(
        &self,
        preview: &PreviewRecord,
        ask: Option<&dyn AskPerson>,
    ) -> Result<(), ToolError> {
        let within = preview
            .expires_at
            .duration_since((self.clock)())
            .try_into()
            .unwrap_or(Duration::ZERO);
        if let Some(asker) = ask.filter(|a| a.can_open_links())
            && let Some(url) = self
                .approval_links
                .as_ref()
                .and_then(|l| l.link_for_client(preview))
        {
            return self.approve_on_page(preview, asker, url, within).await;
        }
        let asker =
            ask.filter(|a| a.can_ask() && self.policy.approval_channel() == ChannelPolicy::Any);
        let Some(asker) = asker else {
            return Err(self.not_approved(preview));
        };
        if self.pin_may_be_set().await {
            return Err(self.not_approved(preview));
        }
        let message = format!(
            "Place this order?\n\n{}\n\nTick \"{}\" and submit to place it; decline to refuse it.",
            approval::summary(preview),
            PLACE_FIELD.label
        );
        let decision = match asker.confirm(preview, message, PLACE_FIELD, within).await {
            Answer::Accept(true) => Decision::Approved,
            Answer::Accept(false) | Answer::Decline => Decision::Rejected,
            Answer::NoAnswer => {
                return Err(ToolError::execution_disabled("The order was not approved."));
            }
            Answer::Pending => return Err(asked_in_the_result()),
            Answer::Forged => return Err(approval::answer_refused()),
        };
        self.decide(&preview.preview_id, decision, Channel::Elicitation)
            .await
            .map_err(|e| {
                ToolError::execution_disabled(&format!("The order was not approved: {e}."))
            })?;
        match decision {
            Decision::Approved => Ok(()),
            Decision::Rejected => Err(ToolError::execution_disabled("The order was not approved.")),
        }
    }

    /// Offer the approval page through the client's URL elicitation, then wait for the
    /// person's decision there (or through `etrade approve`) until the preview expires.
    async fn approve_on_page(
        &self,
        preview: &PreviewRecord,
        asker: &dyn AskPerson,
        url: String,
        within: Duration,
    ) -> Result<(), ToolError> {
        let id = format!("approve-{}", preview.preview_id);
        let message = format!(
            "Approve or reject this order on the local approval page.\n\n{}",
            approval::summary(preview)
        );
        match asker
            .open_link(preview, message, url, id.clone(), within)
            .await
        {
            Answer::Accept(_) => {}
            Answer::Decline | Answer::NoAnswer => return Err(self.not_approved(preview)),
            Answer::Pending => return Err(asked_in_the_result()),
            Answer::Forged => return Err(approval::answer_refused()),
        }
        let decided = self.wait_for_decision(&preview.preview_id).await;
        asker.link_done(id).await;
        match decided? {
            Some(Decision::Approved) => Ok(()),
            Some(Decision::Rejected) | None => {
                Err(ToolError::execution_disabled("The order was not approved."))
            }
        }
    }

    /// The decision recorded on a preview, polled from the shared store (the page, or
    /// `etrade approve` in another process, records it); `None` once the preview expired.
    async fn wait_for_decision(&self, preview_id: &str) -> Result<Option<Decision>, ToolError> {
        loop {
            let id = preview_id.to_string();
            let found = blocking(&self.store, move |s| s.preview(&id))
                .await?
                .map_err(|e| store_error(&e))?;
            let Some(preview) = found else {
                return Ok(None);
            };
            if let Some(approval) = &preview.approval {
                return Ok(Some(approval.decision));
            }
            if (self.clock)() >= preview.expires_at {
                return Ok(None);
            }
            tokio::time::sleep(DECISION_POLL).await;
        }
    }

    /// Whether an approval PIN is (or may be) set: a desk without the PIN, or a PIN record
    /// that cannot be read, counts as set, so the form is never a way around it.
    pub(super) async fn pin_may_be_set(&self) -> bool {
        match self.approval_pin.clone() {
            Some(pin) => tokio::task::spawn_blocking(move || pin.is_set())
                .await
                .unwrap_or(true),
            None => true,
        }
    }

    /// Record a person's decision on one of this desk's previews.
    pub async fn decide(
        &self,
        preview_id: &str,
        decision: Decision,
        channel: Channel,
    ) -> Result<PreviewRecord, ApprovalError> {
        let (id, env, profile, now) = (
            preview_id.to_string(),
            self.environment.clone(),
            self.profile.clone(),
            (self.clock)(),
        );
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || {
            store.record_decision(&DecisionFor {
                preview_id: &id,
                environment: &env,
                profile: &profile,
                decision,
                channel,
                now,
            })
        })
        .await
        .map_err(|_| {
            ApprovalError::Store(crate::trading::store::StoreError::Database(
                "the approval task failed".into(),
            ))
        })?
    }

    /// The refusal of an unapproved placement: how a person approves it. It never carries
    /// the approval page's address: the page, when on, is opened in the person's browser.
    pub(super) fn not_approved(&self, preview: &PreviewRecord) -> ToolError {
        let command = self.approve_command(&preview.preview_id);
        let page = match self
            .approval_links
            .as_ref()
            .map(|l| l.show_to_person(preview))
        {
            Some(PageShown::Opened) => {
                ", or to approve it on the approval page that just opened in their browser"
            }
            Some(PageShown::AlreadyOpened { .. }) => {
                ", or to approve it on the approval page already open in their browser"
            }
            Some(PageShown::Unavailable) | None => "",
        };
        ToolError::awaiting_approval(&format!(
            "Ask the user to run `{command}` in a terminal on this computer{page}, then call place_order again with the same preview_id (it expires at {}).",
            preview.expires_at
        ))
    }
}

/// The refusal behind an input request: the MCP server answers the call with the question
/// itself (MCP 2026-07-28), so a client sees this only if that answer could not be made.
fn asked_in_the_result() -> ToolError {
    ToolError::awaiting_approval(
        "The question is in this call's input request; call place_order again with the person's answer.",
    )
}

/// The command that approves `preview_id` for this environment and profile, `program`
/// being how the person runs `etrade`.
pub fn approve_command(
    program: &str,
    preview_id: &str,
    environment: &str,
    profile: &str,
) -> String {
    format!("{program} approve {preview_id} --environment {environment} --profile {profile}")
}

fn last4(id: &str) -> String {
    let digits: Vec<char> = id.chars().collect();
    digits[digits.len().saturating_sub(4)..].iter().collect()
}
