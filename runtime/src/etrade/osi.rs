//! One option contract and E*TRADE's three spellings of it, parsed and written in one place:
//!
//! - the OSI symbol as E*TRADE's `osiKey` writes it: `AAPL--261224C00240000` (the root padded
//!   with `-` to 6 characters, expiry `YYMMDD`, `C` or `P`, the strike in thousandths over 8
//!   digits);
//! - the 21-character OCC form, the same with the root padded with spaces:
//!   `AAPL  261224C00240000`;
//! - the quote symbol a quote request names it by: `AAPL:2026:12:24:CALL:240.000000`.
//!
//! Order legs, quotes and chains take an OSI symbol in either padding (or unpadded); answers
//! name contracts by `osiKey`. The paper market and the emulation's `Instrument` use these
//! same functions, so a contract named by OSI symbol is the contract named by its fields.

use std::str::FromStr;

use jiff::civil::Date;
use rust_decimal::Decimal;

use super::vocabulary::CallPut;

/// The longest option root an OSI symbol carries.
pub const ROOT_WIDTH: usize = 6;

/// Why text is not an OSI symbol. Each names the part at fault, never the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OsiError {
    #[error(
        "not an OSI symbol: ROOT (1-6 letters or digits, padded to 6 with '-' or spaces), YYMMDD, C or P, and the strike in thousandths over 8 digits"
    )]
    Shape,
    #[error("the OSI symbol's YYMMDD is not a real date")]
    Date,
}

/// One option contract: its root (the underlier's symbol for a standard contract), expiry,
/// right and strike.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OptionSymbol {
    pub root: String,
    pub expiry: Date,
    pub call_put: CallPut,
    pub strike: Decimal,
}

impl OptionSymbol {
    /// Reads an OSI symbol: `-`-padded (`osiKey`), space-padded (OCC) or unpadded, in any
    /// letter case. The last 15 characters are `YYMMDD`, `C`/`P` and 8 strike digits; what
    /// is before them is the root, whose padding, if any, must make it exactly 6 wide.
    pub fn parse_osi(text: &str) -> Result<OptionSymbol, OsiError> {
        if !text.is_ascii() || text.len() < 16 || text.len() > 21 {
            return Err(OsiError::Shape);
        }
        let (head, tail) = text.split_at(text.len() - 15);
        let root = head.trim_end_matches(['-', ' ']);
        let padded = root.len() != head.len();
        let root_ok = !root.is_empty()
            && root.len() <= ROOT_WIDTH
            && root.starts_with(|c: char| c.is_ascii_alphabetic())
            && root.chars().all(|c| c.is_ascii_alphanumeric());
        if !root_ok || (padded && head.len() != ROOT_WIDTH) {
            return Err(OsiError::Shape);
        }
        let (yymmdd, rest) = tail.split_at(6);
        let (right, strike) = rest.split_at(1);
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if !digits(yymmdd) || !digits(strike) {
            return Err(OsiError::Shape);
        }
        let call_put = match right {
            "C" | "c" => CallPut::Call,
            "P" | "p" => CallPut::Put,
            _ => return Err(OsiError::Shape),
        };
        let number = |s: &str| s.parse::<i16>().map_err(|_| OsiError::Shape);
        let expiry = Date::new(
            2000 + number(&yymmdd[0..2])?,
            number(&yymmdd[2..4])? as i8,
            number(&yymmdd[4..6])? as i8,
        )
        .map_err(|_| OsiError::Date)?;
        let thousandths: i64 = strike.parse().map_err(|_| OsiError::Shape)?;
        Ok(OptionSymbol {
            root: root.to_ascii_uppercase(),
            expiry,
            call_put,
            strike: Decimal::new(thousandths, 3).normalize(),
        })
    }

    /// Reads a quote symbol, `ROOT:YYYY:M:D:CALL|PUT:STRIKE` (`C` and `P` too); `None` for
    /// anything else.
    pub fn parse_quote_symbol(text: &str) -> Option<OptionSymbol> {
        let parts: Vec<&str> = text.split(':').map(str::trim).collect();
        let [root, year, month, day, right, strike] = parts.as_slice() else {
            return None;
        };
        if root.is_empty() {
            return None;
        }
        let expiry = Date::new(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?).ok()?;
        let call_put = match right.to_ascii_uppercase().as_str() {
            "CALL" | "C" => CallPut::Call,
            "PUT" | "P" => CallPut::Put,
            _ => return None,
        };
        let strike = Decimal::from_str(strike).ok()?.normalize();
        Some(OptionSymbol {
            root: root.to_ascii_uppercase(),
            expiry,
            call_put,
            strike,
        })
    }

    /// E*TRADE's `osiKey`: `AAPL--261224C00240000`.
    pub fn osi_key(&self) -> String {
        self.padded('-')
    }

    /// The 21-character OCC symbol: `AAPL  261224C00240000`.
    pub fn occ(&self) -> String {
        self.padded(' ')
    }

