//! The order ticket app's two calls: what a stored preview looks like to a person, and their
//! Approve or Reject.
//!
//! The server cannot see whether a call comes from the app or from the model: the host's
//! rule that app-only tools are kept from the model is the trust here, as the elicitation form
//! trusts its host. So a decision binds to what the ticket was rendered for — the preview id
//! and the hash of its arguments — is single use, asks for the PIN when one is set (with its
//! lockout), and is refused when the operator accepts only out-of-band approval or when the
//! client's connection is one any local program could have made (HTTP without a token).

use super::{OrderDesk, blocking, store_error};
use crate::contract::errors::ToolError;
use crate::trading::approval::{ChannelPolicy, ClientTrust, Decision, constant_time_eq};
use crate::trading::approval_pin::ApprovalPin;
use crate::trading::store::{ApprovalError, DecisionFor, PinPurpose};
use crate::trading::types::PreviewRecord;
use std::sync::Arc;

/// Where a preview stands, as the ticket shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketStatus {
    AwaitingApproval,
    Approved,
    Rejected,
    Placed,
    Expired,
    /// The profile places without a person's approval.
    NotRequired,
}

impl TicketStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TicketStatus::AwaitingApproval => "awaiting_approval",
            TicketStatus::Approved => "approved",
            TicketStatus::Rejected => "rejected",
            TicketStatus::Placed => "placed",
            TicketStatus::Expired => "expired",
            TicketStatus::NotRequired => "not_required",
        }
    }
}

/// One preview as the ticket shows it.
#[derive(Debug, Clone)]
pub struct TicketView {
    pub preview: PreviewRecord,
    pub status: TicketStatus,
    pub approval_required: bool,
    pub pin_required: bool,
    /// The app's approval is accepted here: the operator allows it (not only `etrade
    /// approve`) and the client may approve ([`ClientTrust`]).
    pub app_approval: bool,
}

impl OrderDesk {
    /// The PIN the order ticket app must give when one is set.
    pub fn with_approval_pin(mut self, pin: Arc<ApprovalPin>) -> OrderDesk {
        self.approval_pin = Some(pin);
        self
    }

    /// This environment's and profile's stored preview `preview_id`, as the ticket shows it.
    pub async fn ticket(
        &self,
        preview_id: &str,
        client: ClientTrust,
    ) -> Result<TicketView, ToolError> {
        let preview = self.own_preview(preview_id).await?;
        let approval_required = self.policy.approval_required();
        let status = match (&preview.approval, preview.used_at) {
            (_, Some(_)) => TicketStatus::Placed,
            (Some(a), None) if a.decision == Decision::Rejected => TicketStatus::Rejected,
            _ if (self.clock)() >= preview.expires_at => TicketStatus::Expired,
            (Some(_), None) => TicketStatus::Approved,
            (None, None) if approval_required => TicketStatus::AwaitingApproval,
            (None, None) => TicketStatus::NotRequired,
        };
        // A PIN that cannot be read counts as set: the check then refuses.
        let pin_required = self.pin_may_be_set().await;
        Ok(TicketView {
            preview,
            status,
            approval_required,
            pin_required,
            app_approval: self.app_approval_allowed() && client.may_approve(),
        })
    }

    /// Record the person's decision from the ticket, for exactly the preview (and arguments
    /// hash) it shows.
    pub async fn answer_ticket(
        &self,
        preview_id: &str,
        preview_hash: &str,
        decision: Decision,
        pin: Option<&str>,
        client: ClientTrust,
    ) -> Result<PreviewRecord, ToolError> {
        self.check_halt()?;
        if !client.may_approve() {
            // Rejections too: a program posing as the ticket must not decide the person's
            // orders either way, and its wrong PINs must not lock the person's page.
            return Err(ToolError::execution_disabled(
                "Over HTTP without a bearer token any program on this computer can pose as the order ticket, so the ticket decides nothing here: a person approves with etrade approve in a terminal (or on the approval page the server opens in their browser).",
            ));
        }
        if !self.policy.approval_required() {
            return Err(ToolError::execution_disabled(
                "This profile places orders without a person's approval; there is nothing to approve.",
            ));
        }
        if !self.app_approval_allowed() {
            return Err(ToolError::execution_disabled(
                "The operator accepts approvals only out of band (approval_channel = \"out_of_band\"): use etrade approve.",
            ));
        }
        let preview = self.own_preview(preview_id).await?;
        if !constant_time_eq(&preview.arguments_hash, preview_hash) {
            return Err(ToolError::execution_disabled(
                "The ticket does not show this preview's order (its hash differs); nothing was decided.",
            ));
        }
        // The PIN guards approving, not rejecting: refusing an order needs no secret.
        if decision == Decision::Approved {
            self.check_pin(pin).await?;
        }
        let (id, env, profile, now) = (
            preview_id.to_string(),
            self.environment.clone(),
            self.profile.clone(),
            (self.clock)(),
        );
        let decided = blocking(&self.store, move |s| {
            s.record_decision(&DecisionFor {
                preview_id: &id,
                environment: &env,
                profile: &profile,
                decision,
                channel: crate::trading::approval::Channel::App,
                now,
            })
        })
        .await?;
        decided.map_err(|e| match e {
            ApprovalError::NotFound | ApprovalError::OtherEnvironment => not_found(),
            ApprovalError::Store(e) => store_error(&e),
            other => ToolError::execution_disabled(&format!("Nothing was decided: {other}.")),
        })
    }

    fn app_approval_allowed(&self) -> bool {
        self.policy.approval_channel() != ChannelPolicy::OutOfBand
    }

    async fn check_pin(&self, given: Option<&str>) -> Result<(), ToolError> {
        let Some(pin) = self.approval_pin.clone() else {
            return Err(ToolError::execution_disabled(
                "The approval PIN cannot be checked here; approve with etrade approve.",
            ));
        };
        let given = given.unwrap_or("").to_string();
        let checked = tokio::task::spawn_blocking(move || {
            if !pin.is_set() {
                return Ok(());
            }
            pin.verify(&given, PinPurpose::ApproveApp)
        })
        .await
        .map_err(|_| ToolError::internal())?;
        // The refusal's words name counts and times, never the PIN.
        checked.map_err(|r| ToolError::execution_disabled(&format!("Not approved: {r}.")))
    }

    async fn own_preview(&self, preview_id: &str) -> Result<PreviewRecord, ToolError> {
        let id = preview_id.to_string();
        let found = blocking(&self.store, move |s| s.preview(&id))
            .await?
            .map_err(|e| store_error(&e))?;
        found
            .filter(|p| p.environment == self.environment && p.profile == self.profile)
            .ok_or_else(not_found)
    }
}

fn not_found() -> ToolError {
    ToolError::not_found(
        "No preview with this id in this environment and profile (it may have expired and been removed).",
    )
}
