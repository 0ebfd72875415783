//! `list_accounts` against the fake over MCP.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::sandbox::Sandbox;

#[tokio::test]
async fn list_accounts_success_invalid_and_errors() {
    let s = Sandbox::start("list-accounts").await;
    let (err, p) = s.call("list_accounts", serde_json::json!({})).await;
    assert!(!err, "{p}");
    let accounts = p["data"]["accounts"].as_array().expect("accounts");
    assert_eq!(accounts.len(), s.fake.fixtures().accounts.len());
    let (err, p) = s.call("list_accounts", serde_json::json!({"x": 1})).await;
    assert!(err);
    assert_eq!(p["error"]["code"], "invalid_input");
    s.expect_broker_faults(
        "GET /v1/accounts/list",
        "list_accounts",
        serde_json::json!({}),
    )
    .await;
}
