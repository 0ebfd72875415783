//! `GET /v1/market/quote/{symbols}` → `QuoteResponse.QuoteData[]` plus the per-symbol
//! problems E*TRADE reports next to good quotes in `QuoteResponse.Messages.Message[]`.

use super::contracts::NamesContracts;
pub use super::generated::{
    BrokerMessage, ExtendedHourQuote, OptionDeliverable, OptionGreeks, Quote, QuoteAll,
    QuoteFundamental, QuoteIntraday, QuoteMutualFund, QuoteOption, QuoteWeek52,
};
use super::read::{messages, one_or_many};
use crate::etrade::BrokerBody;
use serde::{Deserialize, Deserializer, Serialize};

#[derive(Debug, Deserialize)]
pub struct QuoteResponse {
    #[serde(rename = "QuoteResponse")]
    pub response: QuoteBody,
}

#[derive(Debug, Default, Deserialize)]
pub struct QuoteBody {
    #[serde(
        rename = "QuoteData",
        alias = "quoteData",
        default,
        deserialize_with = "present_quotes"
    )]
    pub quote_data: Option<Vec<Quote>>,
    #[serde(
        rename = "Messages",
        alias = "messages",
        default,
        deserialize_with = "present_messages"
    )]
    pub messages: Option<Vec<BrokerMessage>>,
}

// Present-or-absent readers: a quote answer must carry quotes or messages (one of them may
// be missing), and an answer with neither is not read as "no quotes".
fn present_quotes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Quote>>, D::Error> {
    Ok(Some(one_or_many(d)?))
}

fn present_messages<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<BrokerMessage>>, D::Error> {
    Ok(Some(messages(d)?))
}

/// The `get_quotes` data object: the quotes E*TRADE gave and, next to them, its
/// per-symbol problems.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuoteList {
    pub quotes: Vec<Quote>,
    pub messages: Vec<BrokerMessage>,
    /// Requested symbols with no quote (by set difference, never by reading broker text).
    pub unquoted_symbols: Vec<String>,
}

impl QuoteList {
    /// `None` (an empty body) means no quotes.
    pub fn from_wire(body: Option<impl Into<BrokerBody>>) -> Result<QuoteList, serde_json::Error> {
        let Some(v) = body else {
            return Ok(QuoteList {
                quotes: Vec::new(),
                messages: Vec::new(),
                unquoted_symbols: Vec::new(),
            });
        };
        let r: QuoteResponse = v.into().read()?;
        let QuoteBody {
            quote_data,
            messages,
        } = r.response;
        if quote_data.is_none() && messages.is_none() {
            return Err(serde::de::Error::custom(
                "a quote answer with neither QuoteData nor Messages",
            ));
        }
        let mut list = QuoteList {
            quotes: quote_data.unwrap_or_default(),
            messages: messages.unwrap_or_default(),
            unquoted_symbols: Vec::new(),
        };
        list.quotes.iter_mut().for_each(|q| q.fill_osi_keys());
        Ok(list)
    }

