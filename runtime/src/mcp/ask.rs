//! Asking the person at the MCP client: a form elicitation with one boolean, through the
//! client the tool call came from.

use crate::trading::approval::{Answer, AskFuture, AskPerson};
use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, Peer};
use std::time::Duration;

pub struct PeerAsk(pub Peer<RoleServer>);

impl AskPerson for PeerAsk {
    fn can_ask(&self) -> bool {
        self.0
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
    }

    fn confirm<'a>(&'a self, message: String, field: &'a str, within: Duration) -> AskFuture<'a> {
        Box::pin(async move {
            let schema = match ElicitationSchema::builder().required_bool(field).build() {
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
                            .and_then(|c| c.get(field))
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
}
