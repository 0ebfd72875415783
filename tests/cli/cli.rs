//! The `etrade` command line: catalog listing, configuration errors, graceful shutdown.

use crate::common;

use common::*;

#[tokio::test]
async fn tools_lists_the_catalog() {
    let home = home();
    let out = command(&home, &["tools"]).output().await.expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for t in etrade_mcp::generated::TOOLS.iter() {
        let line = text
            .lines()
            .find(|l| l.starts_with(t.name))
            .expect("tool listed");
        assert!(line.contains(t.permission), "{line}");
    }
}

#[tokio::test]
async fn tools_show_prints_both_schemas() {
    let home = home();
    let out = command(&home, &["tools", "show", "server_status"])
        .output()
        .await
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("input schema:") && text.contains("output schema:"));
    assert!(text.contains("\"additionalProperties\": false"));
    let missing = command(&home, &["tools", "show", "nope"])
        .output()
        .await
        .expect("run");
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no tool named"));
}

#[tokio::test]
async fn bad_config_names_file_line_and_key() {
    let home = home();
    std::fs::write(
        home.path().join("config.toml"),
        "[profiles.default]\nenvironment = \"papr\"\n",
    )
    .expect("write config");
    let out = command(&home, &["serve"]).output().await.expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml:2:"), "{err}");
    assert!(err.contains("profiles.default.environment"), "{err}");
}

#[tokio::test]
async fn config_profile_environment_applies_and_flags_override() {
    let home = home();
    std::fs::write(
        home.path().join("config.toml"),
        "[profiles.default]\nenvironment = \"sandbox\"\n",
    )
    .expect("write config");
    let client = stdio_client(&home, &[]).await;
    let r = call(&client, "server_status", serde_json::json!({}))
        .await
        .expect("call");
    let p = payload(&r);
    assert_eq!(p["meta"]["environment"], "sandbox");
    assert_eq!(p["data"]["credentials"]["state"], "missing");
    assert_eq!(p["data"]["credentials"]["required"], true);
    let detail = p["data"]["credentials"]["detail"].as_str().expect("detail");
    assert!(detail.contains("etrade auth login"), "{detail}");
    client.cancel().await.expect("close");

    let client = stdio_client(&home, &["--environment", "paper"]).await;
    let r = call(&client, "server_status", serde_json::json!({}))
        .await
        .expect("call");
    assert_eq!(payload(&r)["meta"]["environment"], "paper");
}

// SIGTERM is a Unix signal (Windows has Ctrl-C and Ctrl-Break instead).
#[cfg(unix)]
#[tokio::test]
async fn sigterm_shuts_the_http_server_down_gracefully() {
    let mut server = http_server(&[]).await;
    let pid = server.child.id().expect("pid");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), server.child.wait())
        .await
        .expect("exits within 10 s")
        .expect("wait");
    assert!(status.success(), "clean exit: {status:?}");
}

#[tokio::test]
async fn production_trading_needs_explicit_confirmation() {
    let home = home();
    let refused = command(
        &home,
        &["serve", "--environment", "production", "--allow-trading"],
    )
    .output()
    .await
    .expect("run");
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("--confirm-production"), "{err}");

    let client = stdio_client(
        &home,
        &[
            "--environment",
            "production",
            "--allow-trading",
            "--confirm-production",
        ],
    )
    .await;
    let r = call(&client, "server_status", serde_json::json!({}))
        .await
        .expect("call");
    let p = payload(&r);
    assert_eq!(p["meta"]["environment"], "production");
    let trade = p["data"]["permissions"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["name"] == "trade").cloned())
        .expect("trade listed");
    assert_eq!(trade["granted"], true);
}

/// `--allow-trading=BOOL` (what an MCP Bundle's switch passes): `false` grants nothing, the
/// same as leaving the flag out; `true` is the bare flag; anything else is refused.
#[tokio::test]
async fn allow_trading_takes_an_explicit_true_or_false() {
    let home = home();
    for (flag, listed) in [
        ("--allow-trading=false", false),
        ("--allow-trading=true", true),
        ("--allow-trading", true),
    ] {
        let client = stdio_client(&home, &[flag]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        assert_eq!(
            tools.iter().any(|t| t.name == "place_order"),
            listed,
            "{flag}: place_order listed"
        );
    }
    let refused = command(&home, &["serve", "--allow-trading=maybe"])
        .output()
        .await
        .expect("run");
    assert_eq!(refused.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("--allow-trading"), "{err}");
}

#[tokio::test]
async fn completions_cover_every_command() {
    let home = home();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = command(&home, &["completions", shell])
            .output()
            .await
            .expect("run");
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        for word in [
            "serve",
            "auth",
            "paper",
            "doctor",
            "tools",
            "--allow-trading",
        ] {
            assert!(script.contains(word), "{shell} completes {word}");
        }
    }
    let out = command(&home, &["completions", "tcsh"])
        .output()
        .await
        .expect("run");
    assert!(!out.status.success(), "an unknown shell is refused");
}

/// `etrade tools show get_portfolio | head`: the reader leaves after a few bytes of an
/// 80 KB answer (more than a pipe buffers), and the command ends quietly, without a panic.
#[tokio::test]
async fn a_closed_stdout_ends_the_command_quietly() {
    use tokio::io::AsyncReadExt;
    let home = home();
    {
        let args = ["tools", "show", "get_portfolio"];
        let mut child = command(&home, &args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdout = child.stdout.take().expect("stdout");
        let mut first = [0u8; 16];
        stdout.read_exact(&mut first).await.expect("some output");
        drop(stdout);
        let out = child.wait_with_output().await.expect("ends");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.trim().is_empty(), "{args:?} said nothing: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {:?}", out.status);
    }
}

/// A host that stopped reading the server's stderr: the shutdown log lines then fail to
/// write, and the server still ends cleanly (a panic would exit with 101). Stdin's end is the
/// host going away, the usual way a stdio server stops.
#[tokio::test]
async fn a_closed_stderr_never_panics_the_server() {
    use tokio::io::AsyncWriteExt;
    let home = home();
    let mut child = command(&home, &["serve"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .env("ETRADE_MCP_LOG", "debug")
        .spawn()
        .expect("spawn");
    drop(child.stderr.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .expect("write initialize");
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut answer = String::new();
    tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut answer)
        .await
        .expect("initialize answered");
    assert!(answer.contains("\"result\""), "{answer}");
    drop(stdin);
    let status = tokio::time::timeout(std::time::Duration::from_secs(20), child.wait())
        .await
        .expect("the server ends")
        .expect("wait");
    assert_eq!(status.code(), Some(0), "{status:?}");
}
