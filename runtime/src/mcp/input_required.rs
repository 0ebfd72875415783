//! Asking the person at an MCP 2026-07-28 client, which takes no server-to-client requests:
//! the approval question (the same form, or the same approval-page URL, that a 2025-11-25
//! client is sent as `elicitation/create`) goes back as the `tools/call` result, an
//! `InputRequiredResult` with a sealed `requestState` (see `request_state`), and the client
//! calls again with the person's answer in `inputResponses`.

use crate::mcp::request_state::{ApprovalState, ApprovalStates, AskMode};
use crate::trading::approval::{Answer, AskFuture, AskPerson, Checkbox, DoneFuture};
use crate::trading::types::PreviewRecord;
use rmcp::model::{
    ClientCapabilities, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The key of the one input request an approval makes.
pub const APPROVAL_KEY: &str = "approval";

/// One `tools/call` of a 2026-07-28 client, as a way to ask its person.
pub struct InputRequestAsk {
    states: Arc<ApprovalStates>,
    /// The call the question and its answer are bound to (`request_state::call_binding`).
    binding: Vec<u8>,
    form: bool,
    url: bool,
    /// The verified state and the answers of a call that answers an earlier question.
    answered: Option<(ApprovalState, InputResponses)>,
    /// The question this call asks, to be sent as its result.
    pending: Mutex<Option<InputRequiredResult>>,
}

impl InputRequestAsk {
    pub fn new(
        states: Arc<ApprovalStates>,
        binding: Vec<u8>,
        capabilities: Option<&ClientCapabilities>,
        answered: Option<(ApprovalState, InputResponses)>,
    ) -> InputRequestAsk {
        let elicitation = capabilities.and_then(|c| c.elicitation.as_ref());
        // As for 2025-11-25: a capability naming neither mode means the form.
        let (form, url) = match elicitation {
            None => (false, false),
            Some(e) if e.form.is_none() && e.url.is_none() => (true, false),
            Some(e) => (e.form.is_some(), e.url.is_some()),
        };
        InputRequestAsk {
            states,
            binding,
            form,
            url,
            answered,
            pending: Mutex::new(None),
        }
    }

    /// The question asked during the call, if any: it becomes the call's result.
    pub fn take_pending(&self) -> Option<InputRequiredResult> {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// The person's answer, when this call brings one for `preview` asked in `mode` (with
    /// the form's one boolean `field`). `None` when it brings none, or none under the key
    /// asked (MRTR: the server SHOULD then ask again, with a new state).
    fn answer(&self, preview: &PreviewRecord, mode: AskMode, field: &str) -> Option<Answer> {
        let (state, responses) = self.answered.as_ref()?;
        if state.preview_id != preview.preview_id
            || state.arguments_hash != preview.arguments_hash
            || state.mode != mode
        {
            return Some(Answer::Forged);
        }
        let result = responses
            .get(APPROVAL_KEY)
            .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok())?;
        Some(match result.action {
            ElicitationAction::Accept => match mode {
                // Agreeing to open the page approves nothing; the desk waits for the click.
                AskMode::Url => Answer::Accept(true),
                AskMode::Form => Answer::Accept(
                    result
                        .content
                        .as_ref()
                        .and_then(|c| c.get(field))
                        .and_then(serde_json::Value::as_bool)
                        == Some(true),
                ),
            },
            ElicitationAction::Decline => Answer::Decline,
            _ => Answer::NoAnswer,
        })
    }

    /// Ask `params` about `preview` in this call's result.
    fn ask(
        &self,
        preview: &PreviewRecord,
        mode: AskMode,
        params: ElicitRequestParams,
        within: Duration,
    ) -> Answer {
        let Some(state) = self.states.seal(
            &self.binding,
            &preview.preview_id,
            &preview.arguments_hash,
            mode,
            within,
        ) else {
            return Answer::NoAnswer;
        };
        let mut requests = InputRequests::new();
        requests.insert(
            APPROVAL_KEY.to_string(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        *self.pending.lock().unwrap_or_else(PoisonError::into_inner) =
            Some(InputRequiredResult::new(Some(requests), Some(state)));
        Answer::Pending
    }
}

impl AskPerson for InputRequestAsk {
    fn can_ask(&self) -> bool {
        self.form
    }

    fn confirm<'a>(
        &'a self,
        preview: &'a PreviewRecord,
        message: String,
        field: Checkbox<'a>,
        within: Duration,
    ) -> AskFuture<'a> {
        Box::pin(async move {
            if let Some(answer) = self.answer(preview, AskMode::Form, field.name) {
                return answer;
            }
            let schema = match ElicitationSchema::builder()
                .required_bool_with(field.name, |b| b.title(field.label.to_string()))
                .build()
            {
                Ok(s) => s,
                Err(_) => return Answer::NoAnswer,
            };
            let params = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message,
                requested_schema: schema,
            };
            self.ask(preview, AskMode::Form, params, within)
        })
    }

    fn can_open_links(&self) -> bool {
        self.url
    }

    fn open_link<'a>(
        &'a self,
        preview: &'a PreviewRecord,
        message: String,
        url: String,
        id: String,
        within: Duration,
    ) -> AskFuture<'a> {
        Box::pin(async move {
            if let Some(answer) = self.answer(preview, AskMode::Url, "") {
                return answer;
            }
            let params = ElicitRequestParams::UrlElicitationParams {
                meta: None,
                message,
                url,
                elicitation_id: id,
            };
            self.ask(preview, AskMode::Url, params, within)
        })
    }

    fn link_done(&self, _id: String) -> DoneFuture<'_> {
        // 2026-07-28 has no completion notification for an input request: the call that
        // waited for the page answers, and that is the end of it.
        Box::pin(async {})
    }
}
