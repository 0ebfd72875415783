//! The approval posture: whether a person approves orders, through which channels, and the
//! PIN that keeps a program with a shell from doing it for them (set or not, its hash, wrong
//! PINs and lockout).

use super::report::Report;
use runtime::config::{ConfigFile, Settings};
use runtime::trading::approval_pin::{ApprovalPin, LEGACY_FILE_NAME, PinPosture};
use runtime::trading::policy::TradingPolicy;
use runtime::trading::store::TradingStore;
use std::path::Path;
use std::sync::Arc;

pub(super) fn check_approval(r: &mut Report, data_dir: &Path, file: &ConfigFile, s: &Settings) {
    let policy = TradingPolicy::resolve(
        file.profile(&s.profile).and_then(|p| p.trading.as_ref()),
        s.environment,
    );
    let channels = format!(
        "channel {}, approval page {}",
        policy.approval_channel().as_str(),
        if policy.approval_page() { "on" } else { "off" }
    );
    let mode = if policy.approval_required() {
        format!("required ({channels})")
    } else {
        "not required (approval = \"none\"): orders are placed when the agent asks".to_string()
    };
    let posture = pin_posture(data_dir);
    let now = jiff::Timestamp::now();
    match posture {
        Ok(PinPosture::NotSet) if policy.approval_required() => r.warn(
            "approval",
            &format!(
                "{mode}; no approval PIN: a program with a shell on this computer can approve its own orders with `etrade approve --yes`."
            ),
            "etrade approve --set-pin",
        ),
        Ok(PinPosture::NotSet) => r.ok("approval", &format!("{mode}; no approval PIN.")),
        Ok(PinPosture::Set {
            kind,
            set_at,
            attempts,
        }) => {
            let since = set_at.map(|t| format!(", set {t}")).unwrap_or_default();
            let pin = format!("approval PIN set ({kind}{since})");
            match attempts.locked_until.filter(|u| now < *u) {
                Some(until) => r.warn(
                    "approval",
                    &format!(
                        "{mode}; {pin}, locked until {until} after {} wrong PINs in a row (last at {}).",
                        attempts.failures,
                        attempts
                            .last_failure_at
                            .map(|t| t.to_string())
                            .unwrap_or_else(|| "?".into())
                    ),
                    "it unlocks by itself; if you did not type those PINs, run etrade halt",
                ),
                None if attempts.failures > 0 => r.warn(
                    "approval",
                    &format!(
                        "{mode}; {pin}; {} wrong PIN(s) in a row since the last right one.",
                        attempts.failures
                    ),
                    "if you did not type them, something is guessing: run etrade halt",
                ),
                None => r.ok("approval", &format!("{mode}; {pin}; no wrong PINs.")),
            }
        }
        Ok(PinPosture::Unusable(why)) => r.fail(
            "approval",
            &format!("{mode}; the approval PIN cannot be read ({why}): every approval is refused."),
            "see \"Approving orders\" in the README",
        ),
        Err(e) => r.warn(
            "approval",
            &format!("{mode}; the approval PIN was not checked: {e}."),
            "run etrade doctor again in a moment",
        ),
    }
}

/// Read without creating anything when there is neither a trading database nor an older
/// version's PIN file.
fn pin_posture(data_dir: &Path) -> Result<PinPosture, runtime::trading::store::StoreError> {
    let path = data_dir.join("trading.redb");
    if !path.exists() && !data_dir.join(LEGACY_FILE_NAME).exists() {
        return Ok(PinPosture::NotSet);
    }
    let store = TradingStore::open(&path)?;
    Ok(ApprovalPin::new(Arc::new(store), data_dir).posture())
}
