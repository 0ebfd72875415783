//! Turns broker-supplied text into the diagnostic fields of an error object:
//! `broker_message`, `broker_code` and `request_id`.
//!
//! Broker text is data, never instructions, and it may echo request material — OAuth
//! parameters, signature base strings — so everything here fails closed: when in doubt the
//! field becomes `null`. Nothing in this module logs; callers must not log broker text either.
//!
//! Success bodies get the same protection through [`KnownSecrets::parse_redacted`]: a JSON
//! string that reveals a known secret becomes [`REDACTED`].

use std::borrow::Cow;
use std::fmt;

/// The contract's limit on `broker_message`, in characters (Unicode scalar values).
pub const MAX_MESSAGE_CHARS: usize = 1000;
/// Longest `request_id` kept, in characters.
pub const MAX_REQUEST_ID_CHARS: usize = 128;
/// Longest numeric `broker_code` kept. E*TRADE's codes have at most five digits; the slack
/// tolerates new ones without admitting arbitrary digit strings such as account numbers.
pub const MAX_BROKER_CODE_DIGITS: usize = 16;
/// Shorter configured values are ignored as secrets, and shorter secret prefixes are not
/// treated as fragments: matching two- or three-character strings would suppress nearly every
/// message while protecting almost nothing.
pub const MIN_SECRET_CHARS: usize = 4;
/// A run of token characters at least this long that the truncation cuts through is treated
/// as a possible unknown credential (E*TRADE tokens and keys are 20+ base64 characters).
pub const SUSPICIOUS_TOKEN_RUN_CHARS: usize = 16;
/// What a string of a broker's success body becomes when it reveals a known secret. The
/// whole string goes: the rest of a text that echoes request material cannot be vouched for.
pub const REDACTED: &str = "[redacted]";

/// The secret values of the configured credentials, used to keep them out of broker-derived
/// fields.
///
/// Formatting never prints the values, only how many there are.
#[derive(Clone, Default)]
pub struct KnownSecrets {
    secrets: Vec<KnownSecret>,
}

#[derive(Clone)]
struct KnownSecret {
    raw: String,
    /// The raw value and the forms it takes on the wire: OAuth percent-encodes values once
    /// in headers and twice inside signature base strings, with either hex case.
    forms: Vec<String>,
    /// The raw value's longest run of ASCII letters and digits. Percent-encoding leaves
    /// those characters alone and JSON escaping other than `\u` cannot touch them, so every
    /// text revealing the secret contains this run, unless an escape hides a letter or digit
    /// (see [`may_hide_alphanumerics`]).
    anchor: String,
}

impl KnownSecrets {
    /// Collects the values to protect; empty and very short values are skipped, duplicates
    /// are kept once.
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> KnownSecrets {
        let mut secrets: Vec<KnownSecret> = Vec::new();
        for value in values {
            if value.chars().count() < MIN_SECRET_CHARS || secrets.iter().any(|s| s.raw == value) {
                continue;
            }
            let once_upper = percent_encode(value, HEX_UPPER);
            let once_lower = percent_encode(value, HEX_LOWER);
            let twice_upper = percent_encode(&once_upper, HEX_UPPER);
            let twice_lower = percent_encode(&once_lower, HEX_LOWER);
            let mut forms = vec![value.to_string()];
            for form in [once_upper, once_lower, twice_upper, twice_lower] {
                if !forms.contains(&form) {
                    forms.push(form);
                }
            }
            secrets.push(KnownSecret {
                raw: value.to_string(),
                forms,
                anchor: longest_alphanumeric_run(value).to_string(),
            });
        }
        KnownSecrets { secrets }
    }

    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    pub fn len(&self) -> usize {
        self.secrets.len()
    }

    /// Whether `text` would reveal a known secret: it contains one in a wire form (also after
    /// one or two rounds of percent-decoding, which catches mixed-case escapes), or it is
    /// itself a fragment of at least [`MIN_SECRET_CHARS`] characters of one.
    pub fn exposes(&self, text: &str) -> bool {
        self.matches(text, true)
    }

    /// Whether `text` contains a known secret in a wire form, also after one or two rounds
    /// of percent-decoding. Unlike [`KnownSecrets::exposes`], a text that is merely a
    /// fragment of a secret does not count: in a success body, a symbol such as `ABCD` must
    /// survive a token that happens to contain it.
    pub fn reveals(&self, text: &str) -> bool {
        self.may_reveal(text) && self.matches(text, false)
    }

