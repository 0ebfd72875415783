//! The built binary over stdio, driven by a real MCP client.

use crate::common;

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

/// What the model reads of tools/list with every permission, in bytes of JSON: each tool as
/// listed without its outputSchema (name, title, description, input schema, annotations).
/// Hosts put this before the model on every turn, so it is what a new tool must pay for.
const MODEL_READS_BUDGET: usize = 32_768;

/// The most one tool's outputSchema may weigh. Output schemas are for the client's
/// validator, not the model, and are about as small as schemas accepting exactly the same
/// results get (see codegen/src/json_schema.rs); they grow with what E*TRADE sends, which the
/// contract says a result keeps whole. The ceiling catches a schema that balloons (a type
/// inlined instead of referenced), not a field added.
const OUTPUT_SCHEMA_CEILING: usize = 12_288;

#[tokio::test]
async fn tools_list_with_every_permission_fits_its_budget() {
    let home = home();
    let client = stdio_client(&home, &["--allow-trading", "--allow-alert-deletion"]).await;
    let list = client.list_tools(None).await.expect("tools/list");
    assert_eq!(list.next_cursor, None, "one page");
    // What the model reads: app-only tools go only to clients that render apps, whose
    // hosts keep them from the model.
    let model_tools: Vec<_> = etrade_mcp::generated::TOOLS
        .iter()
        .filter(|t| !t.app_only())
        .collect();
    assert_eq!(list.tools.len(), model_tools.len());
    for (tool, spec) in list.tools.iter().zip(model_tools.iter().copied()) {
        assert_eq!(tool.name, spec.name);
        assert_hints_as_the_spec_reads_them(tool, spec);
    }
    let bytes = serde_json::to_string(&list).expect("JSON").len();
    println!("{:<26} {:>8} {:>8}", "tool", "model", "output");
    let (mut model_reads, mut outputs) = (0, 0);
    let mut too_big = Vec::new();
    for t in &list.tools {
        let output = serde_json::to_string(&t.output_schema).map_or(0, |s| s.len());
        let mut read = t.clone();
        read.output_schema = None;
        let read = serde_json::to_string(&read).expect("JSON").len();
        println!("{:<26} {read:>8} {output:>8}", t.name);
        model_reads += read;
        outputs += output;
        if output > OUTPUT_SCHEMA_CEILING {
            too_big.push(format!("{} ({output} bytes)", t.name));
        }
    }
    println!(
        "tools/list, {} tools: {bytes} bytes; the model reads {model_reads} \
         (budget {MODEL_READS_BUDGET}); outputSchemas {outputs}",
        list.tools.len()
    );
    assert!(
        model_reads <= MODEL_READS_BUDGET,
        "the model reads {model_reads} bytes of tools/list, over its {MODEL_READS_BUDGET}-byte budget"
    );
    assert!(
        too_big.is_empty(),
        "outputSchemas over the {OUTPUT_SCHEMA_CEILING}-byte ceiling: {too_big:?}"
    );
    client.cancel().await.expect("clean shutdown");
}

/// The official MCP Python SDK checks every result, errors included, against the advertised
/// outputSchema with its own validator (the `jsonschema` package).
#[tokio::test]
async fn the_python_sdk_accepts_every_result() {
    let home = home();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/check_results.py");
    let out = tokio::process::Command::new("python3")
        .args([
            script,
            "--",
            bin(),
            "serve",
            "--allow-trading",
            "--allow-alert-deletion",
        ])
        .env("ETRADE_MCP_HOME", home.path())
        .env("ETRADE_MCP_CREDENTIAL_STORE", "memory")
        .env_remove("ETRADE_MCP_HTTP_TOKEN")
        .env_remove("ETRADE_MCP_ENVIRONMENT")
        .env_remove("ETRADE_MCP_PROFILE")
        .kill_on_drop(true)
        .output()
        .await
        .expect("python3 (the MCP SDK: pip install mcp)");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect(&text);
    assert_eq!(v["problems"], serde_json::json!([]), "{text}");
    let checked = v["checked"].as_array().expect("checked");
    for tool in v["listed"].as_array().expect("listed") {
        assert!(
            checked.iter().any(|c| c[0] == *tool),
            "{tool} called: {text}"
        );
    }
    for is_error in [false, true] {
        assert!(checked.iter().any(|c| c[1] == is_error), "{text}");
    }
}
