//! MCP Apps: the account overview and the order ticket, over MCP with a client that renders
//! apps (it advertises `io.modelcontextprotocol/ui`) and one that does not. Approving on the
//! ticket goes through its app-only tool: in paper and against the fake E*TRADE it places
//! exactly once, only for the preview and hash the ticket showed, never under
//! `approval_channel = "out_of_band"`, and with the PIN when one is set.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::Client;
use common::paper::Paper;
use common::sandbox::{Sandbox, checked_call};
use fake_etrade::FakeConfig;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ProtocolVersion, ReadResourceRequestParams,
    ResourceContents,
};
use serde_json::{Value, json};

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
const PLACE: &str = "POST /v1/accounts/*/orders/place";
const PIN: &str = "ticket-pin-4821";
const OVERVIEW: &str = "ui://etrade/overview.html";
const TICKET: &str = "ui://etrade/order-ticket.html";

/// A client that renders MCP Apps.
fn app_host() -> ClientConfig {
    let mut extensions = std::collections::BTreeMap::new();
    let settings = json!({"mimeTypes": ["text/html;profile=mcp-app"]});
    let Value::Object(settings) = settings else {
        unreachable!("a JSON object literal")
    };
    extensions.insert("io.modelcontextprotocol/ui".to_string(), settings);
    let mut caps = ClientCapabilities::default();
    caps.extensions = Some(extensions);
    ClientConfig::new(caps, Implementation::new("apps-host-tests", "1.0.0"))
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
}

/// Paper with trading on and `trading` settings added to its profile.
async fn paper(trading: &str) -> Paper {
    let mut p = Paper::start(&["--allow-trading"]).await;
    if !trading.is_empty() {
        p.set_trading(trading).await;
    }
    p
}

async fn fake(name: &str, trading: &str) -> Sandbox {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    let toml = format!("[profiles.{{profile}}.trading]\n{trading}\n");
    Sandbox::start_opts(name, config, &["--allow-trading"], &toml).await
}

async fn call(
    client: &Client,
    canaries: &common::canary::Canaries,
    tool: &str,
    args: Value,
) -> (bool, Value) {
    checked_call(client, tool, args, canaries).await
}

fn order(symbol: &str, limit: &str) -> Value {
    json!({"order_type": "EQ", "symbol": symbol, "order_action": "BUY", "quantity": "2",
        "price_type": "LIMIT", "limit_price": limit})
}

