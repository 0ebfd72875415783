//! What a new approval PIN must be, and what guessing it offline would cost.
//!
//! The hash is the only thing between a copy of the trading store and the PIN, so the PIN
//! must be worth hashing: a 6-digit number falls to 10^6 guesses, which a rented many-core
//! machine runs through in well under an hour even at a quarter of a second a guess. A new
//! PIN is therefore at least [`MIN_LENGTH`] characters and not all digits, or a passphrase
//! of [`MIN_WORDS`] or more words. PINs set under the older rule keep working until they
//! are changed; their stored record says so ([`PinStrength::Legacy`]) and `etrade doctor`
//! warns about them.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Characters of a new PIN that is not a passphrase.
pub const MIN_LENGTH: usize = 8;
/// Words of a passphrase (separated by white space).
pub const MIN_WORDS: usize = 3;
/// Letters in each word of a passphrase: `a b c` is not three words worth guessing.
pub const MIN_WORD_LENGTH: usize = 3;
/// Words a passphrase's words are taken to come from (the size of the Diceware list): the
/// estimate assumes words, not letters, are what a guesser tries.
const WORD_LIST: f64 = 7776.0;

/// The rule a stored PIN met when it was set. Only the class is stored, never anything
/// that would narrow an offline guesser's search (its length, its alphabet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PinStrength {
    /// Set before the current rule (at least 6 characters, digits alone allowed).
    #[default]
    Legacy,
    /// At least [`MIN_LENGTH`] characters and not all digits.
    Long,
    /// [`MIN_WORDS`] or more words.
    Passphrase,
}

impl PinStrength {
    pub fn as_str(self) -> &'static str {
        match self {
            PinStrength::Legacy => "legacy (set under the older 6-character rule)",
            PinStrength::Long => "8+ characters, not all digits",
            PinStrength::Passphrase => "passphrase of 3+ words",
        }
    }

    /// Set under the older rule: `etrade doctor` asks for a new PIN.
    pub fn is_legacy(&self) -> bool {
        *self == PinStrength::Legacy
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WeakPin {
    #[error(
        "the PIN must be at least {MIN_LENGTH} characters and not all digits, or a passphrase of {MIN_WORDS} or more words of {MIN_WORD_LENGTH}+ letters"
    )]
    TooShort,
    #[error(
        "a PIN of digits alone is too easy to guess from a copy of its hash: use at least one letter or symbol, or a passphrase of {MIN_WORDS} or more words"
    )]
    AllDigits,
}

/// The class a new PIN falls in, or why it is refused.
pub fn classify(pin: &str) -> Result<PinStrength, WeakPin> {
    let words: Vec<&str> = pin.split_whitespace().collect();
    if words.len() >= MIN_WORDS && words.iter().all(|w| w.chars().count() >= MIN_WORD_LENGTH) {
        return Ok(PinStrength::Passphrase);
    }
    // White space does not count: eight spaces are no PIN.
    if pin.chars().filter(|c| !c.is_whitespace()).count() < MIN_LENGTH {
        return Err(WeakPin::TooShort);
    }
    if pin.chars().all(|c| c.is_ascii_digit()) {
        return Err(WeakPin::AllDigits);
    }
    Ok(PinStrength::Long)
}

/// How many guesses, on average, find `pin` if it were drawn at random from what it is
/// made of: its character classes over its length, or (for a passphrase, the smaller of
/// the two) words from a Diceware-sized list. A word, a name or a pattern is far weaker
/// than this; the figure is an upper bound on the guesser's work, not a promise.
pub fn average_guesses(pin: &str) -> f64 {
    let mut alphabet: f64 = 0.0;
    if pin.chars().any(|c| c.is_ascii_lowercase()) {
        alphabet += 26.0;
    }
    if pin.chars().any(|c| c.is_ascii_uppercase()) {
        alphabet += 26.0;
    }
    if pin.chars().any(|c| c.is_ascii_digit()) {
        alphabet += 10.0;
    }
    if pin.chars().any(|c| !c.is_ascii_alphanumeric()) {
        alphabet += 33.0;
    }
    let length = pin.chars().count() as f64;
    let mut space = f64::powf(alphabet.max(1.0), length);
    if classify(pin) == Ok(PinStrength::Passphrase) {
        let words = pin.split_whitespace().count() as f64;
        space = space.min(WORD_LIST.powf(words));
    }
    space / 2.0
}

/// `guesses` at `per_guess` each on one core, in words ("about 3,200 core-years").
pub fn core_time_words(guesses: f64, per_guess: Duration) -> String {
    let seconds = guesses * per_guess.as_secs_f64();
    let units: [(f64, &str); 5] = [
        (365.25 * 86_400.0, "core-years"),
        (86_400.0, "core-days"),
        (3_600.0, "core-hours"),
        (60.0, "core-minutes"),
        (1.0, "core-seconds"),
    ];
    let (size, name) = units
        .iter()
        .copied()
        .find(|(size, _)| seconds >= *size)
        .unwrap_or((1.0, "core-seconds"));
    format!("about {} {name}", round_words(seconds / size))
}

/// Two significant figures, with thousands separated; huge numbers as powers of ten.
fn round_words(x: f64) -> String {
    if !x.is_finite() || x >= 1e15 {
        return format!("10^{:.0}", x.log10().min(999.0));
    }
    if x < 10.0 {
        return format!("{x:.1}");
    }
    let digits = x.log10().floor() as i32;
    let step = 10f64.powi(digits - 1);
    let rounded = ((x / step).round() * step) as u64;
    let text = rounded.to_string();
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i > 0 && (text.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_for_new_pins() {
        assert_eq!(classify("123456"), Err(WeakPin::TooShort));
        assert_eq!(classify("abc123"), Err(WeakPin::TooShort));
        assert_eq!(classify("12345678"), Err(WeakPin::AllDigits));
        assert_eq!(classify("1234567890123"), Err(WeakPin::AllDigits));
        assert_eq!(classify("a b c"), Err(WeakPin::TooShort));
        assert_eq!(classify("1234567a"), Ok(PinStrength::Long));
        assert_eq!(classify("CANARY-pin-5508"), Ok(PinStrength::Long));
        assert_eq!(classify("red cat sun"), Ok(PinStrength::Passphrase));
        assert_eq!(
            classify("correct horse battery staple"),
            Ok(PinStrength::Passphrase)
        );
        assert_eq!(classify("        "), Err(WeakPin::TooShort));
        assert_eq!(classify("  abc12  "), Err(WeakPin::TooShort));
    }

    #[test]
    fn guesses_grow_with_the_alphabet_and_the_length() {
        assert_eq!(average_guesses("123456"), 500_000.0);
        let weakest = average_guesses("1234567a");
        assert_eq!(weakest, 36f64.powi(8) / 2.0);
        assert!(average_guesses("1234567A!") > weakest);
        // A passphrase is counted in words when that is smaller.
        assert_eq!(average_guesses("red cat sun"), 7776f64.powi(3) / 2.0);
    }

    #[test]
    fn cost_in_words() {
        let quarter = Duration::from_millis(250);
        assert_eq!(core_time_words(500_000.0, quarter), "about 1.4 core-days");
        assert_eq!(core_time_words(4.0, quarter), "about 1.0 core-seconds");
        assert!(core_time_words(1.4e12, quarter).ends_with("core-years"));
        assert_eq!(round_words(11_093.4), "11,000");
    }
}
