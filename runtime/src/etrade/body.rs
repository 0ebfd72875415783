//! A broker's success body as the answer models read it: E*TRADE's own text, read straight
//! into a model, or a JSON tree (the paper broker's answers, and an E*TRADE body whose
//! strings had to be redacted). Reading the text directly spares a big page the tree of a
//! million small allocations that parsing it into a `Value` first would build and drop.

use serde::de::DeserializeOwned;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub enum BrokerBody {
    /// JSON text as the broker sent it. Only a body that [may not reveal] a known secret is
    /// kept as text; any other is parsed and redacted into a [`BrokerBody::Tree`].
    ///
    /// [may not reveal]: super::broker_message::KnownSecrets::may_reveal
    Text(String),
    Tree(Value),
}

impl BrokerBody {
    /// The body read as `T`, the way `serde_json::from_value` reads its tree. A text that
    /// `T` refuses is read once more through a tree, so that the two forms agree even where
    /// a reader over text is stricter (a key repeated in one object: the tree keeps the last).
    pub fn read<T: DeserializeOwned>(self) -> Result<T, serde_json::Error> {
        match self {
            BrokerBody::Tree(v) => serde_json::from_value(v),
            BrokerBody::Text(text) => serde_json::from_str(&text).or_else(|first| {
                serde_json::from_str::<Value>(&text)
                    .and_then(serde_json::from_value)
                    .map_err(|_| first)
            }),
        }
    }

    /// The body as a JSON tree (for callers that inspect the answer rather than read a model).
    pub fn into_value(self) -> Result<Value, serde_json::Error> {
        match self {
            BrokerBody::Tree(v) => Ok(v),
            BrokerBody::Text(text) => serde_json::from_str(&text),
        }
    }
}

impl From<Value> for BrokerBody {
    fn from(v: Value) -> BrokerBody {
        BrokerBody::Tree(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Page {
        a: i64,
        #[serde(default)]
        b: Option<String>,
    }

    #[test]
    fn text_and_tree_read_alike() {
        for text in [r#"{"a": 1}"#, r#"{"a": 2, "b": "x", "extra": [1, {}]}"#] {
            let tree: Value = serde_json::from_str(text).expect("json");
            let from_text: Page = BrokerBody::Text(text.into()).read().expect("text");
            let from_tree: Page = BrokerBody::Tree(tree.clone()).read().expect("tree");
            assert_eq!(from_text, from_tree);
            assert_eq!(BrokerBody::Text(text.into()).into_value().expect("v"), tree);
        }
    }

    /// A repeated key is an error for a struct read from text but not from a tree (the last
    /// one wins there); the text form falls back to the tree's reading.
    #[test]
    fn a_repeated_key_reads_as_the_tree_reads_it() {
        let text = r#"{"a": 1, "a": 3}"#;
        assert!(serde_json::from_str::<Page>(text).is_err());
        let page: Page = BrokerBody::Text(text.into()).read().expect("falls back");
        assert_eq!(page, Page { a: 3, b: None });
    }

    #[test]
    fn bad_text_is_an_error_not_a_panic() {
        for text in ["", "{", "[1,2]", r#"{"a": "x"}"#, "\u{feff}{}"] {
            assert!(
                BrokerBody::Text(text.into()).read::<Page>().is_err(),
                "{text}"
            );
        }
    }
}
