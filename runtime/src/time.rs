//! How every time leaves the server: RFC 3339 in UTC, to the second. A leaf module, so the
//! E*TRADE models, the credential estimate and the result envelope share one format without
//! depending on each other.

/// `2026-10-17T12:00:00Z`.
pub fn rfc3339_seconds(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}
