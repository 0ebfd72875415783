//! Live quotes for the paper broker: when the profile has active E*TRADE credentials, paper
//! quotes come from E*TRADE (production or sandbox, marked as such) and paper fills use the
//! touch E*TRADE quoted; otherwise the simulator serves. The choice is made per request,
//! from the local credential estimate, so a login (or an expiry) takes effect at once and no
//! request is sent without credentials.

use super::touch::{Greeks, MarketData, OptionContract, Touch};
use crate::broker::Broker;
use crate::contract::error_mapping::classify;
use crate::contract::errors::ErrorCode;
use crate::etrade::models::money::decimal_of;
use crate::etrade::{BrokerError, EtradeRequest, EtradeSession};
use jiff::Timestamp;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A live touch older than this (real time) is not used for a fill.
const FRESH_FOR: jiff::SignedDuration = jiff::SignedDuration::from_secs(15 * 60);

/// The latest live touch per symbol, shared by the quote path (which fills it) and the
/// book's market (which reads it).
#[derive(Default)]
pub struct LiveTouches {
    touches: Mutex<HashMap<String, (Touch, Timestamp)>>,
}

impl LiveTouches {
    fn put(&self, symbol: &str, touch: Touch) {
        if let Ok(mut m) = self.touches.lock() {
            m.insert(symbol.to_ascii_uppercase(), (touch, Timestamp::now()));
        }
    }

    fn fresh(&self, symbol: &str) -> Option<Touch> {
        let m = self.touches.lock().ok()?;
        let (t, at) = m.get(&symbol.to_ascii_uppercase())?;
        (Timestamp::now().duration_since(*at) < FRESH_FOR).then(|| t.clone())
    }
}

/// E*TRADE quotes through the profile's session.
pub struct LiveQuotes {
    session: Arc<EtradeSession>,
    /// "etrade" (production) or "etrade_sandbox".
    label: &'static str,
    touches: Arc<LiveTouches>,
}

/// Errors that mean "no usable credentials": fall back to the simulator.
fn not_logged_in(e: &BrokerError) -> bool {
    matches!(
        classify(&e.failure, e.operation),
        ErrorCode::AuthenticationRequired
            | ErrorCode::AuthorizationExpired
            | ErrorCode::AuthenticationFailed
            | ErrorCode::CredentialCoordinationFailed
    )
}

fn touch_of(all: &Value) -> Option<Touch> {
    let size = |k: &str| all.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(Touch {
        bid: decimal_of(all.get("bid")?)?,
        ask: decimal_of(all.get("ask")?)?,
        bid_size: size("bidSize"),
        ask_size: size("askSize"),
        last: all
            .get("lastTrade")
            .and_then(decimal_of)
            .unwrap_or_default(),
        volume: size("totalVolume"),
    })
}

impl LiveQuotes {
    pub fn new(session: Arc<EtradeSession>, production: bool, touches: Arc<LiveTouches>) -> Self {
        LiveQuotes {
            session,
            label: if production {
                "etrade"
            } else {
                "etrade_sandbox"
            },
            touches,
        }
    }

    pub fn label(&self) -> &'static str {
        self.label
    }

    /// E*TRADE's answer to a quote request, each quote marked with its source and its
    /// touch remembered for fills; `Ok(None)` when the profile has no usable credentials.
    pub async fn quotes(&self, request: &EtradeRequest) -> Result<Option<Value>, BrokerError> {
        let mut body = match Broker::call(self.session.as_ref(), request).await {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(None),
            Err(e) if not_logged_in(&e) => return Ok(None),
            Err(e) => return Err(e),
        };
        if let Some(list) = body
            .pointer_mut("/QuoteResponse/QuoteData")
            .and_then(Value::as_array_mut)
        {
            for q in list {
                let symbol = q
                    .pointer("/Product/symbol")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let security = q.pointer("/Product/securityType").and_then(Value::as_str);
                if let (Some(symbol), Some("EQ") | None, Some(all)) =
                    (symbol, security, q.get("All"))
                    && let Some(t) = touch_of(all)
                {
                    self.touches.put(&symbol, t);
                }
                if let Some(obj) = q.as_object_mut() {
                    obj.insert("source".into(), Value::String(self.label.into()));
                }
            }
        }
        Ok(Some(body))
    }
}

/// The book's market: a fresh live touch when there is one, else the simulator.
pub struct BlendedMarket {
    pub simulated: Arc<dyn MarketData>,
    pub live: Arc<LiveTouches>,
}

impl MarketData for BlendedMarket {
    fn equity(&self, symbol: &str, at: Timestamp) -> Option<Touch> {
        self.live
            .fresh(symbol)
            .or_else(|| self.simulated.equity(symbol, at))
    }

    fn option(&self, contract: &OptionContract, at: Timestamp) -> Option<Touch> {
        self.simulated.option(contract, at)
    }

    fn source(&self) -> &'static str {
        self.simulated.source()
    }

    fn option_greeks(&self, contract: &OptionContract, at: Timestamp) -> Option<Greeks> {
        self.simulated.option_greeks(contract, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn touches_are_read_exactly_and_expire() {
        let t = touch_of(&json!({"bid": 174.55, "ask": "174.60", "bidSize": 200, "askSize": 300, "lastTrade": 174.56}))
            .expect("touch");
        assert_eq!(t.bid.to_string(), "174.55");
        assert_eq!(t.ask.to_string(), "174.60");
        assert_eq!((t.bid_size, t.ask_size), (200, 300));
        let live = LiveTouches::default();
        live.put("aapl", t.clone());
        assert_eq!(live.fresh("AAPL"), Some(t));
        if let Ok(mut m) = live.touches.lock()
            && let Some(e) = m.get_mut("AAPL")
        {
            e.1 = Timestamp::now() - jiff::SignedDuration::from_secs(16 * 60);
        }
        assert_eq!(
            live.fresh("AAPL"),
            None,
            "stale touches are not used for fills"
        );
        assert!(touch_of(&json!({"bid": 1})).is_none());
    }
}
