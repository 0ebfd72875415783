//! The attacks of an agent with a shell as the person, each run as the person against a vault
//! under its own account, and each shown to fail.

use crate::fixture::{
    PIN, REQUIRED, Vault, as_account, can_run, chown, refused, run_with_input, text,
};
use crate::person_paths::{account_key, call, place, preview, set_pin};
use serde_json::json;
use std::path::Path;
use std::process::{Command, Output};

fn sh_as_person(v: &Vault, script: &str, arg: &Path) -> Output {
    let mut cmd = v.person_command(Path::new("/bin/sh"), &["-c", script]);
    cmd.arg(arg);
    run_with_input(cmd, "")
}

#[tokio::test]
async fn approving_needs_the_right_pin() {
    if !can_run("approving_needs_the_right_pin") {
        return;
    }
    let v = Vault::start("ap", REQUIRED);
    set_pin(&v);
    let client = v.person_mcp(&["--allow-trading"]).await;
    let key = account_key(&client).await;
    let id = preview(&client, &key, "AAPL").await;

    let without = v.person(&["approve", &id, "--yes"], "");
    refused("approve with no PIN on standard input", &without);
    let empty = v.person(&["approve", &id, "--yes"], "\n");
    refused("approve with an empty PIN", &empty);
    let wrong = v.person(&["approve", &id, "--yes"], "not the pin at all\n");
    refused("approve with a wrong PIN", &wrong);
    assert!(
        text(&wrong).contains("nothing was approved"),
        "{}",
        text(&wrong)
    );
    let (was_refused, answer) = place(&client, &key, &id).await;
    assert!(was_refused, "not placed: {answer}");
    let _ = client.cancel().await;
}

