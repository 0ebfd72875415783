//! The local approval page, against the fake E*TRADE with `approval = "required"` and
//! `approval_page = true`: the server opens it in the person's browser (a stand-in that
//! records the URL: `BROWSER`), the person clicks Approve in headless Chromium (driven
//! through ChromeDriver's WebDriver HTTP API) and the order is placed once; forged POSTs
//! (no CSRF token, a foreign or missing Origin, a foreign Host) approve nothing; a used
//! link is dead; a wrong PIN approves nothing. With a PIN set, a client with URL-mode
//! elicitation is offered the page and the call waits for the person's click; on the HTTP
//! transport the page is served beside `/mcp`.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;
use fake_etrade::FakeConfig;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, CustomNotification,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ErrorData,
    FormElicitationCapability, Implementation, InputRequest, ProtocolVersion,
    UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const PLACE: &str = "POST /v1/accounts/*/orders/place";
const PAGE: &str = "[profiles.{profile}.trading]\napproval = \"required\"\napproval_page = true\n";

async fn sandbox(name: &str) -> Sandbox {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    Sandbox::start_opts(name, config, &["--allow-trading"], PAGE).await
}

/// Preview an order and ask to place it: the refusal says a page opened in the person's
/// browser, and the browser got its one-time URL.
async fn refused_with_link(s: &Sandbox) -> (String, String) {
    let n = common::opened_in_browser(s.home.path(), 0).await.len() + 1;
    let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "7", "price_type": "LIMIT", "limit_price": "170.00"});
    let (err, p) = s
        .call(
            "preview_order",
            json!({"account_id_key": KEY, "request": order}),
        )
        .await;
    assert!(!err, "{p}");
    let id = p["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string();
    let (err, p) = place(s, &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    let message = p["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("approval page that just opened in their browser"),
        "{message}"
    );
    assert!(
        message.starts_with("Not placed yet: a person is being asked")
            && !message.contains("Execution is disabled"),
        "a wait reads as a wait, not as a refusal: {message}"
    );
    assert!(
        !message.contains("http"),
        "no address reaches the model: {message}"
    );
    let opened = common::opened_in_browser(s.home.path(), n).await;
    let url = opened
        .get(n - 1)
        .unwrap_or_else(|| panic!("the page opened in the browser: {opened:?}"))
        .clone();
    (id, url)
}

async fn place(s: &Sandbox, id: &str) -> (bool, Value) {
    s.call(
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await
}

/// The journal shows the preview approved through the page.
async fn assert_approved_on_page(s: &Sandbox, id: &str) {
    let (_, j) = s.call("list_order_journal", json!({"limit": 10})).await;
    let entries = j["data"]["entries"].as_array().cloned().unwrap_or_default();
    assert!(
        entries
            .iter()
            .any(|e| e["preview_id"] == id && e["approval"]["channel"] == "page"),
        "{j}"
    );
}

fn origin(url: &str) -> String {
    let after = url.trim_start_matches("http://");
    format!("http://{}", after.split('/').next().unwrap_or_default())
}

fn csrf(html: &str) -> String {
    let at = html.find("name=\"csrf\" value=\"").expect("a CSRF field") + 19;
    html[at..].chars().take_while(|c| *c != '"').collect()
}

async fn post(url: &str, origin: Option<&str>, form: &str) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form.to_string());
    if let Some(o) = origin {
        request = request.header("origin", o);
    }
    let response = request.send().await.expect("POST the page");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

async fn post_with_host(url: &str, origin: &str, host: &str, form: &str) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", origin)
        .header("host", host)
        .body(form.to_string())
        .send()
        .await
        .expect("POST the page");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

/// ChromeDriver driving Debian's headless Chromium.
struct Browser {
    driver: tokio::process::Child,
    base: String,
    session: String,
    http: reqwest::Client,
    _profile: tempfile::TempDir,
}

impl Browser {
    async fn start() -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = tokio::process::Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("chromedriver (Debian's chromium-driver; .ci/run installs it)");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        for _ in 0..100 {
            if http.get(format!("{base}/status")).send().await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let profile = tempfile::tempdir().expect("browser profile");
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     format!("--user-data-dir={}", profile.path().display())]
        }}}});
        let created: Value = http
            .post(format!("{base}/session"))
            .json(&caps)
            .send()
            .await
            .expect("new session")
            .json()
            .await
            .expect("session JSON");
        let session = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"))
            .to_string();
        Browser {
            driver,
            base,
            session,
            http,
            _profile: profile,
        }
    }

    async fn command(&self, path: &str, body: Value) -> Value {
        self.http
            .post(format!("{}/session/{}/{path}", self.base, self.session))
            .json(&body)
            .send()
            .await
            .expect("WebDriver command")
            .json()
            .await
            .expect("WebDriver JSON")
    }

    async fn open(&self, url: &str) {
        self.command("url", json!({"url": url})).await;
    }

    async fn click(&self, css: &str) {
        let found = self
            .command("element", json!({"using": "css selector", "value": css}))
            .await;
        let element = found["value"]
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no {css}: {found}"))
            .to_string();
        self.command(&format!("element/{element}/click"), json!({}))
            .await;
    }

    /// Clicks a submit button and returns the page the form's answer loads. ChromeDriver may
    /// answer the click before that navigation ends, so this reads the page until it is no
    /// longer the one clicked (10 s at most).
    async fn click_and_read_the_next_page(&self, css: &str) -> String {
        let before = self.text().await;
        self.click(css).await;
        for _ in 0..100 {
            if self.loaded().await {
                let now = self.text().await;
                if now != before {
                    return now;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        self.text().await
    }

    async fn loaded(&self) -> bool {
        let state = self
            .command(
                "execute/sync",
                json!({"script": "return document.readyState", "args": []}),
            )
            .await;
        state["value"] == "complete"
    }

    async fn text(&self) -> String {
        let v: Value = self
            .http
            .get(format!("{}/session/{}/source", self.base, self.session))
            .send()
            .await
            .expect("page source")
            .json()
            .await
            .expect("source JSON");
        v["value"].as_str().unwrap_or_default().to_string()
    }

    async fn stop(mut self) {
        let _ = self
            .http
            .delete(format!("{}/session/{}", self.base, self.session))
            .send()
            .await;
        let _ = self.driver.kill().await;
    }
}

#[tokio::test]
async fn a_click_approves_once_and_forged_posts_approve_nothing() {
    let s = sandbox("page-click").await;
    let (id, url) = refused_with_link(&s).await;
    assert!(!url.contains(&id), "the link must not be the preview id");
    let (_, again) = place(&s, &id).await;
    assert!(
        again["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already open")),
        "{again}"
    );
    assert_eq!(
        common::opened_in_browser(s.home.path(), 2).await.len(),
        1,
        "opened once per preview, however often the agent asks"
    );

    let html = reqwest::get(&url)
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(
        html.contains("BUY 7 AAPL") && html.contains("170.00"),
        "{html}"
    );
    let token = csrf(&html);
    let here = origin(&url);
    let rebound = reqwest::Client::new()
        .get(&url)
        .header("host", "rebound.example")
        .send()
        .await
        .expect("GET");
    assert_eq!(
        rebound.status().as_u16(),
        421,
        "a foreign Host gets nothing"
    );
    let (status, _) = post_with_host(
        &url,
        &here,
        "rebound.example",
        &format!("csrf={token}&decision=approve"),
    )
    .await;
    assert_eq!(status, 421);
    for (o, form) in [
        (Some(here.as_str()), "decision=approve".to_string()),
        (
            Some(here.as_str()),
            "csrf=wrong&decision=approve".to_string(),
        ),
        (
            Some("http://evil.example"),
            format!("csrf={token}&decision=approve"),
        ),
        (None, format!("csrf={token}&decision=approve")),
    ] {
        let (status, body) = post(&url, o, &form).await;
        assert_eq!(status, 403, "{o:?} {form}: {body}");
    }
    let (err, p) = place(&s, &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 0);

    let browser = Browser::start().await;
    browser.open(&url).await;
    let shown = browser.click_and_read_the_next_page("#approve").await;
    browser.stop().await;
    assert!(shown.contains("Approved"), "{shown}");

    let (err, p) = place(&s, &id).await;
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);

    let again = reqwest::get(&url).await.expect("GET").status().as_u16();
    assert_eq!(again, 404, "a used link is dead");
    let (status, _) = post(&url, Some(&here), &format!("csrf={token}&decision=approve")).await;
    assert_eq!(status, 404);
    assert_approved_on_page(&s, &id).await;
}

