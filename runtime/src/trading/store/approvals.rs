//! Recording a person's decision on a stored preview, and listing the previews that wait
//! for one. The decision is written to the preview and to its journal entry in one
//! transaction.

use std::ops::Bound;

use super::format::{PREVIEW_END, PREVIEW_START, journal_key, preview_key};
use super::{StoreError, TradingStore, decode, encode};
use crate::trading::approval::{ApprovalRecord, Channel, Decision};
use crate::trading::types::{JournalEntry, PreviewRecord};

#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("no preview with this id exists (it may have expired and been removed)")]
    NotFound,
    #[error("the preview was made in another environment or profile")]
    OtherEnvironment,
    #[error("the preview has expired; ask for a new preview")]
    Expired,
    #[error("the preview has already been used to place an order")]
    AlreadyUsed,
    #[error("the preview was already {}", .0.as_str())]
    AlreadyDecided(Decision),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Whose decision: the preview must belong to this environment and profile.
pub struct DecisionFor<'a> {
    pub preview_id: &'a str,
    pub environment: &'a str,
    pub profile: &'a str,
    pub decision: Decision,
    pub channel: Channel,
    pub now: jiff::Timestamp,
}

impl TradingStore {
    /// Records the decision once: a preview that is used, expired or already decided is
    /// refused and nothing is written.
    pub fn record_decision(&self, d: &DecisionFor<'_>) -> Result<PreviewRecord, ApprovalError> {
        self.write_records(|records| {
            let preview_key = preview_key(d.preview_id);
            let mut preview: PreviewRecord = match records.get(preview_key.as_slice())? {
                Some(json) => decode(json.value())?,
                None => return Err(ApprovalError::NotFound),
            };
            if preview.environment != d.environment || preview.profile != d.profile {
                return Err(ApprovalError::OtherEnvironment);
            }
            if preview.used_at.is_some() || preview.used_by.is_some() {
                return Err(ApprovalError::AlreadyUsed);
            }
            if d.now >= preview.expires_at {
                return Err(ApprovalError::Expired);
            }
            if let Some(a) = &preview.approval {
                return Err(ApprovalError::AlreadyDecided(a.decision));
            }
            let record = ApprovalRecord {
                decision: d.decision,
                channel: d.channel,
                at: d.now,
                arguments_hash: preview.arguments_hash.clone(),
                peer: self.peer().map(str::to_string),
            };
            preview.approval = Some(record.clone());
            let json = encode(&preview)?;
            records.insert(preview_key.as_slice(), json.as_str())?;
            if let Some(id) = preview.journal_id {
                let key = journal_key(id);
                let entry = match records.get(key.as_slice())? {
                    Some(json) => Some(decode::<JournalEntry>(json.value())?),
                    None => None,
                };
                if let Some(mut entry) = entry {
                    entry.approval = Some(record);
                    let json = encode(&entry)?;
                    records.insert(key.as_slice(), json.as_str())?;
                }
            }
            Ok(preview)
        })
    }

    /// Previews of this environment and profile that can still be placed and have no
    /// decision yet, oldest first.
    pub fn awaiting_decision(
        &self,
        environment: &str,
        profile: &str,
        now: jiff::Timestamp,
    ) -> Result<Vec<PreviewRecord>, StoreError> {
        self.read_records(|records| {
            let mut out = Vec::new();
            for row in
                records.range((Bound::Included(PREVIEW_START), Bound::Excluded(PREVIEW_END)))?
            {
                let (_, json) = row?;
                let p: PreviewRecord = decode(json.value())?;
                if p.environment == environment
                    && p.profile == profile
                    && p.used_at.is_none()
                    && p.approval.is_none()
                    && now < p.expires_at
                {
                    out.push(p);
                }
            }
            out.sort_by_key(|p| p.created_at);
            Ok(out)
        })
    }
}
