//! The approval PIN's stored form: a salted memory-hard hash (argon2id) for every PIN set
//! now, and the PBKDF2-HMAC-SHA256 records of `approval-pin.json` that older versions
//! wrote, still accepted so that an upgrade does not turn a PIN off.
//!
//! The cost is the point: a program that copies the record off this machine pays about a
//! quarter of a second and 64 MiB per guess; what a new PIN must be so that this adds up
//! to years is `pin_strength`'s rule, and the online guesses are bounded separately by the
//! lockouts.

use argon2::{Algorithm, Argon2, Params, Version};
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::path::Path;

/// argon2id parameters for new PINs: 64 MiB, 3 passes, one lane (about 0.25 s a guess
/// on a 2-core machine; `benches/approval_pin.rs` measures it).
pub const MEMORY_KIB: u32 = 64 * 1024;
pub const PASSES: u32 = 3;
pub const LANES: u32 = 1;
/// Refuse to spend more than this on a stored record's parameters (a damaged or planted
/// record must not make one check take gigabytes or minutes).
const MAX_MEMORY_KIB: u32 = 1024 * 1024;
const MAX_PASSES: u32 = 64;
const MAX_PBKDF2_ITERATIONS: u32 = 10_000_000;
const HASH_BYTES: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum PinHashError {
    #[error("the PIN is empty")]
    Empty,
    #[error("the system's random number source failed")]
    Random,
    #[error("the PIN record cannot be used: {0}")]
    Unusable(&'static str),
}

/// A stored PIN: how it was hashed, the salt, and the hash (hex). Debug output names the
/// kind only: the hash is what an offline guesser needs.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PinHash {
    Argon2id {
        memory_kib: u32,
        passes: u32,
        lanes: u32,
        salt: String,
        hash: String,
    },
    Pbkdf2Sha256 {
        iterations: u32,
        salt: String,
        hash: String,
    },
}

impl std::fmt::Debug for PinHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PinHash({})", self.kind())
    }
}

impl PinHash {
    /// Hash a PIN with the current argon2id parameters. Whether a new PIN is strong enough
    /// is `pin_strength`'s rule, checked before; this also rehashes an older PIN that was
    /// right, whatever rule it was set under.
    pub fn new(pin: &str) -> Result<PinHash, PinHashError> {
        if pin.is_empty() {
            return Err(PinHashError::Empty);
        }
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|_| PinHashError::Random)?;
        let hash = argon2id(pin.as_bytes(), &salt, MEMORY_KIB, PASSES, LANES)?;
        Ok(PinHash::Argon2id {
            memory_kib: MEMORY_KIB,
            passes: PASSES,
            lanes: LANES,
            salt: hex_encode(&salt),
            hash: hex_encode(&hash),
        })
    }

    pub fn kind(&self) -> &'static str {
        match self {
            PinHash::Argon2id { .. } => "argon2id",
            PinHash::Pbkdf2Sha256 { .. } => "pbkdf2-sha256",
        }
    }

    /// Whether a right PIN should be hashed again with the current parameters.
    pub fn is_outdated(&self) -> bool {
        !matches!(
            self,
            PinHash::Argon2id { memory_kib, passes, lanes, .. }
                if (*memory_kib, *passes, *lanes) == (MEMORY_KIB, PASSES, LANES)
        )
    }

    /// Whether `pin` is this PIN. A record that cannot be used is an error, never a pass.
    pub fn matches(&self, pin: &str) -> Result<bool, PinHashError> {
        let (want, got) = match self {
            PinHash::Argon2id {
                memory_kib,
                passes,
                lanes,
                salt,
                hash,
            } => {
                if *memory_kib > MAX_MEMORY_KIB || *passes > MAX_PASSES {
                    return Err(PinHashError::Unusable("its cost is out of range"));
                }
                let salt = hex_decode(salt).ok_or(PinHashError::Unusable("bad salt"))?;
                let want = hex_decode(hash).ok_or(PinHashError::Unusable("bad hash"))?;
                let got = argon2id(pin.as_bytes(), &salt, *memory_kib, *passes, *lanes)?;
                (want, got)
            }
            PinHash::Pbkdf2Sha256 {
                iterations,
                salt,
                hash,
            } => {
                if *iterations == 0 || *iterations > MAX_PBKDF2_ITERATIONS {
                    return Err(PinHashError::Unusable("its cost is out of range"));
                }
                let salt = hex_decode(salt).ok_or(PinHashError::Unusable("bad salt"))?;
                let want = hex_decode(hash).ok_or(PinHashError::Unusable("bad hash"))?;
                (want, pbkdf2_sha256(pin.as_bytes(), &salt, *iterations))
            }
        };
        Ok(same_bytes(&want, &got))
    }

    /// The record of an `approval-pin.json` written by an older version; `Ok(None)` when
    /// there is no such file.
    pub fn read_legacy_file(path: &Path) -> Result<Option<PinHash>, PinHashError> {
        #[derive(Deserialize)]
        struct Legacy {
            salt: String,
            iterations: u32,
            hash: String,
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(_) => return Err(PinHashError::Unusable("the PIN file cannot be read")),
        };
        let legacy: Legacy = serde_json::from_str(&text)
            .map_err(|_| PinHashError::Unusable("the PIN file is not a PIN record"))?;
        Ok(Some(PinHash::Pbkdf2Sha256 {
            iterations: legacy.iterations,
            salt: legacy.salt,
            hash: legacy.hash,
        }))
    }
}

