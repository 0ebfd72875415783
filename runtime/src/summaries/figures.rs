//! Exact arithmetic on E*TRADE's decimal figures: sums never round; percentages are
//! rounded half away from zero to two places.

use rust_decimal::{Decimal, RoundingStrategy};

/// Decimal places of every percentage a summary computes.
pub const PCT_PLACES: u32 = 2;

/// `part / whole × 100`, rounded; `None` when either is unknown or `whole` is zero.
pub fn pct(part: Option<Decimal>, whole: Option<Decimal>) -> Option<Decimal> {
    let (part, whole) = (part?, whole?);
    if whole.is_zero() {
        return None;
    }
    let ratio = part.checked_mul(Decimal::ONE_HUNDRED)?.checked_div(whole)?;
    Some(
        ratio
            .round_dp_with_strategy(PCT_PLACES, RoundingStrategy::MidpointAwayFromZero)
            .normalize(),
    )
}

/// A running exact sum that remembers whether every term was known.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sum {
    total: Decimal,
    terms: usize,
    unknown: usize,
}

impl Sum {
    pub fn add(&mut self, term: Option<Decimal>) {
        match term {
            Some(v) => {
                self.total += v;
                self.terms += 1;
            }
            None => self.unknown += 1,
        }
    }

    /// The sum of the known terms (zero when there were none at all); `None` when a term
    /// was unknown, so a partial figure never passes for the whole.
    pub fn value(&self) -> Option<Decimal> {
        (self.unknown == 0).then(|| self.total.normalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn d(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap_or_default()
    }

    #[test]
    fn percentages_round_half_away_from_zero() {
        assert_eq!(pct(Some(d("1")), Some(d("8"))), Some(d("12.5")));
        assert_eq!(pct(Some(d("1")), Some(d("3"))), Some(d("33.33")));
        assert_eq!(pct(Some(d("2")), Some(d("3"))), Some(d("66.67")));
        assert_eq!(pct(Some(d("-0.00125")), Some(d("1"))), Some(d("-0.13")));
        assert_eq!(pct(Some(d("1")), Some(d("0"))), None);
        assert_eq!(pct(None, Some(d("1"))), None);
    }

    #[test]
    fn sums_are_exact_and_refuse_unknown_terms() {
        let mut s = Sum::default();
        for v in ["0.1", "0.2", "1745.60"] {
            s.add(Some(d(v)));
        }
        assert_eq!(s.value(), Some(d("1745.9")));
        s.add(None);
        assert_eq!(s.value(), None);
        assert_eq!(Sum::default().value(), Some(Decimal::ZERO));
    }
}
