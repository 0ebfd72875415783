//! The fault matrix: every fault the fake E*TRADE server can inject × every tool, through
//! the real server over MCP, each result classified as the contract says.
//!
//! * Reads and previews: the ordinary broker/transport categories, one request on the wire
//!   (an idle token is renewed once and the read sent again: two). A failed preview leaves no
//!   journal entry; nothing is executed.
//! * Mutations (place, cancel, change-place, alert deletion): one request on the wire, never
//!   retried; a fault that leaves the outcome ambiguous is `uncertain_execution`, journaled
//!   `uncertain` and reconciled to what the fake's state says (`found` exactly when the fake
//!   applied the mutation); a definite failure is journaled `failed` with its code.
//! * Tools that need no broker (`server_status`, `list_order_journal`) answer with a fault
//!   armed on every endpoint and send nothing.
//! * A success whose text echoes the request's `Authorization` header (`echo_auth`) is still
//!   a success, and the harness's canary checks find no credential in what it returns.
//!
//! The paper broker has no wire, so it is not in the matrix. Every sandbox here also runs the
//! harness's canary checks (tool outputs, the server's debug log, every state file).
//! Run with `--no-capture` to see the table.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::catalog::example_args;
use common::sandbox::Sandbox;
use fake_etrade::{FakeConfig, Fault, OauthProblem};
use runtime::etrade::Endpoint;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const KEY: &str = "JIdOIAcSpwR1Jva7RQBraQ";
/// Longer than the server's 3 s HTTP deadline (ETRADE_MCP_HTTP_TIMEOUT_MS in the sandbox).
const LATE: Duration = Duration::from_secs(6);
/// Sandboxes run at once: the rows are mostly waiting (timeouts), not computing.
const PARALLEL: usize = 7;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// Answers from local state; no broker request.
    Local,
    Read,
    /// Order previews: nothing is executed, ordinary categories.
    Preview,
    /// Places, cancels, changes an order or deletes alerts.
    Mutation,
    /// Reads every page (overview, transaction summary): a failed page makes the answer
    /// `complete: false` ("incomplete" here) rather than an error, except for credentials.
    Summary,
}

struct ToolCase {
    tool: &'static str,
    kind: Kind,
    /// The endpoint the fault is armed on (fake pattern syntax).
    pattern: String,
}

/// Tools without a broker binding in the spec: their handlers decide their requests (or make
/// none). Every other tool is a read, armed on the endpoint its binding names.
const UNBOUND: &[(&str, Kind, Option<Endpoint>)] = &[
    ("server_status", Kind::Local, None),
    ("list_order_journal", Kind::Local, None),
    ("preview_order", Kind::Preview, Some(Endpoint::PreviewOrder)),
    (
        "preview_change_order",
        Kind::Preview,
        Some(Endpoint::PreviewChangeOrder),
    ),
    ("place_order", Kind::Mutation, Some(Endpoint::PlaceOrder)),
    ("cancel_order", Kind::Mutation, Some(Endpoint::CancelOrder)),
    (
        "place_change_order",
        Kind::Mutation,
        Some(Endpoint::PlaceChangeOrder),
    ),
    (
        "delete_alerts",
        Kind::Mutation,
        Some(Endpoint::DeleteAlerts),
    ),
    (
        "get_account_overview",
        Kind::Summary,
        Some(Endpoint::Portfolio),
    ),
    (
        "summarize_transactions",
        Kind::Summary,
        Some(Endpoint::Transactions),
    ),
];