    /// Cheap pre-check for [`KnownSecrets::reveals`], also sound on the raw text of a JSON
    /// document: `false` means no string in it reveals a known secret. It looks for each
    /// secret's longest alphanumeric run, and says `true` whenever an escape could hide a
    /// letter or digit.
    pub fn may_reveal(&self, text: &str) -> bool {
        !self.secrets.is_empty()
            && (may_hide_alphanumerics(text)
                || self
                    .secrets
                    .iter()
                    .any(|s| text.contains(s.anchor.as_str())))
    }

    /// Replaces every string in `value` that [reveals](KnownSecrets::reveals) a known secret
    /// with [`REDACTED`]; returns how many were replaced. Object keys are left alone: the
    /// answer models read only the names they know, so a key never reaches an output.
    pub fn redact_strings(&self, value: &mut serde_json::Value) -> usize {
        use serde_json::Value;
        match value {
            Value::String(s) if self.reveals(s) => {
                *s = REDACTED.to_string();
                1
            }
            Value::Array(items) => items.iter_mut().map(|v| self.redact_strings(v)).sum(),
            Value::Object(members) => members.values_mut().map(|v| self.redact_strings(v)).sum(),
            _ => 0,
        }
    }

    /// Parses a broker's JSON body with every string that reveals a known secret replaced by
    /// [`REDACTED`], and says how many were. The value tree is walked only when the raw text
    /// [may reveal](KnownSecrets::may_reveal) one, so a large page costs one scan per secret.
    pub fn parse_redacted(
        &self,
        body: &str,
    ) -> Result<(serde_json::Value, usize), serde_json::Error> {
        let mut value = serde_json::from_str(body)?;
        let redacted = if self.may_reveal(body) {
            self.redact_strings(&mut value)
        } else {
            0
        };
        Ok((value, redacted))
    }

    /// [`KnownSecrets::exposes`] and [`KnownSecrets::reveals`]: `fragments` also counts a
    /// text that is itself part of a secret.
    fn matches(&self, text: &str, fragments: bool) -> bool {
        if self.secrets.is_empty() {
            return false;
        }
        let once = percent_decode(text);
        let twice = percent_decode(&once);
        let is_fragment_sized = fragments && text.chars().count() >= MIN_SECRET_CHARS;
        // The encoded forms are matched directly too: decoding can fuse a stray `%` before
        // an encoded secret into a different escape and so hide the secret from the raw match.
        let hays = [text, once.as_ref(), twice.as_ref()];
        self.secrets
            .iter()
            .flat_map(|s| s.forms.iter())
            .any(|form| {
                hays.iter().any(|hay| hay.contains(form.as_str()))
                    || (is_fragment_sized && form.contains(text))
            })
    }

    /// Whether `kept` ends with the first [`MIN_SECRET_CHARS`] or more characters of a known
    /// secret in any of its wire forms.
    fn ends_with_secret_prefix(&self, kept: &str) -> bool {
        self.secrets
            .iter()
            .flat_map(|secret| secret.forms.iter())
            .any(|form| {
                form.char_indices().enumerate().any(|(count, (at, ch))| {
                    count + 1 >= MIN_SECRET_CHARS && kept.ends_with(&form[..at + ch.len_utf8()])
                })
            })
    }
}

impl fmt::Debug for KnownSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KnownSecrets")
            .field("count", &self.secrets.len())
            .finish_non_exhaustive()
    }
}

/// The `broker_message` for a broker's explanation.
///
/// Whitespace runs become one space and the ends are trimmed; control and invisible
/// formatting characters are removed; the result is limited to [`MAX_MESSAGE_CHARS`]. Returns
/// `None` when nothing is left, when the text reveals a known secret, or when the truncation
/// could cut a credential in half — the kept part would then be a fragment we cannot vouch
/// for.
pub fn sanitize(raw: Option<&str>, secrets: &KnownSecrets) -> Option<String> {
    let raw = raw?;
    // Checked before normalizing as well, in case a configured value contains whitespace or
    // characters that normalization removes.
    if secrets.exposes(raw) {
        return None;
    }
    let text = normalize(raw);
    if text.is_empty() || secrets.exposes(&text) {
        return None;
    }
    let Some((cut, _)) = text.char_indices().nth(MAX_MESSAGE_CHARS) else {
        return Some(text);
    };
    let (kept, rest) = text.split_at(cut);
    if secrets.ends_with_secret_prefix(kept) || cuts_token_run(kept, rest) {
        return None;
    }
    Some(kept.trim_end().to_string())
}

