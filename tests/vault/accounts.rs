//! Real OS accounts for a test, removed when it ends, and commands run as them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Whether this process may create accounts (the vault tests need root).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A system account with no login shell, deleted (with its files) on drop.
pub struct Account {
    pub name: String,
}

impl Account {
    pub fn create(name: &str, home: &Path) -> Account {
        let _ = Command::new("userdel").arg(name).output();
        // Tests create accounts in parallel, and useradd gives up when another holds the
        // lock on /etc/passwd: try again a few times.
        let mut out = None;
        for _ in 0..40 {
            let tried = Command::new("useradd")
                .args(["--system", "--shell", "/usr/sbin/nologin", "--home-dir"])
                .arg(home)
                .arg(name)
                .output()
                .expect("useradd runs");
            let said = String::from_utf8_lossy(&tried.stderr).into_owned();
            out = Some(tried);
            if said.contains("already exists") {
                // Left by a run that was killed, or a userdel that lost the lock race.
                let _ = Command::new("userdel").arg(name).output();
            } else if !said.contains("lock") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let out = out.expect("useradd ran");
        assert!(
            out.status.success(),
            "useradd {name}: {}",
            common_text(&out)
        );
        Account { name: name.into() }
    }

    /// `program args…` as this account (no groups but its own), in `dir`.
    pub fn run(&self, program: &Path, args: &[&str], dir: &Path) -> Output {
        Command::new("setpriv")
            .arg(format!("--reuid={}", self.name))
            .arg(format!("--regid={}", self.name))
            .arg("--clear-groups")
            .arg(program)
            .args(args)
            .current_dir(dir)
            .env("HOME", dir)
            .output()
            .expect("setpriv runs")
    }
}

impl Drop for Account {
    fn drop(&mut self) {
        for _ in 0..40 {
            let out = Command::new("userdel").arg(&self.name).output();
            if !out.is_ok_and(|o| String::from_utf8_lossy(&o.stderr).contains("lock")) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// A copy of the `etrade` binary that every account can run (the build folder may not be
/// reachable by them).
pub fn shared_binary(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let to = dir.join("etrade");
    std::fs::copy(crate::common::bin(), &to).expect("copy etrade");
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).expect("chmod dir");
    std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).expect("chmod bin");
    to
}

pub fn common_text(out: &Output) -> String {
    crate::common::output_text(out)
}