/// The order ticket's whole story on one broker, through a client that renders apps.
async fn ticket_places_once(ui: &Client, c: &common::canary::Canaries, key: &str, symbol: &str) {
    let (err, pv) = call(
        ui,
        c,
        "preview_order",
        json!({"account_id_key": key, "request": order(symbol, "100.00")}),
    )
    .await;
    assert!(!err, "{pv}");
    let id = pv["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string();
    let place = json!({"account_id_key": key, "preview_id": id});

    // Not approved yet: the model's place_order is refused.
    let (err, refused) = call(ui, c, "place_order", place.clone()).await;
    assert!(
        err && refused["error"]["code"] == "execution_disabled",
        "{refused}"
    );

    let (err, t) = call(ui, c, "get_order_ticket", json!({"preview_id": id})).await;
    assert!(!err, "{t}");
    let t = &t["data"];
    assert_eq!(t["status"], "awaiting_approval", "{t}");
    assert_eq!(t["approval_required"], true);
    assert_eq!(t["app_approval"], true);
    assert_eq!(t["order"]["legs"][0]["symbol"], symbol);
    assert_eq!(t["order"]["limit_price"], "100.00");
    let hash = t["preview_hash"].as_str().expect("hash").to_string();
    assert_eq!(hash.len(), 64);

    // A ticket rendered for other arguments decides nothing.
    let other = if hash.starts_with('0') { "1" } else { "0" }.repeat(64);
    let (err, r) = call(
        ui,
        c,
        "answer_order_ticket",
        json!({"preview_id": id, "preview_hash": other, "decision": "approve"}),
    )
    .await;
    assert!(err && r["error"]["code"] == "execution_disabled", "{r}");
    let (err, r) = call(
        ui,
        c,
        "answer_order_ticket",
        json!({"preview_id": "pv_unknown", "preview_hash": hash, "decision": "approve"}),
    )
    .await;
    assert!(err && r["error"]["code"] == "not_found", "{r}");

    let (err, a) = call(
        ui,
        c,
        "answer_order_ticket",
        json!({"preview_id": id, "preview_hash": hash, "decision": "approve"}),
    )
    .await;
    assert!(!err, "{a}");
    assert_eq!(a["data"]["decision"], "approved");
    assert_eq!(a["data"]["channel"], "app");
    // Single use: a second answer is refused.
    let (err, again) = call(
        ui,
        c,
        "answer_order_ticket",
        json!({"preview_id": id, "preview_hash": hash, "decision": "approve"}),
    )
    .await;
    assert!(
        err && again["error"]["code"] == "execution_disabled",
        "{again}"
    );

    let (err, placed) = call(ui, c, "place_order", place.clone()).await;
    assert!(!err, "{placed}");
    let (err, twice) = call(ui, c, "place_order", place).await;
    assert!(err, "a preview places once: {twice}");
    let (_, t) = call(ui, c, "get_order_ticket", json!({"preview_id": id})).await;
    assert_eq!(t["data"]["status"], "placed", "{t}");
    // A used preview takes no decision, not even a rejection.
    let (err, used) = call(
        ui,
        c,
        "answer_order_ticket",
        json!({"preview_id": id, "preview_hash": hash, "decision": "reject"}),
    )
    .await;
    assert!(
        err && used["error"]["code"] == "execution_disabled",
        "{used}"
    );

    let (err, journal) = call(ui, c, "list_order_journal", json!({"limit": 20})).await;
    assert!(!err, "{journal}");
    let entries = journal["data"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        entries.iter().any(|e| e["preview_id"] == id.as_str()
            && e["approval"]["decision"] == "approved"
            && e["approval"]["channel"] == "app"),
        "{journal}"
    );
}

fn tool<'a>(tools: &'a [rmcp::model::Tool], name: &str) -> Option<&'a rmcp::model::Tool> {
    tools.iter().find(|t| t.name == name)
}

fn ui_meta(t: &rmcp::model::Tool) -> Value {
    t.meta.as_ref().map_or(Value::Null, |m| {
        m.0.get("ui").cloned().unwrap_or(Value::Null)
    })
}

