//! Approval through an MCP 2026-07-28 client, which takes no server-to-client requests:
//! `place_order` on a preview needing approval answers an `InputRequiredResult` carrying the
//! same form a 2025-11-25 client is sent, and a sealed `requestState`; the client calls again
//! with the answer. Against the fake E*TRADE with `approval = "required"`: accept places
//! once; decline or cancel places nothing; a tampered state, an answer replayed, an answer
//! without its state, one preview's answer used for another and an expired answer place
//! nothing (`invalid_input`); a lost answer retried never places twice.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::FakeConfig;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ErrorData, Implementation, InputRequest, InputRequiredResult,
    InputResponses, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, RequestContext, RunningService};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const PLACE: &str = "POST /v1/accounts/*/orders/place";
const REQUIRED: &str = "[profiles.{profile}.trading]\napproval = \"required\"\n";

async fn sandbox(name: &str, toml: &str) -> Sandbox {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    Sandbox::start_opts(name, config, &["--allow-trading"], toml).await
}

async fn preview(s: &Sandbox, limit: &str) -> String {
    let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "7", "price_type": "LIMIT", "limit_price": limit});
    let (err, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": order}),
        )
        .await;
    assert!(!err, "{p}");
    p["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string()
}

/// A person at a 2026-07-28 client with an elicitation form, answering `answer`.
#[derive(Clone)]
struct Person {
    answer: ElicitationAction,
    seen: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("mrtr-approval-tests", "1.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request
            && let Ok(mut seen) = self.seen.lock()
        {
            seen.push(message.clone());
        }
        Ok(match self.answer {
            ElicitationAction::Accept => ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({"place_order": true})),
            ref other => ElicitResult::new(other.clone()),
        })
    }
}

fn person(answer: ElicitationAction) -> Person {
    Person {
        answer,
        seen: Arc::new(Mutex::new(Vec::new())),
    }
}

type Modern = RunningService<RoleClient, Person>;

/// A second server on the sandbox's profile, with a 2026-07-28 client: no initialize.
async fn modern(s: &Sandbox, p: Person) -> (Modern, tokio::process::Child) {
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    s.serve_another_as(p, &["--allow-trading"], lifecycle).await
}

fn place_params(id: &str) -> CallToolRequestParams {
    let args = json!({"account_id_key": KEY, "preview_id": id});
    let Value::Object(args) = args else {
        unreachable!("an object literal")
    };
    CallToolRequestParams::new("place_order").with_arguments(args)
}

/// One round of place_order, the answer `responses` and state `state` given.
async fn place_once(
    client: &Modern,
    id: &str,
    responses: Option<InputResponses>,
    state: Option<String>,
) -> CallToolResponse {
    try_place_once(client, id, responses, state)
        .await
        .expect("tools/call")
}

async fn try_place_once(
    client: &Modern,
    id: &str,
    responses: Option<InputResponses>,
    state: Option<String>,
) -> Result<CallToolResponse, rmcp::ServiceError> {
    let mut params = place_params(id);
    params.input_responses = responses;
    params.request_state = state;
    client.call_tool_once(params).await
}

/// A state (or an answer without one) that approves nothing is refused as a JSON-RPC
/// error, Invalid params: it is the client's protocol data, not a tool argument.
fn assert_state_refused(r: Result<CallToolResponse, rmcp::ServiceError>) {
    match r {
        Err(rmcp::ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32602, "{e:?}");
            assert_eq!(
                e.data.as_ref().map(|d| d["reason"].clone()),
                Some(json!("request_state_invalid")),
                "{e:?}"
            );
        }
        other => panic!("a JSON-RPC error: {other:?}"),
    }
}

fn complete(r: CallToolResponse) -> (bool, Value) {
    match r {
        CallToolResponse::Complete(r) => (r.is_error == Some(true), common::payload(&r)),
        other => panic!("a complete result: {other:?}"),
    }
}

fn input_required(r: CallToolResponse) -> InputRequiredResult {
    match r {
        CallToolResponse::InputRequired(r) => r,
        other => panic!("an input request: {other:?}"),
    }
}

/// The form's answer under the server's request key.
fn answer(action: &str) -> InputResponses {
    let mut r = InputResponses::new();
    let v = match action {
        "accept" => json!({"action": "accept", "content": {"place_order": true}}),
        other => json!({"action": other}),
    };
    r.insert("approval".into(), v);
    r
}

async fn journal_approval(s: &Sandbox, id: &str) -> Value {
    let (_, j) = s.call("list_order_journal", json!({"limit": 20})).await;
    j["data"]["entries"]
        .as_array()
        .and_then(|entries| {
            entries
                .iter()
                .find(|e| e["kind"] == "preview_order" && e["preview_id"] == id)
        })
        .map(|e| e["approval"].clone())
        .unwrap_or(Value::Null)
}

