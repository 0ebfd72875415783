//! The approval flow under attack, each attack replayed against the real server and fake
//! E*TRADE with `approval = "required"`:
//!
//! - tier (a)/(b), a model with its MCP tools and HTTP requests on this machine: it reads
//!   every tool result, fetches every URL in them and posts every form it finds; nothing
//!   approves, because the page's address goes only to the person's browser;
//! - tier (c), a program with a shell as the same user: PIN guesses through the page across
//!   fresh links and through `etrade approve` across processes are counted in one place and
//!   lock the PIN (even the right one is then refused); moving the PIN file away does not
//!   turn the PIN off; `etrade resume` needs the PIN;
//! - a halt that lands while a placement is already past its first check (reconciling an
//!   earlier uncertain order) still stops it before anything is sent.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::{STDERR_LOG, STDOUT_LOG, Sandbox};
use fake_etrade::{FakeConfig, Fault};
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};
use std::time::Duration;

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const PLACE: &str = "POST /v1/accounts/*/orders/place";
const LIST_ORDERS: &str = "GET /v1/accounts/*/orders";
const REQUIRED: &str = "[profiles.{profile}.trading]\napproval = \"required\"\n";
const PAGE: &str = "[profiles.{profile}.trading]\napproval = \"required\"\napproval_page = true\n";
const PIN: &str = "CANARY-pin-5508";

async fn sandbox(name: &str, toml: &str) -> Sandbox {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    Sandbox::start_opts(name, config, &["--allow-trading"], toml).await
}

async fn set_pin(s: &Sandbox) {
    let set = s
        .cli(&["approve", "--set-pin"], &format!("{PIN}\n{PIN}\n"))
        .await;
    assert!(set.status.success(), "{}", common::output_text(&set));
}

async fn preview(s: &Sandbox) -> String {
    let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "3", "price_type": "LIMIT", "limit_price": "170.00"});
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

async fn place(s: &Sandbox, id: &str) -> (bool, Value) {
    s.call(
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await
}

/// Every `http://` or `https://` address in `text`.
fn urls_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("http") {
        let candidate = &rest[at..];
        if candidate.starts_with("http://") || candidate.starts_with("https://") {
            let url: String = candidate
                .chars()
                .take_while(|c| !c.is_whitespace() && !"\"'<>),`\\".contains(*c))
                .collect();
            out.push(url.trim_end_matches(['.', ',', ';']).to_string());
        }
        rest = &rest[at + 4..];
    }
    out
}

fn csrf(html: &str) -> Option<String> {
    let at = html.find("name=\"csrf\" value=\"")? + 19;
    Some(html[at..].chars().take_while(|c| *c != '"').collect())
}

fn origin_of(url: &str) -> String {
    let after = url.trim_start_matches("http://");
    format!("http://{}", after.split('/').next().unwrap_or_default())
}

