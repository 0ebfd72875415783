//! Only a person approves, over HTTP too, and a PIN worth guessing against. Each attack
//! replayed against `etrade serve` on paper with `approval = "required"`:
//!
//! Tier (b), a program that can send HTTP requests to the loopback listener (what a model's
//! fetch tool gives it):
//! - a 2026-07-28 client that declares form elicitation and answers its own form in two
//!   POSTs, with and without a PIN;
//! - a 2025-11-25 session that answers its own `elicitation/create`, with and without a PIN
//!   (and with the approval page on, so that URL elicitation would hand it the page);
//! - a client posing as an apps host that answers the order ticket, even with the right PIN;
//! - a bearer token short enough to guess, refused at startup.
//!
//! Without a bearer token every one of them approves nothing and the person approves with
//! `etrade approve`; with the token the client's form and ticket approve as over stdio.
//!
//! The PIN: remote wrong PINs lock only the remote channels (the person still approves,
//! resumes and changes the PIN at the terminal); a 6-digit PIN is refused; `etrade approve`
//! on a store that was moved away refuses and creates nothing.

// Linux only, as the rest of this binary.
#![cfg(target_os = "linux")]

use crate::common;

use common::{HttpServer, command, output_text, try_http_server_in};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ErrorData, FormElicitationCapability, Implementation, ProtocolVersion,
    UrlElicitationCapability,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncBufReadExt;

const PROFILE: &str = "httpappr";
const PIN: &str = "CANARY-http-pin-7319";
/// Long enough for a token whose holder may approve.
const TOKEN: &str = "CANARY-approving-bearer-token-0c41d9";
const MODERN: &str = "2026-07-28";

/// A home with a paper profile whose trading table is `trading`.
fn home_with(trading: &str) -> tempfile::TempDir {
    let home = common::home();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[profiles.{PROFILE}]\nenvironment = \"paper\"\n\n[profiles.{PROFILE}.trading]\napproval = \"required\"\n{trading}\n"
        ),
    )
    .expect("config");
    home
}

/// `etrade ARGS --profile PROFILE` with `stdin` as its standard input.
async fn cli(home: &tempfile::TempDir, args: &[&str], stdin: &str) -> std::process::Output {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--profile", PROFILE]);
    let mut cmd = command(home, &all);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("etrade");
    {
        use tokio::io::AsyncWriteExt;
        let mut input = child.stdin.take().expect("stdin");
        let _ = input.write_all(stdin.as_bytes()).await;
    }
    child.wait_with_output().await.expect("etrade ran")
}

async fn set_pin(home: &tempfile::TempDir) {
    let out = cli(home, &["approve", "--set-pin"], &format!("{PIN}\n{PIN}\n")).await;
    assert!(out.status.success(), "{}", output_text(&out));
}

async fn serve(home: tempfile::TempDir, token: Option<&str>) -> HttpServer {
    let mut args = vec!["--profile", PROFILE, "--allow-trading"];
    let file;
    if let Some(token) = token {
        file = tempfile::NamedTempFile::new().expect("token file");
        std::fs::write(file.path(), token).expect("token");
        args.extend_from_slice(&["--http-token-file", file.path().to_str().expect("path")]);
        let server = try_http_server_in(home, &args, &[]).await;
        return server.unwrap_or_else(|e| panic!("etrade serve did not start:\n{e}"));
    }
    try_http_server_in(home, &args, &[])
        .await
        .unwrap_or_else(|e| panic!("etrade serve did not start:\n{e}"))
}

// --- 2026-07-28: one self-contained POST per request --------------------------------------

