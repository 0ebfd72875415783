//! Each attack of the vault issue, as the person, against a vault run as its own account.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use crate::accounts::{Account, common_text, is_root, shared_binary};

fn skip_unless_root(test: &str) -> bool {
    if is_root() {
        return false;
    }
    eprintln!("{test}: not run: creating OS accounts needs root (CI runs as root)");
    true
}

#[test]
fn vault_run_refuses_root() {
    if skip_unless_root("vault_run_refuses_root") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let state = tmp.path().join("state");
    let out = Command::new(crate::common::bin())
        .args(["vault", "run", "--state"])
        .arg(&state)
        .arg("--socket")
        .arg(tmp.path().join("vault.sock"))
        .output()
        .expect("etrade runs");
    assert!(!out.status.success(), "{}", common_text(&out));
    assert!(
        common_text(&out).contains("root"),
        "the refusal names root: {}",
        common_text(&out)
    );
}

#[test]
fn the_person_cannot_delete_rename_or_overwrite_vault_files() {
    if skip_unless_root("the_person_cannot_delete_rename_or_overwrite_vault_files") {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let bin_dir = tmp.path().join("bin");
    std::fs::create_dir(&bin_dir).expect("bin dir");
    let etrade = shared_binary(&bin_dir);
    let state = tmp.path().join("vault-state");
    let person_home = tmp.path().join("person");
    std::fs::create_dir(&person_home).expect("person home");
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let _vault = Account::create("etv-vault", &state);
    let person = Account::create("etv-person", &person_home);
    Command::new("chown")
        .arg("etv-person:etv-person")
        .arg(&person_home)
        .status()
        .expect("chown");

    let installed = Command::new(&etrade)
        .args([
            "vault",
            "install",
            "--account",
            "etv-vault",
            "--no-service",
            "--state",
        ])
        .arg(&state)
        .arg("--socket")
        .arg(tmp.path().join("run/vault.sock"))
        .output()
        .expect("etrade runs");
    assert!(installed.status.success(), "{}", common_text(&installed));

    for name in ["vault.toml"] {
        let file = state.join(name);
        for (what, args) in [
            ("delete", vec!["-c", "rm -f \"$0\""]),
            ("rename", vec!["-c", "mv \"$0\" \"$0.moved\""]),
            ("overwrite", vec!["-c", "echo x > \"$0\""]),
        ] {
            let mut all: Vec<&str> = args.clone();
            let path = file.to_string_lossy().to_string();
            all.push(&path);
            let out = person.run(std::path::Path::new("/bin/sh"), &all, &person_home);
            assert!(
                !out.status.success() && file.exists(),
                "the person could {what} {name}: {}",
                common_text(&out)
            );
        }
    }
}
