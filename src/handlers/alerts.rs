//! The `alerts` tool with logic of its own: deleting alerts goes through the order desk,
//! which journals it. (Listing alerts and an alert's details are generated reads.)

use super::Handlers;
use super::journal_view::journal_id;
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::mcp::dispatch::CallContext;
use runtime::outputs::DeleteAlertsOutput;
use runtime::trading::desk::OrderDesk;

impl generated::AlertsHandlers for Handlers {
    async fn delete_alerts(
        &self,
        _ctx: &CallContext,
        input: generated::DeleteAlertsInput,
    ) -> Result<DeleteAlertsOutput, ToolError> {
        let desk: &OrderDesk = &self.desk;
        let d = desk.delete_alerts(&input.alert_ids).await?;
        Ok(DeleteAlertsOutput {
            deleted: d.deleted,
            journal_id: journal_id(d.journal_id)?,
        })
    }
}
