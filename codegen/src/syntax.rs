//! YAML syntax and shape errors as diagnostics, reworded where the parser is terse and
//! re-pointed where it reports the symptom rather than the mistake.

use crate::Diagnostic;

/// The one diagnostic for a spec that does not parse (parsing stops at the first error).
pub(crate) fn diagnostic(e: &serde_saphyr::Error, text: &str) -> Diagnostic {
    use serde_saphyr::Error as E;
    let e = e.without_snippet();
    let opts = serde_saphyr::render_options! {
        formatter: &serde_saphyr::UserMessageFormatter,
        snippets: serde_saphyr::SnippetMode::Off,
    };
    let rendered = e.render_with_options(opts);
    let (line, column) = e
        .location()
        .map(|l| (l.line().max(1), l.column().max(1)))
        .unwrap_or((1, 1));
    let message = strip_location_suffix(rendered.lines().next().unwrap_or("invalid YAML"));
    if let Some(d) = unclosed_flow(e, text, line, column, &message) {
        return d;
    }
    if let Some(d) = over_indented_key(e, text, line, &message) {
        return d;
    }
    // The deserializer's terse wording, spelt out for the commonest shape mistakes.
    let message = match e {
        E::InvalidScalar { ty, location } => {
            let found = location
                .span()
                .byte_offset()
                .zip(location.span().byte_len())
                .and_then(|(at, len)| text.get(at as usize..(at + len) as usize))
                .map(|s| format!("`{s}` is not"))
                .unwrap_or_else(|| "expected".to_string());
            let want = match *ty {
                "boolean" => "a boolean (true or false)",
                "u16" | "u32" | "u64" | "usize" => "a non-negative integer",
                "i16" | "i32" | "i64" | "isize" => "an integer",
                _ => "",
            };
            if want.is_empty() {
                message
            } else {
                format!("{found} {want}")
            }
        }
        E::Unexpected { expected, .. } => match *expected {
            "sequence start" => "expected a list here (`[a, b]` or `- item` lines)".to_string(),
            "mapping start" => "expected a mapping here (`key: value` lines)".to_string(),
            "scalar" | "string scalar" => {
                "expected a single value here, not a list or a mapping".to_string()
            }
            _ => message,
        },
        E::SerdeMissingField { .. } => {
            // Reported at the mapping's last key; point at its first key instead, where the
            // entry (e.g. `- name: some_tool`) starts.
            if let Some((l, c)) = mapping_start(text, line, column) {
                return Diagnostic {
                    line: l,
                    column: c,
                    message,
                };
            }
            message
        }
        _ => message,
    };
    Diagnostic {
        line,
        column,
        message,
    }
}

/// When the parser failed inside a flow collection (`[...]`, `{...}`) opened on an earlier
/// line, the real mistake is almost always the missing `]` or `}`: report it at the opener.
/// The parser itself finds the opener: the text before the failing line ends inside it.
fn unclosed_flow(
    e: &serde_saphyr::Error,
    text: &str,
    line: u64,
    column: u64,
    message: &str,
) -> Option<Diagnostic> {
    use serde_saphyr::granit_parser::{ErrorKind, Parser};
    let serde_saphyr::Error::ExternalMessage { source, .. } = e else {
        return None;
    };
    if !matches!(**source, serde_saphyr::ExternalMessageSource::Parser(_)) {
        return None;
    }
    let before: usize = text
        .split_inclusive('\n')
        .take(usize::try_from(line).ok()?.saturating_sub(1))
        .map(str::len)
        .sum();
    let scan = Parser::new_from_str(&text[..before]).find_map(Result::err)?;
    let ErrorKind::UnclosedFlowCollection { open } = scan.kind() else {
        return None;
    };
    Some(Diagnostic {
        line: scan.marker().line() as u64,
        column: scan.marker().col() as u64 + 1,
        message: format!(
            "unclosed `{open}`: the YAML parser failed at line {line} column {column} ({message})"
        ),
    })
}

/// `key: value` followed by a deeper-indented `other: value` makes the parser read `other` as
/// more of the first value and then trip on its colon; name both keys instead.
fn over_indented_key(
    e: &serde_saphyr::Error,
    text: &str,
    line: u64,
    message: &str,
) -> Option<Diagnostic> {
    use serde_saphyr::granit_parser::ErrorKind;
    let serde_saphyr::Error::ExternalMessage { source, .. } = e else {
        return None;
    };
    let serde_saphyr::ExternalMessageSource::Parser(scan) = &**source else {
        return None;
    };
    if !matches!(scan.kind(), ErrorKind::MappingValueNotAllowed) {
        return None;
    }
    // (indent of the key, key, whether a value follows on the line)
    fn key_of(l: &str) -> Option<(usize, &str, bool)> {
        let body = l.trim_start_matches([' ', '-']);
        let (key, rest) = body.split_once(':')?;
        let key = key.trim_end();
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '_';
        (!key.is_empty() && key.chars().all(plain))
            .then(|| (l.len() - body.len(), key, !rest.trim().is_empty()))
    }
    let lines: Vec<&str> = text.lines().collect();
    let at = usize::try_from(line).ok()?.checked_sub(1)?;
    let (indent, key, _) = key_of(lines.get(at)?)?;
    let (prev_at, prev) = lines[..at]
        .iter()
        .enumerate()
        .rev()
        .find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))?;
    let (prev_indent, prev_key, prev_has_value) = key_of(prev)?;
    if indent <= prev_indent || !prev_has_value {
        return None;
    }
    Some(Diagnostic {
        line,
        column: indent as u64 + 1,
        message: format!(
            "`{key}` is indented deeper than `{prev_key}` on line {}; keys of one mapping must line up ({message})",
            prev_at + 1
        ),
    })
}

/// The first key of the mapping whose key sits at `line`:`column`.
fn mapping_start(text: &str, line: u64, column: u64) -> Option<(u64, u64)> {
    use serde_saphyr::granit_parser::{Event, Parser};
    let mut maps: Vec<Option<(u64, u64)>> = Vec::new();
    for event in Parser::new_from_str(text) {
        let (event, span) = event.ok()?;
        let at = (span.start.line() as u64, span.start.col() as u64 + 1);
        match event {
            Event::MappingStart(..) => maps.push(Some(at)),
            Event::SequenceStart(..) => maps.push(None),
            Event::MappingEnd | Event::SequenceEnd => {
                maps.pop();
            }
            Event::Scalar(..) if at == (line, column) => return maps.last().copied().flatten(),
            _ => {}
        }
    }
    None
}

/// serde-saphyr appends " at line L column C"; the diagnostic carries the position itself.
fn strip_location_suffix(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].trim_end().to_string(),
        None => message.trim().to_string(),
    }
}
