//! Canned answers: an exact body served in place of an endpoint's own answer, for replaying
//! answers recorded from the real E*TRADE. The request still passes the fake's OAuth check
//! (a request the check refuses gets the refusal, not the canned body), and the endpoint
//! still runs, so a mutation's bookkeeping and the request log stay as they would be.

use crate::faults::EndpointPattern;

#[derive(Debug, Clone)]
pub struct CannedAnswer {
    pub pattern: EndpointPattern,
    /// Sent as is, with `Content-Type: application/json` and status 200.
    pub body: String,
    /// Matching requests still to answer; `None` = until cleared.
    pub remaining: Option<u32>,
}

#[derive(Debug, Default)]
pub(crate) struct CannedTable {
    entries: Vec<CannedAnswer>,
}

impl CannedTable {
    pub fn add(&mut self, pattern: EndpointPattern, body: String, times: Option<u32>) {
        if times != Some(0) {
            self.entries.push(CannedAnswer {
                pattern,
                body,
                remaining: times,
            });
        }
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The first canned body matching the request, consuming one of its uses.
    pub fn take(&mut self, method: &str, path: &str) -> Option<String> {
        let i = self
            .entries
            .iter()
            .position(|e| e.pattern.matches(method, path))?;
        let entry = &mut self.entries[i];
        let body = entry.body.clone();
        if let Some(n) = entry.remaining.as_mut() {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.entries.remove(i);
            }
        }
        Some(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_match_is_used_and_counted() {
        let mut t = CannedTable::default();
        t.add("GET /v1/accounts/list".into(), "{\"a\":1}".into(), Some(1));
        t.add("GET /v1/**".into(), "{\"b\":2}".into(), None);
        assert_eq!(
            t.take("GET", "/v1/accounts/list").as_deref(),
            Some("{\"a\":1}")
        );
        assert_eq!(
            t.take("GET", "/v1/accounts/list").as_deref(),
            Some("{\"b\":2}")
        );
        assert_eq!(t.take("POST", "/v1/accounts/list"), None);
        t.clear();
        assert_eq!(t.take("GET", "/v1/x"), None);
    }
}
