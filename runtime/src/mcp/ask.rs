//! Asking the person at the MCP client through the client the tool call came from: a form
//! elicitation with one boolean, or a URL elicitation offering the approval page, sent as
//! server-to-client requests (clients up to MCP 2025-11-25; 2026-07-28 clients are asked
//! through input requests, see `input_required`).

use crate::trading::approval::{Answer, AskFuture, AskPerson, Checkbox, DoneFuture};
use crate::trading::types::PreviewRecord;
use rmcp::RoleServer;
use rmcp::model::{
    CustomNotification, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    ServerNotification,
};
use rmcp::service::{ElicitationMode, Peer};
use std::time::Duration;

pub struct PeerAsk(pub Peer<RoleServer>);

impl PeerAsk {
    fn supports(&self, mode: ElicitationMode) -> bool {
        self.0.supported_elicitation_modes().contains(&mode)
    }
}

impl AskPerson for PeerAsk {
    fn can_ask(&self) -> bool {
        self.supports(ElicitationMode::Form)
    }

    fn confirm<'a>(
        &'a self,
        _preview: &'a PreviewRecord,
        message: String,
        field: Checkbox<'a>,
        within: Duration,
    ) -> AskFuture<'a> {
        Box::pin(async move {
            let schema = match ElicitationSchema::builder()
                .required_bool_with(field.name, |b| b.title(field.label.to_string()))
                .build()
            {
                Ok(s) => s,
                Err(_) => return Answer::NoAnswer,
            };
            let asked = self
                .0
                .create_elicitation_with_timeout(
                    ElicitRequestParams::FormElicitationParams {
                        meta: None,
                        message,
                        requested_schema: schema,
                    },
                    Some(within),
                )
                .await;
            match asked {
                Ok(r) => match r.action {
                    ElicitationAction::Accept => Answer::Accept(
                        r.content
                            .as_ref()
                            .and_then(|c| c.get(field.name))
                            .and_then(serde_json::Value::as_bool)
                            == Some(true),
                    ),
                    ElicitationAction::Decline => Answer::Decline,
                    _ => Answer::NoAnswer,
                },
                Err(e) => {
                    tracing::info!(error = %e, "the approval form got no answer");
                    Answer::NoAnswer
                }
            }
        })
    }

    fn can_open_links(&self) -> bool {
        self.supports(ElicitationMode::Url)
    }

    fn open_link<'a>(
        &'a self,
        _preview: &'a PreviewRecord,
        message: String,
        url: String,
        id: String,
        within: Duration,
    ) -> AskFuture<'a> {
        Box::pin(async move {
            let asked = self
                .0
                .create_elicitation_with_timeout(
                    ElicitRequestParams::UrlElicitationParams {
                        meta: None,
                        message,
                        url,
                        elicitation_id: id,
                    },
                    Some(within),
                )
                .await;
            match asked.map(|r| r.action) {
                Ok(ElicitationAction::Accept) => Answer::Accept(true),
                Ok(ElicitationAction::Decline) => Answer::Decline,
                Ok(_) => Answer::NoAnswer,
                Err(e) => {
                    tracing::info!(error = %e, "the approval page offer got no answer");
                    Answer::NoAnswer
                }
            }
        })
    }

    fn link_done(&self, id: String) -> DoneFuture<'_> {
        Box::pin(async move {
            // rmcp has no type for this notification of MCP 2025-11-25 yet.
            let done = CustomNotification::new(
                "notifications/elicitation/complete",
                Some(serde_json::json!({ "elicitationId": id })),
            );
            if let Err(e) = self
                .0
                .send_notification(ServerNotification::CustomNotification(done))
                .await
            {
                tracing::info!(error = %e, "could not tell the client the approval is over");
            }
        })
    }
}
