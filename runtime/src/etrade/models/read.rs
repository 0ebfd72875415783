//! The wire readers a generated model may use: each field type's default reader (see
//! `spec/README.md`, "Models") and the ones a spec field names with `read:`. Codegen reads
//! this file's public names to check `read:`, so every reader is public here.

use super::generated::{BrokerMessage, OrderEvent};
use serde::{Deserialize, Deserializer};

pub use super::money::{decimal, decimal_opt};
pub use super::scalars::{bool_opt, flag, flag_opt, int, int_opt, string, string_opt, text_opt};
pub use super::time::epoch_opt;
pub use crate::etrade::one_or_many;

/// A one-or-many array that is null when absent (only present when asked for).
pub fn one_or_many_opt<'de, D, T>(d: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Some(one_or_many(d)?))
}

/// `Messages` → `{"Message": [...]}` (one or many); an absent container → empty.
pub fn messages<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<BrokerMessage>, D::Error> {
    #[derive(Deserialize)]
    struct Container {
        #[serde(
            rename = "Message",
            alias = "message",
            default,
            deserialize_with = "one_or_many"
        )]
        message: Vec<BrokerMessage>,
    }
    Ok(Option::<Container>::deserialize(d)?
        .map(|m| m.message)
        .unwrap_or_default())
}

/// `Events` → `{"Event": [...]}` (one or many); also a bare list.
pub fn events<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<OrderEvent>, D::Error> {
    #[derive(Deserialize)]
    struct Container {
        #[serde(
            rename = "Event",
            alias = "event",
            default,
            deserialize_with = "one_or_many"
        )]
        event: Vec<OrderEvent>,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Shape {
        Wrapped(Container),
        List(Vec<OrderEvent>),
    }
    Ok(match Option::<Shape>::deserialize(d)? {
        None => Vec::new(),
        Some(Shape::Wrapped(c)) => c.event,
        Some(Shape::List(v)) => v,
    })
}
