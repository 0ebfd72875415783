//! Money, prices and quantities from the wire. E*TRADE sends them as JSON numbers (now and
//! then as strings); serde_json hands us an f64, whose shortest round-trip text is exactly
//! the digits E*TRADE wrote for any value it sends (≤ 15 significant digits), so the decimal
//! is parsed from that text — never computed in floating point.

use super::scalars::Scalar;
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer};
use std::str::FromStr;

/// Booleans are not decimals.
fn convert(raw: Scalar) -> Option<Decimal> {
    match raw {
        Scalar::B(_) => None,
        Scalar::I(i) => Some(Decimal::from(i)),
        Scalar::U(u) => Some(Decimal::from(u)),
        Scalar::F(f) if f.is_finite() => Decimal::from_str(&f.to_string())
            .or_else(|_| Decimal::from_scientific(&format!("{f:e}")))
            .ok(),
        Scalar::F(_) => None,
        Scalar::S(s) => {
            let t = s.trim();
            Decimal::from_str(t)
                .or_else(|_| Decimal::from_scientific(t))
                .ok()
        }
    }
}

/// A decimal from a JSON value already in hand (number or numeric string), read the same
/// way as the deserializers below.
pub fn decimal_of(v: &serde_json::Value) -> Option<Decimal> {
    Scalar::deserialize(v).ok().and_then(convert)
}

/// A required decimal (number or numeric string).
pub fn decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    convert(Scalar::deserialize(d)?).ok_or_else(|| serde::de::Error::custom("not a decimal"))
}

/// An optional decimal: absent, null, or an empty string → None.
pub fn decimal_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    Ok(match Option::<Scalar>::deserialize(d)? {
        None => None,
        Some(Scalar::S(s)) if s.trim().is_empty() => None,
        Some(raw) => Some(convert(raw).ok_or_else(|| serde::de::Error::custom("not a decimal"))?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct W {
        #[serde(deserialize_with = "decimal")]
        x: Decimal,
        #[serde(default, deserialize_with = "decimal_opt")]
        y: Option<Decimal>,
    }

    #[test]
    fn numbers_become_the_digits_e_trade_sent() {
        for (json, want) in [
            (r#"{"x": -293.5349}"#, "-293.5349"),
            (r#"{"x": 0.0063}"#, "0.0063"),
            (r#"{"x": 1.405}"#, "1.405"),
            (r#"{"x": 0.1}"#, "0.1"),
            (r#"{"x": 53}"#, "53"),
            (r#"{"x": "9999871.82"}"#, "9999871.82"),
            (r#"{"x": 123456789012.34}"#, "123456789012.34"),
            (r#"{"x": 1e-7}"#, "0.0000001"),
        ] {
            let w: W = serde_json::from_str(json).expect(json);
            assert_eq!(w.x.to_string(), want, "{json}");
        }
        let w: W = serde_json::from_str(r#"{"x": 1, "y": ""}"#).expect("empty");
        assert_eq!(w.y, None);
        assert_eq!(
            serde_json::to_value(Decimal::from_str("1.50").expect("d")).expect("s"),
            "1.50"
        );
    }
}