/// The client drives the rounds itself (rmcp's `call_tool`): accept places once, and the
/// journal says the form approved it.
#[tokio::test]
async fn accept_places_once() {
    let s = sandbox("mrtr-accept", REQUIRED).await;
    let id = preview(&s, "170.00").await;
    let p = person(ElicitationAction::Accept);
    let seen = p.seen.clone();
    let (client, _server) = modern(&s, p).await;
    let (err, payload) = common::call_payload(
        &client,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await;
    assert!(!err, "{payload}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
    let asked = seen.lock().map(|v| v.join("\n")).unwrap_or_default();
    for part in [
        "AAPL",
        "7",
        "170.00",
        "estimated total",
        "Tick \"Place this order\"",
    ] {
        assert!(asked.contains(part), "{part}: {asked}");
    }
    let approval = journal_approval(&s, &id).await;
    assert_eq!(approval["decision"], "approved", "{approval}");
    assert_eq!(approval["channel"], "elicitation", "{approval}");

    let (err, payload) = common::call_payload(
        &client,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await;
    assert!(err, "placed twice: {payload}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
}

#[tokio::test]
async fn decline_or_cancel_places_nothing() {
    let s = sandbox("mrtr-decline", REQUIRED).await;
    let id = preview(&s, "170.00").await;
    let (client, _server) = modern(&s, person(ElicitationAction::Decline)).await;
    let args = json!({"account_id_key": KEY, "preview_id": id});
    let (err, p) = common::call_payload(&client, "place_order", args.clone()).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert_eq!(journal_approval(&s, &id).await["decision"], "rejected");
    let (accepting, _other) = modern(&s, person(ElicitationAction::Accept)).await;
    let (err, p) = common::call_payload(&accepting, "place_order", args).await;
    assert!(
        err && p["error"]["code"] == "execution_disabled",
        "a rejection sticks: {p}"
    );

    let id = preview(&s, "170.00").await;
    let (cancelling, _third) = modern(&s, person(ElicitationAction::Cancel)).await;
    let (err, p) = common::call_payload(
        &cancelling,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert_eq!(journal_approval(&s, &id).await, Value::Null, "undecided");
    assert_eq!(s.requests_on(PLACE).len(), 0, "nothing reached E*TRADE");
}

/// The rounds driven by hand, as a hostile client could: the question is the 2025-11-25
/// form; a tampered state, another preview's state, responses without a state and a
/// replayed answer place nothing; the genuine answer places once.
#[tokio::test]
async fn forged_and_replayed_answers_place_nothing() {
    let s = sandbox("mrtr-forged", REQUIRED).await;
    let a = preview(&s, "170.00").await;
    let b = preview(&s, "171.00").await;
    let (client, _server) = modern(&s, person(ElicitationAction::Accept)).await;

    let question = input_required(place_once(&client, &a, None, None).await);
    let state = question.request_state.clone().expect("a requestState");
    let requests = question.input_requests.expect("input requests");
    let Some(InputRequest::Elicitation(form)) = requests.get("approval") else {
        panic!("one elicitation: {requests:?}");
    };
    let ElicitRequestParams::FormElicitationParams {
        message,
        requested_schema,
        ..
    } = &form.params
    else {
        panic!("the form: {form:?}");
    };
    for part in ["BUY 7 AAPL", "170.00", &a] {
        assert!(message.contains(part), "{part}: {message}");
    }
    let schema = serde_json::to_value(requested_schema).expect("JSON");
    assert_eq!(schema["properties"]["place_order"]["type"], "boolean");
    assert_eq!(
        schema["properties"]["place_order"]["title"], "Place this order",
        "a person reads a label, not the key"
    );
    assert!(!state.contains(&a), "opaque to a glance at least: {state}");

    // An edited state.
    let mut tampered = state.clone().into_bytes();
    let i = tampered.len() - 5;
    tampered[i] = if tampered[i] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("ascii");
    assert_state_refused(try_place_once(&client, &a, Some(answer("accept")), Some(tampered)).await);
    // Preview A's answer used for preview B.
    assert_state_refused(
        try_place_once(&client, &b, Some(answer("accept")), Some(state.clone())).await,
    );
    // An answer without its state.
    assert_state_refused(try_place_once(&client, &a, Some(answer("accept")), None).await);
    assert_eq!(s.requests_on(PLACE).len(), 0, "nothing reached E*TRADE");
    assert_eq!(journal_approval(&s, &b).await, Value::Null);

    // The genuine answer, once.
    let (err, p) =
        complete(place_once(&client, &a, Some(answer("accept")), Some(state.clone())).await);
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
    // The answer lost and the call retried as it was: refused, never a second order.
    assert_state_refused(try_place_once(&client, &a, Some(answer("accept")), Some(state)).await);
    // Retried as a fresh call: the preview is used up.
    let (err, p) = complete(place_once(&client, &a, None, None).await);
    assert!(err && p["error"]["code"] == "invalid_input", "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1, "placed exactly once");

    // Preview B was never approved: asked afresh, and still placeable.
    let question = input_required(place_once(&client, &b, None, None).await);
    let (err, p) =
        complete(place_once(&client, &b, Some(answer("accept")), question.request_state).await);
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 2);
}

/// An answer under a key the server did not ask is no answer: the server asks again, with a
/// new state (MRTR), and the old state is spent.
#[tokio::test]
async fn an_answer_under_another_key_is_asked_again() {
    let s = sandbox("mrtr-rekey", REQUIRED).await;
    let id = preview(&s, "170.00").await;
    let (client, _server) = modern(&s, person(ElicitationAction::Accept)).await;
    let first = input_required(place_once(&client, &id, None, None).await);
    let mut wrong = InputResponses::new();
    wrong.insert(
        "not-the-question".into(),
        json!({"action": "accept", "content": {"place_order": true}}),
    );
    let again =
        input_required(place_once(&client, &id, Some(wrong), first.request_state.clone()).await);
    assert_ne!(again.request_state, first.request_state, "a new state");
    assert_eq!(s.requests_on(PLACE).len(), 0);
    assert_state_refused(
        try_place_once(&client, &id, Some(answer("accept")), first.request_state).await,
    );
    let (err, p) =
        complete(place_once(&client, &id, Some(answer("accept")), again.request_state).await);
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
}

/// A state outlives neither its preview nor its own expiry.
#[tokio::test]
async fn an_expired_answer_places_nothing() {
    let s = sandbox(
        "mrtr-expired",
        "[profiles.{profile}.trading]\napproval = \"required\"\npreview_ttl_seconds = 10\n",
    )
    .await;
    let id = preview(&s, "170.00").await;
    let (client, _server) = modern(&s, person(ElicitationAction::Accept)).await;
    let question = input_required(place_once(&client, &id, None, None).await);
    tokio::time::sleep(std::time::Duration::from_secs(11)).await;
    assert_state_refused(
        try_place_once(&client, &id, Some(answer("accept")), question.request_state).await,
    );
    assert_eq!(s.requests_on(PLACE).len(), 0);
}

/// `approval_channel = "out_of_band"`: a 2026-07-28 client is never asked either.
#[tokio::test]
async fn out_of_band_only_never_asks_the_client() {
    let s = sandbox(
        "mrtr-oob",
        "[profiles.{profile}.trading]\napproval = \"required\"\napproval_channel = \"out_of_band\"\n",
    )
    .await;
    let id = preview(&s, "170.00").await;
    let (client, _server) = modern(&s, person(ElicitationAction::Accept)).await;
    let (err, p) = complete(place_once(&client, &id, None, None).await);
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    let message = p["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("etrade approve {id}")),
        "{message}"
    );
    assert_eq!(s.requests_on(PLACE).len(), 0);
}

/// The official Python SDK pinned to 2026-07-28: its elicitation callback answers the input
/// request, and the SDK retries the call with the answer.
#[tokio::test]
async fn the_python_sdk_answers_the_input_request() {
    let s = sandbox("mrtr-python", REQUIRED).await;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/place_with_elicitation.py"
    );
    let run = |answer: &'static str, id: String| {
        let mut cmd = tokio::process::Command::new("python3");
        cmd.args([script, answer, KEY, &id, "--mode", "2026-07-28", "--"])
            .arg(common::bin())
            .args(["serve", "--profile", s.profile.as_str(), "--allow-trading"])
            .env("ETRADE_MCP_HOME", s.home.path())
            .env("ETRADE_MCP_CREDENTIAL_STORE", "keyutils")
            .env("ETRADE_MCP_RATE_SCALE", "1000")
            .env_remove("ETRADE_MCP_ENVIRONMENT")
            .env_remove("ETRADE_MCP_PROFILE")
            .kill_on_drop(true);
        async move {
            let out = cmd
                .output()
                .await
                .expect("python3 (the MCP SDK: pip install mcp)");
            assert!(out.status.success(), "{}", common::output_text(&out));
            let v: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|_| panic!("{}", common::output_text(&out)));
            v
        }
    };

    let id = preview(&s, "170.00").await;
    let declined = run("decline", id).await;
    assert_eq!(declined["is_error"], true, "{declined}");
    assert_eq!(declined["payload"]["error"]["code"], "execution_disabled");
    assert_eq!(s.requests_on(PLACE).len(), 0);

    let id = preview(&s, "170.00").await;
    let accepted = run("accept", id.clone()).await;
    assert_eq!(accepted["is_error"], false, "{accepted}");
    let asked = accepted["asked"].to_string();
    for part in ["AAPL", "7", "170.00", "estimated total"] {
        assert!(asked.contains(part), "{part}: {asked}");
    }
    assert_eq!(s.requests_on(PLACE).len(), 1);
    assert_eq!(journal_approval(&s, &id).await["channel"], "elicitation");
}