/// A broker error code as it arrived: E*TRADE sends numbers, but strings have been seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawBrokerCode<'a> {
    Text(&'a str),
    Number(u64),
}

impl<'a> RawBrokerCode<'a> {
    /// Reads a JSON `code` member; anything but a string or a non-negative integer is no code.
    pub fn from_json(value: &'a serde_json::Value) -> Option<RawBrokerCode<'a>> {
        match value {
            serde_json::Value::String(s) => Some(RawBrokerCode::Text(s)),
            serde_json::Value::Number(n) => n.as_u64().map(RawBrokerCode::Number),
            _ => None,
        }
    }
}

impl<'a> From<&'a str> for RawBrokerCode<'a> {
    fn from(text: &'a str) -> Self {
        RawBrokerCode::Text(text)
    }
}

impl From<u64> for RawBrokerCode<'_> {
    fn from(n: u64) -> Self {
        RawBrokerCode::Number(n)
    }
}

/// The `broker_code`: one to [`MAX_BROKER_CODE_DIGITS`] ASCII digits after trimming, else
/// `None`. Digits are kept as sent (leading zeros included) so the code matches the broker's
/// documentation.
pub fn broker_code(raw: Option<RawBrokerCode<'_>>) -> Option<String> {
    let code = match raw? {
        RawBrokerCode::Text(text) => text.trim().to_string(),
        RawBrokerCode::Number(n) => n.to_string(),
    };
    let numeric = !code.is_empty()
        && code.len() <= MAX_BROKER_CODE_DIGITS
        && code.bytes().all(|b| b.is_ascii_digit());
    numeric.then_some(code)
}

/// The `request_id`: at most [`MAX_REQUEST_ID_CHARS`] of `[A-Za-z0-9._:-]` after trimming,
/// and not revealing a known secret; otherwise `None`.
pub fn request_id(raw: Option<&str>, secrets: &KnownSecrets) -> Option<String> {
    let id = raw?.trim();
    let safe = !id.is_empty()
        && id.len() <= MAX_REQUEST_ID_CHARS
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'));
    (safe && !secrets.exposes(id)).then(|| id.to_string())
}

/// Removes control/invisible characters and collapses whitespace runs to single spaces,
/// trimming both ends.
fn normalize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut pending_space = false;
    for ch in raw.chars() {
        if ch.is_whitespace() {
            pending_space = true;
        } else if ch.is_control() || is_invisible_format(ch) {
            // Dropped without ending a whitespace run, so "a \0 b" still becomes "a b".
        } else {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(ch);
        }
    }
    out
}

/// Zero-width and bidirectional formatting characters: they render as nothing, so they can
/// hide text from a reader or split a secret so it escapes matching.
fn is_invisible_format(ch: char) -> bool {
    matches!(
        ch,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
    )
}

fn is_token_char(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || matches!(ch, '+' | '/' | '=' | '%' | '_' | '-')
}

/// Whether the cut between `kept` and `rest` falls inside a token-like run long enough to be
/// a credential nobody told us about.
fn cuts_token_run(kept: &str, rest: &str) -> bool {
    let before = kept.chars().rev().take_while(|&c| is_token_char(c)).count();
    if before == 0 {
        return false;
    }
    let after = rest
        .chars()
        .take_while(|&c| is_token_char(c))
        .take(SUSPICIOUS_TOKEN_RUN_CHARS)
        .count();
    after > 0 && before + after >= SUSPICIOUS_TOKEN_RUN_CHARS
}

/// The longest run of ASCII letters and digits in `value` (the first of equal ones); empty
/// when there is none, which [`KnownSecrets::may_reveal`] then finds everywhere.
fn longest_alphanumeric_run(value: &str) -> &str {
    value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .fold(
            "",
            |best, run| if run.len() > best.len() { run } else { best },
        )
}