/// A 2026-07-28 `tools/call` that declares form and URL elicitation, as a client that will
/// answer its own approval form does.
fn modern_call(id: u64, tool: &str, args: Value, extra: Value) -> Value {
    let mut params = json!({
        "name": tool,
        "arguments": args,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {"form": {}, "url": {}}
            },
            "io.modelcontextprotocol/clientInfo": {"name": "fetch-tool", "version": "1"},
        },
    });
    if let (Value::Object(p), Value::Object(e)) = (&mut params, extra) {
        p.extend(e);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

async fn modern_post(server: &HttpServer, body: &Value, token: Option<&str>) -> Value {
    let name = body["params"]["name"].as_str();
    let mut r = common::modern_post_to(&server.url, &body.to_string(), "tools/call", name);
    if let Some(token) = token {
        r = r.bearer_auth(token);
    }
    let text = r.send().await.expect("POST").text().await.expect("body");
    common::jsonrpc_in(&text).unwrap_or_else(|| panic!("a JSON-RPC answer in: {text}"))
}

/// The payload of a complete `tools/call` result.
fn payload(answer: &Value) -> (bool, Value) {
    let r = &answer["result"];
    let text: Value = r["content"][0]["text"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_else(|| panic!("a JSON text block: {answer}"));
    (r["isError"] == true, text)
}

async fn modern_tool(
    server: &HttpServer,
    id: u64,
    tool: &str,
    args: Value,
    token: Option<&str>,
) -> (bool, Value) {
    let answer = modern_post(server, &modern_call(id, tool, args, json!({})), token).await;
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    payload(&answer)
}

async fn first_account(server: &HttpServer, token: Option<&str>) -> Value {
    let (err, accounts) = modern_tool(server, 1, "list_accounts", json!({}), token).await;
    assert!(!err, "{accounts}");
    accounts["data"]["accounts"][0]["accountIdKey"].clone()
}

fn order() -> Value {
    json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "2",
        "price_type": "LIMIT", "limit_price": "100.00"})
}

async fn modern_preview(server: &HttpServer, key: &Value, token: Option<&str>) -> String {
    let (err, pv) = modern_tool(
        server,
        2,
        "preview_order",
        json!({"account_id_key": key, "request": order()}),
        token,
    )
    .await;
    assert!(!err, "{pv}");
    pv["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string()
}

/// The refusal that sends the person to the terminal: not placed, not approved.
fn assert_waits_for_the_person(p: &Value) {
    assert_eq!(p["error"]["code"], "execution_disabled", "{p}");
    let message = p["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("etrade approve"), "{p}");
    assert!(
        !message.contains("http://"),
        "no address reaches the model: {p}"
    );
}

/// The attack of the first finding: POST `place_order` declaring form elicitation, then
/// POST it again with `inputResponses` accepting and the `requestState` received. Without
/// a token neither POST approves, PIN or no PIN; the person's `etrade approve` then does.
#[tokio::test]
async fn a_local_program_answering_its_own_2026_form_approves_nothing() {
    for with_pin in [false, true] {
        let home = home_with("");
        if with_pin {
            set_pin(&home).await;
        }
        let server = serve(home, None).await;
        let key = first_account(&server, None).await;
        let id = modern_preview(&server, &key, None).await;
        let place = json!({"account_id_key": key, "preview_id": id});

        let first = modern_post(
            &server,
            &modern_call(3, "place_order", place.clone(), json!({})),
            None,
        )
        .await;
        assert_eq!(
            first["result"]["resultType"], "complete",
            "no question is put to a client any program could be: {first}"
        );
        let (err, p) = payload(&first);
        assert!(err, "{p}");
        assert_waits_for_the_person(&p);

        // The second POST, with an answer and a state of its own making (it got none).
        let forged = modern_call(
            4,
            "place_order",
            place.clone(),
            json!({
                "inputResponses": {"approval": {"action": "accept", "content": {"place_order": true}}},
                "requestState": "eyJmb3JnZWQiOnRydWV9",
            }),
        );
        let refused = modern_post(&server, &forged, None).await;
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert!(refused.get("result").is_none(), "{refused}");

        // Still waiting: the person approves at the terminal, and then it places once.
        let home = &server._home;
        let pin_line = if with_pin {
            format!("{PIN}\n")
        } else {
            String::new()
        };
        let approved = cli(home, &["approve", &id, "--yes"], &pin_line).await;
        assert!(approved.status.success(), "{}", output_text(&approved));
        let (err, placed) = modern_tool(&server, 5, "place_order", place.clone(), None).await;
        assert!(!err, "the person's approval places: {placed}");
        assert!(placed["data"]["order_id"].is_number(), "{placed}");
        let (err, again) = modern_tool(&server, 6, "place_order", place, None).await;
        assert!(err, "placed once: {again}");
    }
}

// --- 2025-11-25: a session that answers the server's elicitation --------------------------

/// A client that declares form and URL elicitation and accepts whatever it is asked.
#[derive(Clone, Default)]
struct SelfApprover {
    asked: Arc<Mutex<Vec<String>>>,
    renders_apps: bool,
}

impl ClientHandler for SelfApprover {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        caps.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::default())
                .with_url(UrlElicitationCapability::new()),
        );
        if self.renders_apps {
            let Value::Object(ui) = json!({"mimeTypes": ["text/html;profile=mcp-app"]}) else {
                unreachable!("a JSON object literal")
            };
            caps.extensions =
                Some(std::iter::once(("io.modelcontextprotocol/ui".to_string(), ui)).collect());
        }
        ClientConfig::new(caps, Implementation::new("self-approver", "1.0.0"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let seen = match &request {
            ElicitRequestParams::FormElicitationParams { message, .. } => {
                format!("form: {message}")
            }
            ElicitRequestParams::UrlElicitationParams { url, .. } => format!("url: {url}"),
            other => format!("other: {other:?}"),
        };
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(seen);
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"place_order": true})))
    }
}

