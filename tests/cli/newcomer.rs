//! What a newcomer meets first: `etrade serve` typed at a terminal says what it is waiting
//! for, and a refusal that needs a person names a command that runs here (the binary's full
//! path when `etrade` is not on PATH, as when a host starts a built binary by path).

use crate::common;

use serde_json::json;

/// `script` gives the server a terminal for stdin (as a person typing `etrade serve` would);
/// its stdin is then at its end, so the server stops.
#[tokio::test]
async fn serve_at_a_terminal_says_it_waits_for_an_mcp_client_and_ends_cleanly() {
    let home = common::home();
    let line = format!("{} serve", common::bin());
    let out = tokio::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("ETRADE_MCP_HOME", home.path())
        .env("ETRADE_MCP_CREDENTIAL_STORE", "memory")
        .env_remove("ETRADE_MCP_ENVIRONMENT")
        .env_remove("ETRADE_MCP_PROFILE")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("script (util-linux) runs the server on a terminal");
    let said = common::output_text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("waiting for an MCP client on standard input"),
        "{said}"
    );
    assert!(
        said.contains(&format!("\"command\": \"{}\"", common::bin())),
        "the host snippet names this binary: {said}"
    );
}

/// Without `etrade` on PATH, the approval refusal and the ticket name the full path.
#[tokio::test]
async fn the_approval_command_names_the_binary_when_etrade_is_not_on_path() {
    let home = common::home();
    std::fs::write(
        home.path().join("config.toml"),
        "[profiles.newcomer]\nenvironment = \"paper\"\n\n[profiles.newcomer.trading]\napproval = \"required\"\n",
    )
    .expect("config");
    let client = common::stdio_client(&home, &["--profile", "newcomer", "--allow-trading"]).await;
    let (err, accounts) = common::call_payload(&client, "list_accounts", json!({})).await;
    assert!(!err, "{accounts}");
    let key = accounts["data"]["accounts"][0]["accountIdKey"].clone();
    let order = json!({"order_type": "EQ", "symbol": "AAPL", "order_action": "BUY",
        "quantity": "1", "price_type": "LIMIT", "limit_price": "100.00"});
    let (err, pv) = common::call_payload(
        &client,
        "preview_order",
        json!({"account_id_key": key, "request": order}),
    )
    .await;
    assert!(!err, "{pv}");
    let id = pv["data"]["preview_id"].as_str().expect("preview_id");
    let (err, refused) = common::call_payload(
        &client,
        "place_order",
        json!({"account_id_key": key, "preview_id": id}),
    )
    .await;
    assert!(err, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    let full = format!("{} approve {id}", common::bin());
    assert!(message.contains(&full), "{message}");
    let _ = client.cancel().await;
}
