//! The approval posture: whether a person approves orders, through which channels, which of
//! them an unauthenticated HTTP client could use (none), the PIN that keeps a program with a
//! shell from approving with `etrade approve --yes` (set or not, its hash and strength
//! class, both wrong-PIN counts and their lockouts), and what holds against each tier.

use super::report::Report;
use runtime::config::{ConfigFile, Settings};
use runtime::mcp::http::{MIN_APPROVING_TOKEN_CHARS, client_trust};
use runtime::trading::approval::ClientTrust;
use runtime::trading::approval_pin::{ApprovalPin, LEGACY_FILE_NAME, PinPosture};
use runtime::trading::policy::TradingPolicy;
use runtime::trading::store::{PinAttempts, PinChannel, StoreError, TradingStore};
use std::path::Path;
use std::sync::Arc;

/// The transport `etrade serve` would run with, as far as approvals care.
pub(super) struct ServeTransport<'a> {
    pub http: bool,
    /// The bearer token (`--http-token-file` / `ETRADE_MCP_HTTP_TOKEN`), never printed.
    pub token: Option<&'a str>,
    pub allow_trading: bool,
}

pub(super) fn check_approval(
    r: &mut Report,
    data_dir: &Path,
    file: &ConfigFile,
    s: &Settings,
    transport: &ServeTransport<'_>,
) {
    let policy = TradingPolicy::resolve(
        file.profile(&s.profile).and_then(|p| p.trading.as_ref()),
        s.environment,
    );
    let channels = format!(
        "channel {}, approval page {}",
        policy.approval_channel().as_str(),
        if policy.approval_page() { "on" } else { "off" }
    );
    let required = policy.approval_required();
    let mode = if required {
        format!("required ({channels})")
    } else {
        "not required (approval = \"none\"): orders are placed when the agent asks".to_string()
    };
    check_http(r, transport, required);
    let now = jiff::Timestamp::now();
    let posture = pin_posture(data_dir);
    let no_pin = matches!(posture, Ok(PinPosture::NotSet));
    match posture {
        Ok(PinPosture::NotSet) if required && runtime::paths::inside_vault() => r.warn(
            "approval",
            &format!(
                "{mode}; no approval PIN yet: the vault approves nothing and lifts no halt until one is set, and whoever sets it first owns it."
            ),
            "etrade approve --set-pin, now, before any agent runs",
        ),
        Ok(PinPosture::NotSet) if required => r.warn(
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
            strength,
            attempts,
        }) => {
            let since = set_at.map(|t| format!(", set {t}")).unwrap_or_default();
            let pin = format!(
                "{mode}; approval PIN set ({kind}{since}; strength: {})",
                strength.as_str()
            );
            if strength.is_legacy() {
                r.warn(
                    "approval",
                    &format!(
                        "{pin}: it may be as short as 6 digits, which a copy of its hash gives up in hours on a rented many-core machine."
                    ),
                    "etrade approve --set-pin (at least 8 characters, not all digits, or a passphrase of 3+ words)",
                );
            } else {
                r.ok("approval", &format!("{pin}."));
            }
            for channel in [PinChannel::Terminal, PinChannel::Remote] {
                lockout_line(r, channel, attempts.of(channel), now);
            }
        }
        Ok(PinPosture::Unusable(why)) => r.fail(
            "approval",
            &format!("{mode}; the approval PIN cannot be read ({why}): every approval is refused."),
            "see docs/guide/trading-and-approvals.md, \"Approving orders\"",
        ),
        Err(e) => r.warn(
            "approval",
            &format!("{mode}; the approval PIN was not checked: {e}."),
            "run etrade doctor again in a moment",
        ),
    }
    if required && runtime::paths::inside_vault() && no_pin {
        r.warn(
            "tier (c)",
            "held once the PIN is set: this is the trading vault, under its own OS account, but until a PIN is set a program with a shell as you could set one first.",
            "etrade approve --set-pin",
        );
    } else if required && runtime::paths::inside_vault() {
        r.ok(
            "tier (c)",
            "held: this is the trading vault, under its own OS account. A program with a shell running as you cannot read, move or replace its store, its PIN hash, its halt or its login, and it checks every PIN on its own clock.",
        );
    } else if required {
        r.warn(
            "tier (c)",
            "not held: a program with a shell running as you can move the trading store away, restore an older copy, run with its own clock, read the PIN's hash and guess offline, delete a halt, or start its own `etrade serve` with approval = \"none\" and your stored login. The PIN and its lockouts bind only programs that play by them; only the trading vault, under its own OS account, holds against this.",
            "install the vault (`sudo etrade vault install --account etrade-vault`; README, \"Running with a vault\"), or do not give a trading agent a shell on this computer",
        );
    }
}