async fn session(
    server: &HttpServer,
    handler: SelfApprover,
    token: Option<&str>,
) -> rmcp::service::RunningService<RoleClient, SelfApprover> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(server.url.clone());
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    handler
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("initialize over HTTP")
}

async fn session_preview<H: ClientHandler>(
    client: &rmcp::service::RunningService<RoleClient, H>,
) -> (Value, String) {
    let (err, accounts) = common::call_payload(client, "list_accounts", json!({})).await;
    assert!(!err, "{accounts}");
    let key = accounts["data"]["accounts"][0]["accountIdKey"].clone();
    let (err, pv) = common::call_payload(
        client,
        "preview_order",
        json!({"account_id_key": key, "request": order()}),
    )
    .await;
    assert!(!err, "{pv}");
    let id = pv["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string();
    (key, id)
}

/// `place_order` through a session: (failed, payload).
async fn session_place<H: ClientHandler>(
    client: &rmcp::service::RunningService<RoleClient, H>,
    key: &Value,
    id: &str,
) -> (bool, Value) {
    common::call_payload(
        client,
        "place_order",
        json!({"account_id_key": key, "preview_id": id}),
    )
    .await
}

fn asked(handler: &SelfApprover) -> Vec<String> {
    handler.asked.lock().map(|a| a.clone()).unwrap_or_default()
}

/// The same attack through a 2025-11-25 session: the server would send `elicitation/create`
/// to the very client that placed the call, which answers it itself. Without a token it is
/// asked nothing (with the approval page on and a PIN set, it is not handed the page either:
/// that address goes only to the person's browser).
#[tokio::test]
async fn a_2025_session_answering_its_own_elicitation_approves_nothing() {
    for with_pin in [false, true] {
        let home = home_with(if with_pin { "approval_page = true" } else { "" });
        if with_pin {
            set_pin(&home).await;
        }
        let server = serve(home, None).await;
        let handler = SelfApprover::default();
        let client = session(&server, handler.clone(), None).await;
        let (key, id) = session_preview(&client).await;
        let (err, p) = session_place(&client, &key, &id).await;
        assert!(err, "{p}");
        assert_waits_for_the_person(&p);
        assert!(asked(&handler).is_empty(), "asked: {:?}", asked(&handler));
        if with_pin {
            // The page opened in the person's browser, and only there.
            let opened = common::opened_in_browser(server._home.path(), 1).await;
            assert_eq!(opened.len(), 1, "{opened:?}");
        }
        let waiting = cli(&server._home, &["approve", "--list"], "").await;
        assert!(
            String::from_utf8_lossy(&waiting.stdout).contains(&id),
            "still waiting: {}",
            output_text(&waiting)
        );
        client.cancel().await.expect("close");
    }
}

/// A client posing as an apps host approves nothing on the ticket without a token, even
/// with the right PIN (which it should never have): the ticket shows the terminal command,
/// and no wrong-PIN count moves, so a flood of such calls cannot lock the person's page.
#[tokio::test]
async fn the_ticket_decides_nothing_for_an_unauthenticated_client() {
    let home = home_with("");
    set_pin(&home).await;
    let server = serve(home, None).await;
    let handler = SelfApprover {
        renders_apps: true,
        ..Default::default()
    };
    let client = session(&server, handler.clone(), None).await;
    let (key, id) = session_preview(&client).await;
    let (err, t) =
        common::call_payload(&client, "get_order_ticket", json!({"preview_id": id})).await;
    assert!(!err, "{t}");
    assert_eq!(t["data"]["app_approval"], false, "{t}");
    let hash = t["data"]["preview_hash"].clone();
    for (decision, pin) in [
        ("approve", Some(PIN)),
        ("approve", Some("wrong-pin-1")),
        ("reject", None),
    ] {
        let mut answer = json!({"preview_id": id, "preview_hash": hash, "decision": decision});
        if let Some(pin) = pin {
            answer["pin"] = json!(pin);
        }
        let (err, r) = common::call_payload(&client, "answer_order_ticket", answer).await;
        assert!(err && r["error"]["code"] == "execution_disabled", "{r}");
    }
    let (err, p) = session_place(&client, &key, &id).await;
    assert!(err, "{p}");
    assert_waits_for_the_person(&p);
    let (_, t) = common::call_payload(&client, "get_order_ticket", json!({"preview_id": id})).await;
    assert_eq!(t["data"]["status"], "awaiting_approval", "{t}");
    let doctor = cli(&server._home, &["doctor", "--offline"], "").await;
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        report.contains("pin (page, ticket): no wrong PINs in a row (0 in all)"),
        "no PIN was even checked:\n{report}"
    );
    client.cancel().await.expect("close");
}