/// Every tool in the catalog, in catalog order — but the app-only ones: they make no broker
/// request, and only a client that renders apps may call them (tests/approval/app_ticket.rs).
fn cases() -> Vec<ToolCase> {
    etrade_mcp::generated::CATALOG
        .tools
        .iter()
        .filter(|t| !t.app_only())
        .map(|t| {
            let (kind, endpoint) = match t.endpoint {
                Some(e) => (Kind::Read, Some(e)),
                None => UNBOUND
                    .iter()
                    .find(|(name, _, _)| *name == t.name)
                    .map(|(_, kind, e)| (*kind, *e))
                    .unwrap_or_else(|| {
                        panic!(
                            "{0}: no broker binding in spec/tools.yaml and no row in UNBOUND in \
                             tests/faults/fault_matrix.rs. Add one: (\"{0}\", Kind::…, \
                             Some(Endpoint::…)) naming the endpoint a fault should hit (None if \
                             it makes no request), and its arguments in `prepare` if the \
                             catalog's example is not enough.",
                            t.name
                        )
                    }),
            };
            ToolCase {
                tool: t.name,
                kind,
                pattern: endpoint.map_or_else(|| "*".to_string(), fake_pattern),
            }
        })
        .collect()
}

/// Fast, apart from the slow matrix: a new tool without a binding names its missing row here.
#[test]
fn every_tool_has_a_row() {
    // Panics with the row to add when a tool without a binding has none.
    cases();
    for (name, _, _) in UNBOUND {
        let tool = etrade_mcp::generated::CATALOG
            .tools
            .iter()
            .find(|t| t.name == *name);
        assert!(
            tool.is_some_and(|t| t.endpoint.is_none()),
            "{name}: a row in UNBOUND for a tool that is not in the catalog or has a binding; remove it"
        );
    }
}

/// `PUT /v1/accounts/{accountIdKey}/orders/cancel` → `PUT /v1/accounts/*/orders/cancel`.
fn fake_pattern(e: Endpoint) -> String {
    let shape = e.shape();
    let path: Vec<&str> = shape
        .path
        .split('/')
        .map(|seg| if seg.starts_with('{') { "*" } else { seg })
        .collect();
    format!("{} {}", shape.verb.method(), path.join("/"))
}

/// Every fault kind, with a short column label. The expired token comes last: it is the one
/// fault after which a real E*TRADE would refuse everything until the next login.
fn faults() -> Vec<(&'static str, Fault)> {
    use OauthProblem as P;
    let mut all = vec![
        ("refuse", Fault::Refuse),
        ("reset_unread", Fault::ResetWithoutProcessing),
        ("reset_after", Fault::ResetBeforeResponse),
        ("timeout", Fault::Timeout(LATE)),
        ("500", Fault::Status5xx(500)),
        ("503", Fault::Status5xx(503)),
        ("rl_page", Fault::RateLimitPage),
        ("429", Fault::Http429),
        ("bad_json", Fault::MalformedJson),
        ("html_500", Fault::HtmlErrorPage),
        ("echo_auth", Fault::EchoAuthorization),
    ];
    for (label, p) in [
        ("401 tok_rej", P::TokenRejected),
        ("401 tok_used", P::TokenUsed),
        ("401 ck_unk", P::ConsumerKeyUnknown),
        ("401 ck_rej", P::ConsumerKeyRejected),
        ("401 sig_inv", P::SignatureInvalid),
        ("401 sig_meth", P::SignatureMethodRejected),
        ("401 ts_ref", P::TimestampRefused),
        ("401 nonce", P::NonceUsed),
        ("401 param", P::ParameterAbsent),
        ("401 cb_rej", P::CallbackRejected),
        ("401 tok_exp", P::TokenExpired),
    ] {
        all.push((label, Fault::Unauthorized(p)));
    }
    all
}

