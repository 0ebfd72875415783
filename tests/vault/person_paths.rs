//! What the person does through the vault, as the person: set a PIN, preview, approve with
//! the PIN, place once, halt, resume with the PIN, paper status.

use crate::common::Client;
use crate::fixture::{PIN, REQUIRED, Vault, can_run, text};
use serde_json::{Value, json};

pub async fn call(client: &Client, tool: &str, args: Value) -> (bool, Value) {
    crate::common::call_payload(client, tool, args).await
}

pub async fn account_key(client: &Client) -> String {
    let (err, accounts) = call(client, "list_accounts", json!({})).await;
    assert!(!err, "{accounts}");
    accounts["data"]["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("an account key")
        .to_string()
}

pub async fn preview(client: &Client, key: &str, symbol: &str) -> String {
    let order = json!({"order_type": "EQ", "symbol": symbol, "order_action": "BUY",
        "quantity": "3", "price_type": "MARKET"});
    let (err, p) = call(
        client,
        "preview_order",
        json!({"account_id_key": key, "request": order}),
    )
    .await;
    assert!(!err, "{p}");
    p["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string()
}

pub async fn place(client: &Client, key: &str, id: &str) -> (bool, Value) {
    call(
        client,
        "place_order",
        json!({"account_id_key": key, "preview_id": id}),
    )
    .await
}

/// Sets the PIN as the person, through the vault.
pub fn set_pin(v: &Vault) {
    let out = v.person(&["approve", "--set-pin"], &format!("{PIN}\n{PIN}\n"));
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("The approval PIN is set"),
        "{}",
        text(&out)
    );
}

#[tokio::test]
async fn the_person_trades_through_the_vault() {
    if !can_run("the_person_trades_through_the_vault") {
        return;
    }
    let v = Vault::start("pp", REQUIRED);
    set_pin(&v);

    let client = v.person_mcp(&["--allow-trading"]).await;
    let (_, status) = call(&client, "server_status", json!({})).await;
    assert_eq!(
        status["data"]["trading_policy"]["approval"], "required",
        "{status}"
    );
    let key = account_key(&client).await;
    let id = preview(&client, &key, "AAPL").await;
    let (refused, answer) = place(&client, &key, &id).await;
    assert!(
        refused,
        "nothing is placed before a person approves: {answer}"
    );

    let listed = v.person(&["approve", "--list"], "");
    assert!(
        listed.status.success() && text(&listed).contains(&id),
        "{}",
        text(&listed)
    );
    let approved = v.person(&["approve", &id, "--yes"], &format!("{PIN}\n"));
    assert!(approved.status.success(), "{}", text(&approved));
    assert!(text(&approved).contains("Approved"), "{}", text(&approved));

    let (err, placed) = place(&client, &key, &id).await;
    assert!(!err, "placed once approved: {placed}");
    let (again, second) = place(&client, &key, &id).await;
    assert!(again, "a preview places once: {second}");

    let halted = v.person(&["halt", "--reason", "the agent misbehaves"], "");
    assert!(halted.status.success(), "{}", text(&halted));
    let id2 = preview(&client, &key, "MSFT").await;
    let approved = v.person(&["approve", &id2, "--yes"], &format!("{PIN}\n"));
    assert!(approved.status.success(), "{}", text(&approved));
    let (refused, answer) = place(&client, &key, &id2).await;
    assert!(refused, "a halt stops an approved order: {answer}");
    assert!(answer.to_string().contains("halt"), "{answer}");

    let resumed = v.person(&["resume"], &format!("{PIN}\n"));
    assert!(resumed.status.success(), "{}", text(&resumed));
    assert!(text(&resumed).contains("Resumed"), "{}", text(&resumed));
    let (err, placed2) = place(&client, &key, &id2).await;
    assert!(!err, "placed after the person resumed: {placed2}");

    let status = v.person(&["paper", "status"], "");
    assert!(status.status.success(), "{}", text(&status));
    let shown: Value = serde_json::from_slice(&status.stdout).expect("paper status is JSON");
    assert_eq!(
        shown["orders"], 2,
        "the vault's book holds the two orders placed: {shown}"
    );
    let _ = client.cancel().await;

    let log = v.log_text();
    let person_uid = uid_of(&v.person.name);
    assert!(
        log.contains(&format!("peer=uid {person_uid} pid ")),
        "the vault logs each client's peer: {log}"
    );
    // And writes it into the journal entries and approvals it records.
    let journal = std::process::Command::new("grep")
        .args(["-oaE", "\"peer\":\"uid [0-9]+ pid [0-9]+\""])
        .arg(v.state.join("trading.redb"))
        .output()
        .expect("grep runs");
    let peers = String::from_utf8_lossy(&journal.stdout).into_owned();
    assert!(
        peers.lines().count() >= 2
            && peers
                .lines()
                .all(|l| l.starts_with(&format!("\"peer\":\"uid {person_uid} pid "))),
        "the journal names the person's uid: {peers}"
    );
    assert!(
        text(&halted).contains(&format!("uid {person_uid} pid ")),
        "the halt names who asked: {}",
        text(&halted)
    );
}

pub fn uid_of(account: &str) -> String {
    let out = std::process::Command::new("id")
        .args(["-u", account])
        .output()
        .expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn doctor_reports_the_vault_and_tier_c() {
    if !can_run("doctor_reports_the_vault_and_tier_c") {
        return;
    }
    let v = Vault::start("dr", REQUIRED);
    let before = v.person(&["doctor", "--offline"], "");
    let shown = text(&before);
    assert!(shown.contains("ok vault: the trading vault at"), "{shown}");
    assert!(
        shown.contains("warn tier (c): held once the PIN is set"),
        "{shown}"
    );
    set_pin(&v);
    let after = v.person(&["doctor", "--offline"], "");
    let shown = text(&after);
    assert!(after.status.success(), "{shown}");
    assert!(shown.contains("ok   tier (c): held"), "{shown}");
    // Without the vault, the person's own doctor says there is none.
    let mut own = v.person_command(&v.etrade, &["doctor", "--offline"]);
    own.env_remove("ETRADE_MCP_VAULT");
    let own = crate::fixture::run_with_input(own, "");
    assert!(text(&own).contains("info vault: none"), "{}", text(&own));
}