/// GET the page, then POST its form with `fields` (the page's own CSRF token and Origin):
/// what a browser tool or a program that knows the address sends. Returns the answer.
async fn submit(url: &str, fields: &str) -> (u16, String) {
    let Ok(page) = reqwest::get(url).await else {
        return (0, String::new());
    };
    let html = page.text().await.unwrap_or_default();
    let token = csrf(&html).unwrap_or_default();
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", origin_of(url))
        .body(format!("csrf={token}&{fields}"))
        .send()
        .await
        .expect("POST");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

/// Tier (a)/(b), no PIN: a model that reads every result of its tools and fetches every
/// URL in them, posting "approve" to every form it finds, approves nothing; the person,
/// shown the page in their browser, does.
#[tokio::test]
async fn a_model_that_fetches_every_url_it_is_shown_cannot_approve() {
    let s = sandbox("atk-scrape", PAGE).await;
    let id = preview(&s).await;
    let mut seen = String::new();
    for _ in 0..3 {
        let (err, p) = place(&s, &id).await;
        assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
        seen.push_str(&p.to_string());
    }
    for (tool, args) in [
        ("server_status", json!({})),
        ("list_order_journal", json!({"limit": 20})),
        ("list_orders", json!({"account_id_key": KEY})),
    ] {
        let (_, p) = s.call(tool, args).await;
        seen.push_str(&p.to_string());
    }
    let found = urls_in(&seen);
    for url in &found {
        for fields in ["decision=approve", "decision=approve&pin="] {
            let (status, body) = submit(url, fields).await;
            assert!(
                !body.contains("Approved"),
                "{url} approved through a tool result"
            );
            let _ = status;
        }
    }
    let (err, p) = place(&s, &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 0, "nothing was placed");

    // The person's browser was shown the page, once; its address is nowhere the model or a
    // log reader looks.
    let opened = common::opened_in_browser(s.home.path(), 1).await;
    let [url] = opened.as_slice() else {
        panic!("one page opened in the person's browser: {opened:?}");
    };
    let link = url.rsplit('/').next().expect("the one-time id");
    assert!(link.len() >= 32, "{url}");
    assert!(!seen.contains(link), "a tool result carries the link");
    for log in [STDERR_LOG, STDOUT_LOG] {
        let text = std::fs::read_to_string(s.home.path().join(log)).unwrap_or_default();
        assert!(!text.contains(link), "{log} carries the link");
    }

    let (status, body) = submit(url, "decision=approve").await;
    assert_eq!(status, 200, "{body}");
    let (err, p) = place(&s, &id).await;
    assert!(!err, "the person approved it: {p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
}

/// Tier (c): a program that learned the page's address guesses PINs, asking for a fresh
/// link whenever one dies. The count is the store's: after five wrong PINs the page and the
/// ticket lock, the right PIN is refused on the page, and nothing is placed; the person at
/// the terminal, whose count is their own, still approves.
#[tokio::test]
async fn pin_guesses_through_the_page_lock_out_across_fresh_links() {
    let s = sandbox("atk-page-pin", PAGE).await;
    set_pin(&s).await;
    let id = preview(&s).await;
    let mut titles = Vec::new();
    let mut links = 0;
    for guess in 0..7 {
        let opened = common::opened_in_browser(s.home.path(), links).await;
        let mut url = opened.last().cloned().unwrap_or_default();
        if reqwest::get(&url)
            .await
            .map(|r| r.status().as_u16() != 200)
            .unwrap_or(true)
        {
            // Dead (or none yet): ask for a fresh link, as the agent would.
            let (err, _) = place(&s, &id).await;
            assert!(err);
            links += 1;
            let opened = common::opened_in_browser(s.home.path(), links).await;
            url = opened.last().cloned().expect("a fresh link in the browser");
        }
        let (status, body) = submit(&url, &format!("decision=approve&pin=000000{guess}")).await;
        assert_eq!(status, 403, "{body}");
        let title: String = body
            .split("<h1>")
            .nth(1)
            .and_then(|t| t.split("</h1>").next())
            .unwrap_or_default()
            .to_string();
        titles.push(title);
    }
    assert!(links >= 2, "the guesses spanned fresh links ({links})");
    assert_eq!(
        titles,
        [
            "Wrong PIN",
            "Wrong PIN",
            "Wrong PIN",
            "Wrong PIN",
            "Wrong PIN",
            "PIN locked",
            "PIN locked"
        ]
    );

    // Locked means locked: the right PIN on a fresh link, and in a new process.
    let (err, _) = place(&s, &id).await;
    assert!(err);
    let opened = common::opened_in_browser(s.home.path(), links + 1).await;
    let url = opened.last().cloned().expect("a link");
    let (status, body) = submit(&url, &format!("decision=approve&pin={PIN}")).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("locked"), "{body}");
    let (err, p) = place(&s, &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 0);

    let doctor = s.cli(&["doctor"], "").await;
    let said = common::output_text(&doctor);
    assert!(
        said.contains("approval PIN") && said.contains("pin (page, ticket): locked until"),
        "{said}"
    );

    // The flood did not lock the person out: the terminal keeps its own count.
    let cli = s.cli(&["approve", &id, "--yes"], &format!("{PIN}\n")).await;
    let said = common::output_text(&cli);
    assert!(cli.status.success(), "{said}");
    assert!(!said.contains(PIN));
    let (err, p) = place(&s, &id).await;
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
}

/// Tier (c): `etrade approve` on standard input, one process a guess. The fifth wrong PIN
/// locks the PIN for everyone, the right one included.
#[tokio::test]
async fn pin_guesses_through_etrade_approve_lock_out_across_processes() {
    let s = sandbox("atk-cli-pin", REQUIRED).await;
    set_pin(&s).await;
    let id = preview(&s).await;
    for guess in 0..5 {
        let out = s
            .cli(&["approve", &id, "--yes"], &format!("12345{guess}\n"))
            .await;
        let said = common::output_text(&out);
        assert!(!out.status.success(), "{said}");
        assert!(said.contains("wrong PIN"), "{said}");
    }
    let right = s.cli(&["approve", &id, "--yes"], &format!("{PIN}\n")).await;
    let said = common::output_text(&right);
    assert!(!right.status.success(), "locked: {said}");
    assert!(
        said.contains("locked until") && said.contains("etrade halt"),
        "{said}"
    );
    let (err, p) = place(&s, &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 0);
}

/// Tier (c): the PIN cannot be turned off by moving a file. A PIN set now lives in the
/// trading store; an older version's `approval-pin.json` is moved there when first seen.
#[tokio::test]
async fn moving_the_pin_file_away_does_not_turn_the_pin_off() {
    let s = sandbox("atk-pin-file", REQUIRED).await;
    let legacy = s.home.path().join("approval-pin.json");
    let salt = [9u8; 16];
    let hash = runtime::trading::pin_hash::pbkdf2_sha256(b"old-pin-2024", &salt, 100_000);
    let hex = runtime::trading::pin_hash::hex_encode;
    std::fs::write(
        &legacy,
        format!(
            "{{\"salt\":\"{}\",\"iterations\":100000,\"hash\":\"{}\"}}",
            hex(&salt),
            hex(&hash)
        ),
    )
    .expect("an older version's PIN file");
    let id = preview(&s).await;
    let wrong = s.cli(&["approve", &id, "--yes"], "").await;
    assert!(!wrong.status.success(), "{}", common::output_text(&wrong));
    assert!(!legacy.exists(), "moved into the trading store");
    let aside = s.home.path().join("moved-away.json");
    let _ = std::fs::rename(&legacy, &aside);
    let none = s.cli(&["approve", &id, "--yes"], "\n").await;
    assert!(
        !none.status.success(),
        "still asks: {}",
        common::output_text(&none)
    );
    let right = s.cli(&["approve", &id, "--yes"], "old-pin-2024\n").await;
    assert!(right.status.success(), "{}", common::output_text(&right));
    let (err, p) = place(&s, &id).await;
    assert!(!err, "{p}");

    // A PIN set now has no file of its own to move.
    set_pin_replacing(&s, "old-pin-2024").await;
    let files: Vec<_> = std::fs::read_dir(s.home.path())
        .expect("state folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("pin"))
        .collect();
    assert!(files.is_empty(), "{files:?}");
    let id = preview(&s).await;
    let none = s.cli(&["approve", &id, "--yes"], "\n").await;
    assert!(!none.status.success());
    let doctor = s.cli(&["doctor"], "").await;
    let said = common::output_text(&doctor);
    assert!(
        said.contains("approval PIN") && said.contains("argon2id"),
        "{said}"
    );
}

async fn set_pin_replacing(s: &Sandbox, current: &str) {
    let set = s
        .cli(
            &["approve", "--set-pin"],
            &format!("{current}\n{PIN}\n{PIN}\n"),
        )
        .await;
    assert!(set.status.success(), "{}", common::output_text(&set));
}

/// Tier (c): a halt is a person's; `etrade resume` asks for the PIN, `etrade halt` never.
#[tokio::test]
async fn resume_needs_the_pin_and_halt_does_not() {
    let s = sandbox("atk-resume", REQUIRED).await;
    set_pin(&s).await;
    let profile = s.profile.clone();
    let halt = s
        .command(&["halt", "--profile", &profile])
        .output()
        .await
        .expect("halt");
    assert!(halt.status.success(), "{}", common::output_text(&halt));
    let resume = |stdin: &'static str| {
        let mut cmd = s.command(&["resume", "--profile", &profile]);
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        async move {
            use tokio::io::AsyncWriteExt;
            let mut child = cmd.spawn().expect("resume");
            if let Some(mut input) = child.stdin.take() {
                let _ = input.write_all(stdin.as_bytes()).await;
            }
            child.wait_with_output().await.expect("resume output")
        }
    };
    for stdin in ["", "guess-123\n"] {
        let out = resume(stdin).await;
        assert!(!out.status.success(), "{}", common::output_text(&out));
        let id = preview(&s).await;
        let (_, p) = place(&s, &id).await;
        let message = p["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("halted"), "still halted: {p}");
    }
    let out = resume("CANARY-pin-5508\n").await;
    assert!(out.status.success(), "{}", common::output_text(&out));
    let status = s.call("server_status", json!({})).await.1;
    assert!(
        !status.to_string().contains("halted by"),
        "resumed: {status}"
    );
}

/// A halt that lands while a placement is reconciling an earlier uncertain order (after the
/// halt was first checked) still stops it: the halt is checked again just before sending.
#[tokio::test]
async fn a_halt_during_reconciliation_stops_the_order_before_it_is_sent() {
    let s = sandbox("atk-halt-race", "").await;
    // A placement the client cancelled while E*TRADE held its answer: uncertain, and
    // reconciled by the next call.
    let first = preview(&s).await;
    s.fake
        .inject_fault(PLACE, Fault::Timeout(Duration::from_secs(6)), Some(1));
    let params = CallToolRequestParams::new("place_order").with_arguments(
        json!({"account_id_key": KEY, "preview_id": first})
            .as_object()
            .cloned()
            .expect("object"),
    );
    let handle = s
        .client
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("tools/call sent");
    for _ in 0..500 {
        if s.requests_on(PLACE)
            .first()
            .and_then(|r| r.status)
            .is_some()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    handle
        .cancel(Some("test".into()))
        .await
        .expect("notifications/cancelled sent");
    assert_eq!(s.requests_on(PLACE).len(), 1);

    // The next placement reconciles first; E*TRADE is slow to list the orders, and the
    // person halts meanwhile.
    let second = preview(&s).await;
    let listed = s.requests_on(LIST_ORDERS).len();
    s.fake
        .inject_fault(LIST_ORDERS, Fault::Timeout(Duration::from_secs(2)), Some(1));
    let profile = s.profile.clone();
    let placing = place(&s, &second);
    let halting = async {
        for _ in 0..100 {
            if s.requests_on(LIST_ORDERS).len() > listed {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(s.requests_on(LIST_ORDERS).len() > listed, "reconciling");
        let out = s
            .command(&["halt", "--profile", &profile])
            .output()
            .await
            .expect("halt");
        assert!(out.status.success(), "{}", common::output_text(&out));
    };
    let ((err, p), ()) = tokio::join!(placing, halting);
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert!(
        p["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("halted")),
        "{p}"
    );
    assert_eq!(
        s.requests_on(PLACE).len(),
        1,
        "the second order was never sent"
    );
}
