//! The optional approval PIN: a salted, slow hash (PBKDF2-HMAC-SHA256) in the state folder.
//! When it is set, `etrade approve` and the approval page ask for it, so an agent with a
//! shell on this machine cannot approve its own orders by running `etrade approve --yes`.

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::path::{Path, PathBuf};

/// The file in the state folder.
pub const FILE_NAME: &str = "approval-pin.json";
/// Iterations for new PINs: a guess costs a noticeable fraction of a second.
const ITERATIONS: u32 = 100_000;
const MIN_LENGTH: usize = 4;

#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error("the PIN must be at least {MIN_LENGTH} characters")]
    TooShort,
    #[error("the approval PIN file {0} cannot be used: {1}")]
    File(PathBuf, String),
}

#[derive(Serialize, Deserialize)]
struct Stored {
    /// Hex.
    salt: String,
    iterations: u32,
    /// Hex of the 32-byte derived key.
    hash: String,
}

/// The PIN of one state folder.
pub struct ApprovalPin {
    path: PathBuf,
}

impl ApprovalPin {
    pub fn in_dir(state_dir: &Path) -> ApprovalPin {
        ApprovalPin {
            path: state_dir.join(FILE_NAME),
        }
    }

    pub fn is_set(&self) -> bool {
        self.path.exists()
    }

    /// Whether `pin` is the PIN; `Ok(true)` when none is set. The file failing is an error,
    /// never a pass.
    pub fn check(&self, pin: &str) -> Result<bool, PinError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
            Err(e) => return Err(self.file_error(e)),
        };
        let stored: Stored = serde_json::from_str(&text).map_err(|_| self.corrupt())?;
        let salt = hex_decode(&stored.salt).ok_or_else(|| self.corrupt())?;
        let want = hex_decode(&stored.hash).ok_or_else(|| self.corrupt())?;
        let got = derive(pin.as_bytes(), &salt, stored.iterations.max(1));
        // Constant time: every byte is compared whatever the first difference.
        let diff = want
            .iter()
            .zip(got.iter())
            .fold(u8::from(want.len() != got.len()), |acc, (a, b)| {
                acc | (a ^ b)
            });
        Ok(diff == 0)
    }

    /// Set (or replace) the PIN.
    pub fn set(&self, pin: &str) -> Result<(), PinError> {
        if pin.chars().count() < MIN_LENGTH {
            return Err(PinError::TooShort);
        }
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| self.file_error(e))?;
        let stored = Stored {
            salt: hex_encode(&salt),
            iterations: ITERATIONS,
            hash: hex_encode(&derive(pin.as_bytes(), &salt, ITERATIONS)),
        };
        let json = serde_json::to_vec(&stored).map_err(|e| self.file_error(e))?;
        if let Some(dir) = self.path.parent() {
            crate::platform::create_private_dir(dir).map_err(|e| self.file_error(e))?;
        }
        crate::platform::replace_file_atomically(&self.path, &json).map_err(|e| self.file_error(e))
    }

    pub fn clear(&self) -> Result<(), PinError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(self.file_error(e)),
        }
    }

    fn file_error(&self, e: impl std::fmt::Display) -> PinError {
        PinError::File(self.path.clone(), e.to_string())
    }

    fn corrupt(&self) -> PinError {
        self.file_error("it is not a PIN record")
    }
}

/// PBKDF2-HMAC-SHA256 (RFC 8018) with one 32-byte block.
fn derive(password: &[u8], salt: &[u8], iterations: u32) -> [u8; 32] {
    // HMAC accepts keys of any length, so this never fails; the keyed state is built once.
    let Ok(keyed) = <Hmac<Sha256> as KeyInit>::new_from_slice(password) else {
        return [0; 32];
    };
    let mac = |data: &[&[u8]]| -> [u8; 32] {
        let mut m = keyed.clone();
        for d in data {
            m.update(d);
        }
        m.finalize().into_bytes().into()
    };
    let mut u = mac(&[salt, &1u32.to_be_bytes()]);
    let mut out = u;
    for _ in 1..iterations {
        u = mac(&[&u]);
        for (o, x) in out.iter_mut().zip(u.iter()) {
            *o ^= x;
        }
    }
    out
}

fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex_decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pbkdf2_matches_the_rfc_7914_vector() {
        // RFC 7914 §11: PBKDF2-HMAC-SHA256, P="passwd", S="salt", c=1, first 32 bytes.
        assert_eq!(
            hex_encode(&derive(b"passwd", b"salt", 1)),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
        );
    }

    #[test]
    fn a_pin_is_checked_and_never_stored_in_clear() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pin = ApprovalPin::in_dir(dir.path());
        assert!(!pin.is_set());
        assert!(pin.check("anything").expect("no pin"));
        assert!(matches!(pin.set("123"), Err(PinError::TooShort)));
        pin.set("CANARY-pin-4821").expect("set");
        assert!(pin.is_set());
        assert!(pin.check("CANARY-pin-4821").expect("check"));
        assert!(!pin.check("CANARY-pin-4822").expect("check"));
        assert!(!pin.check("").expect("check"));
        let text = std::fs::read_to_string(dir.path().join(FILE_NAME)).expect("read");
        assert!(!text.contains("CANARY"), "{text}");
        pin.clear().expect("clear");
        assert!(!pin.is_set());
    }

    #[test]
    fn a_damaged_pin_file_never_passes() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(FILE_NAME), "{not json").expect("write");
        assert!(ApprovalPin::in_dir(dir.path()).check("x").is_err());
    }
}
