//! E*TRADE wire quirks shared by every response: error bodies in any format, empty bodies,
//! one-or-many arrays.

use super::broker_message::RawBrokerCode;
use super::failure::{BrokerErrorBody, OauthProblem};
use serde::de::{self, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::marker::PhantomData;

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
///
/// A visitor rather than an untagged enum: untagged copies the whole value into a buffer
/// first, and a page of 10,000 positions sits under two of these.
pub fn one_or_many<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_option(OneOrMany(PhantomData))
}

struct OneOrMany<T>(PhantomData<T>);

impl<T> OneOrMany<T> {
    fn one<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error>
    where
        T: Deserialize<'de>,
    {
        T::deserialize(Lone(d)).map(|x| vec![x])
    }
}

/// A lone scalar or map read as one element. serde's own value deserializers hand a
/// newtype (`struct Id(i64)`) or an `Option` the bare value; this passes them the wrapper
/// they expect, as reading from JSON does.
struct Lone<D>(D);

macro_rules! forward_to_inner {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* v: V) -> Result<V::Value, D::Error> {
            self.0.$method($($arg,)* v)
        })*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Lone<D> {
    type Error = D::Error;

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        v.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, D::Error> {
        v.visit_newtype_struct(self)
    }

    forward_to_inner!(
        deserialize_any(),
        deserialize_bool(),
        deserialize_i8(),
        deserialize_i16(),
        deserialize_i32(),
        deserialize_i64(),
        deserialize_u8(),
        deserialize_u16(),
        deserialize_u32(),
        deserialize_u64(),
        deserialize_f32(),
        deserialize_f64(),
        deserialize_char(),
        deserialize_str(),
        deserialize_string(),
        deserialize_bytes(),
        deserialize_byte_buf(),
        deserialize_unit(),
        deserialize_seq(),
        deserialize_map(),
        deserialize_identifier(),
        deserialize_ignored_any(),
        deserialize_unit_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
    );
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for OneOrMany<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("one value or a list of them")
    }

    fn visit_none<E: de::Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Vec<T>, E> {
        Ok(Vec::new())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        // The hint comes from the input; capped so a lying one cannot reserve gigabytes.
        let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(v)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vec<T>, A::Error> {
        Self::one(de::value::MapAccessDeserializer::new(map))
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Vec<T>, E> {
        Self::one(b.into_deserializer())
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Vec<T>, E> {
        Self::one(i.into_deserializer())
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Vec<T>, E> {
        Self::one(u.into_deserializer())
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Vec<T>, E> {
        Self::one(f.into_deserializer())
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Vec<T>, E> {
        Self::one(s.into_deserializer())
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Vec<T>, E> {
        Self::one(s.into_deserializer())
    }
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

    /// The same answers read from text and from a `Value` (what brokers hand the models),
    /// for lone scalars, newtypes, structs and nested lists.
    #[test]
    fn one_or_many_reads_text_and_values_alike() {
        #[derive(Debug, PartialEq, Deserialize)]
        struct Id(i64);
        #[derive(Debug, PartialEq, Deserialize)]
        struct Leg {
            #[serde(default, deserialize_with = "one_or_many")]
            ids: Vec<Id>,
            #[serde(default)]
            name: Option<String>,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct W {
            #[serde(default, deserialize_with = "one_or_many")]
            legs: Vec<Leg>,
        }
        let leg = |ids: Vec<i64>, name: Option<&str>| Leg {
            ids: ids.into_iter().map(Id).collect(),
            name: name.map(str::to_string),
        };
        for (text, want) in [
            (
                r#"{"legs":{"ids":7,"name":"a"}}"#,
                vec![leg(vec![7], Some("a"))],
            ),
            (
                r#"{"legs":[{"ids":[7,8]},{"ids":null,"name":null}]}"#,
                vec![leg(vec![7, 8], None), leg(vec![], None)],
            ),
            (r#"{"legs":null}"#, vec![]),
            (r#"{"legs":[]}"#, vec![]),
        ] {
            let from_text: W = serde_json::from_str(text).expect(text);
            let value: Value = serde_json::from_str(text).expect(text);
            let from_value: W = serde_json::from_value(value).expect(text);
            assert_eq!(from_text.legs, want, "{text}");
            assert_eq!(from_value.legs, want, "{text}");
        }
        for bad in [
            r#"{"legs":[1]}"#,
            r#"{"legs":{"ids":"x"}}"#,
            r#"{"legs":true}"#,
        ] {
            assert!(serde_json::from_str::<W>(bad).is_err(), "{bad}");
            let value: Value = serde_json::from_str(bad).expect(bad);
            assert!(serde_json::from_value::<W>(value).is_err(), "{bad}");
        }
    }
}