    fn padded(&self, pad: char) -> String {
        let thousandths = (self.strike * Decimal::ONE_THOUSAND).trunc();
        format!(
            "{root:pad$}{:02}{:02}{:02}{}{thousandths:0>8}",
            self.expiry.year() % 100,
            self.expiry.month(),
            self.expiry.day(),
            if self.call_put == CallPut::Put {
                'P'
            } else {
                'C'
            },
            root = PadTo(&self.root, pad),
            pad = ROOT_WIDTH,
        )
    }

    /// The symbol a quote request names it by: `AAPL:2026:12:24:CALL:240.000000`.
    pub fn quote_symbol(&self) -> String {
        format!(
            "{}:{}:{}:{}:{}:{:.6}",
            self.root,
            self.expiry.year(),
            self.expiry.month(),
            self.expiry.day(),
            self.call_put.as_str(),
            self.strike,
        )
    }
}

/// A root left-aligned and padded with `pad` to the formatter's width (`format!`'s fill
/// character cannot be a runtime value).
struct PadTo<'a>(&'a str, char);

impl std::fmt::Display for PadTo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)?;
        let width = f.width().unwrap_or(0);
        for _ in self.0.chars().count()..width {
            std::fmt::Write::write_char(f, self.1)?;
        }
        Ok(())
    }
}

/// A quote request's symbol as E*TRADE takes it: an OSI symbol becomes the quote symbol of
/// its contract; anything else is passed on as given.
pub fn quote_request_symbol(symbol: &str) -> String {
    match OptionSymbol::parse_osi(symbol) {
        Ok(contract) => contract.quote_symbol(),
        Err(_) => symbol.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aapl() -> OptionSymbol {
        OptionSymbol {
            root: "AAPL".into(),
            expiry: jiff::civil::date(2026, 12, 24),
            call_put: CallPut::Call,
            strike: Decimal::from(240),
        }
    }

    #[test]
    fn both_paddings_and_none_name_one_contract() {
        for text in [
            "AAPL--261224C00240000",
            "AAPL  261224C00240000",
            "AAPL261224C00240000",
            "aapl--261224c00240000",
        ] {
            assert_eq!(OptionSymbol::parse_osi(text), Ok(aapl()), "{text}");
        }
        assert_eq!(aapl().osi_key(), "AAPL--261224C00240000");
        assert_eq!(aapl().occ(), "AAPL  261224C00240000");
        assert_eq!(aapl().occ().len(), 21);
        assert_eq!(aapl().quote_symbol(), "AAPL:2026:12:24:CALL:240.000000");
    }

    #[test]
    fn spellings_round_trip() {
        let put = OptionSymbol {
            root: "IBM".into(),
            expiry: jiff::civil::date(2027, 1, 15),
            call_put: CallPut::Put,
            strike: Decimal::new(1825, 1),
        };
        assert_eq!(put.osi_key(), "IBM---270115P00182500");
        assert_eq!(OptionSymbol::parse_osi(&put.osi_key()), Ok(put.clone()));
        assert_eq!(OptionSymbol::parse_osi(&put.occ()), Ok(put.clone()));
        assert_eq!(
            OptionSymbol::parse_quote_symbol(&put.quote_symbol()),
            Some(put.clone())
        );
        assert_eq!(
            OptionSymbol::parse_quote_symbol("ibm:2027:1:15:P:182.5"),
            Some(put)
        );
        let six = OptionSymbol::parse_osi("GOOGL1270115C00001500").map(|c| c.strike);
        assert_eq!(six, Ok(Decimal::new(15, 1)));
    }

    #[test]
    fn malformed_symbols_are_refused() {
        for text in [
            "",
            "AAPL",
            "AAPL-261224C00240000",     // padded, but to 5
            "AAPL---261224C00240000",   // padded to 7
            "AAPL--261224X00240000",    // neither C nor P
            "AAPL--2612a4C00240000",    // a letter in the date
            "AAPL--261224C0024000",     // 7 strike digits
            "1APL--261224C00240000",    // root starts with a digit
            "AA.L--261224C00240000",    // not a letter or digit
            "AAPL:2026:12:24:CALL:240", // the quote form is not OSI
            "ÄAPL--261224C00240000",
        ] {
            assert_eq!(
                OptionSymbol::parse_osi(text),
                Err(OsiError::Shape),
                "{text}"
            );
        }
        assert_eq!(
            OptionSymbol::parse_osi("AAPL--261324C00240000"),
            Err(OsiError::Date)
        );
        assert_eq!(
            OptionSymbol::parse_osi("AAPL--260230C00240000"),
            Err(OsiError::Date)
        );
    }

    #[test]
    fn quote_requests_take_osi_symbols_in_the_quote_form() {
        assert_eq!(
            quote_request_symbol("AAPL  261224P00240000"),
            "AAPL:2026:12:24:PUT:240.000000"
        );
        assert_eq!(quote_request_symbol("AAPL"), "AAPL");
        assert_eq!(
            quote_request_symbol("IBM:2027:1:15:CALL:200.000000"),
            "IBM:2027:1:15:CALL:200.000000"
        );
    }
}
