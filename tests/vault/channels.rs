//! How a person approves through the vault, and how a program on the socket cannot: a client
//! that answers its own approval form approves nothing (any local program can be the vault's
//! client), and the approval page opens in the person's browser from the person's side,
//! never reaching the model.

use crate::fixture::{REQUIRED, Vault, can_run};
use crate::person_paths::{account_key, call, place, preview, set_pin};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ErrorData, Implementation, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use std::sync::{Arc, Mutex};

/// A client that says yes to every form it is shown.
#[derive(Clone, Default)]
struct SaysYes {
    asked: Arc<Mutex<u32>>,
}

impl ClientHandler for SaysYes {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("says-yes", "1.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let Ok(mut n) = self.asked.lock() {
            *n += 1;
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"place_order": true})))
    }
}

#[tokio::test]
async fn a_client_that_answers_its_own_form_approves_nothing() {
    if !can_run("a_client_that_answers_its_own_form_approves_nothing") {
        return;
    }
    // No PIN set: with one, the form is never offered anyway (a form cannot carry a PIN), so
    // this is the case where only the vault's own rules stand between the form and a yes.
    let v = Vault::start("fm", REQUIRED);
    let cmd =
        tokio::process::Command::from(v.person_command(&v.etrade, &["serve", "--allow-trading"]));
    let (transport, _) = TokioChildProcess::builder(cmd)
        .spawn()
        .expect("serve as the person");
    let yes = SaysYes::default();
    let asked = yes.asked.clone();
    let client = yes.serve(transport).await.expect("initialize");
    let key = account_key_of(&client).await;
    let (_, pv) = crate::common::call_payload(
        &client,
        "preview_order",
        json!({"account_id_key": key, "request": {"order_type": "EQ", "symbol": "AAPL",
            "order_action": "BUY", "quantity": "3", "price_type": "MARKET"}}),
    )
    .await;
    let id = pv["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string();
    let (refused, answer) = crate::common::call_payload(
        &client,
        "place_order",
        json!({"account_id_key": key, "preview_id": id}),
    )
    .await;
    assert!(
        refused,
        "a form the client answers itself places nothing: {answer}"
    );
    assert_eq!(*asked.lock().expect("lock"), 0, "no form is even offered");
    let _ = client.cancel().await;
}

async fn account_key_of<H: ClientHandler>(
    client: &rmcp::service::RunningService<RoleClient, H>,
) -> String {
    let (_, accounts) = crate::common::call_payload(client, "list_accounts", json!({})).await;
    accounts["data"]["accounts"][0]["accountIdKey"]
        .as_str()
        .expect("an account key")
        .to_string()
}

#[tokio::test]
async fn the_approval_page_opens_on_the_person_s_side_and_never_reaches_the_model() {
    if !can_run("the_approval_page_opens_on_the_person_s_side_and_never_reaches_the_model") {
        return;
    }
    let toml = format!("{REQUIRED}approval_page = true\n");
    let v = Vault::start("pg", &toml);
    set_pin(&v);
    // The stand-in browser writes what it is asked to open into ETRADE_MCP_HOME.
    let mut cmd = v.person_command(&v.etrade, &["serve", "--allow-trading"]);
    cmd.env("ETRADE_MCP_HOME", &v.person_home);
    let (transport, _) = TokioChildProcess::builder(tokio::process::Command::from(cmd))
        .spawn()
        .expect("serve as the person");
    let client = crate::common::client_info(ProtocolVersion::V_2025_11_25)
        .serve(transport)
        .await
        .expect("initialize");
    let key = account_key(&client).await;
    let id = preview(&client, &key, "AAPL").await;
    let (refused, answer) = place(&client, &key, &id).await;
    assert!(refused, "{answer}");
    let opened = crate::common::opened_in_browser(&v.person_home, 1).await;
    assert_eq!(
        opened.len(),
        1,
        "the person's side opened the page: {opened:?}"
    );
    let url = &opened[0];
    assert!(url.contains("/approve/"), "{url}");
    assert!(
        !answer.to_string().contains(url.as_str()),
        "the one-time address never reaches the model: {answer}"
    );
    let page = reqwest::get(url).await.expect("the page answers");
    assert!(page.status().is_success(), "{}", page.status());
    let body = page.text().await.expect("body");
    assert!(body.contains("AAPL"), "the page shows the order: {body}");
    let (_, status) = call(&client, "server_status", json!({})).await;
    assert!(
        !status.to_string().contains(url.as_str()),
        "nor does server_status carry it"
    );
    let _ = client.cancel().await;
}
