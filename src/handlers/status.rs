//! `server_status`: answered locally, no broker request.

use super::{Handlers, data};
use crate::generated;
use runtime::mcp::dispatch::{CallContext, ToolResult};

impl generated::StatusHandlers for Handlers {
    async fn server_status(
        &self,
        ctx: &CallContext,
        _input: generated::ServerStatusInput,
    ) -> ToolResult {
        let h = self;
        let status = runtime::mcp::status::server_status(
            &generated::CATALOG,
            ctx,
            h.credentials.as_ref(),
            &h.credential_key,
            jiff::Timestamp::now(),
        );
        let mut v = data(&status)?;
        v["market_data"] = match &h.paper {
            Some(book) => serde_json::json!({
                "source": "simulated",
                "simulated_time": book.now().to_string(),
                "live_quotes": h.live_quotes,
            }),
            None => {
                serde_json::json!({"source": "etrade", "simulated_time": null, "live_quotes": null})
            }
        };
        v["trading_policy"] = h.desk.policy().describe();
        // Read now, like the desk's check before every mutation: a halt made by another
        // process shows at once.
        v["trading_policy"]["halted"] = h
            .desk
            .halt()
            .and_then(|s| s.active().into_iter().next())
            .map_or(serde_json::Value::Null, |halt| halt.describe());
        Ok(v)
    }
}
