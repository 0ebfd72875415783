//! Which tickers the market lists, and the few it knows by name and price level.

/// A few symbols with realistic names and price levels; every other ticker is synthesized.
pub(super) struct Known {
    pub(super) symbol: &'static str,
    pub(super) name: &'static str,
    pub(super) base: f64,
    pub(super) exchange: &'static str,
    pub(super) kind: &'static str,
    pub(super) daily_volume: f64,
}

pub(super) const KNOWN: &[Known] = &[
    Known {
        symbol: "AAPL",
        name: "APPLE INC COM",
        base: 230.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 55e6,
    },
    Known {
        symbol: "MSFT",
        name: "MICROSOFT CORP COM",
        base: 420.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 22e6,
    },
    Known {
        symbol: "SPY",
        name: "SPDR S&P 500 ETF TR TR UNIT",
        base: 600.0,
        exchange: "ARCA",
        kind: "ETF",
        daily_volume: 70e6,
    },
    Known {
        symbol: "IBM",
        name: "INTERNATIONAL BUSINESS MACHS COM",
        base: 220.0,
        exchange: "NYSE",
        kind: "EQUITY",
        daily_volume: 4e6,
    },
    Known {
        symbol: "GOOG",
        name: "ALPHABET INC CAP STK CL C",
        base: 175.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 20e6,
    },
    Known {
        symbol: "AMZN",
        name: "AMAZON COM INC COM",
        base: 200.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 40e6,
    },
    Known {
        symbol: "NVDA",
        name: "NVIDIA CORPORATION COM",
        base: 130.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 250e6,
    },
    Known {
        symbol: "TSLA",
        name: "TESLA INC COM",
        base: 250.0,
        exchange: "NSDQ",
        kind: "EQUITY",
        daily_volume: 90e6,
    },
];

/// The upper-case ticker when `symbol` is one this market lists.
pub(super) fn normalize(symbol: &str) -> Option<String> {
    let s = symbol.trim().to_ascii_uppercase();
    let ok = (1..=5).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_uppercase())
        && !s.starts_with("ZZ");
    ok.then_some(s)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{TUE_11, m, ts};
    use crate::paper::touch::MarketData;

    #[test]
    fn unknown_symbols() {
        let at = ts(TUE_11);
        for sym in ["ZZZ", "ZZ", "TOOLONG", "AB1", "", "BRK.B", "A B"] {
            assert_eq!(m().equity(sym, at), None, "{sym}");
            assert_eq!(m().option_expire_dates_response(sym, at), None, "{sym}");
        }
        assert!(m().equity("Z", at).is_some());
    }
}