/// Which approval channels a client of `etrade serve` could use without authenticating:
/// over HTTP without a token, none (the person approves out of band).
fn check_http(r: &mut Report, t: &ServeTransport<'_>, required: bool) {
    let name = "http approval";
    if !t.http && runtime::paths::inside_vault() {
        r.ok(
            name,
            "the vault: any local program may connect to its socket, so no client's form, link or ticket approves; a person approves with etrade approve and the PIN, or on the approval page.",
        );
        return;
    }
    if !t.http {
        r.ok(
            name,
            "stdio: only the MCP host that starts `etrade serve` holds the pipe, so its form, link and ticket may approve.",
        );
        return;
    }
    let approving = t.allow_trading && required;
    let short = t
        .token
        .map(|tok| tok.trim().chars().count())
        .filter(|n| approving && *n < MIN_APPROVING_TOKEN_CHARS);
    if let Some(n) = short {
        r.fail(
            name,
            &format!(
                "the bearer token has {n} characters; with trading allowed and approval required `etrade serve` refuses a token shorter than {MIN_APPROVING_TOKEN_CHARS}."
            ),
            "put `openssl rand -hex 16` in the token file",
        );
        return;
    }
    match client_trust(t.token) {
        ClientTrust::Anyone => r.ok(
            name,
            "an unauthenticated local client can approve through: none. Without a bearer token any program on this computer can connect, so the form, the URL link and the order ticket approve nothing; a person approves with etrade approve (or on the page the server opens in the browser).",
        ),
        _ => r.ok(
            name,
            "an unauthenticated local client can approve through: none. Every request must carry the bearer token; a client holding it may approve through the form, the URL link (with a PIN) and the order ticket.",
        ),
    }
}

fn lockout_line(r: &mut Report, channel: PinChannel, attempts: &PinAttempts, now: jiff::Timestamp) {
    let name = match channel {
        PinChannel::Terminal => "pin (terminal)",
        PinChannel::Remote => "pin (page, ticket)",
    };
    let last = attempts
        .last_failure_at
        .map(|t| t.to_string())
        .unwrap_or_else(|| "never".into());
    match attempts.locked_until.filter(|u| now < *u) {
        Some(until) => r.warn(
            name,
            &format!(
                "locked until {until} after {} wrong PINs in a row (last at {last}; {} wrong in all).",
                attempts.failures, attempts.total_failures
            ),
            "it unlocks by itself; if you did not type those PINs, run etrade halt",
        ),
        None if attempts.failures > 0 => r.warn(
            name,
            &format!(
                "{} wrong PIN(s) in a row since the last right one (last at {last}).",
                attempts.failures
            ),
            "if you did not type them, something is guessing: run etrade halt",
        ),
        None => r.ok(
            name,
            &format!(
                "no wrong PINs in a row ({} in all).",
                attempts.total_failures
            ),
        ),
    }
}

/// Read without creating anything when there is neither a trading database nor an older
/// version's PIN file.
fn pin_posture(data_dir: &Path) -> Result<PinPosture, StoreError> {
    let path = data_dir.join("trading.redb");
    let store = match TradingStore::open_existing(&path) {
        Ok(store) => store,
        Err(StoreError::Missing(_)) if !data_dir.join(LEGACY_FILE_NAME).exists() => {
            return Ok(PinPosture::NotSet);
        }
        // An older version's PIN file and no store: moving it in needs a store.
        Err(StoreError::Missing(_)) => TradingStore::open(&path)?,
        Err(e) => return Err(e),
    };
    Ok(ApprovalPin::new(Arc::new(store), data_dir).posture())
}
