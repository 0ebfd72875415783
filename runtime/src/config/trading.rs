//! The serde half of a profile's `[trading]` table: what config.toml may say about order
//! limits and approval. The policy that applies it lives in `trading::policy`; keeping the
//! table here lets config load it without depending on the trading layer.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

pub const DEFAULT_PREVIEW_TTL_SECONDS: u64 = 180;
pub const PREVIEW_TTL_RANGE: std::ops::RangeInclusive<u64> = 10..=3600;

/// `[profiles.NAME.trading]` in config.toml. Every limit is optional; absent means no
/// limit. Values are validated while deserializing, so config loading reports a bad
/// value with its file, line and column.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table of trading settings")]
pub struct TradingConfig {
    /// accountIdKey values orders may be placed for; None = any account, an empty list
    /// = none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_accounts: Option<Vec<String>>,
    /// Shares or contracts, summed over legs.
    #[serde(
        default,
        deserialize_with = "amount",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_order_quantity: Option<Decimal>,
    /// Dollars.
    #[serde(
        default,
        deserialize_with = "amount",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_order_notional: Option<Decimal>,
    /// Dollars per America/New_York trading day.
    #[serde(
        default,
        deserialize_with = "amount",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_daily_notional: Option<Decimal>,
    /// Orders per America/New_York trading day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_daily_orders: Option<u32>,
    /// Default: on in production, off in sandbox and paper.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_guard: Option<bool>,
    /// How long a preview can be placed; default 180, allowed 10..=3600.
    #[serde(
        default,
        deserialize_with = "preview_ttl_seconds",
        skip_serializing_if = "Option::is_none"
    )]
    pub preview_ttl_seconds: Option<u64>,
    /// Whether a person approves each order and change before it is placed: "required"
    /// (default in production) or "none" (default in sandbox and paper).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalMode>,
    /// "any" (default: the client's elicitation form when it has one, else `etrade
    /// approve`) or "out_of_band" (only `etrade approve` and the approval page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_channel: Option<ChannelPolicy>,
    /// Serve the local approval page (default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_page: Option<bool>,
}

/// A non-negative decimal written as a TOML string or integer. Floats are refused: a
/// binary float cannot hold most cent amounts exactly, so `0.1` would not mean 10 cents.
fn amount<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Decimal>, D::Error> {
    struct AmountVisitor;

    impl<'de> Visitor<'de> for AmountVisitor {
        type Value = Decimal;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a non-negative amount as a string (\"25000.00\") or an integer")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Decimal, E> {
            let value = Decimal::from_str(v)
                .map_err(|_| E::custom(format!("`{v}` is not a decimal number")))?;
            non_negative(value)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
            non_negative(Decimal::from(v))
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
            Ok(Decimal::from(v))
        }

        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Decimal, E> {
            Err(E::custom(
                "a float cannot hold cents exactly; write the amount as a string (\"25000.00\") or an integer",
            ))
        }
    }

    fn non_negative<E: de::Error>(value: Decimal) -> Result<Decimal, E> {
        if value < Decimal::ZERO {
            return Err(E::custom("must not be negative"));
        }
        Ok(value)
    }

    deserializer.deserialize_any(AmountVisitor).map(Some)
}

fn preview_ttl_seconds<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    let seconds = u64::deserialize(deserializer)?;
    if !PREVIEW_TTL_RANGE.contains(&seconds) {
        return Err(de::Error::custom(format!(
            "must be between {} and {} seconds",
            PREVIEW_TTL_RANGE.start(),
            PREVIEW_TTL_RANGE.end()
        )));
    }
    Ok(Some(seconds))
}

/// `approval` in `[profiles.NAME.trading]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Orders are placed as soon as the agent asks (sandbox and paper by default).
    None,
    /// A person approves each order and change before it is placed (production default).
    Required,
}

impl ApprovalMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::None => "none",
            ApprovalMode::Required => "required",
        }
    }
}

/// `approval_channel` in `[profiles.NAME.trading]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelPolicy {
    /// The client's elicitation form when it has one, else out of band.
    Any,
    /// Only `etrade approve` (and the approval page): for hosts that let scripts answer
    /// elicitations.
    OutOfBand,
}

impl ChannelPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelPolicy::Any => "any",
            ChannelPolicy::OutOfBand => "out_of_band",
        }
    }
}