/// The person's own client over HTTP, holding the bearer token: its form approves (no PIN),
/// its ticket approves with the PIN, and each order places once.
#[tokio::test]
async fn an_authenticated_client_approves_through_its_form_and_its_ticket() {
    let home = home_with("");
    let server = serve(home, Some(TOKEN)).await;
    let handler = SelfApprover::default();
    let client = session(&server, handler.clone(), Some(TOKEN)).await;
    let (key, id) = session_preview(&client).await;
    let place = json!({"account_id_key": key, "preview_id": id});
    let (err, placed) = common::call_payload(&client, "place_order", place.clone()).await;
    assert!(!err, "the form approved: {placed}");
    assert_eq!(asked(&handler).len(), 1, "{:?}", asked(&handler));
    assert!(
        asked(&handler)[0].starts_with("form: "),
        "{:?}",
        asked(&handler)
    );
    let (err, again) = common::call_payload(&client, "place_order", place).await;
    assert!(err, "once: {again}");
    client.cancel().await.expect("close");

    set_pin(&server._home).await;
    let apps = SelfApprover {
        renders_apps: true,
        ..Default::default()
    };
    let ticket_client = session(&server, apps.clone(), Some(TOKEN)).await;
    let (key, id) = session_preview(&ticket_client).await;
    let (_, t) = common::call_payload(
        &ticket_client,
        "get_order_ticket",
        json!({"preview_id": id}),
    )
    .await;
    assert_eq!(t["data"]["app_approval"], true, "{t}");
    assert_eq!(t["data"]["pin_required"], true, "{t}");
    let (err, r) = common::call_payload(
        &ticket_client,
        "answer_order_ticket",
        json!({"preview_id": id, "preview_hash": t["data"]["preview_hash"], "decision": "approve", "pin": PIN}),
    )
    .await;
    assert!(!err, "{r}");
    let (err, placed) = session_place(&ticket_client, &key, &id).await;
    assert!(!err, "the ticket approved: {placed}");
    // With a PIN set, the form is not a way around it: nothing was asked of this client.
    assert!(asked(&apps).is_empty(), "{:?}", asked(&apps));
    ticket_client.cancel().await.expect("close");
}

/// With a PIN set, a 2026-07-28 client holding the token is not asked through the form
/// (which cannot carry the PIN): it is sent to the terminal.
#[tokio::test]
async fn with_a_pin_the_form_is_not_offered_even_to_the_token_holder() {
    let home = home_with("");
    set_pin(&home).await;
    let server = serve(home, Some(TOKEN)).await;
    let key = first_account(&server, Some(TOKEN)).await;
    let id = modern_preview(&server, &key, Some(TOKEN)).await;
    let place = json!({"account_id_key": key, "preview_id": id});
    let answer = modern_post(
        &server,
        &modern_call(3, "place_order", place, json!({})),
        Some(TOKEN),
    )
    .await;
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    let (err, p) = payload(&answer);
    assert!(err, "{p}");
    assert_waits_for_the_person(&p);
}