#[tokio::test]
async fn a_wrong_pin_on_the_page_approves_nothing() {
    let s = sandbox("page-pin").await;
    let pin = "CANARY-pin-6027";
    let set = s
        .cli(&["approve", "--set-pin"], &format!("{pin}\n{pin}\n"))
        .await;
    assert!(set.status.success());
    let (id, url) = refused_with_link(&s).await;
    let html = reqwest::get(&url)
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    assert!(html.contains("name=\"pin\""), "the page asks for the PIN");
    let token = csrf(&html);
    let here = origin(&url);
    let (status, _) = post(
        &url,
        Some(&here),
        &format!("csrf={token}&decision=approve&pin=0000"),
    )
    .await;
    assert_eq!(status, 403);
    let (err, p) = place(&s, &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    let (status, body) = post(
        &url,
        Some(&here),
        &format!("csrf={token}&decision=approve&pin={pin}"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (err, p) = place(&s, &id).await;
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
}

/// What a client with URL-mode elicitation saw, and what its person does on the page.
#[derive(Clone, Default)]
struct Seen {
    /// (message, url, elicitation id) of each URL elicitation.
    links: Vec<(String, String, String)>,
    forms: usize,
    /// The elicitation ids the server said were complete.
    completed: Vec<String>,
}

/// A client that opens the approval page when offered (when `opens`), and whose person
/// then clicks `decision` there (a GET for the token, then the form's POST).
#[derive(Clone)]
struct PageOpener {
    /// The MCP revision the client speaks (2026-07-28: no initialize, input requests).
    version: ProtocolVersion,
    opens: bool,
    decision: &'static str,
    pin: &'static str,
    seen: Arc<Mutex<Seen>>,
}

impl ClientHandler for PageOpener {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::default())
                .with_url(UrlElicitationCapability::new()),
        );
        ClientConfig::new(capabilities, Implementation::new("page-opener", "1.0.0"))
            .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } = request
        else {
            if let Ok(mut seen) = self.seen.lock() {
                seen.forms += 1;
            }
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        if let Ok(mut seen) = self.seen.lock() {
            seen.links.push((message, url.clone(), elicitation_id));
        }
        if !self.opens {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        // The person clicks after the client answered, as in a browser.
        let (decision, pin) = (self.decision, self.pin);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            click(&url, decision, pin).await;
        });
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == "notifications/elicitation/complete"
            && let Some(id) = notification
                .params
                .as_ref()
                .and_then(|p| p["elicitationId"].as_str())
            && let Ok(mut seen) = self.seen.lock()
        {
            seen.completed.push(id.to_string());
        }
    }
}

