//! `server_status`: answered locally, no broker request.

use super::{Handlers, data};
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::mcp::dispatch::{CallContext, ToolResult};
use serde_json::{Map, Value, json};

impl generated::StatusHandlers for Handlers {
    async fn server_status(
        &self,
        ctx: &CallContext,
        _input: generated::ServerStatusInput,
    ) -> ToolResult {
        let h = self;
        // Everything but the credentials, the simulated time and the halt is fixed at startup.
        let mut v = h
            .status
            .fixed(|| {
                let mut fixed = object(runtime::mcp::status::server_status(
                    &generated::CATALOG,
                    ctx,
                ))?;
                fixed.insert(
                    "market_data".into(),
                    match &h.paper {
                        Some(_) => json!({"source": "simulated", "live_quotes": h.live_quotes}),
                        None => json!({"source": "etrade", "live_quotes": null}),
                    },
                );
                fixed.insert("trading_policy".into(), h.desk.policy().describe());
                Ok(fixed)
            })
            .map_err(|_| ToolError::internal())?;
        let credentials = h.status.credentials(
            h.credentials.as_ref(),
            &h.credential_key,
            jiff::Timestamp::now(),
        );
        v.insert("credentials".into(), data(&credentials)?);
        let simulated_time = h
            .paper
            .as_ref()
            .map_or(Value::Null, |book| Value::String(book.now().to_string()));
        if let Some(Value::Object(market)) = v.get_mut("market_data") {
            market.insert("simulated_time".into(), simulated_time);
        }
        // Read now, like the desk's check before every mutation: a halt made by another
        // process shows at once.
        let halted = h
            .desk
            .halt()
            .and_then(|s| s.active().into_iter().next())
            .map_or(Value::Null, |halt| halt.describe());
        if let Some(Value::Object(policy)) = v.get_mut("trading_policy") {
            policy.insert("halted".into(), halted);
        }
        Ok(Value::Object(v))
    }
}

fn object<T: serde::Serialize>(value: T) -> Result<Map<String, Value>, serde_json::Error> {
    match serde_json::to_value(value)? {
        Value::Object(m) => Ok(m),
        _ => Err(serde::ser::Error::custom("server_status is not an object")),
    }
}
