//! A string that must not end up in logs, errors or tool output.

use std::fmt;

use serde::{Deserialize, Serialize};

const REDACTED: &str = "[redacted]";

/// A secret value (consumer secret, access token, token secret).
///
/// Formatting never prints the value, so a stray `{:?}` in a log line or error cannot leak
/// it; code that really needs it must call [`Secret::expose`]. Serde sees the real value
/// because the only serialized destination is the keyring entry itself.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting_redacts_and_expose_reveals() {
        let secret = Secret::new("canary-3f9a");
        assert_eq!(format!("{secret}"), "[redacted]");
        assert_eq!(format!("{secret:?}"), "[redacted]");
        assert_eq!(format!("{:?}", Some(&secret)), "Some([redacted])");
        assert_eq!(secret.expose(), "canary-3f9a");
        assert!(!secret.is_empty());
    }

    #[test]
    fn serde_carries_the_real_value() {
        let secret = Secret::new("canary-3f9a");
        let json = serde_json::to_string(&secret).expect("serializes");
        assert_eq!(json, "\"canary-3f9a\"");
        let back: Secret = serde_json::from_str(&json).expect("deserializes");
        assert_eq!(back, secret);
    }
}