/// What the page's form sends when a person clicks `decision` ("approve" or "reject"),
/// with `pin` in the PIN field (empty when the page asks for none).
async fn click(url: &str, decision: &str, pin: &str) {
    let html = reqwest::get(url)
        .await
        .expect("GET the page")
        .text()
        .await
        .expect("page body");
    let (status, body) = post(
        url,
        Some(&origin(url)),
        &format!("csrf={}&decision={decision}&pin={pin}", csrf(&html)),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

async fn place_opening_links(s: &Sandbox, opener: PageOpener, id: &str) -> (bool, Value, Seen) {
    let seen = opener.seen.clone();
    let (client, _server) = s.serve_another(opener, &["--allow-trading"]).await;
    let (err, payload) = common::call_payload(
        &client,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await;
    // The completion notification follows the decision; give it a moment to arrive.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let seen = seen.lock().map(|v| v.clone()).unwrap_or_default();
    (err, payload, seen)
}

const URL_PIN: &str = "CANARY-pin-3310";

fn opener(opens: bool, decision: &'static str) -> PageOpener {
    PageOpener {
        version: ProtocolVersion::V_2025_11_25,
        opens,
        decision,
        pin: URL_PIN,
        seen: Arc::new(Mutex::new(Seen::default())),
    }
}

/// With `approval_channel = "out_of_band"` the form is never used, but a client that opens
/// links is offered the page when it asks for the PIN: agreeing to open it approves
/// nothing, the click with the PIN does. Without a PIN the address never travels over MCP.
#[tokio::test]
async fn url_elicitation_offers_the_page_and_waits_for_the_click() {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    let s = Sandbox::start_opts(
        "page-url",
        config,
        &["--allow-trading"],
        "[profiles.{profile}.trading]\napproval = \"required\"\napproval_channel = \"out_of_band\"\napproval_page = true\n",
    )
    .await;

    // No PIN: the client is not offered the page; it opens in the person's browser.
    let (id, _) = refused_with_link(&s).await;
    let (err, p, seen) = place_opening_links(&s, opener(true, "approve"), &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert!(seen.links.is_empty(), "{:?}", seen.links);

    let set = s
        .cli(
            &["approve", "--set-pin"],
            &format!("{URL_PIN}\n{URL_PIN}\n"),
        )
        .await;
    assert!(set.status.success(), "{}", common::output_text(&set));
    let (id, _) = refused_with_link(&s).await;
    let (err, p, seen) = place_opening_links(&s, opener(true, "approve"), &id).await;
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
    assert_eq!(seen.forms, 0, "out_of_band never shows the form");
    let [(message, url, elicitation)] = seen.links.as_slice() else {
        panic!("one URL elicitation: {:?}", seen.links);
    };
    assert!(url.contains("/approve/") && !url.contains(&id), "{url}");
    for part in ["BUY 7 AAPL", "170.00", "approval page"] {
        assert!(message.contains(part), "{part}: {message}");
    }
    assert_eq!(seen.completed, vec![elicitation.clone()]);
    assert_approved_on_page(&s, &id).await;

    let (id, _) = refused_with_link(&s).await;
    let (err, p, _) = place_opening_links(&s, opener(true, "reject"), &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    assert!(
        p["error"]["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("The order was not approved.")),
        "{p}"
    );

    let (id, _) = refused_with_link(&s).await;
    let (err, p, seen) = place_opening_links(&s, opener(false, "approve"), &id).await;
    assert!(err && p["error"]["code"] == "execution_disabled", "{p}");
    let message = p["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("etrade approve {id}")),
        "declining the link leaves the other ways: {message}"
    );
    assert_eq!(seen.links.len(), 1);
    assert_eq!(
        s.requests_on(PLACE).len(),
        1,
        "only the approved order was sent"
    );
}

/// A 2026-07-28 client takes no server-to-client request: the page is offered in an input
/// request of `place_order`'s first answer (URL mode, as a 2025-11-25 client is offered it),
/// the client calls again once its person agreed to open it, and that call waits for the
/// click with the PIN.
#[tokio::test]
async fn a_2026_client_gets_the_page_as_an_input_request() {
    let s = sandbox("page-mrtr").await;
    let set = s
        .cli(
            &["approve", "--set-pin"],
            &format!("{URL_PIN}\n{URL_PIN}\n"),
        )
        .await;
    assert!(set.status.success(), "{}", common::output_text(&set));
    let (id, _) = refused_with_link(&s).await;
    let lifecycle = rmcp::service::ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };

    // The first round by hand: the input request carries the page's URL.
    let PageOpener { seen, .. } = opener(true, "approve");
    let probe = PageOpener {
        version: ProtocolVersion::V_2026_07_28,
        opens: false,
        decision: "approve",
        pin: URL_PIN,
        seen,
    };
    let (client, _server) = s
        .serve_another_as(probe, &["--allow-trading"], lifecycle.clone())
        .await;
    let args = json!({"account_id_key": KEY, "preview_id": id});
    let Value::Object(args) = args else {
        unreachable!("an object literal")
    };
    let first = client
        .call_tool_once(CallToolRequestParams::new("place_order").with_arguments(args))
        .await
        .expect("tools/call");
    let CallToolResponse::InputRequired(question) = first else {
        panic!("an input request: {first:?}");
    };
    assert!(question.request_state.is_some());
    let requests = question.input_requests.expect("input requests");
    let Some(InputRequest::Elicitation(request)) = requests.get("approval") else {
        panic!("one elicitation: {requests:?}");
    };
    let ElicitRequestParams::UrlElicitationParams { message, url, .. } = &request.params else {
        panic!("URL mode: {request:?}");
    };
    assert!(url.contains("/approve/") && !url.contains(&id), "{url}");
    for part in ["BUY 7 AAPL", "170.00", "approval page"] {
        assert!(message.contains(part), "{part}: {message}");
    }
    assert_eq!(s.requests_on(PLACE).len(), 0);
    drop(client);

    // A client that drives the rounds: its person opens the page and clicks Approve.
    let mut person = opener(true, "approve");
    person.version = ProtocolVersion::V_2026_07_28;
    let seen = person.seen.clone();
    let (client, _server) = s
        .serve_another_as(person, &["--allow-trading"], lifecycle)
        .await;
    let (err, p) = common::call_payload(
        &client,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await;
    assert!(!err, "{p}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
    let seen = seen.lock().map(|v| v.clone()).unwrap_or_default();
    assert_eq!(seen.links.len(), 1, "{:?}", seen.links);
    assert_eq!(seen.forms, 0);
    assert_approved_on_page(&s, &id).await;
}

/// On the HTTP transport the page is served by the MCP listener itself, beside `/mcp`.
#[tokio::test]
async fn over_http_the_page_is_beside_mcp() {
    let home = common::home();
    let home_path = home.path().to_path_buf();
    std::fs::write(
        home.path().join("config.toml"),
        "[profiles.default]\nenvironment = \"paper\"\n\n[profiles.default.trading]\napproval = \"required\"\napproval_page = true\n",
    )
    .expect("config");
    let server = common::try_http_server_in(home, &["--allow-trading"], &[])
        .await
        .expect("server started");
    let client = common::http_client(&server.url).await;
    let accounts = common::call_payload(&client, "list_accounts", json!({})).await;
    let key = accounts.1["data"]["accounts"][0]["accountIdKey"].clone();
    let (err, pv) = common::call_payload(
        &client,
        "preview_order",
        json!({"account_id_key": key, "request": {"order_type": "EQ", "symbol": "AAPL",
            "order_action": "BUY", "quantity": "3", "price_type": "LIMIT", "limit_price": "100.00"}}),
    )
    .await;
    assert!(!err, "{pv}");
    let id = pv["data"]["preview_id"].as_str().expect("preview_id");
    let place = json!({"account_id_key": key, "preview_id": id});
    let (err, refused) = common::call_payload(&client, "place_order", place.clone()).await;
    assert!(
        err && refused["error"]["code"] == "execution_disabled",
        "{refused}"
    );
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.contains("/approve/"), "{message}");
    let mcp_origin = origin(&server.url);
    let opened = common::opened_in_browser(&home_path, 1).await;
    let url = opened
        .iter()
        .find(|u| u.starts_with(&format!("{mcp_origin}/approve/")))
        .unwrap_or_else(|| panic!("the page on the MCP listener ({mcp_origin}): {opened:?}"))
        .clone();
    let html = reqwest::get(&url)
        .await
        .expect("GET")
        .text()
        .await
        .expect("body");
    let (status, _) = post(
        &url,
        Some("http://evil.example"),
        &format!("csrf={}&decision=approve", csrf(&html)),
    )
    .await;
    assert_eq!(status, 403);
    click(&url, "approve", "").await;
    let (err, placed) = common::call_payload(&client, "place_order", place).await;
    assert!(!err, "{placed}");
    let _ = client.cancel().await;
}
