//! The per-profile trading policy: limits checked before any mutation reaches the broker.
//! A refusal becomes `execution_disabled` carrying the refusal's message.
//!
//! Messages name the rule and may state the configured limit, but never echo what was
//! submitted: the host already knows its own order, and logs should not collect it.

use super::approval::{ApprovalMode, ChannelPolicy};
pub use crate::config::trading::TradingConfig;
use crate::config::trading::{DEFAULT_PREVIEW_TTL_SECONDS, PREVIEW_TTL_RANGE};
use std::fmt;

use crate::outputs::{
    ServerStatusOutputTradingPolicy as TradingPolicyStatus,
    ServerStatusOutputTradingPolicyApproval as ApprovalStatus,
    ServerStatusOutputTradingPolicyApprovalChannel as ApprovalChannelStatus,
};
use jiff::{SignedDuration, Timestamp};
use rust_decimal::Decimal;

use super::types::{DailyUsage, OrderSummary, PolicyRefusal};
use crate::calendar::{self, SessionPhase};
use crate::config::Environment;
use crate::etrade::vocabulary::{Auction, MarketSession, PriceType};

/// The effective policy of one profile in one environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TradingPolicy {
    allowed_accounts: Option<Vec<String>>,
    max_order_quantity: Option<Decimal>,
    max_order_notional: Option<Decimal>,
    max_daily_notional: Option<Decimal>,
    max_daily_orders: Option<u32>,
    session_guard: bool,
    preview_ttl_seconds: u64,
    approval: ApprovalMode,
    approval_channel: ChannelPolicy,
    approval_page: bool,
}

impl TradingPolicy {
    /// Fills in the defaults. `config` is expected to have been deserialized (and so
    /// validated); a TTL built in code outside 10..=3600 is clamped rather than trusted.
    pub fn resolve(config: Option<&TradingConfig>, environment: Environment) -> TradingPolicy {
        let default = TradingConfig::default();
        let config = config.unwrap_or(&default);
        // Sandbox and paper orders cannot lose money, so being refused outside market
        // hours would only get in the way of testing.
        let guard_default = environment == Environment::Production;
        TradingPolicy {
            allowed_accounts: config.allowed_accounts.clone(),
            max_order_quantity: config.max_order_quantity,
            max_order_notional: config.max_order_notional,
            max_daily_notional: config.max_daily_notional,
            max_daily_orders: config.max_daily_orders,
            session_guard: config.session_guard.unwrap_or(guard_default),
            preview_ttl_seconds: config
                .preview_ttl_seconds
                .unwrap_or(DEFAULT_PREVIEW_TTL_SECONDS)
                .clamp(*PREVIEW_TTL_RANGE.start(), *PREVIEW_TTL_RANGE.end()),
            // Sandbox and paper orders cannot lose money; a person in the loop there is a
            // rehearsal, asked for explicitly.
            approval: config
                .approval
                .unwrap_or(if environment == Environment::Production {
                    ApprovalMode::Required
                } else {
                    ApprovalMode::None
                }),
            approval_channel: config.approval_channel.unwrap_or(ChannelPolicy::Any),
            approval_page: config.approval_page.unwrap_or(false),
        }
    }

