//! Lenient scalars from the wire: E*TRADE sends numbers as strings and strings as numbers,
//! flags as booleans or `"y"`/`"true"`, and times of undocumented units. One reading for
//! every model.

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;

/// One JSON scalar as it came. Read by a visitor rather than an untagged enum: untagged
/// buffers every value and builds an error for each variant it rejects, which made reading
/// a 10,000-position page several times slower than parsing its JSON.
pub(crate) enum Scalar {
    B(bool),
    I(i64),
    /// Only integers above `i64::MAX`.
    U(u64),
    F(f64),
    S(String),
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a boolean, number or string")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Scalar, E> {
        Ok(Scalar::B(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Scalar, E> {
        Ok(Scalar::I(i))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Scalar, E> {
        Ok(i64::try_from(u).map_or(Scalar::U(u), Scalar::I))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Scalar, E> {
        Ok(Scalar::F(f))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Scalar, E> {
        Ok(Scalar::S(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Scalar, E> {
        Ok(Scalar::S(s))
    }
}

/// An optional integer sent as a number (possibly `53.0`) or a numeric string; blank → None.
pub fn int_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let bad = || serde::de::Error::custom("not an integer");
    Ok(match Option::<Scalar>::deserialize(d)? {
        None => None,
        Some(Scalar::I(i)) => Some(i),
        Some(Scalar::U(u)) => Some(i64::try_from(u).map_err(|_| bad())?),
        Some(Scalar::F(f)) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
            Some(f as i64)
        }
        Some(Scalar::S(s)) if s.trim().is_empty() => None,
        Some(Scalar::S(s)) => Some(s.trim().parse().map_err(|_| bad())?),
        Some(_) => return Err(bad()),
    })
}

/// A required integer, as [`int_opt`] reads it.
pub fn int<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    int_opt(d)?.ok_or_else(|| serde::de::Error::custom("missing integer"))
}

/// An optional string that E*TRADE sometimes sends as a number (`transactionId`, `storeId`).
pub fn string_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Scalar>::deserialize(d)? {
        None => None,
        Some(Scalar::S(s)) => Some(s),
        Some(Scalar::I(i)) => Some(i.to_string()),
        Some(Scalar::U(u)) => Some(u.to_string()),
        Some(Scalar::F(f)) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
            Some((f as i64).to_string())
        }
        Some(_) => return Err(serde::de::Error::custom("not a string")),
    })
}

/// A required string, as [`string_opt`] reads it.
pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    string_opt(d)?.ok_or_else(|| serde::de::Error::custom("missing string"))
}

/// An optional boolean sent as `true`, `"true"`, `"Y"` or `1`.
pub fn bool_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(match Option::<Scalar>::deserialize(d)? {
        None => None,
        Some(Scalar::B(b)) => Some(b),
        Some(Scalar::I(i)) => Some(i != 0),
        Some(Scalar::U(u)) => Some(u != 0),
        Some(Scalar::S(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "y" | "yes" | "1" => Some(true),
            "false" | "n" | "no" | "0" => Some(false),
            "" => None,
            _ => return Err(serde::de::Error::custom("not a boolean")),
        },
        Some(_) => return Err(serde::de::Error::custom("not a boolean")),
    })
}

/// An optional flag: a JSON boolean or E*TRADE's string flags (`"true"`/`"false"`,
/// `"y"`/`"n"`); anything else (an empty string) → None.
pub fn flag_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(match Option::<Scalar>::deserialize(d)? {
        Some(Scalar::B(b)) => Some(b),
        Some(Scalar::S(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "y" | "yes" => Some(true),
            "false" | "n" | "no" => Some(false),
            _ => None,
        },
        Some(Scalar::I(i)) => Some(i != 0),
        _ => None,
    })
}

/// A required flag, as [`flag_opt`] reads it.
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    flag_opt(d)?.ok_or_else(|| serde::de::Error::custom("missing flag"))
}

/// An optional string that E*TRADE may send as a number (error and message codes).
pub fn text_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Scalar>::deserialize(d)? {
        None => None,
        Some(Scalar::S(s)) if s.trim().is_empty() => None,
        Some(Scalar::S(s)) => Some(s),
        Some(Scalar::I(i)) => Some(i.to_string()),
        Some(Scalar::U(u)) => Some(u.to_string()),
        Some(Scalar::F(f)) => Some(f.to_string()),
        Some(Scalar::B(b)) => Some(b.to_string()),
    })
}
