//! Every fault the fake E*TRADE server can inject, through the real server over MCP, on a
//! read: each is classified as the contract says, reads are never retried beyond the one
//! documented renew-and-resend, and canary secrets never reach a result. Prints the matrix.
//! Secret canaries (consumer secret, access token, token secret): every tool output, the
//! server's debug log, the copy of its stdout and every state file are scanned.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::canary::{DEBUG_LOG, log_file};
use common::login::FakeLogin;
use common::*;
use fake_etrade::{FakeConfig, FakeEtrade, Fault, OauthProblem};
use std::process::Stdio;
use std::time::Duration;

const CONSUMER_KEY: &str = "ckCANARYfaults01";
const CONSUMER_SECRET: &str = "CANARY-faults-secret/+=beef";

#[tokio::test]
async fn fault_matrix_for_reads() {
    let fake = FakeEtrade::start(FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET)).await;
    let home = home();
    let login = FakeLogin::new(
        home.path(),
        &fake,
        "faults",
        "sandbox",
        "",
        (CONSUMER_KEY, CONSUMER_SECRET),
    );
    let profile = login.profile.clone();
    let canaries = login.canaries();

    let envs = [
        ("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"),
        ("ETRADE_MCP_RATE_SCALE", "100"),
        ("ETRADE_MCP_HTTP_TIMEOUT_MS", "1500"),
        DEBUG_LOG,
    ];
    let (client, server) = stdio_client_recorded(
        &home,
        &["--profile", &profile],
        &envs,
        Stdio::from(log_file(home.path(), "server.log")),
        &home.path().join("server-stdout.log"),
    )
    .await;

    let cases: Vec<(&str, Fault, &str, usize)> = vec![
        ("connection refused", Fault::Refuse, "transport_error", 1),
        (
            "reset, nothing processed",
            Fault::ResetWithoutProcessing,
            "transport_error",
            1,
        ),
        (
            "reset before the response",
            Fault::ResetBeforeResponse,
            "transport_error",
            1,
        ),
        (
            "timeout",
            Fault::Timeout(Duration::from_secs(5)),
            "transport_error",
            1,
        ),
        ("HTTP 500", Fault::Status5xx(500), "service_unavailable", 1),
        ("HTTP 503", Fault::Status5xx(503), "service_unavailable", 1),
        (
            "rate-limit page (HTTP 400 HTML)",
            Fault::RateLimitPage,
            "rate_limited",
            1,
        ),
        ("HTTP 429", Fault::Http429, "rate_limited", 1),
        (
            "malformed JSON",
            Fault::MalformedJson,
            "invalid_broker_response",
            1,
        ),
        (
            "HTML error page (500)",
            Fault::HtmlErrorPage,
            "service_unavailable",
            1,
        ),
        (
            "401 token_expired",
            Fault::Unauthorized(OauthProblem::TokenExpired),
            "authorization_expired",
            1,
        ),
        (
            "401 consumer_key_rejected",
            Fault::Unauthorized(OauthProblem::ConsumerKeyRejected),
            "authentication_failed",
            1,
        ),
        (
            "401 signature_invalid",
            Fault::Unauthorized(OauthProblem::SignatureInvalid),
            "authentication_failed",
            1,
        ),
        // Renew once, send the read again: that one succeeds.
        (
            "401 token_rejected (idle)",
            Fault::Unauthorized(OauthProblem::TokenRejected),
            "ok",
            2,
        ),
    ];
    let mut table = String::from("| fault | result | requests on the wire |\n|---|---|---|\n");
    let mut failures = Vec::new();
    for (name, fault, want, want_requests) in cases {
        fake.clear_requests();
        fake.inject_fault("GET /v1/accounts/list", fault, Some(1));
        let r = call(&client, "list_accounts", serde_json::json!({}))
            .await
            .expect("a tool result");
        let p = payload(&r);
        let got = if r.is_error == Some(true) {
            p["error"]["code"].as_str().unwrap_or("?").to_string()
        } else {
            "ok".to_string()
        };
        let on_wire = fake.count("GET", "/v1/accounts/list");
        table.push_str(&format!("| {name} | {got} | {on_wire} |\n"));
        if got != want || on_wire != want_requests {
            failures.push(format!(
                "{name}: got {got} with {on_wire} request(s), want {want} with {want_requests}"
            ));
        }
        canaries.assert_absent_in_str(&format!("{name}: the tool output"), &p.to_string());
        if r.is_error == Some(true) {
            assert_eq!(p["data"], serde_json::Value::Null);
            assert_eq!(p["error"]["validation_errors"], serde_json::json!([]));
        }
        fake.clear_faults();
    }
    println!("{table}");
    stop_stdio_server(client, server).await;
    let log = std::fs::read_to_string(home.path().join("server.log")).unwrap_or_default();
    assert!(
        log.contains("DEBUG") && log.contains("access token renewed"),
        "the debug log is really captured"
    );
    canaries.assert_absent_in_dir(home.path());
    assert!(failures.is_empty(), "{}\n{table}", failures.join("\n"));
}