/// What the contract says a fault on a tool of `kind` must produce.
#[derive(Debug, PartialEq, Eq)]
struct Expect {
    /// The error code, or "ok".
    code: &'static str,
    /// Requests on the faulted endpoint.
    requests: usize,
    /// Mutations: the journal outcome and, for uncertain ones, whether the fake applied the
    /// mutation (so reconciliation must say `found`).
    journal: Option<(&'static str, bool)>,
}

fn expected(kind: Kind, fault: Fault) -> Expect {
    let read = |code, requests| Expect {
        code,
        requests,
        journal: None,
    };
    let uncertain = |applied| Expect {
        code: "uncertain_execution",
        requests: 1,
        journal: Some(("uncertain", applied)),
    };
    let failed = |code| Expect {
        code,
        requests: 1,
        journal: Some(("failed", false)),
    };
    match kind {
        Kind::Local => read("ok", 0),
        Kind::Read | Kind::Preview => match fault {
            Fault::Refuse
            | Fault::ResetWithoutProcessing
            | Fault::ResetBeforeResponse
            | Fault::Timeout(_) => read("transport_error", 1),
            Fault::Status5xx(_) | Fault::HtmlErrorPage => read("service_unavailable", 1),
            // E*TRADE's documented rate-limit answer (HTTP 400, HTML page) and a defensive 429.
            Fault::RateLimitPage | Fault::Http429 => read("rate_limited", 1),
            Fault::MalformedJson => read("invalid_broker_response", 1),
            // A success whose text echoes the credentials: redacted, still a success.
            Fault::EchoAuthorization => read("ok", 1),
            Fault::Unauthorized(OauthProblem::TokenExpired) => read("authorization_expired", 1),
            // An idle token: renewed once, the request sent again, which succeeds.
            Fault::Unauthorized(OauthProblem::TokenRejected) => read("ok", 2),
            Fault::Unauthorized(_) => read("authentication_failed", 1),
        },
        Kind::Summary => match fault {
            Fault::EchoAuthorization => read("ok", 1),
            Fault::Unauthorized(OauthProblem::TokenExpired) => read("authorization_expired", 1),
            Fault::Unauthorized(OauthProblem::TokenRejected) => read("ok", 2),
            Fault::Unauthorized(_) => read("authentication_failed", 1),
            _ => read("incomplete", 1),
        },
        Kind::Mutation => match fault {
            Fault::EchoAuthorization => read("ok", 1),
            // The fake applied the mutation, then lost or garbled the answer.
            Fault::ResetBeforeResponse | Fault::Timeout(_) | Fault::MalformedJson => {
                uncertain(true)
            }
            // Nothing applied, but a server error or a dropped connection after the request
            // left says nothing about the outcome to a client.
            Fault::Refuse
            | Fault::ResetWithoutProcessing
            | Fault::Status5xx(_)
            | Fault::HtmlErrorPage => uncertain(false),
            // E*TRADE does not process a request over the limit: definite, never uncertain.
            Fault::RateLimitPage | Fault::Http429 => failed("rate_limited"),
            Fault::Unauthorized(OauthProblem::TokenExpired) => failed("authorization_expired"),
            // A mutation is never sent twice, not even after renewing an idle token.
            Fault::Unauthorized(_) => failed("authentication_failed"),
        },
    }
}

fn on_wire(s: &Sandbox, pattern: &str) -> usize {
    s.requests_on(pattern).len()
}

fn order(limit_price: &str) -> Value {
    json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY", "quantity": "10",
        "price_type": "LIMIT", "limit_price": limit_price})
}

async fn ok(s: &Sandbox, tool: &str, args: Value) -> Value {
    let (err, p) = s.call(tool, args).await;
    assert!(!err, "{tool}: {p}");
    p["data"].clone()
}

async fn place_fresh(s: &Sandbox) -> i64 {
    let p = ok(
        s,
        "preview_order",
        json!({"account_id_key": KEY, "request": order("170.00")}),
    )
    .await;
    let p = ok(
        s,
        "place_order",
        json!({"account_id_key": KEY, "preview_id": p["preview_id"]}),
    )
    .await;
    p["order_id"].as_i64().expect("order_id")
}

async fn journal_len(s: &Sandbox) -> usize {
    let d = ok(s, "list_order_journal", json!({"limit": 100})).await;
    d["entries"].as_array().map_or(0, Vec::len)
}

/// What a mutation is aimed at, to tell afterwards whether the fake applied it.
enum Target {
    None,
    Order(i64),
    Alert(i64),
}