/// A token short enough to guess would let a guesser approve: refused at startup, with the
/// reason on one line.
#[tokio::test]
async fn a_guessable_token_is_refused_when_its_holder_could_approve() {
    let home = home_with("");
    let file = tempfile::NamedTempFile::new().expect("token file");
    std::fs::write(file.path(), "short-token").expect("token");
    let refused = try_http_server_in(
        home,
        &[
            "--profile",
            PROFILE,
            "--allow-trading",
            "--http-token-file",
            file.path().to_str().expect("path"),
        ],
        &[],
    )
    .await;
    let Err(stderr) = refused else {
        panic!("a short token with trading and approval must not start");
    };
    assert!(
        stderr.contains("has 11 characters") && stderr.contains("at least 24"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("short-token"),
        "the token is never printed: {stderr}"
    );
}

// --- the PIN ------------------------------------------------------------------------------

/// Eight wrong PINs through the ticket (a flood from the remote side) lock the ticket and
/// the page, not the person: the right PIN at the terminal still approves, resumes a halt
/// and changes the PIN.
#[tokio::test]
async fn remote_wrong_pins_do_not_lock_the_person_out_of_the_terminal() {
    let home = home_with("");
    set_pin(&home).await;
    let server = serve(home, Some(TOKEN)).await;
    let apps = SelfApprover {
        renders_apps: true,
        ..Default::default()
    };
    let client = session(&server, apps, Some(TOKEN)).await;
    let (key, id) = session_preview(&client).await;
    let (_, t) = common::call_payload(&client, "get_order_ticket", json!({"preview_id": id})).await;
    let hash = t["data"]["preview_hash"].clone();
    let mut last = Value::Null;
    for guess in 0..8 {
        let (err, r) = common::call_payload(
            &client,
            "answer_order_ticket",
            json!({"preview_id": id, "preview_hash": hash, "decision": "approve",
                "pin": format!("guess-{guess:04}")}),
        )
        .await;
        assert!(err, "{r}");
        last = r;
    }
    let locked = last["error"]["message"].as_str().unwrap_or_default();
    assert!(
        locked.contains("locked until") && locked.contains("etrade approve"),
        "{last}"
    );
    // The right PIN on the ticket is refused while the remote lock lasts.
    let (err, r) = common::call_payload(
        &client,
        "answer_order_ticket",
        json!({"preview_id": id, "preview_hash": hash, "decision": "approve", "pin": PIN}),
    )
    .await;
    assert!(err, "{r}");

    let home = &server._home;
    let approved = cli(home, &["approve", &id, "--yes"], &format!("{PIN}\n")).await;
    assert!(approved.status.success(), "{}", output_text(&approved));
    let (err, placed) = session_place(&client, &key, &id).await;
    assert!(!err, "{placed}");

    let halted = cli(home, &["halt", "--reason", "test"], "").await;
    assert!(halted.status.success(), "{}", output_text(&halted));
    let resumed = cli(home, &["resume"], &format!("{PIN}\n")).await;
    assert!(resumed.status.success(), "{}", output_text(&resumed));
    const NEW_PIN: &str = "CANARY-second-pin-2207";
    let changed = cli(
        home,
        &["approve", "--set-pin"],
        &format!("{PIN}\n{NEW_PIN}\n{NEW_PIN}\n"),
    )
    .await;
    assert!(changed.status.success(), "{}", output_text(&changed));

    let doctor = cli(home, &["doctor", "--offline"], "").await;
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(report.contains("pin (terminal): no wrong PINs"), "{report}");
    assert!(report.contains("tier (c): not held"), "{report}");
    client.cancel().await.expect("close");
}

/// New PINs: at least 8 characters and not all digits, or three words; `--set-pin` says
/// what guessing the one it set would cost offline.
#[tokio::test]
async fn a_pin_of_six_digits_is_refused() {
    let home = home_with("");
    for weak in ["123456", "12345678", "abc123", "a b c"] {
        let out = cli(
            &home,
            &["approve", "--set-pin"],
            &format!("{weak}\n{weak}\n"),
        )
        .await;
        assert!(!out.status.success(), "{weak}: {}", output_text(&out));
        let said = output_text(&out);
        assert!(
            said.contains("at least 8 characters") || said.contains("digits alone"),
            "{said}"
        );
    }
    let out = cli(
        &home,
        &["approve", "--set-pin"],
        "red cat sun\nred cat sun\n",
    )
    .await;
    let said = output_text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("passphrase") && said.contains("core-"),
        "{said}"
    );
    assert!(
        !said.contains("red cat sun"),
        "the PIN is never printed: {said}"
    );
    let doctor = cli(&home, &["doctor", "--offline"], "").await;
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(report.contains("strength: passphrase"), "{report}");
}

