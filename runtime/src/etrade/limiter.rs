//! Client-side pacing per E*TRADE API module, so a busy agent stays under E*TRADE's limits
//! instead of collecting rate-limit pages.

use std::time::Duration;
use tokio::sync::Mutex;
use tokio::time::Instant;

/// E*TRADE counts requests per module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Module {
    Accounts,
    Market,
    Orders,
    Alerts,
    OAuth,
}

/// A minimum spacing between requests of one module (the published per-second limits).
#[derive(Debug)]
pub struct Pacer {
    accounts: Slot,
    market: Slot,
    orders: Slot,
    alerts: Slot,
}

#[derive(Debug)]
struct Slot {
    interval: Duration,
    next: Mutex<Option<Instant>>,
}

impl Slot {
    fn new(per_second: u32) -> Slot {
        Slot {
            interval: Duration::from_secs(1) / per_second.max(1),
            next: Mutex::new(None),
        }
    }

    async fn wait(&self) {
        let mut next = self.next.lock().await;
        let now = Instant::now();
        let at = match *next {
            Some(t) if t > now => t,
            _ => now,
        };
        *next = Some(at + self.interval);
        drop(next);
        tokio::time::sleep_until(at).await;
    }
}

impl Pacer {
    /// `scale` multiplies E*TRADE's published rates (v0 guide: accounts 2/s, market 4/s,
    /// orders 2/s); tests against the fake raise it.
    pub fn new(scale: u32) -> Pacer {
        let s = scale.max(1);
        Pacer {
            accounts: Slot::new(2 * s),
            market: Slot::new(4 * s),
            orders: Slot::new(2 * s),
            alerts: Slot::new(2 * s),
        }
    }

    pub async fn wait(&self, module: Module) {
        match module {
            Module::Accounts => self.accounts.wait().await,
            Module::Market => self.market.wait().await,
            Module::Orders => self.orders.wait().await,
            Module::Alerts => self.alerts.wait().await,
            // Token calls are rare and must not queue behind data calls.
            Module::OAuth => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn spaces_requests_of_one_module() {
        let p = Pacer::new(1);
        let start = Instant::now();
        for _ in 0..3 {
            p.wait(Module::Accounts).await;
        }
        // Three calls at 2/s: the third may start after one second.
        assert_eq!(start.elapsed(), Duration::from_secs(1));
        let t = Instant::now();
        p.wait(Module::Market).await;
        assert_eq!(t.elapsed(), Duration::ZERO, "modules are independent");
    }
}
