//! `etrade vault install` and `uninstall` for real (Linux, as root, `--no-service`: systemd
//! does not run this machine): the account, the folders' owners and modes, a second install,
//! what uninstall keeps and what `--purge` removes.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::accounts::{Account, common_text, is_root, shared_binary};

fn skip_unless_root(test: &str) -> bool {
    if is_root() {
        return false;
    }
    eprintln!("{test}: not run: creating OS accounts needs root (CI runs as root)");
    true
}

/// Deletes an account the install made, however the test ends.
struct Made(&'static str);

impl Made {
    fn new(name: &'static str) -> Made {
        let _ = Command::new("userdel").arg(name).output();
        Made(name)
    }
}

impl Drop for Made {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(self.0).output();
    }
}

fn uid_of(name: &str) -> Option<u32> {
    let out = Command::new("id").args(["-u", name]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

fn passwd_entry(name: &str) -> String {
    let out = Command::new("getent")
        .args(["passwd", name])
        .output()
        .expect("getent runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn etrade(args: &[&str], state: &Path, socket: &Path) -> Output {
    Command::new(crate::common::bin())
        .args(["vault"])
        .args(args)
        .arg("--state")
        .arg(state)
        .arg("--socket")
        .arg(socket)
        .output()
        .expect("etrade runs")
}

fn install(account: &str, state: &Path, socket: &Path) -> Output {
    etrade(
        &["install", "--account", account, "--no-service"],
        state,
        socket,
    )
}

fn mode_and_owner(path: &Path) -> (u32, u32) {
    let meta = std::fs::symlink_metadata(path).expect("exists");
    (meta.permissions().mode() & 0o7777, meta.uid())
}

struct Places {
    _tmp: tempfile::TempDir,
    state: PathBuf,
    socket: PathBuf,
}

fn places() -> Places {
    let tmp = tempfile::tempdir().expect("tempdir");
    let state = tmp.path().join("vault-state");
    let socket = tmp.path().join("run/vault.sock");
    Places {
        _tmp: tmp,
        state,
        socket,
    }
}

#[test]
fn install_makes_the_account_and_its_private_folder_and_is_idempotent() {
    if skip_unless_root("install_makes_the_account_and_its_private_folder_and_is_idempotent") {
        return;
    }
    let name = "etv-i1-vault";
    let _made = Made::new(name);
    let p = places();

    let out = install(name, &p.state, &p.socket);
    assert!(out.status.success(), "{}", common_text(&out));
    let uid = uid_of(name).expect("the account exists");
    assert_ne!(uid, 0);
    let entry = passwd_entry(name);
    assert!(
        entry.ends_with(&format!(":{}:/usr/sbin/nologin", p.state.display())),
        "home is the state folder, no login shell: {entry}"
    );
    let config = p.state.join("vault.toml");
    let socket_dir = p.socket.parent().expect("a folder");
    assert_eq!(mode_and_owner(&p.state), (0o700, uid));
    assert_eq!(mode_and_owner(&config), (0o600, uid));
    assert_eq!(mode_and_owner(socket_dir), (0o755, uid));
    let text = std::fs::read_to_string(&config).expect("vault.toml");
    assert!(text.contains("credential_store = \"file\""), "{text}");
    assert!(
        common_text(&out).contains(&format!("runuser -u {name} --")),
        "the next step: {}",
        common_text(&out)
    );

    // A second install keeps an edited vault.toml and puts loosened modes back.
    std::fs::write(&config, "# edited\n").expect("edit");
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o666)).expect("chmod");
    std::fs::set_permissions(&p.state, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let again = install(name, &p.state, &p.socket);
    assert!(again.status.success(), "{}", common_text(&again));
    assert_eq!(uid_of(name), Some(uid), "the same account");
    assert_eq!(
        std::fs::read_to_string(&config).expect("read"),
        "# edited\n"
    );
    assert_eq!(mode_and_owner(&p.state), (0o700, uid));
    assert_eq!(mode_and_owner(&config), (0o600, uid));
}

#[test]
fn uninstall_keeps_the_state_and_purge_removes_it_with_the_account() {
    if skip_unless_root("uninstall_keeps_the_state_and_purge_removes_it_with_the_account") {
        return;
    }
    let name = "etv-i2-vault";
    let _made = Made::new(name);
    let p = places();
    let out = install(name, &p.state, &p.socket);
    assert!(out.status.success(), "{}", common_text(&out));
    let socket_dir = p.socket.parent().expect("a folder").to_path_buf();

    let out = etrade(&["uninstall"], &p.state, &p.socket);
    assert!(out.status.success(), "{}", common_text(&out));
    assert!(!socket_dir.exists(), "the socket's folder is removed");
    assert!(p.state.join("vault.toml").exists(), "the state stays");
    assert!(uid_of(name).is_some(), "the account stays");

    let out = etrade(&["uninstall", "--purge"], &p.state, &p.socket);
    assert!(out.status.success(), "{}", common_text(&out));
    assert!(!p.state.exists(), "--purge removes the state");
    assert_eq!(uid_of(name), None, "--purge removes the account");
}

#[test]
fn purge_keeps_an_account_whose_home_is_elsewhere() {
    if skip_unless_root("purge_keeps_an_account_whose_home_is_elsewhere") {
        return;
    }
    let p = places();
    let home = p.state.with_file_name("elsewhere");
    let other = Account::create("etv-i4-other", &home);
    std::fs::create_dir(&p.state).expect("state");
    Command::new("chown")
        .arg(format!("{0}:{0}", other.name))
        .arg(&p.state)
        .status()
        .expect("chown");
    let out = etrade(&["uninstall", "--purge"], &p.state, &p.socket);
    assert!(out.status.success(), "{}", common_text(&out));
    assert!(uid_of(&other.name).is_some(), "{}", common_text(&out));
}

#[test]
fn install_refuses_without_root() {
    if skip_unless_root("install_refuses_without_root") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let bin_dir = tmp.path().join("bin");
    std::fs::create_dir(&bin_dir).expect("bin dir");
    let etrade = shared_binary(&bin_dir);
    let home = tmp.path().join("person");
    let person = Account::create("etv-i3-person", &home);
    let _not_made = Made::new("etv-i3-vault");
    let state = tmp.path().join("vault-state");
    let state_arg = state.to_string_lossy().into_owned();
    let socket_arg = tmp
        .path()
        .join("run/vault.sock")
        .to_string_lossy()
        .into_owned();
    for verb in [
        vec![
            "vault",
            "install",
            "--account",
            "etv-i3-vault",
            "--no-service",
        ],
        vec!["vault", "uninstall", "--purge"],
    ] {
        let mut args = verb.clone();
        args.extend(["--state", &state_arg, "--socket", &socket_arg]);
        let out = person.run(&etrade, &args, tmp.path());
        assert!(!out.status.success(), "{}", common_text(&out));
        assert!(
            common_text(&out).contains("must run as root"),
            "{}",
            common_text(&out)
        );
    }
    assert!(!state.exists());
    assert_eq!(uid_of("etv-i3-vault"), None);
}