/// `mv trading.redb x; etrade approve --list` used to make an empty store without a PIN,
/// and `etrade approve PV --yes` then approved. Now an approval command on a missing store
/// refuses, and creates nothing.
#[tokio::test]
async fn approve_on_a_store_that_was_moved_away_refuses() {
    let home = home_with("");
    set_pin(&home).await;
    let store = home.path().join("trading.redb");
    assert!(store.exists());
    std::fs::rename(&store, home.path().join("moved.redb")).expect("move the store away");
    for args in [
        &["approve", "--list"][..],
        &["approve", "pv-anything", "--yes"][..],
    ] {
        let out = cli(&home, args, "").await;
        let said = output_text(&out);
        assert!(!out.status.success(), "{args:?}: {said}");
        assert!(said.contains("no trading database"), "{said}");
        assert!(!store.exists(), "{args:?} created a store");
    }
    let doctor = cli(&home, &["doctor", "--offline"], "").await;
    assert!(!store.exists(), "doctor created a store");
    assert!(String::from_utf8_lossy(&doctor.stdout).contains("trading db"));
}

/// A PIN set under the older rule (the format-1 store's, six characters or more) keeps
/// working until it is changed, and `etrade doctor` warns about it; doctor also reports
/// which channels an unauthenticated HTTP client could approve through: none.
#[tokio::test]
async fn an_older_pin_keeps_working_and_doctor_warns_about_it() {
    let home = home_with("");
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/stores/trading-v1.redb"
    );
    std::fs::copy(fixture, home.path().join("trading.redb")).expect("copy the fixture");
    let doctor = cli(&home, &["doctor", "--offline", "--transport", "http"], "").await;
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        report.contains("warn approval:") && report.contains("strength: legacy"),
        "{report}"
    );
    assert!(
        report.contains("Next: etrade approve --set-pin"),
        "{report}"
    );
    assert!(
        report.contains("http approval: an unauthenticated local client can approve through: none"),
        "{report}"
    );
    assert!(report.contains("tier (c): not held"), "{report}");
    const NEW_PIN: &str = "CANARY-renewed-pin-5150";
    let changed = cli(
        &home,
        &["approve", "--set-pin"],
        &format!("fixture-pin-2468\n{NEW_PIN}\n{NEW_PIN}\n"),
    )
    .await;
    assert!(changed.status.success(), "{}", output_text(&changed));
    let doctor = cli(&home, &["doctor", "--offline"], "").await;
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        report.contains("ok   approval:") && report.contains("strength: 8+ characters"),
        "{report}"
    );
}

/// MCP 2026-07-28 removed `elicitationId` from URL-mode elicitation: the page offered in an
/// input request carries `{mode, message, url}` only, over HTTP (to the token holder) and
/// over stdio.
#[tokio::test]
async fn a_2026_url_input_request_has_no_elicitation_id() {
    let check = |answer: &Value| {
        assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
        let params = &answer["result"]["inputRequests"]["approval"]["params"];
        assert_eq!(params["mode"], "url", "{answer}");
        assert!(
            params["url"]
                .as_str()
                .is_some_and(|u| u.contains("/approve/")),
            "{answer}"
        );
        assert!(params.get("elicitationId").is_none(), "{answer}");
    };
    let home = home_with("approval_page = true");
    set_pin(&home).await;
    let server = serve(home, Some(TOKEN)).await;
    let key = first_account(&server, Some(TOKEN)).await;
    let id = modern_preview(&server, &key, Some(TOKEN)).await;
    let place = json!({"account_id_key": key, "preview_id": id});
    check(
        &modern_post(
            &server,
            &modern_call(3, "place_order", place.clone(), json!({})),
            Some(TOKEN),
        )
        .await,
    );

    // The same over stdio, in the same state folder.
    let mut child = command(
        &server._home,
        &["serve", "--profile", PROFILE, "--allow-trading"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .expect("etrade serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    {
        use tokio::io::AsyncWriteExt;
        let line = format!("{}\n", modern_call(4, "place_order", place, json!({})));
        stdin.write_all(line.as_bytes()).await.expect("write");
    }
    let answer = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
        .await
        .expect("an answer in time")
        .expect("read")
        .expect("a line");
    check(&serde_json::from_str(&answer).expect("JSON"));
    drop(stdin);
    let _ = child.wait().await;
}
