//! E*TRADE wire quirks shared by every response: error bodies in any format, empty bodies,
//! one-or-many arrays.

use crate::contract::broker_message::RawBrokerCode;
use crate::contract::error_mapping::{BrokerErrorBody, OauthProblem};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Read an error body whatever its format: E*TRADE answers JSON callers with JSON, XML, a
/// Tomcat HTML page or plain text, so the body is sniffed rather than trusted.
pub fn error_body(text: &str) -> BrokerErrorBody {
    let t = text.trim_start();
    let mut body = if t.starts_with('{') {
        json_error(t)
    } else if t.starts_with('<') {
        markup_error(t)
    } else {
        BrokerErrorBody::new(None, Some(t))
    };
    if body.oauth_problem.is_none() {
        body.oauth_problem = OauthProblem::detect(text);
    }
    body
}

fn json_error(text: &str) -> BrokerErrorBody {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return BrokerErrorBody::new(None, None);
    };
    let e = v.get("Error").or_else(|| v.get("error")).unwrap_or(&v);
    let code = e.get("code").and_then(RawBrokerCode::from_json);
    let message = e.get("message").and_then(Value::as_str);
    BrokerErrorBody::new(code, message)
}

/// `<Error><code>1019</code><message>Invalid symbol.</message></Error>`, or an HTML page
/// whose text says what went wrong.
fn markup_error(text: &str) -> BrokerErrorBody {
    let tag = |name: &str| -> Option<String> {
        let open = format!("<{name}>");
        let close = format!("</{name}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&close)? + start;
        Some(text[start..end].trim().to_string())
    };
    if let Some(message) = tag("message") {
        let code = tag("code");
        return BrokerErrorBody::new(code.as_deref().map(RawBrokerCode::from), Some(&message));
    }
    // HTML: keep the visible text only (the sanitizer bounds and normalizes it later).
    let visible = visible_text(text);
    let mut body = BrokerErrorBody::new(None, Some(&visible));
    body.rate_limit_page = is_rate_limit_page(text, &visible);
    body
}

/// The sentence E*TRADE documents for its rate-limit answer ("Requests that exceed the limit
/// are not processed. Instead of the expected XML or JSON response, they return an HTML error
/// page containing the message: ... with the HTTP status code 400").
const RATE_LIMIT_SENTENCE: &str = "number of requests exceeded the rate limit set";

/// E*TRADE's rate-limit page: an HTML document (not a JSON or XML `Error`, which callers
/// handle before this) whose visible text carries the documented sentence. The markup
/// around the sentence is undocumented, so only the document type and its text are matched.
fn is_rate_limit_page(markup: &str, visible: &str) -> bool {
    let head: String = markup
        .trim_start()
        .chars()
        .take(512)
        .collect::<String>()
        .to_ascii_lowercase();
    let html = head.starts_with("<!doctype html") || head.contains("<html");
    let words = visible.split_whitespace().collect::<Vec<_>>().join(" ");
    html && words.to_ascii_lowercase().contains(RATE_LIMIT_SENTENCE)
}

fn visible_text(text: &str) -> String {
    let mut visible = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                visible.push(' ');
            }
            _ if !in_tag => visible.push(c),
            _ => {}
        }
    }
    visible
}

/// E*TRADE sends a single object where a one-element array is expected now and then.
pub fn one_or_many<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany<T> {
        Many(Vec<T>),
        One(T),
    }
    Ok(match Option::<OneOrMany<T>>::deserialize(d)? {
        Some(OneOrMany::Many(v)) => v,
        Some(OneOrMany::One(x)) => vec![x],
        None => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_in_every_format() {
        let j = error_body(r#"{"Error":{"code":1019,"message":"Invalid symbol."}}"#);
        assert_eq!(j.code.as_deref(), Some("1019"));
        assert_eq!(j.message.as_deref(), Some("Invalid symbol."));
        let s = error_body(r#"{"Error":{"code":"1021","message":"x"}}"#);
        assert_eq!(s.code.as_deref(), Some("1021"));
        let x = error_body(
            "<Error><code>100</code><message>Request could not be completed</message></Error>",
        );
        assert_eq!(x.code.as_deref(), Some("100"));
        let h = error_body(
            "<html><body><h1>HTTP Status 401 - oauth_problem=token_rejected</h1></body></html>",
        );
        assert_eq!(h.oauth_problem, Some(OauthProblem::TokenRejected));
        assert!(
            h.message
                .as_deref()
                .unwrap_or_default()
                .contains("HTTP Status 401")
        );
        assert!(!h.rate_limit_page);
        let t = error_body("oauth_problem=token_expired");
        assert_eq!(t.oauth_problem, Some(OauthProblem::TokenExpired));
        let a = error_body(r#"{"Error":{"message":"oauth_problem=token_expired"}}"#);
        assert_eq!(a.oauth_problem, Some(OauthProblem::TokenExpired));
        assert_eq!(a.code, None);
    }

    /// Only an HTML document carrying E*TRADE's documented sentence is the rate-limit page;
    /// the same words in a JSON or XML error, or in plain text, are broker text.
    #[test]
    fn the_rate_limit_page_is_recognized_by_structure() {
        let pages = [
            "<html><head><title>Error</title></head><body><h2>Number of requests exceeded \
             the rate limit set</h2></body></html>",
            "<!DOCTYPE html>\n<HTML><BODY><p> Number of requests\n  exceeded the rate limit set \
             </p></BODY></HTML>",
        ];
        for page in pages {
            let b = error_body(page);
            assert!(b.rate_limit_page, "{page}");
            assert_eq!(b.code, None);
        }
        let not_pages = [
            r#"{"Error":{"code":400,"message":"Number of requests exceeded the rate limit set"}}"#,
            "<Error><code>400</code><message>Number of requests exceeded the rate limit set\
             </message></Error>",
            "Number of requests exceeded the rate limit set",
            "<html><body><h1>Internal Server Error</h1></body></html>",
            "<rate>Number of requests exceeded the rate limit set</rate>",
        ];
        for body in not_pages {
            assert!(!error_body(body).rate_limit_page, "{body}");
        }
    }

    #[test]
    fn one_or_many_accepts_both() {
        #[derive(Deserialize)]
        struct W {
            #[serde(default, deserialize_with = "one_or_many")]
            x: Vec<u32>,
        }
        let one: W = serde_json::from_str(r#"{"x":1}"#).expect("one");
        let many: W = serde_json::from_str(r#"{"x":[1,2]}"#).expect("many");
        let none: W = serde_json::from_str(r#"{}"#).expect("none");
        assert_eq!((one.x, many.x, none.x), (vec![1], vec![1, 2], vec![]));
    }
}
