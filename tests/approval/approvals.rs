//! A person approves each live order: against the fake E*TRADE over MCP, with the profile's
//! `approval = "required"`. Out of band (`etrade approve` in another process), through the
//! client's elicitation form (an rmcp client that accepts, declines or never answers), with
//! a PIN, and one approval never letting another preview through.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::FakeConfig;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ErrorData, Implementation, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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

fn order(limit: &str) -> Value {
    json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "7",
        "price_type": "LIMIT", "limit_price": limit})
}

async fn preview(s: &Sandbox, limit: &str) -> String {
    let (err, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": order(limit)}),
        )
        .await;
    assert!(!err, "{p}");
    p["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string()
}

async fn place(s: &Sandbox, id: &str) -> (bool, Value) {
    s.call(
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await
}

#[tokio::test]
async fn approve_list_shows_nothing_when_no_person_is_asked() {
    let s = sandbox("appr-list-none", "").await;
    let (_, status) = s.call("server_status", json!({})).await;
    assert_eq!(status["data"]["trading_policy"]["approval"], "none");
    let id = preview(&s, "170.00").await;
    let listed = s.cli(&["approve", "--list"], "").await;
    let shown = common::output_text(&listed);
    assert!(listed.status.success(), "{shown}");
    assert!(
        !shown.contains(&id) && shown.contains("without asking a person"),
        "a preview that never needs a person is not listed as waiting: {shown}"
    );
}

#[tokio::test]
async fn out_of_band_approval_places_exactly_once() {
    let s = sandbox("appr-oob", REQUIRED).await;
    let (_, status) = s.call("server_status", json!({})).await;
    assert_eq!(status["data"]["trading_policy"]["approval"], "required");

    let id = preview(&s, "170.00").await;
    let (err, p) = place(&s, &id).await;
    assert!(err, "{p}");
    assert_eq!(p["error"]["code"], "execution_disabled", "{p}");
    let message = p["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("etrade approve {id}")),
        "{message}"
    );
    assert_eq!(s.requests_on(PLACE).len(), 0, "nothing may reach E*TRADE");

    let listed = s.cli(&["approve", "--list"], "").await;
    assert!(listed.status.success(), "{}", common::output_text(&listed));
    assert!(
        common::output_text(&listed).contains(&id)
            && common::output_text(&listed).contains("BUY 7 AAPL")
    );

    // Without a terminal, only --yes approves (the caller showed the summary).
    let refused = s.cli(&["approve", &id], "y\n").await;
    assert!(
        !refused.status.success(),
        "{}",
        common::output_text(&refused)
    );
    let approved = s.cli(&["approve", &id, "--yes"], "").await;
    assert!(
        approved.status.success(),
        "{}",
        common::output_text(&approved)
    );
    let shown = common::output_text(&approved);
    for part in [
        "BUY 7 AAPL",
        "LIMIT limit 170.00",
        "GOOD_FOR_DAY",
        "Approved",
    ] {
        assert!(shown.contains(part), "{part}: {shown}");
    }

    let (err, p) = place(&s, &id).await;
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
    let (err, p) = place(&s, &id).await;
    assert!(err, "placed twice: {p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
    let again = s.cli(&["approve", &id, "--yes"], "").await;
    assert!(!again.status.success(), "{}", common::output_text(&again));

    let (_, j) = s.call("list_order_journal", json!({"limit": 10})).await;
    let entries = j["data"]["entries"].as_array().cloned().unwrap_or_default();
    let previewed = entries
        .iter()
        .find(|e| e["kind"] == "preview_order" && e["preview_id"] == id.as_str())
        .expect("the preview's journal entry");
    assert_eq!(previewed["approval"]["decision"], "approved", "{previewed}");
    assert_eq!(previewed["approval"]["channel"], "terminal", "{previewed}");
}

#[tokio::test]
async fn an_approval_covers_one_preview_and_a_rejection_sticks() {
    let s = sandbox("appr-bind", REQUIRED).await;
    let a = preview(&s, "170.00").await;
    let b = preview(&s, "170.00").await;
    let approved = s.cli(&["approve", &a, "--yes"], "").await;
    assert!(
        approved.status.success(),
        "{}",
        common::output_text(&approved)
    );
    let (err, p) = place(&s, &b).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 0);

    let rejected = s.cli(&["approve", &b, "--reject"], "").await;
    assert!(
        rejected.status.success(),
        "{}",
        common::output_text(&rejected)
    );
    let (err, p) = place(&s, &b).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert!(
        p["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("rejected")),
        "{p}"
    );
    let late = s.cli(&["approve", &b, "--yes"], "").await;
    assert!(
        !late.status.success(),
        "a rejection is final: {}",
        common::output_text(&late)
    );
    assert_eq!(s.requests_on(PLACE).len(), 0);
    let (err, p) = place(&s, &a).await;
    assert!(!err, "{p}");
}

#[tokio::test]
async fn a_pin_keeps_a_script_from_approving() {
    let s = sandbox("appr-pin", REQUIRED).await;
    let pin = "CANARY-pin-8153";
    let set = s
        .cli(&["approve", "--set-pin"], &format!("{pin}\n{pin}\n"))
        .await;
    assert!(set.status.success(), "{}", common::output_text(&set));
    let id = preview(&s, "170.00").await;
    let wrong = s.cli(&["approve", &id, "--yes"], "1234\n").await;
    assert!(!wrong.status.success(), "{}", common::output_text(&wrong));
    assert!(!common::output_text(&wrong).contains(pin));
    let (err, p) = place(&s, &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    let none = s.cli(&["approve", &id, "--yes"], "").await;
    assert!(!none.status.success(), "--yes never skips the PIN");
    let right = s.cli(&["approve", &id, "--yes"], &format!("{pin}\n")).await;
    assert!(right.status.success(), "{}", common::output_text(&right));
    let (err, p) = place(&s, &id).await;
    assert!(!err, "{p}");
    for file in common::canary::files_under(s.home.path()) {
        let bytes = std::fs::read(&file).expect("read");
        assert!(
            !String::from_utf8_lossy(&bytes).contains(pin),
            "the PIN is stored only as a hash: {}",
            file.display()
        );
    }
}

/// A person at an MCP client with an elicitation form.
#[derive(Clone)]
struct Person {
    answer: ElicitationAction,
    /// Longer than the preview lives: never answers in time.
    delay: Duration,
    seen: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("approval-tests", "1.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
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
        tokio::time::sleep(self.delay).await;
        Ok(match self.answer {
            ElicitationAction::Accept => ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({"place_order": true})),
            ref other => ElicitResult::new(other.clone()),
        })
    }
}

async fn place_through(s: &Sandbox, person: Person, id: &str) -> (bool, Value, Vec<String>) {
    let seen = person.seen.clone();
    let (client, _server) = s.serve_another(person, &["--allow-trading"]).await;
    let (err, payload) = common::call_payload(
        &client,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await;
    let seen = seen.lock().map(|v| v.clone()).unwrap_or_default();
    (err, payload, seen)
}

fn person(answer: ElicitationAction, delay: Duration) -> Person {
    Person {
        answer,
        delay,
        seen: Arc::new(Mutex::new(Vec::new())),
    }
}

#[tokio::test]
async fn the_clients_form_approves_or_refuses() {
    let s = sandbox(
        "appr-elicit",
        "[profiles.{profile}.trading]\napproval = \"required\"\npreview_ttl_seconds = 10\n",
    )
    .await;

    let id = preview(&s, "170.00").await;
    let (err, p, seen) =
        place_through(&s, person(ElicitationAction::Accept, Duration::ZERO), &id).await;
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
    let asked = seen.join("\n");
    for part in [
        "AAPL",
        "7",
        "170.00",
        "estimated total",
        "Tick \"Place this order\"",
    ] {
        assert!(asked.contains(part), "{part}: {asked}");
    }

    let id = preview(&s, "170.00").await;
    let (err, p, _) =
        place_through(&s, person(ElicitationAction::Decline, Duration::ZERO), &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    let (err, p, _) =
        place_through(&s, person(ElicitationAction::Cancel, Duration::ZERO), &id).await;
    assert!(
        err && p["error"]["code"] == "execution_disabled",
        "declined stays declined: {p}"
    );

    let id = preview(&s, "170.00").await;
    let (err, p, _) =
        place_through(&s, person(ElicitationAction::Cancel, Duration::ZERO), &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    let (err, p, _) = place_through(
        &s,
        person(ElicitationAction::Accept, Duration::from_secs(30)),
        &id,
    )
    .await;
    assert!(
        err && p["error"]["code"] == "execution_disabled",
        "no answer in time: {p}"
    );
    assert_eq!(
        s.requests_on(PLACE).len(),
        1,
        "only the accepted order was sent"
    );
}

#[tokio::test]
async fn out_of_band_only_never_asks_the_client() {
    let s = sandbox(
        "appr-oob-only",
        "[profiles.{profile}.trading]\napproval = \"required\"\napproval_channel = \"out_of_band\"\n",
    )
    .await;
    let id = preview(&s, "170.00").await;
    let (err, p, seen) =
        place_through(&s, person(ElicitationAction::Accept, Duration::ZERO), &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert!(seen.is_empty(), "the form was shown: {seen:?}");
    assert_eq!(s.requests_on(PLACE).len(), 0);
}

/// Paper with `approval = "required"` rehearses the real flow, journal included.
#[tokio::test]
async fn paper_rehearses_the_approval() {
    let mut p = common::paper::Paper::start(&["--allow-trading"]).await;
    p.set_trading("approval = \"required\"").await;

    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"].clone();
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": order("100.00")}),
        )
        .await;
    let id = pv["preview_id"].as_str().expect("preview_id").to_string();
    let (err, refused) = p
        .call(
            "place_order",
            json!({"account_id_key": key, "preview_id": id}),
        )
        .await;
    assert!(
        err && refused["error"]["code"] == "execution_disabled",
        "{refused}"
    );

    let out = p
        .command(&["approve", &id, "--yes"])
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("etrade approve");
    assert!(out.status.success(), "{}", common::output_text(&out));
    p.ok(
        "place_order",
        json!({"account_id_key": key, "preview_id": id}),
    )
    .await;
    let journal = p.ok("list_order_journal", json!({"limit": 10})).await;
    let entries = journal["entries"].as_array().cloned().unwrap_or_default();
    assert!(
        entries
            .iter()
            .any(|e| e["preview_id"] == id.as_str() && e["approval"]["decision"] == "approved"),
        "{journal}"
    );
}

/// The official MCP Python SDK as the client: its elicitation callback accepts (placed,
/// having seen the order) or declines (refused, nothing sent).
#[tokio::test]
async fn the_python_sdk_client_answers_the_form() {
    let s = sandbox("appr-python", REQUIRED).await;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/place_with_elicitation.py"
    );
    let run = |answer: &'static str, id: String| {
        let mut cmd = tokio::process::Command::new("python3");
        cmd.args([script, answer, KEY, &id, "--", common::bin()])
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
    let declined = run("decline", id.clone()).await;
    assert_eq!(declined["is_error"], true, "{declined}");
    assert_eq!(declined["payload"]["error"]["code"], "execution_disabled");
    assert_eq!(s.requests_on(PLACE).len(), 0);

    let id = preview(&s, "170.00").await;
    let accepted = run("accept", id).await;
    assert_eq!(accepted["is_error"], false, "{accepted}");
    let asked = accepted["asked"].to_string();
    for part in ["AAPL", "7", "170.00", "estimated total"] {
        assert!(asked.contains(part), "{part}: {asked}");
    }
    assert_eq!(s.requests_on(PLACE).len(), 1);
}
