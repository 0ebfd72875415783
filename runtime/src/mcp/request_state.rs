//! The `requestState` of an approval asked through an MCP 2026-07-28 input request.
//!
//! A 2026-07-28 client gets the approval question inside the `tools/call` result and calls
//! again with the person's answer and the `requestState` it was given, echoed verbatim. That
//! echo is attacker-controlled input: a model that could forge or reuse it could approve its
//! own order. So the state is sealed with rmcp's HMAC codec under a key made at startup and
//! kept only in memory (a restarted server opens none of its predecessor's states), bound to
//! the call it answers (the tool and its exact arguments, so one preview's answer cannot be
//! used for another), to the preview's id and arguments hash, and to an expiry no later than
//! the preview's; and it is used up when opened, so an answer replayed does nothing.

use crate::mcp::dispatch::JsonObject;
use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Domain separation: these bytes start every binding, so a state sealed for an approval
/// can never verify for anything else this key might one day seal.
const BINDING_DOMAIN: &[u8] = b"etrade-mcp/approval-request-state/v1";

/// How the person is asked: the elicitation form or the approval page's URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskMode {
    Form,
    Url,
}

/// What a sealed state says (readable by anyone, so it holds no secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalState {
    pub preview_id: String,
    /// The preview's arguments hash: an answer never covers other arguments.
    pub arguments_hash: String,
    pub mode: AskMode,
    /// Single use: each nonce is accepted once.
    nonce: String,
    /// When the state expires (Unix milliseconds); the used nonce is forgotten after it.
    expires_at_ms: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum StateKeyError {
    #[error("no randomness for the requestState key")]
    Random,
    #[error("the requestState key was refused: {0}")]
    Codec(#[from] RequestStateError),
}

/// Why an echoed state approves nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StateRefusal {
    /// Forged, altered, sealed by another server process, or for another call (another
    /// preview's arguments).
    #[error("the requestState does not verify for this call")]
    Invalid,
    #[error("the requestState has expired")]
    Expired,
    #[error("the requestState was already used")]
    Replayed,
    #[error("inputResponses came without a requestState")]
    Missing,
}

/// Seals and opens approval states; one per server process.
pub struct ApprovalStates {
    codec: RequestStateCodec,
    /// Nonces already opened, with when their states expire.
    used: Mutex<HashMap<String, u64>>,
}

impl std::fmt::Debug for ApprovalStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The codec's own Debug redacts the key; say no more than that one exists.
        f.debug_struct("ApprovalStates").finish_non_exhaustive()
    }
}

/// The bytes a state is bound to: the tool and its arguments. Keys are sorted at every
/// level, so the same arguments sent in another order still match.
pub fn call_binding(tool: &str, arguments: &JsonObject) -> Vec<u8> {
    let mut hasher = Sha256::new();
    hasher.update(canonical(&Value::Object(arguments.clone())).as_bytes());
    let mut binding = BINDING_DOMAIN.to_vec();
    binding.push(0);
    binding.extend_from_slice(tool.as_bytes());
    binding.push(0);
    binding.extend_from_slice(&hasher.finalize());
    binding
}

fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::from(k.as_str()), canonical(&m[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(canonical).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl ApprovalStates {
    /// A fresh random key, never written anywhere.
    pub fn new() -> Result<ApprovalStates, StateKeyError> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|_| StateKeyError::Random)?;
        let codec = RequestStateCodec::try_new(key.to_vec())?;
        key.fill(0);
        Ok(ApprovalStates {
            codec,
            used: Mutex::default(),
        })
    }

    /// A state for `preview_id` asked in `mode`, bound to the call `binding`, living `ttl`
    /// (the caller passes at most the preview's remaining life). `None` without randomness.
    pub fn seal(
        &self,
        binding: &[u8],
        preview_id: &str,
        arguments_hash: &str,
        mode: AskMode,
        ttl: Duration,
    ) -> Option<String> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).ok()?;
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let state = ApprovalState {
            preview_id: preview_id.to_string(),
            arguments_hash: arguments_hash.to_string(),
            mode,
            nonce: nonce.iter().map(|b| format!("{b:02x}")).collect(),
            expires_at_ms: now_ms().saturating_add(ttl_ms),
        };
        self.codec
            .seal_json_with(
                &state,
                &SealOptions::new().associated_data(binding).ttl(ttl),
            )
            .ok()
    }

    /// The state `sealed`, if it verifies for the call `binding`, has not expired and was
    /// not opened before; it is used up now.
    pub fn open(&self, binding: &[u8], sealed: &str) -> Result<ApprovalState, StateRefusal> {
        let state: ApprovalState =
            self.codec
                .open_json_with(sealed, binding)
                .map_err(|e| match e {
                    RequestStateError::Expired => StateRefusal::Expired,
                    _ => StateRefusal::Invalid,
                })?;
        let now = now_ms();
        if state.expires_at_ms <= now {
            return Err(StateRefusal::Expired);
        }
        // Counts and timestamps only: a panic elsewhere left nothing half-written that
        // matters more than refusing every approval from then on.
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        used.retain(|_, expires| *expires > now);
        if used.contains_key(&state.nonce) {
            return Err(StateRefusal::Replayed);
        }
        used.insert(state.nonce.clone(), state.expires_at_ms);
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(preview: &str) -> JsonObject {
        let v = serde_json::json!({"account_id_key": "k", "preview_id": preview});
        match v {
            Value::Object(m) => m,
            _ => JsonObject::new(),
        }
    }

    fn sealed(s: &ApprovalStates, binding: &[u8], ttl: Duration) -> String {
        s.seal(binding, "pv-1", "h1", AskMode::Form, ttl)
            .expect("sealed")
    }

    #[test]
    fn opens_once_for_its_own_call() {
        let s = ApprovalStates::new().expect("key");
        let b = call_binding("place_order", &args("pv-1"));
        let state = sealed(&s, &b, Duration::from_secs(60));
        let opened = s.open(&b, &state).expect("opens");
        assert_eq!(
            (opened.preview_id.as_str(), opened.mode),
            ("pv-1", AskMode::Form)
        );
        assert_eq!(s.open(&b, &state), Err(StateRefusal::Replayed));
    }

    #[test]
    fn another_call_another_process_or_an_edit_opens_nothing() {
        let s = ApprovalStates::new().expect("key");
        let b = call_binding("place_order", &args("pv-1"));
        let state = sealed(&s, &b, Duration::from_secs(60));
        let other = call_binding("place_order", &args("pv-2"));
        assert_eq!(s.open(&other, &state), Err(StateRefusal::Invalid));
        let tool = call_binding("place_change_order", &args("pv-1"));
        assert_eq!(s.open(&tool, &state), Err(StateRefusal::Invalid));
        let restarted = ApprovalStates::new().expect("key");
        assert_eq!(restarted.open(&b, &state), Err(StateRefusal::Invalid));
        let mut edited = state.clone().into_bytes();
        let i = edited.len() / 2;
        edited[i] = if edited[i] == b'A' { b'B' } else { b'A' };
        let edited = String::from_utf8(edited).expect("ascii");
        assert_eq!(s.open(&b, &edited), Err(StateRefusal::Invalid));
        assert!(s.open(&b, &state).is_ok(), "the refusals used nothing up");
    }

    #[test]
    fn an_expired_state_opens_nothing() {
        let s = ApprovalStates::new().expect("key");
        let b = call_binding("place_order", &args("pv-1"));
        let state = sealed(&s, &b, Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(s.open(&b, &state), Err(StateRefusal::Expired));
    }

    #[test]
    fn argument_order_does_not_matter() {
        let mut a = JsonObject::new();
        a.insert("preview_id".into(), "pv-1".into());
        a.insert("account_id_key".into(), "k".into());
        assert_eq!(
            call_binding("place_order", &a),
            call_binding("place_order", &args("pv-1"))
        );
    }
}
