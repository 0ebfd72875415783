//! A list tool's compact answer (`detail: compact`): each row cut down to the keys the spec's
//! `compact:` lists, null ones left out, everything around the rows (paging, totals) kept.
//! The generated dispatch applies it to the serialized `data`, so one projection serves the
//! bound reads and the hand-written tools alike.

use crate::contract::errors::ToolError;
use crate::mcp::dispatch::{ToolData, ToolResult};
use serde_json::{Map, Value};

/// A tool's projection table, generated from its `compact:`.
#[derive(Debug)]
pub struct Compaction {
    /// Key paths from `data` to the rows; arrays on the way are walked element by element.
    pub rows: &'static [&'static [&'static str]],
    /// Each compact key and the paths of its value in the full row (array indices as
    /// digits), the first that holds a value winning.
    pub fields: &'static [(&'static str, &'static [&'static [&'static str]])],
}

/// The successful `data` with its rows compacted; an error passes through.
pub fn compact(result: ToolResult, table: &Compaction) -> ToolResult {
    let mut data = result?.into_tree().map_err(|_| ToolError::internal())?;
    for path in table.rows {
        project_at(&mut data, path, table.fields);
    }
    Ok(ToolData::Tree(data))
}

fn project_at(value: &mut Value, path: &[&str], fields: &[(&str, &[&[&str]])]) {
    match value {
        Value::Array(items) => {
            for item in items {
                project_at(item, path, fields);
            }
        }
        Value::Object(object) => match path.split_first() {
            Some((key, rest)) => {
                if let Some(next) = object.get_mut(*key) {
                    project_at(next, rest, fields);
                }
            }
            None => *value = Value::Object(row(value, fields)),
        },
        _ => {}
    }
}

fn row(full: &Value, fields: &[(&str, &[&[&str]])]) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, paths) in fields {
        let found = paths
            .iter()
            .find_map(|p| at(full, p).filter(|v| !v.is_null()));
        if let Some(v) = found {
            out.insert((*name).to_string(), v.clone());
        }
    }
    out
}

fn at<'a>(mut value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    for key in path {
        value = match value {
            Value::Object(object) => object.get(*key)?,
            Value::Array(items) => items.get(key.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static TABLE: Compaction = Compaction {
        rows: &[&["pairs", "call"], &["pairs", "put"]],
        fields: &[
            ("symbol", &[&["product", "symbol"]]),
            ("status", &[&["detail", "0", "status"]]),
            ("bid", &[&["bid"], &["quick", "bid"]]),
        ],
    };

    #[test]
    fn rows_keep_the_listed_keys_and_drop_nulls() {
        let data = json!({"next": 2, "pairs": [
            {"call": {"product": {"symbol": "IBM"}, "detail": [{"status": "OPEN"}], "bid": null, "ask": "1"},
             "put": {"product": null, "bid": null, "quick": {"bid": "2"}}}
        ]});
        let out = compact(Ok(ToolData::Tree(data)), &TABLE)
            .ok()
            .and_then(|d| d.into_tree().ok());
        assert_eq!(
            out,
            Some(
                json!({"next": 2, "pairs": [{"call": {"symbol": "IBM", "status": "OPEN"}, "put": {"bid": "2"}}]})
            )
        );
    }

    #[test]
    fn an_error_passes_through() {
        let err = crate::contract::errors::ToolError::internal();
        assert!(compact(Err(err), &TABLE).is_err());
    }
}