    /// This policy, narrowed by `narrower` (the person's own `[trading]` table when the vault
    /// runs the server): every limit the tighter of the two, an account only when both allow
    /// it, approval required when either requires it, out-of-band when either says so, the
    /// page only when both have it. Nothing in `narrower` can loosen this policy.
    pub fn narrowed_by(&self, narrower: &TradingConfig) -> TradingPolicy {
        fn tighter<T: Ord + Copy>(mine: Option<T>, theirs: Option<T>) -> Option<T> {
            match (mine, theirs) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
        let allowed_accounts = match (&self.allowed_accounts, &narrower.allowed_accounts) {
            (Some(mine), Some(theirs)) => Some(
                mine.iter()
                    .filter(|a| theirs.contains(a))
                    .cloned()
                    .collect(),
            ),
            (mine, theirs) => mine.clone().or_else(|| theirs.clone()),
        };
        TradingPolicy {
            allowed_accounts,
            max_order_quantity: tighter(self.max_order_quantity, narrower.max_order_quantity),
            max_order_notional: tighter(self.max_order_notional, narrower.max_order_notional),
            max_daily_notional: tighter(self.max_daily_notional, narrower.max_daily_notional),
            max_daily_orders: tighter(self.max_daily_orders, narrower.max_daily_orders),
            session_guard: self.session_guard || narrower.session_guard == Some(true),
            preview_ttl_seconds: narrower.preview_ttl_seconds.map_or(
                self.preview_ttl_seconds,
                |t| {
                    self.preview_ttl_seconds
                        .min(t.clamp(*PREVIEW_TTL_RANGE.start(), *PREVIEW_TTL_RANGE.end()))
                },
            ),
            approval: if narrower.approval == Some(ApprovalMode::Required) {
                ApprovalMode::Required
            } else {
                self.approval
            },
            approval_channel: if narrower.approval_channel == Some(ChannelPolicy::OutOfBand) {
                ChannelPolicy::OutOfBand
            } else {
                self.approval_channel
            },
            approval_page: self.approval_page && narrower.approval_page != Some(false),
        }
    }

    /// Whether a person approves each placement.
    pub fn approval_required(&self) -> bool {
        self.approval == ApprovalMode::Required
    }

    pub fn approval_channel(&self) -> ChannelPolicy {
        self.approval_channel
    }

    pub fn approval_page(&self) -> bool {
        self.approval_page
    }

    /// How long after a preview it may still be placed.
    pub fn preview_ttl(&self) -> SignedDuration {
        // The TTL is at most 3600, so the conversion cannot fail.
        SignedDuration::from_secs(i64::try_from(self.preview_ttl_seconds).unwrap_or(3600))
    }

    pub fn session_guard(&self) -> bool {
        self.session_guard
    }

    /// Every effective setting, for server_status; null means no limit (for
    /// `allowed_accounts`: any account). `halted` is left for the caller, who reads the
    /// halt switch at each call.
    pub fn describe(&self) -> TradingPolicyStatus {
        TradingPolicyStatus {
            allowed_accounts: self.allowed_accounts.clone(),
            max_order_quantity: self.max_order_quantity,
            max_order_notional: self.max_order_notional,
            max_daily_notional: self.max_daily_notional,
            max_daily_orders: self.max_daily_orders.map(i64::from),
            session_guard: self.session_guard,
            // At most 3600 (PREVIEW_TTL_RANGE).
            preview_ttl_seconds: i64::try_from(self.preview_ttl_seconds).unwrap_or(i64::MAX),
            approval: match self.approval {
                ApprovalMode::None => ApprovalStatus::None,
                ApprovalMode::Required => ApprovalStatus::Required,
            },
            approval_channel: match self.approval_channel {
                ChannelPolicy::Any => ApprovalChannelStatus::Any,
                ChannelPolicy::OutOfBand => ApprovalChannelStatus::OutOfBand,
            },
            approval_page: self.approval_page,
            halted: None,
        }
    }

    /// Rule `allowed_accounts`.
    pub fn check_account(&self, account_id_key: &str) -> Result<(), PolicyRefusal> {
        match &self.allowed_accounts {
            Some(allowed) if !allowed.iter().any(|a| a == account_id_key) => Err(refusal(
                "allowed_accounts",
                "this account is not in this profile's allowed_accounts list.",
            )),
            _ => Ok(()),
        }
    }

    /// Rules `max_order_quantity` and `max_order_notional`: the size of one order.
    pub fn check_order(&self, order: &OrderSummary) -> Result<(), PolicyRefusal> {
        if let Some(max) = self.max_order_quantity
            && quantity(order) > max
        {
            return Err(refusal(
                "max_order_quantity",
                format!(
                    "the order's total quantity over all legs exceeds this profile's limit of {max} shares or contracts."
                ),
            ));
        }
        if let Some(max) = self.max_order_notional {
            let Some(notional) = notional(order) else {
                return Err(refusal(
                    "max_order_notional",
                    format!(
                        "the order's value cannot be estimated (no price is known), so it cannot be judged against this profile's limit of ${max}."
                    ),
                ));
            };
            if notional > max {
                return Err(refusal(
                    "max_order_notional",
                    format!(
                        "the order's estimated value exceeds this profile's limit of ${max} per order."
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Rules `max_daily_orders` and `max_daily_notional`: `usage` is what was already
    /// placed today (America/New_York), `order` the one about to be.
    pub fn check_daily(
        &self,
        usage: &DailyUsage,
        order: &OrderSummary,
    ) -> Result<(), PolicyRefusal> {
        if let Some(max) = self.max_daily_orders
            && usage.orders >= max
        {
            return Err(refusal(
                "max_daily_orders",
                format!(
                    "this profile's daily order limit ({max}) is reached for today ({}).",
                    calendar::TIME_ZONE_NAME
                ),
            ));
        }
        if let Some(max) = self.max_daily_notional {
            let Some(notional) = notional(order) else {
                return Err(refusal(
                    "max_daily_notional",
                    format!(
                        "the order's value cannot be estimated (no price is known), so it cannot be judged against this profile's daily limit of ${max}."
                    ),
                ));
            };
            // An overflowing sum is certainly past any limit.
            let over = usage
                .notional
                .checked_add(notional)
                .is_none_or(|total| total > max);
            if over {
                return Err(refusal(
                    "max_daily_notional",
                    format!(
                        "this order would take today's ({}) total order value past this profile's daily limit of ${max}.",
                        calendar::TIME_ZONE_NAME
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Rule `session_guard`: outside the regular session only extended-hours limit orders
    /// may be placed, and none while the market is closed.
    pub fn check_session(&self, order: &OrderSummary, now: Timestamp) -> Result<(), PolicyRefusal> {
        if !self.session_guard {
            return Ok(());
        }
        match calendar::phase_at(now) {
            SessionPhase::Regular => Ok(()),
            // Validation already makes EXTENDED orders LIMIT; checking both keeps the
            // guard right even if that ever changes.
            SessionPhase::PreMarket | SessionPhase::AfterHours
                if order.market_session == MarketSession::Extended
                    && order.price_type == PriceType::Limit =>
            {
                Ok(())
            }
            // An on-open order waits for the opening auction: the pre-market is when it is
            // placed.
            SessionPhase::PreMarket if order.price_type.auction() == Some(Auction::Open) => Ok(()),
            SessionPhase::PreMarket | SessionPhase::AfterHours => Err(refusal(
                "session_guard",
                "outside the regular session an order must use market_session EXTENDED with a LIMIT price.",
            )),
            SessionPhase::Closed => {
                let open = calendar::next_regular_open(now)
                    .to_zoned_datetime(calendar::time_zone().clone())
                    .strftime("%A %Y-%m-%d %H:%M %Z");
                Err(refusal(
                    "session_guard",
                    format!(
                        "the market is closed; its regular session next opens {open} ({}).",
                        calendar::TIME_ZONE_NAME
                    ),
                ))
            }
        }
    }
}

fn refusal(rule: &'static str, detail: impl fmt::Display) -> PolicyRefusal {
    PolicyRefusal {
        rule,
        message: format!("Refused by the trading policy ({rule}): {detail}"),
    }
}

/// Total size over legs. Legs are validated positive; the absolute value keeps a stray
/// negative from offsetting another leg.
fn quantity(order: &OrderSummary) -> Decimal {
    order.legs.iter().fold(Decimal::ZERO, |sum, leg| {
        sum.saturating_add(leg.quantity.abs())
    })
}

/// The order's size in dollars. A sale or credit may be estimated as a negative amount;
/// the limits are about size, so the sign is dropped.
fn notional(order: &OrderSummary) -> Option<Decimal> {
    order.estimated_notional.map(|n| n.abs())
}

#[cfg(test)]
mod tests {
    use crate::etrade::vocabulary::*;
    use std::path::Path;

    use super::*;
    use crate::config::ConfigFile;
    use crate::trading::types::LegSummary;
    use serde_json::json;

    fn dec(s: &str) -> Decimal {
        s.parse().expect("valid decimal")
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("valid timestamp")
    }

    #[test]
    fn a_narrower_table_only_tightens() {
        let vault = TradingConfig {
            allowed_accounts: Some(vec!["A".into(), "B".into()]),
            max_order_quantity: Some(dec("100")),
            max_daily_orders: Some(10),
            approval: Some(ApprovalMode::Required),
            approval_page: Some(true),
            ..TradingConfig::default()
        };
        let vault = TradingPolicy::resolve(Some(&vault), Environment::Paper);
        // A person's table that tries to loosen everything changes nothing.
        let looser = TradingConfig {
            allowed_accounts: Some(vec!["A".into(), "B".into(), "C".into()]),
            max_order_quantity: Some(dec("1000")),
            max_daily_orders: Some(99),
            session_guard: Some(false),
            preview_ttl_seconds: Some(3600),
            approval: Some(ApprovalMode::None),
            approval_channel: Some(ChannelPolicy::Any),
            approval_page: Some(true),
            ..TradingConfig::default()
        };
        assert_eq!(vault.narrowed_by(&looser), vault);
        assert_eq!(vault.narrowed_by(&TradingConfig::default()), vault);
        // One that tightens each setting wins on each.
        let tighter = TradingConfig {
            allowed_accounts: Some(vec!["B".into(), "Z".into()]),
            max_order_quantity: Some(dec("5")),
            max_order_notional: Some(dec("1000")),
            max_daily_orders: Some(2),
            session_guard: Some(true),
            preview_ttl_seconds: Some(30),
            approval_channel: Some(ChannelPolicy::OutOfBand),
            approval_page: Some(false),
            ..TradingConfig::default()
        };
        let narrowed = vault.narrowed_by(&tighter).describe();
        assert_eq!(narrowed.allowed_accounts, Some(vec!["B".to_string()]));
        assert_eq!(narrowed.max_order_quantity, Some(dec("5")));
        assert_eq!(narrowed.max_order_notional, Some(dec("1000")));
        assert_eq!(narrowed.max_daily_orders, Some(2));
        assert!(narrowed.session_guard);
        assert_eq!(narrowed.preview_ttl_seconds, 30);
        assert_eq!(narrowed.approval_channel, ApprovalChannelStatus::OutOfBand);
        assert!(!narrowed.approval_page);
        // And a person may ask for approval where the vault does not.
        let open = TradingPolicy::resolve(None, Environment::Paper);
        let ask = TradingConfig {
            approval: Some(ApprovalMode::Required),
            ..TradingConfig::default()
        };
        assert!(open.narrowed_by(&ask).approval_required());
    }

    fn leg(quantity: &str) -> LegSummary {
        LegSummary {
            symbol: "IBM".into(),
            security_type: SecurityType::Equity,
            order_action: OrderAction::Buy,
            quantity: dec(quantity),
            call_put: None,
            expiration: None,
            strike_price: None,
        }
    }

    fn order(quantities: &[&str], notional: Option<&str>) -> OrderSummary {
        OrderSummary {
            order_type: OrderType::Equity,
            price_type: PriceType::Limit,
            order_term: OrderTerm::GoodForDay,
            market_session: MarketSession::Regular,
            limit_price: Some(dec("10")),
            stop_price: None,
            all_or_none: false,
            legs: quantities.iter().map(|q| leg(q)).collect(),
            estimated_notional: notional.map(dec),
        }
    }

    fn policy(config: TradingConfig) -> TradingPolicy {
        TradingPolicy::resolve(Some(&config), Environment::Production)
    }

    fn refused_rule(result: Result<(), PolicyRefusal>) -> &'static str {
        let refusal = result.expect_err("refused");
        assert!(
            refusal.message.starts_with(&format!(
                "Refused by the trading policy ({}): ",
                refusal.rule
            )),
            "{}",
            refusal.message
        );
        refusal.rule
    }

    fn trading(text: &str) -> Result<Option<TradingConfig>, String> {
        ConfigFile::parse(Path::new("config.toml"), text)
            .map(|file| file.profile("default").and_then(|p| p.trading.clone()))
            .map_err(|err| err.to_string())
    }

    #[test]
    fn defaults_per_environment() {
        for env in [Environment::Paper, Environment::Sandbox] {
            let p = TradingPolicy::resolve(None, env);
            assert!(!p.session_guard(), "{env}");
            assert!(!p.approval_required(), "{env}");
            assert_eq!(p.preview_ttl(), SignedDuration::from_secs(180));
        }
        let p = TradingPolicy::resolve(None, Environment::Production);
        assert!(p.session_guard());
        assert!(p.approval_required());
        assert_eq!(
            serde_json::to_value(p.describe()).map_err(|e| e.to_string()),
            Ok(json!({
                "allowed_accounts": null,
                "max_order_quantity": null,
                "max_order_notional": null,
                "max_daily_notional": null,
                "max_daily_orders": null,
                "session_guard": true,
                "preview_ttl_seconds": 180,
                "approval": "required",
                "approval_channel": "any",
                "approval_page": false,
                "halted": null,
            }))
        );
        // An empty table is the same as none.
        assert_eq!(
            TradingPolicy::resolve(Some(&TradingConfig::default()), Environment::Production),
            p
        );
        // An explicit setting wins over the environment's default.
        let off = TradingConfig {
            session_guard: Some(false),
            ..TradingConfig::default()
        };
        assert!(!TradingPolicy::resolve(Some(&off), Environment::Production).session_guard());
        let on = TradingConfig {
            session_guard: Some(true),
            ..TradingConfig::default()
        };
        assert!(TradingPolicy::resolve(Some(&on), Environment::Paper).session_guard());
    }

    #[test]
    fn preview_ttl_is_configurable_and_clamped() {
        let ttl = |seconds| {
            policy(TradingConfig {
                preview_ttl_seconds: Some(seconds),
                ..TradingConfig::default()
            })
            .preview_ttl()
        };
        assert_eq!(ttl(10), SignedDuration::from_secs(10));
        assert_eq!(ttl(3600), SignedDuration::from_secs(3600));
        assert_eq!(ttl(0), SignedDuration::from_secs(10));
        assert_eq!(ttl(u64::MAX), SignedDuration::from_secs(3600));
    }

    #[test]
    fn describe_shows_every_setting() {
        let p = policy(TradingConfig {
            allowed_accounts: Some(vec!["abc".into()]),
            max_order_quantity: Some(dec("100")),
            max_order_notional: Some(dec("25000.00")),
            max_daily_notional: Some(dec("100000")),
            max_daily_orders: Some(5),
            session_guard: Some(false),
            preview_ttl_seconds: Some(60),
            approval: Some(ApprovalMode::Required),
            approval_channel: Some(ChannelPolicy::OutOfBand),
            approval_page: Some(true),
        });
        assert_eq!(
            serde_json::to_value(p.describe()).map_err(|e| e.to_string()),
            Ok(json!({
                "allowed_accounts": ["abc"],
                "max_order_quantity": "100",
                "max_order_notional": "25000.00",
                "max_daily_notional": "100000",
                "max_daily_orders": 5,
                "session_guard": false,
                "preview_ttl_seconds": 60,
                "approval": "required",
                "approval_channel": "out_of_band",
                "approval_page": true,
                "halted": null,
            }))
        );
    }

    #[test]
    fn allowed_accounts() {
        assert_eq!(
            TradingPolicy::resolve(None, Environment::Production).check_account("x"),
            Ok(())
        );
        let p = policy(TradingConfig {
            allowed_accounts: Some(vec!["key1".into(), "key2".into()]),
            ..TradingConfig::default()
        });
        assert_eq!(p.check_account("key2"), Ok(()));
        let refusal = p.check_account("key3").expect_err("not listed");
        assert_eq!(refusal.rule, "allowed_accounts");
        assert!(!refusal.message.contains("key3"), "{}", refusal.message);
        // Matching is exact.
        assert_eq!(refused_rule(p.check_account("KEY1")), "allowed_accounts");
        let none = policy(TradingConfig {
            allowed_accounts: Some(Vec::new()),
            ..TradingConfig::default()
        });
        assert_eq!(refused_rule(none.check_account("key1")), "allowed_accounts");
    }

    #[test]
    fn max_order_quantity_sums_legs() {
        let p = policy(TradingConfig {
            max_order_quantity: Some(dec("100")),
            ..TradingConfig::default()
        });
        assert_eq!(p.check_order(&order(&["100"], None)), Ok(()));
        assert_eq!(p.check_order(&order(&["60", "40"], None)), Ok(()));
        assert_eq!(
            refused_rule(p.check_order(&order(&["100.5"], None))),
            "max_order_quantity"
        );
        let refusal = p
            .check_order(&order(&["60", "41"], None))
            .expect_err("over");
        assert_eq!(refusal.rule, "max_order_quantity");
        assert!(
            refusal.message.contains("limit of 100 "),
            "{}",
            refusal.message
        );
        assert!(!refusal.message.contains("101"), "{}", refusal.message);
    }

    #[test]
    fn max_order_notional() {
        let p = policy(TradingConfig {
            max_order_notional: Some(dec("25000.00")),
            ..TradingConfig::default()
        });
        assert_eq!(p.check_order(&order(&["1"], Some("25000"))), Ok(()));
        assert_eq!(p.check_order(&order(&["1"], Some("-25000"))), Ok(()));
        let refusal = p
            .check_order(&order(&["1"], Some("25000.01")))
            .expect_err("over");
        assert_eq!(refusal.rule, "max_order_notional");
        assert!(refusal.message.contains("$25000.00"), "{}", refusal.message);
        assert!(!refusal.message.contains("25000.01"), "{}", refusal.message);
        assert_eq!(
            refused_rule(p.check_order(&order(&["1"], Some("-25000.01")))),
            "max_order_notional"
        );
        let refusal = p.check_order(&order(&["1"], None)).expect_err("unknown");
        assert_eq!(refusal.rule, "max_order_notional");
        assert!(
            refusal.message.contains("cannot be judged"),
            "{}",
            refusal.message
        );
        // Without a notional limit an unknown value is fine.
        assert_eq!(
            TradingPolicy::resolve(None, Environment::Production).check_order(&order(&["1"], None)),
            Ok(())
        );
    }

    #[test]
    fn max_daily_orders() {
        let p = policy(TradingConfig {
            max_daily_orders: Some(3),
            ..TradingConfig::default()
        });
        let usage = |orders| DailyUsage {
            orders,
            notional: Decimal::ZERO,
        };
        let o = order(&["1"], None);
        assert_eq!(p.check_daily(&usage(2), &o), Ok(()));
        let refusal = p.check_daily(&usage(3), &o).expect_err("reached");
        assert_eq!(
            refusal.message,
            "Refused by the trading policy (max_daily_orders): this profile's daily order limit (3) is reached for today (America/New_York)."
        );
        assert_eq!(
            refused_rule(p.check_daily(&usage(u32::MAX), &o)),
            "max_daily_orders"
        );
        let zero = policy(TradingConfig {
            max_daily_orders: Some(0),
            ..TradingConfig::default()
        });
        assert_eq!(
            refused_rule(zero.check_daily(&usage(0), &o)),
            "max_daily_orders"
        );
    }

    #[test]
    fn max_daily_notional() {
        let p = policy(TradingConfig {
            max_daily_notional: Some(dec("1000")),
            ..TradingConfig::default()
        });
        let usage = DailyUsage {
            orders: 7,
            notional: dec("900"),
        };
        assert_eq!(p.check_daily(&usage, &order(&["1"], Some("100"))), Ok(()));
        assert_eq!(p.check_daily(&usage, &order(&["1"], Some("-100"))), Ok(()));
        let refusal = p
            .check_daily(&usage, &order(&["1"], Some("100.01")))
            .expect_err("over");
        assert_eq!(refusal.rule, "max_daily_notional");
        assert!(refusal.message.contains("$1000"), "{}", refusal.message);
        assert_eq!(
            refused_rule(p.check_daily(&usage, &order(&["1"], None))),
            "max_daily_notional"
        );
        let full = DailyUsage {
            orders: 0,
            notional: Decimal::MAX,
        };
        assert_eq!(
            refused_rule(p.check_daily(&full, &order(&["1"], Some("1")))),
            "max_daily_notional",
            "overflow is refused, not a panic"
        );
        // No limits: anything goes.
        assert_eq!(
            TradingPolicy::resolve(None, Environment::Production)
                .check_daily(&full, &order(&["1"], None)),
            Ok(())
        );
    }

    #[test]
    fn session_guard() {
        let guarded = TradingPolicy::resolve(None, Environment::Production);
        let regular = order(&["1"], None);
        let extended = OrderSummary {
            market_session: MarketSession::Extended,
            ..regular.clone()
        };
        let extended_market = OrderSummary {
            price_type: PriceType::Market,
            ..extended.clone()
        };
        // Tuesday 2026-03-10, EDT.
        let pre = ts("2026-03-10T12:00:00Z");
        let open = ts("2026-03-10T13:30:00Z");
        let last_regular = ts("2026-03-10T19:59:59Z");
        let after = ts("2026-03-10T21:00:00Z");

        for now in [open, last_regular] {
            assert_eq!(guarded.check_session(&regular, now), Ok(()));
            assert_eq!(guarded.check_session(&extended, now), Ok(()));
        }
        for now in [pre, after] {
            assert_eq!(guarded.check_session(&extended, now), Ok(()));
            let refusal = guarded
                .check_session(&regular, now)
                .expect_err("regular session order");
            assert_eq!(refusal.rule, "session_guard");
            assert!(
                refusal
                    .message
                    .contains("market_session EXTENDED with a LIMIT price"),
                "{}",
                refusal.message
            );
            assert_eq!(
                refused_rule(guarded.check_session(&extended_market, now)),
                "session_guard"
            );
        }

        // On-open orders may wait in the pre-market for the opening auction; on-close
        // orders, and both after the close, may not.
        let on_open = OrderSummary {
            price_type: PriceType::MarketOnOpen,
            limit_price: None,
            ..regular.clone()
        };
        let on_close = OrderSummary {
            price_type: PriceType::LimitOnClose,
            ..regular.clone()
        };
        assert_eq!(guarded.check_session(&on_open, pre), Ok(()));
        assert_eq!(
            refused_rule(guarded.check_session(&on_close, pre)),
            "session_guard"
        );
        assert_eq!(
            refused_rule(guarded.check_session(&on_open, after)),
            "session_guard"
        );

        // Saturday, before the DST switch; the next open is Monday in EDT.
        let refusal = guarded
            .check_session(&extended, ts("2026-03-07T15:00:00Z"))
            .expect_err("closed");
        assert_eq!(
            refusal.message,
            "Refused by the trading policy (session_guard): the market is closed; its regular session next opens Monday 2026-03-09 09:30 EDT (America/New_York)."
        );
        // The gap between the pre-market and the open is closed too.
        assert_eq!(
            refused_rule(guarded.check_session(&extended, ts("2026-03-10T13:27:00Z"))),
            "session_guard"
        );

        let unguarded = TradingPolicy::resolve(None, Environment::Sandbox);
        for now in [pre, after, ts("2026-03-07T15:00:00Z")] {
            assert_eq!(unguarded.check_session(&regular, now), Ok(()));
        }
    }

    #[test]
    fn parses_trading_table() {
        let parsed = trading(
            "[profiles.default]\nenvironment = \"production\"\n\n[profiles.default.trading]\nallowed_accounts = [\"abc\", \"def\"]\nmax_order_quantity = 100\nmax_order_notional = \"25000.00\"\nmax_daily_notional = 100000\nmax_daily_orders = 20\nsession_guard = false\npreview_ttl_seconds = 60\napproval = \"required\"\napproval_channel = \"out_of_band\"\napproval_page = true\n",
        )
        .expect("valid");
        assert_eq!(
            parsed,
            Some(TradingConfig {
                allowed_accounts: Some(vec!["abc".into(), "def".into()]),
                max_order_quantity: Some(dec("100")),
                max_order_notional: Some(dec("25000.00")),
                max_daily_notional: Some(dec("100000")),
                max_daily_orders: Some(20),
                session_guard: Some(false),
                preview_ttl_seconds: Some(60),
                approval: Some(ApprovalMode::Required),
                approval_channel: Some(ChannelPolicy::OutOfBand),
                approval_page: Some(true),
            })
        );
        assert_eq!(
            trading("[profiles.default.trading]\n").expect("empty"),
            Some(TradingConfig::default())
        );
        assert_eq!(trading("[profiles.default]\n").expect("absent"), None);
        assert_eq!(
            trading("[profiles.default.trading]\nmax_order_notional = \"0\"\n")
                .expect("zero")
                .and_then(|t| t.max_order_notional),
            Some(Decimal::ZERO)
        );
    }

    #[test]
    fn trading_table_round_trips() {
        let config = TradingConfig {
            max_order_notional: Some(dec("25000.50")),
            preview_ttl_seconds: Some(600),
            ..TradingConfig::default()
        };
        let text = toml::to_string(&config).expect("serializes");
        assert_eq!(
            toml::from_str::<TradingConfig>(&text).expect("parses"),
            config
        );
    }

    #[test]
    fn bad_trading_values_are_config_errors_with_position() {
        let err = |text: &str| trading(text).expect_err("invalid");
        assert_eq!(
            err("[profiles.default.trading]\nmax_order_notional = 25000.0\n"),
            "config.toml:2:22: profiles.default.trading.max_order_notional: a float cannot hold cents exactly; write the amount as a string (\"25000.00\") or an integer"
        );
        assert_eq!(
            err("[profiles.default.trading]\nmax_daily_notional = -1\n"),
            "config.toml:2:22: profiles.default.trading.max_daily_notional: must not be negative"
        );
        assert_eq!(
            err("[profiles.default.trading]\nmax_order_quantity = \"-0.01\"\n"),
            "config.toml:2:22: profiles.default.trading.max_order_quantity: must not be negative"
        );
        assert_eq!(
            err("[profiles.default.trading]\nmax_order_quantity = \"lots\"\n"),
            "config.toml:2:22: profiles.default.trading.max_order_quantity: `lots` is not a decimal number"
        );
        assert!(
            err("[profiles.default.trading]\nmax_order_quantity = true\n")
                .contains("expected a non-negative amount")
        );
        for ttl in [10, 3600] {
            let parsed = trading(&format!(
                "[profiles.default.trading]\npreview_ttl_seconds = {ttl}\n"
            ))
            .expect("in range");
            assert_eq!(parsed.and_then(|t| t.preview_ttl_seconds), Some(ttl));
        }
        for ttl in ["9", "3601"] {
            assert_eq!(
                err(&format!(
                    "[profiles.default.trading]\npreview_ttl_seconds = {ttl}\n"
                )),
                "config.toml:2:23: profiles.default.trading.preview_ttl_seconds: must be between 10 and 3600 seconds"
            );
        }
        assert!(
            err("[profiles.default.trading]\nmax_daily_orders = -1\n")
                .starts_with("config.toml:2:20: ")
        );
        assert!(
            err("[profiles.default.trading]\nmax_daily_order = 1\n")
                .contains("unknown field `max_daily_order`")
        );
    }
}
