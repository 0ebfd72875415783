//! A vault for one test: two real OS accounts (the vault's and a person's), the vault
//! installed with `etrade vault install --no-service` and run as its account with
//! `etrade vault run`, and every person-side command run as the person through it.

use crate::accounts::{Account, is_root, shared_binary};
use crate::common::Client;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// A trading profile that asks a person before every order, with the PIN.
pub const REQUIRED: &str = "[profiles.default]\nenvironment = \"paper\"\ncredential_store = \"file\"\n\n[profiles.default.trading]\napproval = \"required\"\n";

pub const PIN: &str = "correct horse battery";

pub struct Vault {
    pub root: tempfile::TempDir,
    pub etrade: PathBuf,
    pub state: PathBuf,
    pub socket: PathBuf,
    pub person_home: PathBuf,
    pub vault_account: Account,
    pub person: Account,
    log: PathBuf,
    running: Option<std::process::Child>,
}

/// Whether this test can run here; says why not on stderr when it cannot.
pub fn can_run(test: &str) -> bool {
    if is_root() {
        return true;
    }
    eprintln!("{test}: not run: creating OS accounts needs root (CI runs as root)");
    false
}

impl Vault {
    /// Installs a vault for `tag` (a few letters, unique per test) with `vault_toml` as its
    /// configuration, and starts it.
    pub fn start(tag: &str, vault_toml: &str) -> Vault {
        let root = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod root");
        let bin_dir = root.path().join("bin");
        std::fs::create_dir(&bin_dir).expect("bin dir");
        let etrade = shared_binary(&bin_dir);
        let state = root.path().join("vault-state");
        let socket = root.path().join("run/vault.sock");
        let person_home = root.path().join("person");
        std::fs::create_dir(&person_home).expect("person home");
        let vault_account = Account::create(&format!("etv-{tag}-v"), &state);
        let person = Account::create(&format!("etv-{tag}-p"), &person_home);
        chown(&person_home, &person.name);

        install(&etrade, &vault_account.name, &state, &socket);
        // The operator's configuration, written as root, as an operator edits it.
        std::fs::write(state.join("vault.toml"), vault_toml).expect("vault.toml");
        chown(&state.join("vault.toml"), &vault_account.name);
        let log = root.path().join("vault.log");
        let mut vault = Vault {
            root,
            etrade,
            state,
            socket,
            person_home,
            vault_account,
            person,
            log,
            running: None,
        };
        vault.run();
        vault
    }

    /// Starts `etrade vault run` as the vault's account and waits for its socket.
    pub fn run(&mut self) {
        let log = std::fs::File::create(&self.log).expect("vault log");
        let child = Command::new("setpriv")
            .args(as_account(&self.vault_account.name))
            .arg(&self.etrade)
            .args(["vault", "run", "--state"])
            .arg(&self.state)
            .arg("--socket")
            .arg(&self.socket)
            .env_clear()
            .env("PATH", "/usr/bin:/bin:/usr/sbin:/sbin")
            .env("HOME", &self.state)
            .env("RUST_LOG", "info")
            .env("BROWSER", "/bin/false")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("setpriv runs");
        self.running = Some(child);
        for _ in 0..200 {
            if std::os::unix::net::UnixStream::connect(&self.socket).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("the vault did not listen: {}", self.log_text());
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// `etrade ARGS` as the person, through the vault, with `stdin` as its input.
    pub fn person(&self, args: &[&str], stdin: &str) -> Output {
        self.person_with(args, stdin, &[])
    }

    pub fn person_with(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
        let mut cmd = self.person_command(&self.etrade, args);
        cmd.envs(env.iter().copied());
        run_with_input(cmd, stdin)
    }

    /// `program ARGS` as the person, in the person's home, with the vault named.
    pub fn person_command(&self, program: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new("setpriv");
        cmd.args(as_account(&self.person.name))
            .arg(program)
            .args(args)
            .current_dir(&self.person_home)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.person_home)
            .env("BROWSER", crate::common::RECORD_BROWSER)
            .env("ETRADE_MCP_VAULT", &self.socket);
        cmd
    }

    /// An MCP client of `etrade serve EXTRA` run as the person (through the vault).
    pub async fn person_mcp(&self, extra: &[&str]) -> Client {
        let mut args = vec!["serve"];
        args.extend_from_slice(extra);
        let cmd = tokio::process::Command::from(self.person_command(&self.etrade, &args));
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn etrade serve as the person");
        crate::common::client_info(rmcp::model::ProtocolVersion::V_2025_11_25)
            .serve(transport)
            .await
            .expect("initialize over stdio through the vault")
    }
}

impl Drop for Vault {
    fn drop(&mut self) {
        if let Some(mut child) = self.running.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        // What the vault started for its clients, and what the person left running: an
        // account with a process cannot be deleted.
        for account in [&self.vault_account.name, &self.person.name] {
            let _ = Command::new("pkill")
                .args(["-KILL", "-u", account])
                .status();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn as_account(name: &str) -> [String; 3] {
    [
        format!("--reuid={name}"),
        format!("--regid={name}"),
        "--clear-groups".to_string(),
    ]
}

pub fn chown(path: &Path, account: &str) {
    let done = Command::new("chown")
        .arg(format!("{account}:{account}"))
        .arg(path)
        .status()
        .expect("chown runs");
    assert!(done.success(), "chown {}", path.display());
}

pub fn run_with_input(mut cmd: Command, stdin: &str) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command runs");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.as_bytes());
    }
    child.wait_with_output().expect("the command ends")
}

pub fn text(out: &Output) -> String {
    crate::common::output_text(out)
}

fn install(etrade: &Path, account: &str, state: &Path, socket: &Path) {
    let installed = Command::new(etrade)
        .args(["vault", "install", "--account", account, "--no-service"])
        .arg("--state")
        .arg(state)
        .arg("--socket")
        .arg(socket)
        .output()
        .expect("etrade runs");
    assert!(
        installed.status.success(),
        "vault install: {}",
        text(&installed)
    );
}

/// Asserts that the attack `what` failed, and prints what it met (the replay in the issue's
/// note is `cargo nextest run --test vault --no-capture`).
pub fn refused(what: &str, out: &Output) {
    assert!(!out.status.success(), "{what} succeeded: {}", text(out));
    let said = String::from_utf8_lossy(&out.stderr);
    let last = said
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(nothing on stderr)");
    eprintln!(
        "ATTACK {what}\n  -> refused (exit {:?}): {last}",
        out.status.code()
    );
}