/// Arguments for one row of `tool`, after doing what the row needs first (a preview to
/// place, an open order to cancel or change).
async fn prepare(s: &Sandbox, tool: &str) -> (Value, Target) {
    let args = match tool {
        "server_status" => json!({}),
        "list_order_journal" => json!({"limit": 5}),
        "list_accounts" | "list_alerts" => json!({}),
        "get_account_balances" | "get_portfolio" | "list_transactions" | "list_orders" => {
            json!({"account_id_key": KEY})
        }
        "get_position_lots" => json!({"account_id_key": KEY, "position_id": 10002345678u64}),
        "get_account_overview" => json!({"account_id_key": KEY}),
        // One page of transactions, so a renewed token shows as exactly two requests.
        "summarize_transactions" => {
            json!({"account_id_key": KEY, "start_date": "2023-01-01", "end_date": "2023-02-28"})
        }
        "get_transaction_details" => {
            let fixtures = s.fake.fixtures();
            let t = fixtures.accounts[0].transactions.first().expect("a txn");
            json!({"account_id_key": KEY, "transaction_id": t.transaction_id})
        }
        "get_quotes" => json!({"symbols": ["AAPL"]}),
        "lookup_product" => json!({"search": "apple"}),
        "get_option_chains" | "get_option_expire_dates" => json!({"symbol": "IBM"}),
        "get_alert_details" => json!({"alert_id": 1101}),
        "preview_order" => json!({"account_id_key": KEY, "request": order("170.00")}),
        "preview_change_order" => {
            let id = place_fresh(s).await;
            json!({"account_id_key": KEY, "order_id": id, "request": order("171.00")})
        }
        "place_order" => {
            let p = ok(
                s,
                "preview_order",
                json!({"account_id_key": KEY, "request": order("170.00")}),
            )
            .await;
            return (
                json!({"account_id_key": KEY, "preview_id": p["preview_id"]}),
                Target::None,
            );
        }
        "cancel_order" => {
            let id = place_fresh(s).await;
            return (
                json!({"account_id_key": KEY, "order_id": id}),
                Target::Order(id),
            );
        }
        "place_change_order" => {
            let id = place_fresh(s).await;
            let p = ok(
                s,
                "preview_change_order",
                json!({"account_id_key": KEY, "order_id": id, "request": order("171.00")}),
            )
            .await;
            return (
                json!({"account_id_key": KEY, "order_id": id, "preview_id": p["preview_id"]}),
                Target::Order(id),
            );
        }
        "delete_alerts" => {
            let id = *s.fake.alert_ids().first().expect("an alert left");
            return (json!({"alert_ids": [id]}), Target::Alert(id));
        }
        other => {
            let ids = [("account_id_key".to_string(), json!(KEY))];
            example_args(other, &ids.into_iter().collect())
        }
    };
    (args, Target::None)
}

/// Whether the fake applied the mutation `tool` aimed at `target`.
fn applied(s: &Sandbox, tool: &str, target: &Target, placed_before: usize) -> bool {
    match (tool, target) {
        ("place_order", _) => s.fake.placed_orders().len() > placed_before,
        ("cancel_order", Target::Order(id)) => {
            s.fake.order(*id).expect("order").status == "CANCELLED"
        }
        ("place_change_order", Target::Order(id)) => s
            .fake
            .placed_orders()
            .iter()
            .any(|o| o.replaces_order_id == Some(*id)),
        ("delete_alerts", Target::Alert(id)) => s.fake.deleted_alert_ids().contains(id),
        other => panic!("no state check for {:?}", other.0),
    }
}

/// Why a summary is incomplete: its own reason, or its account's.
fn incomplete_reason(data: &Value) -> String {
    let own = data["incomplete_reason"].as_str();
    let account = data["accounts"][0]["incomplete_reason"].as_str();
    own.or(account).unwrap_or_default().to_string()
}

/// One cell: what happened, shortened for the table, and the problems found.
struct Cell {
    shown: String,
    problems: Vec<String>,
}

fn short(code: &str) -> &str {
    match code {
        "transport_error" => "transport",
        "service_unavailable" => "unavailable",
        "broker_rejection" => "rejection",
        "rate_limited" => "rate_limited",
        "invalid_broker_response" => "bad_response",
        "authorization_expired" => "auth_expired",
        "authentication_failed" => "auth_failed",
        "uncertain_execution" => "uncertain",
        other => other,
    }
}