#[tokio::test]
async fn apps_are_declared_and_served_and_app_only_tools_stay_with_apps() {
    let p = paper("").await;
    let (ui, _server) = p.serve_another_as(&["--allow-trading"], app_host()).await;
    let tools = ui.list_all_tools().await.expect("tools/list");
    let resource = |name: &str| ui_meta(tool(&tools, name).expect(name))["resourceUri"].clone();
    assert_eq!(resource("get_account_overview"), OVERVIEW);
    assert_eq!(resource("preview_order"), TICKET);
    assert_eq!(resource("preview_change_order"), TICKET);
    for app_only in ["get_order_ticket", "answer_order_ticket"] {
        let t =
            tool(&tools, app_only).unwrap_or_else(|| panic!("{app_only} listed to an app host"));
        assert_eq!(ui_meta(t)["visibility"], json!(["app"]), "{app_only}");
    }
    assert!(ui_meta(tool(&tools, "place_order").expect("place_order")).is_null());

    // A client that renders no apps never sees the app-only tools, and cannot call them.
    let plain = p.serve_another(&["--allow-trading"]).await;
    let listed = plain.0.list_all_tools().await.expect("tools/list");
    assert!(tool(&listed, "get_order_ticket").is_none());
    assert!(tool(&listed, "answer_order_ticket").is_none());
    assert!(tool(&listed, "get_account_overview").is_some());
    let (err, r) = call(
        &plain.0,
        p.canaries(),
        "get_order_ticket",
        json!({"preview_id": "pv_x"}),
    )
    .await;
    assert!(err && r["error"]["code"] == "tool_not_available", "{r}");
    let (err, r) = call(
        &plain.0,
        p.canaries(),
        "answer_order_ticket",
        json!({"preview_id": "pv_x", "preview_hash": "0".repeat(64), "decision": "approve"}),
    )
    .await;
    assert!(err && r["error"]["code"] == "tool_not_available", "{r}");

    // The resources: one self-contained document each, with no outside address.
    let resources = ui.list_all_resources().await.expect("resources/list");
    let mut uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    uris.sort_unstable();
    assert_eq!(uris, [TICKET, OVERVIEW]);
    for r in &resources {
        assert_eq!(r.mime_type.as_deref(), Some("text/html;profile=mcp-app"));
        let meta = r
            .meta
            .as_ref()
            .map(|m| Value::Object(m.0.clone()))
            .unwrap_or_default();
        for k in [
            "connectDomains",
            "resourceDomains",
            "frameDomains",
            "baseUriDomains",
        ] {
            assert_eq!(meta["ui"]["csp"][k], json!([]), "{}: {meta}", r.uri);
        }
        let read = ui
            .read_resource(ReadResourceRequestParams::new(r.uri.clone()))
            .await
            .expect("resources/read");
        let [
            ResourceContents::TextResourceContents {
                text, mime_type, ..
            },
        ] = read.contents.as_slice()
        else {
            panic!("{}: one text document expected", r.uri)
        };
        assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
        assert!(text.contains("<html"), "{}", r.uri);
        for outside in ["http://", "https://", "//cdn"] {
            assert!(
                !text.contains(outside),
                "{} names an outside address ({outside})",
                r.uri
            );
        }
    }
    assert!(
        ui.read_resource(ReadResourceRequestParams::new("ui://etrade/nothing.html"))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn paper_places_once_after_approval_on_the_ticket() {
    let p = paper("approval = \"required\"").await;
    let (ui, _server) = p.serve_another_as(&["--allow-trading"], app_host()).await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    ticket_places_once(&ui, p.canaries(), &key, "AAPL").await;
}

#[tokio::test]
async fn the_fake_etrade_gets_one_placement_after_approval_on_the_ticket() {
    let s = fake("app-ticket", "approval = \"required\"").await;
    let (ui, _server) = s.serve_another(app_host(), &["--allow-trading"]).await;
    ticket_places_once(&ui, s.canaries(), KEY, "AAPL").await;
    assert_eq!(
        s.requests_on(PLACE).len(),
        1,
        "exactly one placement reached E*TRADE"
    );
}

#[tokio::test]
async fn out_of_band_only_refuses_the_ticket() {
    let p = paper("approval = \"required\"\napproval_channel = \"out_of_band\"").await;
    let (ui, _server) = p.serve_another_as(&["--allow-trading"], app_host()).await;
    let accounts = p.ok("list_accounts", json!({})).await;
    let key = accounts["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("key")
        .to_string();
    let pv = p
        .ok(
            "preview_order",
            json!({"account_id_key": key, "request": order("MSFT", "100.00")}),
        )
        .await;
    let id = pv["preview_id"].as_str().expect("preview_id").to_string();
    let (err, t) = call(
        &ui,
        p.canaries(),
        "get_order_ticket",
        json!({"preview_id": id}),
    )
    .await;
    assert!(!err, "{t}");
    assert_eq!(t["data"]["app_approval"], false);
    assert!(
        t["data"]["approve_command"]
            .as_str()
            .is_some_and(|c| c.starts_with(&format!("{} approve ", common::bin())))
    );
    let hash = t["data"]["preview_hash"].clone();
    let (err, r) = call(
        &ui,
        p.canaries(),
        "answer_order_ticket",
        json!({"preview_id": id, "preview_hash": hash, "decision": "approve"}),
    )
    .await;
    assert!(err && r["error"]["code"] == "execution_disabled", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("out of band")),
        "{r}"
    );
    let (err, refused) = call(
        &ui,
        p.canaries(),
        "place_order",
        json!({"account_id_key": key, "preview_id": id}),
    )
    .await;
    assert!(
        err && refused["error"]["code"] == "execution_disabled",
        "{refused}"
    );
}

#[tokio::test]
async fn the_ticket_asks_for_the_pin_when_one_is_set() {
    let s = fake("app-ticket-pin", "approval = \"required\"").await;
    let set = s
        .cli(&["approve", "--set-pin"], &format!("{PIN}\n{PIN}\n"))
        .await;
    assert!(set.status.success(), "{}", common::output_text(&set));
    let (ui, _server) = s.serve_another(app_host(), &["--allow-trading"]).await;
    let c = s.canaries();
    let (err, pv) = call(
        &ui,
        c,
        "preview_order",
        json!({"account_id_key": KEY, "request": order("AAPL", "150.00")}),
    )
    .await;
    assert!(!err, "{pv}");
    let id = pv["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string();
    let (_, t) = call(&ui, c, "get_order_ticket", json!({"preview_id": id})).await;
    assert_eq!(t["data"]["pin_required"], true, "{t}");
    let hash = t["data"]["preview_hash"].clone();
    let answer = |pin: Option<&str>| {
        let mut a = json!({"preview_id": id, "preview_hash": hash, "decision": "approve"});
        if let Some(pin) = pin {
            a["pin"] = json!(pin);
        }
        a
    };
    for wrong in [None, Some("not-the-pin-000")] {
        let (err, r) = call(&ui, c, "answer_order_ticket", answer(wrong)).await;
        assert!(err && r["error"]["code"] == "execution_disabled", "{r}");
        assert!(!r.to_string().contains(PIN));
    }
    let (err, r) = call(&ui, c, "answer_order_ticket", answer(Some(PIN))).await;
    assert!(!err, "{r}");
    assert!(!r.to_string().contains(PIN));
    let (err, placed) = call(
        &ui,
        c,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": id}),
    )
    .await;
    assert!(!err, "{placed}");
    assert_eq!(s.requests_on(PLACE).len(), 1);
}

/// Tier (b): an agent that can send HTTP requests to the loopback MCP listener can pose as an
/// apps host (it declares the extension itself), so the host's visibility rule does not hold
/// it back. With a PIN set, its answer is refused and nothing is placed: the PIN is what holds
/// here (docs/guide/trading-and-approvals.md, "Who can approve").
#[tokio::test]
async fn an_agent_posting_to_the_loopback_listener_as_an_apps_host_needs_the_pin() {
    use rmcp::ServiceExt;
    const PROFILE: &str = "appsagent";
    let home = common::home();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[profiles.{PROFILE}]\nenvironment = \"paper\"\n\n\
             [profiles.{PROFILE}.trading]\napproval = \"required\"\n"
        ),
    )
    .expect("config");
    let mut set = common::command(&home, &["approve", "--set-pin", "--profile", PROFILE]);
    set.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = set.spawn().expect("etrade approve --set-pin");
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(format!("{PIN}\n{PIN}\n").as_bytes())
            .await
            .expect("PIN");
    }
    let out = child.wait_with_output().await.expect("set-pin");
    assert!(out.status.success(), "{}", common::output_text(&out));

    let server = common::try_http_server_in(home, &["--profile", PROFILE, "--allow-trading"], &[])
        .await
        .unwrap_or_else(|e| panic!("etrade serve --transport http did not start:\n{e}"));
    let agent = app_host()
        .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
            server.url.clone(),
        ))
        .await
        .expect("initialize over HTTP");
    let (err, accounts) = common::call_payload(&agent, "list_accounts", json!({})).await;
    assert!(!err, "{accounts}");
    let key = accounts["data"]["accounts"][0]["accountIdKey"].clone();
    let (err, pv) = common::call_payload(
        &agent,
        "preview_order",
        json!({"account_id_key": key, "request": order("AAPL", "100.00")}),
    )
    .await;
    assert!(!err, "{pv}");
    let id = pv["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string();
    let (err, t) =
        common::call_payload(&agent, "get_order_ticket", json!({"preview_id": id})).await;
    assert!(!err, "{t}");
    assert_eq!(t["data"]["pin_required"], true, "{t}");
    let hash = t["data"]["preview_hash"].clone();
    for pin in [None, Some("guess-123456")] {
        let mut answer = json!({"preview_id": id, "preview_hash": hash, "decision": "approve"});
        if let Some(pin) = pin {
            answer["pin"] = json!(pin);
        }
        let (err, r) = common::call_payload(&agent, "answer_order_ticket", answer).await;
        assert!(err && r["error"]["code"] == "execution_disabled", "{r}");
    }
    let (err, refused) = common::call_payload(
        &agent,
        "place_order",
        json!({"account_id_key": key, "preview_id": id}),
    )
    .await;
    assert!(
        err && refused["error"]["code"] == "execution_disabled",
        "{refused}"
    );
    let (_, t) = common::call_payload(&agent, "get_order_ticket", json!({"preview_id": id})).await;
    assert_eq!(t["data"]["status"], "awaiting_approval", "{t}");
}
