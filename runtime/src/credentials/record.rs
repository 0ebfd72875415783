//! The credential record kept, as JSON, in a keyring entry's password.

use std::fmt;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::Secret;

/// Everything etrade-mcp remembers about one environment/profile login.
///
/// Unknown JSON fields are tolerated (not denied) so an entry written by a newer version
/// still loads; the timestamps are local records of when this machine authorized and last
/// used the token, which is all the expiry estimate has to go on.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredCredentials {
    pub consumer_key: String,
    pub consumer_secret: Secret,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<Secret>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token_secret: Option<Secret>,
    #[serde(
        default,
        with = "optional_timestamp",
        skip_serializing_if = "Option::is_none"
    )]
    pub authorized_at: Option<Timestamp>,
    #[serde(
        default,
        with = "optional_timestamp",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_used_at: Option<Timestamp>,
}

impl StoredCredentials {
    /// Consumer credentials only, before any OAuth login.
    pub fn new(consumer_key: impl Into<String>, consumer_secret: Secret) -> StoredCredentials {
        StoredCredentials {
            consumer_key: consumer_key.into(),
            consumer_secret,
            access_token: None,
            access_token_secret: None,
            authorized_at: None,
            last_used_at: None,
        }
    }

    /// Records a fresh login; the previous last-use time belongs to the old token.
    pub fn authorize(&mut self, token: Secret, token_secret: Secret, at: Timestamp) {
        self.access_token = Some(token);
        self.access_token_secret = Some(token_secret);
        self.authorized_at = Some(at);
        self.last_used_at = None;
    }

    pub fn mark_used(&mut self, at: Timestamp) {
        self.last_used_at = Some(at);
    }

    pub fn clear_access_token(&mut self) {
        self.access_token = None;
        self.access_token_secret = None;
        self.authorized_at = None;
        self.last_used_at = None;
    }

    /// OAuth 1.0a signing needs both halves, so half a token counts as no token.
    pub fn has_access_token(&self) -> bool {
        let usable = |s: &Option<Secret>| s.as_ref().is_some_and(|s| !s.is_empty());
        usable(&self.access_token) && usable(&self.access_token_secret)
    }
}

// Hand-written so the consumer key, which identifies the application, is not printed
// either; only the presence of each value is useful when debugging.
impl fmt::Debug for StoredCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredCredentials")
            .field("consumer_key", &format_args!("[redacted]"))
            .field("consumer_secret", &self.consumer_secret)
            .field("access_token", &self.access_token)
            .field("access_token_secret", &self.access_token_secret)
            .field("authorized_at", &self.authorized_at)
            .field("last_used_at", &self.last_used_at)
            .finish()
    }
}

/// Serde for `Option<Timestamp>` as RFC 3339 text; jiff's own serde feature is not enabled
/// in this crate.
mod optional_timestamp {
    use jiff::Timestamp;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(ts) => s.collect_str(ts),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|text| text.parse::<Timestamp>().map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> Timestamp {
        text.parse().expect("valid timestamp")
    }

    #[test]
    fn json_round_trip_keeps_everything() {
        let mut creds = StoredCredentials::new("ck", Secret::new("cs"));
        creds.authorize(
            Secret::new("tok"),
            Secret::new("tok-secret"),
            ts("2026-10-17T12:00:00Z"),
        );
        creds.mark_used(ts("2026-10-17T12:30:00.5Z"));
        let json = serde_json::to_string(&creds).expect("serializes");
        assert_eq!(
            json,
            r#"{"consumer_key":"ck","consumer_secret":"cs","access_token":"tok","access_token_secret":"tok-secret","authorized_at":"2026-10-17T12:00:00Z","last_used_at":"2026-10-17T12:30:00.5Z"}"#
        );
        let back: StoredCredentials = serde_json::from_str(&json).expect("deserializes");
        assert_eq!(back, creds);
    }

    #[test]
    fn consumer_only_record_omits_token_fields() {
        let creds = StoredCredentials::new("ck", Secret::new("cs"));
        let json = serde_json::to_string(&creds).expect("serializes");
        assert_eq!(json, r#"{"consumer_key":"ck","consumer_secret":"cs"}"#);
        let back: StoredCredentials = serde_json::from_str(&json).expect("deserializes");
        assert!(!back.has_access_token());
    }

    #[test]
    fn tolerates_unknown_fields_but_not_bad_timestamps() {
        let json = r#"{"consumer_key":"ck","consumer_secret":"cs","future":1}"#;
        assert!(serde_json::from_str::<StoredCredentials>(json).is_ok());
        let json = r#"{"consumer_key":"ck","consumer_secret":"cs","authorized_at":"yesterday"}"#;
        assert!(serde_json::from_str::<StoredCredentials>(json).is_err());
    }

    #[test]
    fn half_a_token_is_no_token() {
        let mut creds = StoredCredentials::new("ck", Secret::new("cs"));
        creds.access_token = Some(Secret::new("tok"));
        assert!(!creds.has_access_token());
        creds.access_token_secret = Some(Secret::new(""));
        assert!(!creds.has_access_token());
        creds.access_token_secret = Some(Secret::new("s"));
        assert!(creds.has_access_token());
        creds.clear_access_token();
        assert!(!creds.has_access_token());
        assert_eq!(creds.authorized_at, None);
    }

    #[test]
    fn authorize_resets_last_use() {
        let mut creds = StoredCredentials::new("ck", Secret::new("cs"));
        creds.mark_used(ts("2026-10-16T12:00:00Z"));
        creds.authorize(
            Secret::new("t"),
            Secret::new("s"),
            ts("2026-10-17T12:00:00Z"),
        );
        assert_eq!(creds.last_used_at, None);
    }
}