#[tokio::test]
async fn the_person_cannot_read_delete_rename_or_overwrite_any_vault_file() {
    if !can_run("the_person_cannot_read_delete_rename_or_overwrite_any_vault_file") {
        return;
    }
    let v = Vault::start("fs", REQUIRED);
    set_pin(&v);
    let client = v.person_mcp(&["--allow-trading"]).await;
    let key = account_key(&client).await;
    preview(&client, &key, "AAPL").await;
    let _ = client.cancel().await;
    let halted = v.person(&["halt"], "");
    assert!(halted.status.success(), "{}", text(&halted));

    let mut files: Vec<_> = std::fs::read_dir(&v.state)
        .expect("state folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let names: Vec<String> = files
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    for expected in ["vault.toml", "trading.redb", "paper-default.redb"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    assert!(
        names.iter().any(|n| n.starts_with("halt-")),
        "a halt record in {names:?}"
    );
    for file in &files {
        let before = std::fs::read(file).expect("root reads it");
        for (what, script) in [
            ("read", "cat \"$0\" > /dev/null"),
            ("delete", "rm -f \"$0\""),
            ("rename", "mv \"$0\" \"$0.moved\""),
            ("overwrite", "echo x > \"$0\""),
            (
                "replace",
                "cp /etc/hostname \"$0.new\" && mv -f \"$0.new\" \"$0\"",
            ),
            ("link away", "ln \"$0\" /tmp/etv-stolen-link"),
        ] {
            let out = sh_as_person(&v, script, file);
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
            refused(&format!("{what} {}", name.unwrap_or_default()), &out);
        }
        // A live redb file may change under the vault itself; a config or halt may not.
        if !file.to_string_lossy().ends_with(".redb") {
            assert_eq!(std::fs::read(file).expect("still there"), before);
        }
        assert!(file.exists(), "{} is still there", file.display());
    }
    for (what, script) in [
        ("list", "ls \"$0\""),
        ("create a file in", "touch \"$0/halt-none.json\""),
        ("remove the socket beside", "rm -f \"$0/../run/vault.sock\""),
    ] {
        let out = sh_as_person(&v, script, &v.state);
        refused(&format!("{what} the state folder"), &out);
    }
    assert!(v.socket.exists(), "the socket is still there");
    let still = v.person(&["resume"], "");
    refused("resume after trying to touch the halt file", &still);
}

#[tokio::test]
async fn the_pin_hash_is_in_nothing_the_person_can_read() {
    if !can_run("the_pin_hash_is_in_nothing_the_person_can_read") {
        return;
    }
    let v = Vault::start("ph", REQUIRED);
    set_pin(&v);
    // The control: root finds the stored hash and its salt in the vault's store.
    let stored = Command::new("grep")
        .args(["-ohaE", "\"(salt|hash)\":\"[0-9a-f]{32,}\""])
        .arg(v.state.join("trading.redb"))
        .output()
        .expect("grep runs");
    let secrets: Vec<String> = String::from_utf8_lossy(&stored.stdout)
        .lines()
        .filter_map(|l| l.rsplit(':').next())
        .map(|hex| hex.trim_matches('"').to_string())
        .collect();
    assert!(
        secrets.len() >= 2,
        "the PIN's salt and hash are in the vault's store: {}",
        text(&stored)
    );
    // As the person: everything readable under the test's folders, their home, /tmp,
    // /dev/shm and /run.
    let mut search = v.person_command(
        Path::new("/bin/sh"),
        &[
            "-c",
            "grep -rlaF -e \"$0\" -e \"$1\" \"$2\" \"$3\" /tmp /dev/shm /run 2>/dev/null; true",
        ],
    );
    search
        .arg(&secrets[0])
        .arg(&secrets[1])
        .arg(v.root.path())
        .arg(&v.person_home);
    let found = run_with_input(search, "");
    let listed = String::from_utf8_lossy(&found.stdout);
    let readable: Vec<&str> = listed.lines().filter(|l| !l.is_empty()).collect();
    assert!(
        readable.is_empty(),
        "files the person can read that hold the PIN's hash or salt: {readable:?}"
    );
    // Nor does any command's output carry it.
    for args in [
        &["doctor", "--offline"][..],
        &["approve", "--list"],
        &["paper", "status"],
    ] {
        let out = v.person(args, "");
        for secret in &secrets {
            assert!(
                !text(&out).contains(secret.as_str()),
                "{args:?}: {}",
                text(&out)
            );
        }
    }
}

#[tokio::test]
async fn ten_wrong_pins_lock_even_for_a_person_whose_clock_runs_days_ahead() {
    if !can_run("ten_wrong_pins_lock_even_for_a_person_whose_clock_runs_days_ahead") {
        return;
    }
    let faketime = ["/usr/bin/faketime", "/bin/faketime"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("faketime is installed (.ci/run installs it): the attack needs a shifted clock");
    let v = Vault::start("lk", REQUIRED);
    set_pin(&v);
    let client = v.person_mcp(&["--allow-trading"]).await;
    let key = account_key(&client).await;
    let id = preview(&client, &key, "AAPL").await;
    for n in 0..10 {
        let wrong = v.person(&["approve", &id, "--yes"], &format!("wrong guess {n}\n"));
        refused(&format!("approve with wrong guess {n}"), &wrong);
    }
    // The control: faketime does move the person's clock three days on.
    let shifted = run_with_input(
        v.person_command(Path::new(faketime), &["-f", "+3d", "date", "+%s"]),
        "",
    );
    let then: i64 = String::from_utf8_lossy(&shifted.stdout)
        .trim()
        .parse()
        .expect("a time");
    assert!(
        then - jiff::Timestamp::now().as_second() > 2 * 86_400,
        "faketime shifts the clock: {}",
        text(&shifted)
    );
    let mut cmd = v.person_command(
        Path::new(faketime),
        &[
            "-f",
            "+3d",
            &v.etrade.to_string_lossy(),
            "approve",
            &id,
            "--yes",
        ],
    );
    cmd.env("ETRADE_MCP_VAULT", &v.socket);
    let right = run_with_input(cmd, &format!("{PIN}\n"));
    refused(
        "the right PIN after 10 wrong ones, from a process three days ahead (faketime +3d)",
        &right,
    );
    assert!(text(&right).contains("locked"), "{}", text(&right));
    let (was_refused, answer) = place(&client, &key, &id).await;
    assert!(was_refused, "{answer}");
    let _ = client.cancel().await;
}

#[tokio::test]
async fn a_halt_stays_until_the_right_pin() {
    if !can_run("a_halt_stays_until_the_right_pin") {
        return;
    }
    let v = Vault::start("ht", REQUIRED);
    set_pin(&v);
    let halted = v.person(&["halt", "--reason", "stop"], "");
    assert!(halted.status.success(), "{}", text(&halted));
    for (what, input) in [
        ("no PIN", ""),
        ("an empty PIN", "\n"),
        ("a wrong PIN", "nope nope nope\n"),
    ] {
        let out = v.person(&["resume"], input);
        refused(&format!("resume with {what}"), &out);
        let all = v.person(&["resume", "--all"], input);
        assert!(
            !all.status.success(),
            "resume --all with {what}: {}",
            text(&all)
        );
    }
    let client = v.person_mcp(&["--allow-trading"]).await;
    let (_, status) = call(&client, "server_status", json!({})).await;
    assert!(
        !status["data"]["trading_policy"]["halted"].is_null(),
        "still halted: {status}"
    );
    let _ = client.cancel().await;
}

#[tokio::test]
async fn the_person_s_own_etrade_without_the_vault_reaches_neither_its_book_nor_its_login() {
    if !can_run("the_person_s_own_etrade_without_the_vault_reaches_neither_its_book_nor_its_login")
    {
        return;
    }
    let v = Vault::start("ow", REQUIRED);
    set_pin(&v);
    let client = v.person_mcp(&["--allow-trading"]).await;
    let key = account_key(&client).await;
    let id = preview(&client, &key, "AAPL").await;
    let _ = client.cancel().await;
    // A login the vault holds, in its own file store (seeded by root, with a canary).
    let creds = v.state.join("credentials.json");
    std::fs::write(&creds, "{\"canary\":\"CANARY-vault-login\"}").expect("seed");
    chown(&creds, &v.vault_account.name);

    let state = v.state.to_string_lossy().into_owned();
    for env in [
        vec![("ETRADE_MCP_HOME", state.as_str())],
        vec![
            ("ETRADE_MCP_HOME", state.as_str()),
            ("ETRADE_MCP_INSIDE_VAULT", "1"),
        ],
    ] {
        for args in [
            &["paper", "status"][..],
            &["approve", "--list"],
            &["approve", &id, "--yes"],
            &[
                "auth",
                "status",
                "--environment",
                "sandbox",
                "--credential-store",
                "file",
            ],
        ] {
            let mut cmd = v.person_command(&v.etrade, args);
            cmd.env_remove("ETRADE_MCP_VAULT").envs(env.iter().copied());
            let out = run_with_input(cmd, &format!("{PIN}\n"));
            refused(
                &format!("own etrade {} with {env:?}, no vault", args.join(" ")),
                &out,
            );
            assert!(
                !out.status.success() && !text(&out).contains("CANARY-vault-login"),
                "{args:?} with {env:?} reached the vault's state: {}",
                text(&out)
            );
        }
    }
    // Its own serve, on its own state: a book of its own, without the vault's preview.
    let mut cmd = v.person_command(&v.etrade, &["approve", "--list"]);
    cmd.env_remove("ETRADE_MCP_VAULT");
    let own = run_with_input(cmd, "");
    assert!(!text(&own).contains(&id), "{}", text(&own));
}

#[tokio::test]
async fn the_person_s_config_narrows_but_cannot_turn_approval_off() {
    if !can_run("the_person_s_config_narrows_but_cannot_turn_approval_off") {
        return;
    }
    let v = Vault::start("cf", REQUIRED);
    set_pin(&v);
    let config_dir = v.person_home.join(".config/etrade-mcp");
    std::fs::create_dir_all(&config_dir).expect("config dir");
    std::fs::write(
        config_dir.join("config.toml"),
        "[profiles.default]\nenvironment = \"paper\"\n\n[profiles.default.trading]\napproval = \"none\"\nmax_order_quantity = \"2\"\n",
    )
    .expect("config");
    let _ = Command::new("chown")
        .arg("-R")
        .arg(format!("{0}:{0}", v.person.name))
        .arg(v.person_home.join(".config"))
        .status();
    let client = v.person_mcp(&["--allow-trading"]).await;
    let (_, status) = call(&client, "server_status", json!({})).await;
    assert_eq!(
        status["data"]["trading_policy"]["approval"], "required",
        "{status}"
    );
    let key = account_key(&client).await;
    // What it may do is narrow: its lower cap holds in the vault.
    assert_eq!(
        status["data"]["trading_policy"]["max_order_quantity"], "2",
        "{status}"
    );
    let order = |quantity: &str| {
        json!({"account_id_key": key, "request": {"order_type": "EQ", "symbol": "AAPL",
            "order_action": "BUY", "quantity": quantity, "price_type": "MARKET"}})
    };
    let (too_many, answer) = call(&client, "preview_order", order("3")).await;
    assert!(too_many, "the person's cap of 2 holds: {answer}");
    let (err, p) = call(&client, "preview_order", order("2")).await;
    assert!(!err, "{p}");
    let id = p["data"]["preview_id"]
        .as_str()
        .expect("preview_id")
        .to_string();
    let (was_refused, answer) = place(&client, &key, &id).await;
    assert!(
        was_refused,
        "the person's config.toml does not turn approval off: {answer}"
    );
    let _ = client.cancel().await;
}

#[test]
fn the_vault_runs_only_as_the_owner_of_its_state() {
    if !can_run("the_vault_runs_only_as_the_owner_of_its_state") {
        return;
    }
    let v = Vault::start("ow2", REQUIRED);
    let other = Command::new("setpriv")
        .args(as_account(&v.person.name))
        .arg(&v.etrade)
        .args(["vault", "run", "--state"])
        .arg(&v.state)
        .arg("--socket")
        .arg(v.person_home.join("mine.sock"))
        .output()
        .expect("runs");
    refused("vault run as the person, against the vault's state", &other);
    assert!(text(&other).contains("owner"), "{}", text(&other));
}

#[tokio::test]
async fn a_vault_without_a_pin_approves_nothing_and_lifts_no_halt() {
    if !can_run("a_vault_without_a_pin_approves_nothing_and_lifts_no_halt") {
        return;
    }
    let v = Vault::start("np", REQUIRED);
    let client = v.person_mcp(&["--allow-trading"]).await;
    let key = account_key(&client).await;
    let id = preview(&client, &key, "AAPL").await;
    let nothing = v.person(&["approve", &id, "--yes"], "");
    refused("approve in a vault with no PIN set, no PIN given", &nothing);
    for input in ["\n", "anything at all\n"] {
        let out = v.person(&["approve", &id, "--yes"], input);
        refused(
            &format!("approve in a vault with no PIN set, given {input:?}"),
            &out,
        );
        assert!(
            text(&out).contains("no approval PIN is set"),
            "{}",
            text(&out)
        );
    }
    let (was_refused, answer) = place(&client, &key, &id).await;
    assert!(was_refused, "{answer}");
    let halted = v.person(&["halt"], "");
    assert!(halted.status.success(), "{}", text(&halted));
    let resumed = v.person(&["resume"], "anything\n");
    refused("resume in a vault with no PIN set", &resumed);
    // Once the person sets one, it is the one asked.
    set_pin(&v);
    let approved = v.person(&["approve", &id, "--yes"], &format!("{PIN}\n"));
    assert!(approved.status.success(), "{}", text(&approved));
    let resumed = v.person(&["resume"], &format!("{PIN}\n"));
    assert!(resumed.status.success(), "{}", text(&resumed));
    let (err, placed) = place(&client, &key, &id).await;
    assert!(!err, "{placed}");
    let _ = client.cancel().await;
}

#[test]
fn the_vault_runs_no_command_line_that_points_it_elsewhere() {
    if !can_run("the_vault_runs_no_command_line_that_points_it_elsewhere") {
        return;
    }
    let v = Vault::start("ad", REQUIRED);
    // Through the person's own etrade: each refused, naming why, before anything runs.
    for args in [
        &["serve", "--environment", "production"][..],
        &["serve", "--listen", "0.0.0.0:9"],
        &["serve", "--credential-store", "file"],
        &["doctor", "--http-token-file", "/etc/shadow"],
        &["auth", "login", "--credential-store", "file"],
        &["paper", "status", "--profile", "not-in-vault-toml"],
    ] {
        let out = v.person(args, "");
        refused(&format!("etrade {}", args.join(" ")), &out);
        assert!(
            text(&out).contains("vault"),
            "{args:?} says the vault refused it: {}",
            text(&out)
        );
    }
    // Raw on the socket, as any program could: a command the person's etrade never sends.
    for hello in [
        r#"{"argv":["vault","run","--state","/tmp"]}"#,
        r#"{"argv":["vault","uninstall","--purge"]}"#,
        r#"{"argv":["tools"]}"#,
        r#"{"argv":["serve"],"as":"root"}"#,
        r#"{"argv":["serve","--","--transport","http"]}"#,
        "not json",
    ] {
        let (code, said) = raw_exchange(&v.socket, hello);
        assert_eq!(code, Some(2), "{hello}: {said}");
        assert!(said.contains("etrade vault:"), "{hello}: {said}");
    }
    assert!(v.state.join("vault.toml").exists());
}

/// Sends one hello line and reads the frames back: the exit code and the text.
fn raw_exchange(socket: &Path, hello: &str) -> (Option<i32>, String) {
    use std::io::{Read, Write};
    let mut stream = std::os::unix::net::UnixStream::connect(socket).expect("connect");
    stream
        .write_all(format!("{hello}\n").as_bytes())
        .expect("hello");
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut all = Vec::new();
    let _ = stream.read_to_end(&mut all);
    let (mut code, mut said, mut at) = (None, String::new(), 0);
    while at + 5 <= all.len() {
        let kind = all[at];
        let len = u32::from_be_bytes([all[at + 1], all[at + 2], all[at + 3], all[at + 4]]) as usize;
        let body = &all[at + 5..(at + 5 + len).min(all.len())];
        match kind {
            3 if len == 4 => code = Some(i32::from_be_bytes([body[0], body[1], body[2], body[3]])),
            _ => said.push_str(&String::from_utf8_lossy(body)),
        }
        at += 5 + len;
    }
    (code, said)
}
