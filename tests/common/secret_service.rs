//! A private freedesktop Secret Service for a test: its own D-Bus session bus and a GNOME
//! Keyring daemon unlocked with a test password, keeping its keyrings in a folder the test
//! owns. Stopping both and starting them again on the same folder is the stand-in for a
//! reboot: whatever the keyring still holds afterwards was on disk.
//!
//! Needs Debian's `dbus-daemon`, `dbus-bin` and `gnome-keyring` (`.ci/run` installs them).
//! Where they are missing the test is skipped with a note, except under CI, where a missing
//! daemon fails the test rather than letting it pass without running.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PASSWORD: &str = "etrade-mcp-test-keyring-password";

pub struct SecretService {
    dir: PathBuf,
    bus: Child,
    keyring: Child,
    /// `DBUS_SESSION_BUS_ADDRESS` for clients of this bus.
    pub address: String,
}

impl SecretService {
    /// Starts the bus and the keyring daemon on `dir` (created if needed); `None` when the
    /// programs are not installed outside CI.
    pub fn start(dir: &Path) -> Option<SecretService> {
        let missing: Vec<_> = ["dbus-daemon", "gnome-keyring-daemon", "dbus-send"]
            .into_iter()
            .filter(|p| which(p).is_none())
            .collect();
        if !missing.is_empty() {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must install {missing:?} (dbus-daemon, dbus-bin, gnome-keyring)"
            );
            eprintln!("skipped: {missing:?} not installed");
            return None;
        }
        for sub in ["data", "run", "home"] {
            std::fs::create_dir_all(dir.join(sub)).expect("mkdir");
        }
        set_private(&dir.join("run"));
        let socket = dir.join("bus");
        let _ = std::fs::remove_file(&socket);
        let mut bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .arg(format!("--address=unix:path={}", socket.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start dbus-daemon");
        let mut line = String::new();
        BufReader::new(bus.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("bus address");
        let address = line.trim().to_string();
        assert!(address.starts_with("unix:"), "bus address: {address:?}");

        let mut keyring = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--components=secrets", "--unlock"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("XDG_DATA_HOME", dir.join("data"))
            .env("XDG_RUNTIME_DIR", dir.join("run"))
            .env("HOME", dir.join("home"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start gnome-keyring-daemon");
        // --unlock reads the login keyring's password from standard input, to its end.
        let mut stdin = keyring.stdin.take().expect("stdin");
        stdin.write_all(PASSWORD.as_bytes()).expect("password");
        drop(stdin);

        let service = SecretService {
            dir: dir.to_path_buf(),
            bus,
            keyring,
            address,
        };
        service.wait_for_name("org.freedesktop.secrets");
        Some(service)
    }

    /// The folder the keyrings live in (`XDG_DATA_HOME/keyrings`).
    pub fn keyrings(&self) -> PathBuf {
        self.dir.join("data").join("keyrings")
    }

    /// Ends the keyring daemon (SIGTERM, as at shutdown) and the bus; returns the folder
    /// for a later [`SecretService::start`].
    pub fn stop(mut self) -> PathBuf {
        self.terminate();
        self.dir.clone()
    }

    fn terminate(&mut self) {
        if let Ok(Some(_)) = self.keyring.try_wait() {
            let _ = self.bus.kill();
            let _ = self.bus.wait();
            return;
        }
        let _ = Command::new("kill")
            .arg(self.keyring.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.keyring.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.keyring.kill();
        let _ = self.keyring.wait();
        let _ = self.bus.kill();
        let _ = self.bus.wait();
    }

    fn wait_for_name(&self, name: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let out = Command::new("dbus-send")
                .args([
                    "--session",
                    "--print-reply",
                    "--dest=org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner",
                ])
                .arg(format!("string:{name}"))
                .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
                .output()
                .expect("dbus-send");
            if String::from_utf8_lossy(&out.stdout).contains("boolean true") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{name} did not appear on the test bus"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for SecretService {
    fn drop(&mut self) {
        self.terminate();
    }
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}

fn set_private(dir: &Path) {
    // XDG_RUNTIME_DIR must be private to its user; gnome-keyring refuses a loose one.
    let _ = Command::new("chmod").arg("700").arg(dir).status();
}