/// The fake refuses before reading only on a new connection (on a kept-alive one the request
/// has already arrived, which is `reset_unread`), so the server's pooled connection is
/// dropped first: a read whose answer is cut makes its client discard the connection.
async fn drop_pooled_connection(s: &Sandbox) {
    s.fake
        .inject_fault("GET /v1/user/alerts", Fault::ResetBeforeResponse, Some(1));
    let (err, p) = s.call("list_alerts", json!({})).await;
    assert!(err && p["error"]["code"] == "transport_error", "{p}");
}

async fn run_row(s: &Sandbox, case: &ToolCase, label: &str, fault: Fault) -> Cell {
    let want = expected(case.kind, fault);
    let (args, target) = prepare(s, case.tool).await;
    // A summary's earlier requests (account list, balance) reuse the pooled connection, so
    // its page cannot be refused on a new one: there the fault resets the connection.
    let refuse =
        matches!(fault, Fault::Refuse) && !matches!(case.kind, Kind::Local | Kind::Summary);
    if refuse {
        drop_pooled_connection(s).await;
    }
    let journal_before = match case.kind {
        Kind::Preview => journal_len(s).await,
        _ => 0,
    };
    let placed_before = s.fake.placed_orders().len();
    let wire_before = on_wire(s, &case.pattern);
    let all_before = s.fake.requests().len();
    s.fake.inject_fault(case.pattern.as_str(), fault, Some(1));
    let (err, p) = s.call(case.tool, args).await;
    let sent = on_wire(s, &case.pattern) - wire_before;
    let refused_unread = s
        .requests_on(&case.pattern)
        .get(wire_before)
        .is_some_and(|r| r.consumer_key.is_none());
    let sent_any = s.fake.requests().len() - all_before;
    let armed = s.fake.faults().len();
    s.fake.clear_faults();

    let code = if err {
        p["error"]["code"].as_str().unwrap_or("?").to_string()
    } else if p["data"]["complete"] == false {
        "incomplete".to_string()
    } else {
        "ok".to_string()
    };
    let mut problems = Vec::new();
    let mut shown = short(&code).to_string();
    if code == "incomplete" {
        let reason = incomplete_reason(&p["data"]);
        if !reason.contains("page 1 failed") {
            problems.push(format!("incomplete without the failed page as reason: {p}"));
        }
    }
    if code != want.code {
        problems.push(format!("code {code}, want {}: {p}", want.code));
    }
    if case.kind == Kind::Local {
        if sent_any != 0 || armed != 1 {
            problems.push(format!("a local tool sent {sent_any} request(s)"));
        }
    } else {
        if sent != want.requests {
            problems.push(format!(
                "{sent} request(s) on the wire, want {}",
                want.requests
            ));
        }
        if armed != 0 {
            problems.push("the fault never hit the tool's request".into());
        }
        if refuse && !refused_unread {
            problems.push("not refused before the request was read".into());
        }
    }
    if err {
        if p["data"] != Value::Null || p["error"]["validation_errors"] != json!([]) {
            problems.push(format!("error envelope: {p}"));
        }
        let known = etrade_mcp::generated::CATALOG
            .error_codes
            .iter()
            .any(|c| c.code == code);
        if !known || p["error"]["message"].as_str().is_none_or(str::is_empty) {
            problems.push(format!("not a catalog error with a message: {p}"));
        }
    }
    if case.kind == Kind::Preview {
        let added = journal_len(s).await - journal_before;
        let want_added = usize::from(code == "ok");
        if added != want_added {
            problems.push(format!(
                "{added} journal entr(ies) added, want {want_added}"
            ));
        }
    }
    if let Some((outcome, applies)) = want.journal {
        // list_order_journal reconciles whatever is outstanding first.
        let d = ok(s, "list_order_journal", json!({"limit": 1})).await;
        let entry = &d["entries"][0];
        let did = applied(s, case.tool, &target, placed_before);
        if entry["kind"] != case.tool || entry["outcome"]["status"] != outcome {
            problems.push(format!("journal entry, want {outcome}: {entry}"));
        }
        if did != applies {
            problems.push(format!("the fake applied it: {did}, want {applies}"));
        }
        if outcome == "uncertain" {
            let rec = entry["reconciliation"]["status"].as_str().unwrap_or("-");
            let want_rec = if did { "found" } else { "not_found" };
            if rec != want_rec {
                problems.push(format!("reconciled {rec}, want {want_rec}: {entry}"));
            }
            shown = format!("unc/{}", if rec == "found" { "found" } else { "none" });
        } else {
            if entry["outcome"]["code"] != code.as_str() || !entry["reconciliation"].is_null() {
                problems.push(format!("failed entry: {entry}"));
            }
            shown = format!("{shown}/j");
        }
    }
    if sent > 1 {
        shown = format!("{shown}×{sent}");
    }
    Cell {
        shown,
        problems: problems
            .into_iter()
            .map(|m| format!("{} / {label}: {m}", case.tool))
            .collect(),
    }
}

