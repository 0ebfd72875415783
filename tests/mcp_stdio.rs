//! The built binary over stdio, driven by a real MCP client.

mod common;

use common::*;
use rmcp::model::ProtocolVersion;

#[tokio::test]
async fn stdio_contract() {
    let home = home();
    let client = stdio_client(&home, &[]).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("etrade-mcp")
    );
    exercise_contract(&client, "stdio").await;
    client.cancel().await.expect("clean shutdown");
}

#[tokio::test]
async fn stdio_negotiates_2025_06_18_too() {
    let home = home();
    let mut cmd = command(&home, &["serve"]);
    cmd.stderr(std::process::Stdio::null());
    let transport = rmcp::transport::TokioChildProcess::new(cmd).expect("spawn");
    let client = rmcp::ServiceExt::serve(client_info(ProtocolVersion::V_2025_06_18), transport)
        .await
        .expect("initialize");
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_06_18);
    exercise_contract(&client, "stdio").await;
}

#[tokio::test]
async fn trading_flag_is_reported_as_granted() {
    let home = home();
    let client = stdio_client(&home, &["--allow-trading"]).await;
    let r = call(&client, "server_status", serde_json::json!({}))
        .await
        .expect("call");
    let p = payload(&r);
    let perms = p["data"]["permissions"].as_array().expect("permissions");
    let trade = perms
        .iter()
        .find(|x| x["name"] == "trade")
        .expect("trade listed");
    assert_eq!(trade["granted"], true);
    let alerts = perms
        .iter()
        .find(|x| x["name"] == "alerts_delete")
        .expect("listed");
    assert_eq!(alerts["granted"], false);
}