/// Whether an escape in `text` could stand for an ASCII letter or digit: a JSON `\u`
/// escape, a percent-escape of one (`%41`, `%7a`), or such an escape whose `%` is itself
/// encoded (`%2541`), which a second round of decoding turns into the character. Any letter
/// or digit that one or two rounds of decoding produce comes from one of these, so without
/// them a secret's alphanumeric run is in the text as it is.
fn may_hide_alphanumerics(text: &str) -> bool {
    if text.contains("\\u") {
        return true;
    }
    let bytes = text.as_bytes();
    let escapes_alphanumeric = |at: usize| {
        let hex = |i: usize| bytes.get(i).copied().and_then(hex_value);
        hex(at)
            .zip(hex(at + 1))
            .is_some_and(|(hi, lo)| ((hi << 4) | lo).is_ascii_alphanumeric())
    };
    let encoded_percent = |at: usize| bytes.get(at..at + 2) == Some(b"25".as_slice());
    text.match_indices('%').any(|(at, _)| {
        escapes_alphanumeric(at + 1) || (encoded_percent(at + 1) && escapes_alphanumeric(at + 3))
    })
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

/// RFC 3986 encoding, as OAuth 1.0a applies it to every parameter value.
fn percent_encode(value: &str, hex: &[u8; 16]) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push(char::from(hex[usize::from(b >> 4)]));
            out.push(char::from(hex[usize::from(b & 0x0f)]));
        }
    }
    out
}