fn argon2id(
    pin: &[u8],
    salt: &[u8],
    memory_kib: u32,
    passes: u32,
    lanes: u32,
) -> Result<[u8; HASH_BYTES], PinHashError> {
    let params = Params::new(memory_kib, passes, lanes, Some(HASH_BYTES))
        .map_err(|_| PinHashError::Unusable("its argon2 parameters are invalid"))?;
    let mut out = [0u8; HASH_BYTES];
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password_into(pin, salt, &mut out)
        .map_err(|_| PinHashError::Unusable("its argon2 parameters are invalid"))?;
    Ok(out)
}

/// PBKDF2-HMAC-SHA256 (RFC 8018) with one 32-byte block: the older versions' hash.
pub fn pbkdf2_sha256(password: &[u8], salt: &[u8], iterations: u32) -> [u8; HASH_BYTES] {
    // HMAC accepts keys of any length, so this never fails; the keyed state is built once.
    let Ok(keyed) = <Hmac<Sha256> as KeyInit>::new_from_slice(password) else {
        return [0; HASH_BYTES];
    };
    let mac = |data: &[&[u8]]| -> [u8; HASH_BYTES] {
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

/// Constant time: every byte is compared whatever the first difference.
fn same_bytes(want: &[u8], got: &[u8]) -> bool {
    want.iter()
        .zip(got.iter())
        .fold(u8::from(want.len() != got.len()), |acc, (a, b)| {
            acc | (a ^ b)
        })
        == 0
}

pub fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex_decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_pin_is_argon2id_and_matches_only_itself() {
        let h = PinHash::new("CANARY-pin-4821").expect("hash");
        assert_eq!(h.kind(), "argon2id");
        assert!(!h.is_outdated());
        assert!(h.matches("CANARY-pin-4821").expect("check"));
        assert!(!h.matches("CANARY-pin-4822").expect("check"));
        assert!(!h.matches("").expect("check"));
        let json = serde_json::to_string(&h).expect("json");
        assert!(!json.contains("CANARY"), "{json}");
        assert!(!format!("{h:?}").contains(&json[20..40]));
    }

    #[test]
    fn an_empty_pin_is_refused() {
        assert!(matches!(PinHash::new(""), Err(PinHashError::Empty)));
    }

    #[test]
    fn an_older_versions_pbkdf2_file_still_matches() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("approval-pin.json");
        let salt = [7u8; 16];
        let hash = pbkdf2_sha256(b"2468", &salt, 1000);
        std::fs::write(
            &path,
            format!(
                "{{\"salt\":\"{}\",\"iterations\":1000,\"hash\":\"{}\"}}",
                hex_encode(&salt),
                hex_encode(&hash)
            ),
        )
        .expect("write");
        let h = PinHash::read_legacy_file(&path)
            .expect("read")
            .expect("a PIN");
        assert_eq!(h.kind(), "pbkdf2-sha256");
        assert!(h.is_outdated());
        assert!(h.matches("2468").expect("check"));
        assert!(!h.matches("2469").expect("check"));
        assert!(
            PinHash::read_legacy_file(&dir.path().join("none"))
                .expect("absent")
                .is_none()
        );
        std::fs::write(&path, "{not json").expect("write");
        assert!(PinHash::read_legacy_file(&path).is_err());
    }

    #[test]
    fn pbkdf2_matches_rfc_7914_test_vector() {
        // RFC 7914 section 11: PBKDF2-HMAC-SHA256, P="passwd", S="salt", c=1, first 32 bytes.
        let out = pbkdf2_sha256(b"passwd", b"salt", 1);
        assert_eq!(
            hex_encode(&out),
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
        );
    }

    #[test]
    fn a_damaged_or_costly_record_never_passes() {
        let costly = PinHash::Argon2id {
            memory_kib: u32::MAX,
            passes: 1,
            lanes: 1,
            salt: "00".repeat(16),
            hash: "00".repeat(32),
        };
        assert!(costly.matches("anything").is_err());
        let bad = PinHash::Pbkdf2Sha256 {
            iterations: 1,
            salt: "zz".into(),
            hash: "00".into(),
        };
        assert!(bad.matches("anything").is_err());
    }
}
