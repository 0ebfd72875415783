//! `server_status`: answered locally, no broker request.

use super::Handlers;
use crate::generated;
use runtime::contract::errors::ToolError;
use runtime::mcp::dispatch::CallContext;
use runtime::mcp::status::server_status;
use runtime::outputs::{
    ServerStatusOutput, ServerStatusOutputMarketData, ServerStatusOutputMarketDataLiveQuotes,
    ServerStatusOutputMarketDataSource,
};
use runtime::time::rfc3339;

impl generated::StatusHandlers for Handlers {
    async fn server_status(
        &self,
        ctx: &CallContext,
        _input: generated::ServerStatusInput,
    ) -> Result<ServerStatusOutput, ToolError> {
        let h = self;
        let credentials = h.status.credentials(
            h.credentials.as_ref(),
            &h.credential_key,
            jiff::Timestamp::now(),
        );
        // Everything but the credentials, the simulated time and the halt is fixed at startup.
        let mut status = h.status.fixed(|| {
            let market_data = match &h.paper {
                Some(_) => ServerStatusOutputMarketData {
                    source: ServerStatusOutputMarketDataSource::Simulated,
                    simulated_time: None,
                    live_quotes: h.live_quotes.and_then(live_quotes),
                },
                None => ServerStatusOutputMarketData {
                    source: ServerStatusOutputMarketDataSource::Etrade,
                    simulated_time: None,
                    live_quotes: None,
                },
            };
            let policy = h.desk.policy().describe();
            server_status(
                &generated::CATALOG,
                ctx,
                credentials.clone(),
                market_data,
                Some(policy),
            )
        });
        status.credentials = credentials;
        // In paper the server's clock is the book's: the simulated time is the answer's now.
        status.market_data.simulated_time = h.paper.as_ref().map(|_| rfc3339(ctx.now));
        // Read now, like the desk's check before every mutation: a halt made by another
        // process shows at once.
        let halted = h
            .desk
            .halt()
            .and_then(|s| s.active().into_iter().next())
            .map(|halt| halt.describe());
        if let Some(policy) = &mut status.trading_policy {
            policy.halted = halted;
        }
        Ok(status)
    }
}

/// Where paper's live quotes come from, as `server_status` names it: `paper::live` labels
/// its source with one of these two (`LiveQuotes::label`).
fn live_quotes(source: &str) -> Option<ServerStatusOutputMarketDataLiveQuotes> {
    match source {
        "etrade" => Some(ServerStatusOutputMarketDataLiveQuotes::Etrade),
        "etrade_sandbox" => Some(ServerStatusOutputMarketDataLiveQuotes::EtradeSandbox),
        _ => None,
    }
}