async fn run_tool(case: &ToolCase) -> Vec<Cell> {
    let config = FakeConfig::new(
        common::sandbox::CONSUMER_KEY,
        common::sandbox::CONSUMER_SECRET,
    );
    let flags = ["--allow-trading", "--allow-alert-deletion"];
    let s = Sandbox::start_opts(&format!("fm-{}", case.tool), config, &flags, "").await;
    if case.tool == "delete_alerts" {
        // Three faults apply the deletion; one alert must be left for every row.
        let applying = faults()
            .iter()
            .filter(|(_, f)| expected(Kind::Mutation, *f).journal == Some(("uncertain", true)))
            .count();
        assert!(s.fake.alert_ids().len() > applying, "fixture alerts");
    }
    let mut cells = Vec::new();
    for (label, fault) in faults() {
        cells.push(run_row(&s, case, label, fault).await);
    }
    cells
}

// More workers than cores: the fakes answer on this runtime, and the harness's blocking work
// (schema checks, canary scans) must not hold them past the server's 3 s deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 6)]
async fn every_tool_under_every_fault() {
    let tools = cases();
    let names: Vec<&str> = tools.iter().map(|c| c.tool).collect();
    let gate = Arc::new(tokio::sync::Semaphore::new(PARALLEL));
    let mut tasks = tokio::task::JoinSet::new();
    for (i, case) in tools.into_iter().enumerate() {
        let gate = gate.clone();
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await.expect("semaphore");
            (i, run_tool(&case).await)
        });
    }
    let mut rows: Vec<(usize, Vec<Cell>)> = Vec::new();
    while let Some(done) = tasks.join_next().await {
        rows.push(done.expect("tool task"));
    }
    rows.sort_by_key(|(i, _)| *i);

    let labels: Vec<&str> = faults().iter().map(|(l, _)| *l).collect();
    let mut table = format!("| tool | {} |\n|---|", labels.join(" | "));
    table.push_str(&"---|".repeat(labels.len()));
    table.push('\n');
    let mut problems = Vec::new();
    for (i, cells) in &rows {
        let shown: Vec<&str> = cells.iter().map(|c| c.shown.as_str()).collect();
        table.push_str(&format!("| {} | {} |\n", names[*i], shown.join(" | ")));
        problems.extend(cells.iter().flat_map(|c| c.problems.iter().cloned()));
    }
    println!("{table}");
    println!(
        "legend: unc/found | unc/none = uncertain_execution, journaled uncertain, reconciled \
         found | not_found (matching the fake's state); /j = journaled failed; ×2 = renewed \
         and sent again (reads only); every other cell sent exactly 1 request (local tools 0)"
    );
    let cells: usize = rows.iter().map(|(_, c)| c.len()).sum();
    println!(
        "{} tools × {} faults = {cells} cells",
        rows.len(),
        labels.len()
    );
    assert!(problems.is_empty(), "{}\n{table}", problems.join("\n"));
}