/// Decodes `%XX` escapes (either case), leaving malformed escapes as they are. Invalid UTF-8
/// becomes U+FFFD, which cannot be part of a match against a valid secret.
fn percent_decode(text: &str) -> Cow<'_, str> {
    if !text.contains('%') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = (bytes[i] == b'%')
            .then(|| {
                Some((
                    hex_value(*bytes.get(i + 1)?)?,
                    hex_value(*bytes.get(i + 2)?)?,
                ))
            })
            .flatten();
        match escape {
            Some((hi, lo)) => {
                out.push((hi << 4) | lo);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SHORT_SECRET: &str = "Zq9xVb7K";
    const SLASHY_SECRET: &str = "ab/cd+ef==";

    fn secrets() -> KnownSecrets {
        KnownSecrets::new([SHORT_SECRET, SLASHY_SECRET, "", "abc"])
    }

    /// `n` characters of ordinary words ("abcde abcde ..."); ends on a letter whenever
    /// `n % 6 != 0`.
    fn filler(n: usize) -> String {
        "abcde ".chars().cycle().take(n).collect()
    }

    #[test]
    fn sanitize_cases() {
        let exactly_1000 = filler(1000);
        let truncated_word = filler(1001);
        let space_at_cut = format!("{} tail", filler(999));
        let short_prefix_at_cut = format!("{} {}Q and more", filler(994), &SHORT_SECRET[..5]);
        let encoded_prefix_at_cut = format!("{} ab%2Fcd%2Bxx rest", filler(993));
        let long_token_at_cut = format!("{} A1b2C3d4E5f6G7h8I9j0KlMnOp more", filler(989));
        let short_token_at_cut = format!("{} A1b2C3d4E5f6G more", filler(989));
        let cases: Vec<(&str, Option<&str>, Option<String>)> = vec![
            ("none", None, None),
            ("empty", Some(""), None),
            ("blank", Some(" \t\r\n\u{a0}\u{3000} "), None),
            ("only controls", Some("\u{0}\u{7}\u{200b}"), None),
            (
                "plain",
                Some("Invalid symbol."),
                Some("Invalid symbol.".into()),
            ),
            (
                "whitespace runs",
                Some("  Quantity\tcannot\n\nbe\r\nchanged \u{a0}\u{2003} now.  "),
                Some("Quantity cannot be changed now.".into()),
            ),
            (
                "controls removed without joining words",
                Some("Order \u{0}\u{1b}[31m rejected\u{7f}\u{202e}!"),
                Some("Order [31m rejected!".into()),
            ),
            (
                "exactly 1000",
                Some(&exactly_1000),
                Some(exactly_1000.clone()),
            ),
            (
                "1001 keeps 1000 when a short word is cut",
                Some(&truncated_word),
                Some(truncated_word.chars().take(1000).collect()),
            ),
            (
                "space at the cut is trimmed",
                Some(&space_at_cut),
                Some(filler(999)),
            ),
            (
                "known secret inside",
                Some("oauth_token=Zq9xVb7K rejected"),
                None,
            ),
            (
                "secret split by an invisible character",
                Some("token Zq9x\u{200b}Vb7K"),
                None,
            ),
            (
                "percent-encoded secret",
                Some("oauth_signature base ab%2Fcd%2Bef%3D%3D"),
                None,
            ),
            (
                "lower-case percent-encoded secret",
                Some("ab%2fcd%2bef%3d%3d"),
                None,
            ),
            (
                "double percent-encoded secret",
                Some("GET&https%3A%2F%2Fapi&oauth_token%3Dab%252Fcd%252Bef%253D%253D"),
                None,
            ),
            ("secret prefix at the cut", Some(&short_prefix_at_cut), None),
            (
                "encoded secret prefix at the cut",
                Some(&encoded_prefix_at_cut),
                None,
            ),
            ("long token cut", Some(&long_token_at_cut), None),
            (
                "short token cut is kept",
                Some(&short_token_at_cut),
                Some(short_token_at_cut.chars().take(1000).collect()),
            ),
            (
                "ignored short value",
                Some("abc is fine"),
                Some("abc is fine".into()),
            ),
        ];
        let secrets = secrets();
        for (name, input, expected) in cases {
            let got = sanitize(input, &secrets);
            assert_eq!(got, expected, "case {name}");
            if let Some(text) = got {
                assert!(text.chars().count() <= MAX_MESSAGE_CHARS, "case {name}");
            }
        }
    }

    #[test]
    fn each_boundary_rule_suppresses_on_its_own() {
        let none = KnownSecrets::default();
        let secrets = secrets();
        // Secret prefix at the cut, token run too short for the unknown-credential rule.
        for text in [
            format!("{} {}Q and more", filler(995), &SHORT_SECRET[..4]),
            format!("{} ab%2Fcd%2Bxx rest", filler(993)),
        ] {
            assert!(sanitize(Some(&text), &none).is_some(), "{text}");
            assert_eq!(sanitize(Some(&text), &secrets), None, "{text}");
        }
        // A three-character prefix is not a fragment.
        let text = format!("{} x{}Q and more", filler(995), &SHORT_SECRET[..3]);
        assert!(sanitize(Some(&text), &secrets).is_some());
        // Unknown long token at the cut, no known secret involved.
        let text = format!("{} {} more", filler(990), "A".repeat(20));
        assert_eq!(sanitize(Some(&text), &none), None);
        // Exactly at the threshold: 15 characters pass, 16 do not.
        let run = |n: usize| format!("{} {} more", filler(993), "Q".repeat(n));
        assert!(sanitize(Some(&run(15)), &none).is_some());
        assert_eq!(sanitize(Some(&run(16)), &none), None);
    }

    #[test]
    fn truncation_counts_characters_not_bytes() {
        let text = "é".repeat(1500);
        // A single 1,500-character word is a long run of non-token letters: kept, cut.
        let got = sanitize(Some(&text), &KnownSecrets::default()).expect("kept");
        assert_eq!(got.chars().count(), 1000);
        assert_eq!(got.len(), 2000);
    }

    #[test]
    fn a_long_token_past_the_boundary_does_not_suppress() {
        let text = format!("{} {}", filler(1005), "A1b2C3d4E5f6G7h8I9j0KlMnOp");
        let got = sanitize(Some(&text), &KnownSecrets::default()).expect("kept");
        assert_eq!(got, filler(1000));
    }

    #[test]
    fn known_secrets_debug_hides_values() {
        let secrets = secrets();
        let debug = format!("{secrets:?}");
        assert_eq!(debug, "KnownSecrets { count: 2, .. }");
        assert!(!debug.contains(SHORT_SECRET));
        assert_eq!(secrets.len(), 2);
        assert!(KnownSecrets::new(["", "abc", "abc"]).is_empty());
    }

    #[test]
    fn exposes_fragments_and_encodings() {
        let secrets = secrets();
        assert!(secrets.exposes(SHORT_SECRET));
        assert!(secrets.exposes("Zq9x"));
        assert!(secrets.exposes("ab%2Fc"));
        assert!(!secrets.exposes("Zq9"));
        assert!(!secrets.exposes("Invalid symbol."));
        assert!(!KnownSecrets::default().exposes(SHORT_SECRET));
    }

    #[test]
    fn reveals_secrets_in_wire_forms_but_not_fragments() {
        let secrets = secrets();
        for text in [
            "echo Zq9xVb7K",
            "oauth_token=\"ab%2Fcd%2Bef%3D%3D\"",
            "ab%2fcd%2bef%3d%3d",
            "GET&oauth_token%3Dab%252Fcd%252Bef%253D%253D",
            "ab%2fcd%2Bef%3D%3d",
            "%5Aq9xVb7K",
            "%255Aq9xVb7K",
        ] {
            assert!(secrets.reveals(text), "{text}");
        }
        for text in ["Zq9x", "ab%2Fc", "Zq9xVb7", "Invalid symbol.", ""] {
            assert!(!secrets.reveals(text), "{text}");
        }
        assert!(secrets.exposes("Zq9x"), "a fragment still counts in errors");
        assert!(!KnownSecrets::default().reveals(SHORT_SECRET));
    }

    #[test]
    fn the_pre_check_finds_each_secrets_longest_alphanumeric_run() {
        assert_eq!(longest_alphanumeric_run("ab/cde+f=="), "cde");
        assert_eq!(longest_alphanumeric_run("//=="), "");
        let secrets = KnownSecrets::new(["tok/Zq9xVb7K+="]);
        assert!(secrets.may_reveal("x Zq9xVb7K y"));
        assert!(!secrets.may_reveal("x Zq9xVb7 y tok"));
        // Escapes that could stand for a letter or digit send the text to the full check.
        for text in ["\\u005Aq9xVb7K", "%5Aq9", "%7a", "%2541", "%2530"] {
            assert!(secrets.may_reveal(text), "{text}");
        }
        for text in [
            "5% off",
            "%2F%2B%3D",
            "%25%2F",
            "%253D",
            "100%",
            "%2",
            "%8A",
            "%3Z",
        ] {
            assert!(!secrets.may_reveal(text), "{text}");
        }
        assert!(KnownSecrets::new(["////"]).may_reveal("anything"));
        assert!(!KnownSecrets::default().may_reveal("Zq9xVb7K"));
    }

    #[test]
    fn parse_redacted_replaces_whole_strings_and_keeps_the_rest() {
        let secrets = secrets();
        let body = r#"{"Order":[{"messages":{"Message":[
            {"description":"Authorization: OAuth oauth_token=\"ab%2Fcd%2Bef%3D%3D\"","code":9020},
            {"description":"Raw Zq9xVb7K here"},
            {"description":"Double ab%252Fcd%252Bef%253D%253D"},
            {"description":"Lower ab%2fcd%2bef%3d%3d"},
            {"description":"The estimated commission may differ."}]}}],
            "symbol":"Zq9x","n":42,"ok":true,"none":null}"#;
        let (value, redacted) = secrets.parse_redacted(body).expect("json");
        assert_eq!(redacted, 4);
        let messages = &value["Order"][0]["messages"]["Message"];
        for i in 0..4 {
            assert_eq!(messages[i]["description"], REDACTED, "{i}");
        }
        assert_eq!(messages[0]["code"], 9020);
        assert_eq!(
            messages[4]["description"],
            "The estimated commission may differ."
        );
        assert_eq!(value["symbol"], "Zq9x", "a fragment-sized symbol stays");
        assert_eq!(value["n"], 42);
        assert_eq!(value["ok"], true);
        assert!(value["none"].is_null());
    }

    #[test]
    fn json_escaped_slashes_do_not_hide_a_secret() {
        let secrets = secrets();
        // serde_json writes `/` as it is; other encoders write `\/`.
        let body = r#"{"description":"token ab\/cd+ef== echoed"}"#;
        let (value, redacted) = secrets.parse_redacted(body).expect("json");
        assert_eq!(
            (redacted, value["description"].as_str()),
            (1, Some(REDACTED))
        );
        let unicode = r#"{"description":"token \u005Aq9xVb7K"}"#;
        let (value, redacted) = secrets.parse_redacted(unicode).expect("json");
        assert_eq!(
            (redacted, value["description"].as_str()),
            (1, Some(REDACTED))
        );
    }

    #[test]
    fn a_large_body_without_a_secret_takes_the_fast_path() {
        let secrets = KnownSecrets::new(["ckCANARYreads01", "Zq9xVb7K/+=cafe"]);
        let positions: Vec<serde_json::Value> = (0..10_000)
            .map(|i| {
                serde_json::json!({"positionId": i, "symbolDescription": format!("S{i:05} CORP"),
                    "pctOfPortfolio": "0.01%", "Product": {"symbol": format!("S{i:05}")}})
            })
            .collect();
        let body = serde_json::json!({"PortfolioResponse": {"Position": positions}}).to_string();
        assert!(body.len() > 1 << 20);
        assert!(!secrets.may_reveal(&body), "nothing to walk");
        let (value, redacted) = secrets.parse_redacted(&body).expect("json");
        assert_eq!(redacted, 0);
        assert_eq!(value.to_string(), body);
    }

    #[test]
    fn broker_code_cases() {
        let max_u64 = u64::MAX;
        let cases: Vec<(Option<RawBrokerCode<'_>>, Option<&str>)> = vec![
            (None, None),
            (Some("1019".into()), Some("1019")),
            (Some(" 51016\n".into()), Some("51016")),
            (Some("0053".into()), Some("0053")),
            (Some(101u64.into()), Some("101")),
            (Some(0u64.into()), Some("0")),
            (Some("1234567890123456".into()), Some("1234567890123456")),
            (Some("12345678901234567".into()), None),
            (Some(max_u64.into()), None),
            (Some("".into()), None),
            (Some("   ".into()), None),
            (Some("12a".into()), None),
            (Some("-5".into()), None),
            (Some("+5".into()), None),
            (Some("1 2".into()), None),
            (Some("1.5".into()), None),
            (Some("\u{ff11}\u{ff12}".into()), None),
            (
                Some("com.etrade.api.v1.order.InvalidPreviewId".into()),
                None,
            ),
        ];
        for (raw, expected) in cases {
            assert_eq!(broker_code(raw), expected.map(str::to_string), "{raw:?}");
        }
    }

    #[test]
    fn broker_code_from_json() {
        use serde_json::json;
        let cases = [
            (json!(1019), Some("1019")),
            (json!("1021"), Some("1021")),
            (json!(-1), None),
            (json!(1.5), None),
            (json!(null), None),
            (json!(true), None),
            (json!({"code": 1}), None),
        ];
        for (value, expected) in cases {
            let code = broker_code(RawBrokerCode::from_json(&value));
            assert_eq!(code, expected.map(str::to_string), "{value}");
        }
    }

    #[test]
    fn request_id_cases() {
        let secrets = secrets();
        let max = "r".repeat(MAX_REQUEST_ID_CHARS);
        let too_long = "r".repeat(MAX_REQUEST_ID_CHARS + 1);
        let containing = format!("req-{SHORT_SECRET}-1");
        let cases: Vec<(Option<&str>, Option<&str>)> = vec![
            (None, None),
            (Some(""), None),
            (Some("  "), None),
            (Some("req-123.abc:9_z"), Some("req-123.abc:9_z")),
            (Some(" 7f3a-22 \n"), Some("7f3a-22")),
            (Some(&max), Some(&max)),
            (Some(&too_long), None),
            (Some("a b"), None),
            (Some("a/b"), None),
            (Some("a%2Fb"), None),
            (Some("ré-1"), None),
            (Some("a\u{0}b"), None),
            (Some(SHORT_SECRET), None),
            (Some(&containing), None),
            (Some("Zq9xV"), None),
            (Some("Zq9"), Some("Zq9")),
        ];
        for (raw, expected) in cases {
            assert_eq!(
                request_id(raw, &secrets),
                expected.map(str::to_string),
                "{raw:?}"
            );
        }
    }

    /// Message text biased towards the interesting characters. Built from one byte and one
    /// arbitrary char per position because a per-character union strategy makes 1,300-char
    /// cases slow in debug builds.
    fn message() -> impl Strategy<Value = String> {
        prop::collection::vec(any::<(u8, char)>(), 0..1300).prop_map(|picks| {
            picks
                .into_iter()
                .map(|(pick, arbitrary)| match pick % 16 {
                    0..=4 => arbitrary,
                    5..=9 => char::from(b'a' + pick % 26),
                    10 | 11 => ' ',
                    12 => ['\n', '\t', '\u{a0}', '\u{2003}'][usize::from(pick / 16 % 4)],
                    13 => ['\u{0}', '\u{1b}', '\u{200b}', '\u{7f}'][usize::from(pick / 16 % 4)],
                    14 => '%',
                    _ => char::from(b'0' + pick % 10),
                })
                .collect()
        })
    }

    fn assert_well_formed(text: &str) {
        assert!(text.chars().count() <= MAX_MESSAGE_CHARS);
        assert!(!text.is_empty());
        assert_eq!(text, text.trim());
        assert!(!text.contains("  "));
        assert!(
            text.chars()
                .all(|c| c == ' ' || !(c.is_whitespace() || c.is_control()))
        );
    }

    proptest! {
        #[test]
        fn inserted_secret_never_escapes(
            mut message in message(),
            secret in "[A-Za-z0-9+/=_-]{4,40}",
            at in any::<prop::sample::Index>(),
            encoded in any::<bool>(),
        ) {
            let secrets = KnownSecrets::new([secret.as_str()]);
            let inserted = if encoded { percent_encode(&secret, HEX_UPPER) } else { secret.clone() };
            let offsets: Vec<usize> = message
                .char_indices()
                .map(|(i, _)| i)
                .chain([message.len()])
                .collect();
            message.insert_str(offsets[at.index(offsets.len())], &inserted);
            if let Some(out) = sanitize(Some(&message), &secrets) {
                prop_assert!(!out.contains(&secret));
                prop_assert!(!out.contains(&percent_encode(&secret, HEX_UPPER)));
                assert_well_formed(&out);
            }
        }

        #[test]
        fn truncation_never_ends_in_a_cut_secret_prefix(
            head in 960usize..1000,
            secret in "[A-Za-z0-9+/=_-]{4,40}",
            keep in 4usize..60,
            tail in message(),
            encoded in any::<bool>(),
        ) {
            let secrets = KnownSecrets::new([secret.as_str()]);
            let form = if encoded { percent_encode(&secret, HEX_UPPER) } else { secret.clone() };
            let prefix: String = form.chars().take(keep).collect();
            let message = format!("{} {prefix}{tail}", filler(head));
            let normalized = normalize(&message);
            if let Some(out) = sanitize(Some(&message), &secrets) {
                assert_well_formed(&out);
                prop_assert!(!out.contains(&secret));
                let out_chars = out.chars().count();
                let next = normalized.chars().nth(out_chars);
                for n in MIN_SECRET_CHARS..=form.chars().count() {
                    let fragment: String = form.chars().take(n).collect();
                    // Ending in a prefix is only allowed where the text itself ended the
                    // token, i.e. not where the truncation cut it.
                    prop_assert!(
                        !out.ends_with(&fragment) || matches!(next, None | Some(' ')),
                        "kept a cut fragment"
                    );
                }
            }
        }

        #[test]
        fn output_is_normalized_prefix_of_input(
            message in message(),
        ) {
            let normalized = normalize(&message);
            match sanitize(Some(&message), &KnownSecrets::default()) {
                Some(out) => {
                    assert_well_formed(&out);
                    prop_assert!(normalized.starts_with(&out));
                }
                None => prop_assert!(
                    normalized.is_empty() || normalized.chars().count() > MAX_MESSAGE_CHARS
                ),
            }
        }

        #[test]
        fn the_pre_check_never_misses_a_revealing_string(
            secret in "[A-Za-z0-9+/=_-]{4,40}",
            head in "[ -~]{0,20}",
            tail in "[ -~]{0,20}",
            form in 0usize..5,
        ) {
            let secrets = KnownSecrets::new([secret.as_str()]);
            let once = percent_encode(&secret, HEX_UPPER);
            let shown = match form {
                0 => secret.clone(),
                1 => once.clone(),
                2 => percent_encode(&percent_encode(&secret, HEX_LOWER), HEX_LOWER),
                3 => secret.bytes().map(|b| format!("%{b:02X}")).collect(),
                _ => once.bytes().map(|b| format!("%{b:02x}")).collect(),
            };
            let text = format!("{head}{shown}{tail}");
            prop_assert!(secrets.reveals(&text));
            let body = serde_json::json!({"description": text}).to_string();
            prop_assert!(secrets.may_reveal(&body));
            let (value, redacted) = secrets.parse_redacted(&body).expect("json");
            prop_assert_eq!(redacted, 1);
            prop_assert_eq!(value["description"].as_str(), Some(REDACTED));
        }

        #[test]
        fn percent_decode_inverts_encode(value in any::<String>()) {
            let encoded = percent_encode(&value, HEX_LOWER);
            prop_assert_eq!(percent_decode(&encoded), value.as_str());
        }
    }
}
