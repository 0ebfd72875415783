//! The `alerts` tool with logic of its own: deleting alerts goes through the order desk,
//! which journals it. (Listing alerts and an alert's details are generated reads.)

use super::Handlers;
use crate::generated;
use runtime::mcp::dispatch::{CallContext, ToolResult};
use runtime::trading::desk::OrderDesk;
use serde_json::json;

impl generated::AlertsHandlers for Handlers {
    async fn delete_alerts(
        &self,
        _ctx: &CallContext,
        input: generated::DeleteAlertsInput,
    ) -> ToolResult {
        let desk: &OrderDesk = &self.desk;
        let d = desk.delete_alerts(&input.alert_ids).await?;
        Ok(json!({ "deleted": d.deleted, "journal_id": d.journal_id }))
    }
}