    /// Record which of the requested symbols got no quote. Option requests
    /// (`ROOT:YYYY:MM:DD:CALL:STRIKE`) come back under their root symbol, so they are left
    /// to `messages` rather than guessed at.
    pub fn with_requested(mut self, requested: &[String]) -> QuoteList {
        let quoted: std::collections::HashSet<String> = self
            .quotes
            .iter()
            .filter_map(|q| q.product.as_ref()?.symbol.as_ref())
            .map(|s| s.to_ascii_uppercase())
            .collect();
        let mut seen = std::collections::HashSet::new();
        self.unquoted_symbols = requested
            .iter()
            .map(|s| s.trim().to_ascii_uppercase())
            .filter(|s| !s.contains(':') && !quoted.contains(s) && seen.insert(s.clone()))
            .collect();
        self
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_good_quote_and_a_bad_symbol_from_the_wire() {
        let wire = json!({"QuoteResponse":{"QuoteData":[{"dateTime":"15:59:59 EST 11-14-2023","dateTimeUTC":1699995599,
         "quoteStatus":"REALTIME","ahFlag":"false","hasMiniOptions":false,
         "All":{"adjustedFlag":false,"ask":174.6,"askSize":300,"askTime":"15:59:59 EST 11-14-2023",
          "bid":174.55,"bidExchange":" ","bidSize":200,"changeClose":1.23,"dirLast":"1",
          "exDividendDate":1699592400,"high52":198.23,"lastTrade":174.56,
          "marketCap":2712345678900.0,"sharesOutstanding":15552750000_i64,"yield":0.55,
          "week52HiDate":1689912000,"timeOfLastTrade":1699995599,"averageVolume":56789012,
          "ExtendedHourQuoteDetail":{"lastPrice":174.6,"bidSize":100,"timeOfLastTrade":1700000100,
           "timeZone":"","quoteStatus":"EH_REALTIME"}},
         "Product":{"symbol":"AAPL","securityType":"EQ"}}],
         "Messages":{"Message":[{"description":"XYZQ is not a valid symbol.","code":1019,"type":"WARNING"}]}}});
        let list = QuoteList::from_wire(Some(wire)).expect("parses");
        assert_eq!(list.quotes.len(), 1);
        let q = &list.quotes[0];
        assert_eq!(q.ah_flag, Some(false));
        assert_eq!(q.date_time_utc.as_deref(), Some("2023-11-14T20:59:59Z"));
        let all = q.all.as_ref().expect("all");
        assert_eq!(
            all.market_cap.map(|d| d.to_string()).as_deref(),
            Some("2712345678900")
        );
        assert_eq!(all.dir_last.as_deref(), Some("1"));
        assert_eq!(list.messages[0].code.as_deref(), Some("1019"));
        let out = serde_json::to_value(&list).expect("serializes");
        assert_eq!(out["quotes"][0]["dateTimeUTC"], "2023-11-14T20:59:59Z");
        assert_eq!(out["quotes"][0]["all"]["lastTrade"], "174.56");
        assert_eq!(out["quotes"][0]["all"]["yield"], "0.55");
        assert_eq!(out["quotes"][0]["all"]["askSize"], 300);
        assert_eq!(
            out["quotes"][0]["all"]["extendedHourQuoteDetail"]["lastPrice"],
            "174.6"
        );
        assert_eq!(out["quotes"][0]["product"]["symbol"], "AAPL");
        assert_eq!(out["messages"][0]["type"], "WARNING");
    }

    #[test]
    fn one_quote_as_an_object_option_block_and_string_codes() {
        let wire = json!({"QuoteResponse":{"QuoteData":{"Option":{"ask":1.25,"askSize":"10",
            "OptionGreeks":{"delta":0.5123,"iv":0.3012,"currentValue":false}},
            "Product":{"symbol":"IBM","securityType":"OPTN","callPut":"CALL","expiryYear":2024,
             "strikePrice":200}},
            "Messages":{"Message":{"description":"x","code":"1002","type":"ERROR"}}}});
        let list = QuoteList::from_wire(Some(wire)).expect("parses");
        assert_eq!(list.quotes.len(), 1);
        let o = list.quotes[0].option.as_ref().expect("option");
        assert_eq!(o.ask_size, Some(10));
        let g = o.option_greeks.as_ref().expect("greeks");
        assert_eq!(g.delta.map(|d| d.to_string()).as_deref(), Some("0.5123"));
        assert_eq!(list.messages[0].code.as_deref(), Some("1002"));
        assert!(
            QuoteList::from_wire(None::<serde_json::Value>)
                .expect("empty")
                .quotes
                .is_empty()
        );
        assert!(
            serde_json::from_value::<QuoteResponse>(
                json!({"QuoteResponse": {"QuoteData": [{"All": {"ask": "x"}}]}})
            )
            .is_err()
        );
    }
}
