//! Secret canaries: the credentials a scenario runs with are known strings, and after (or
//! during) the run each is looked for in every byte the scenario can see — the child's
//! stdout and stderr, its debug log, tool outputs, every file of its state folder. A canary
//! found anywhere fails the test, naming the canary and where it was found, never its value.
//!
//! Each canary is looked for raw and percent-encoded (upper- and lowercase hex), the form it
//! takes in an OAuth header, a signature base string or a form body.

use runtime::config::Environment;
use runtime::credentials::{CredentialKey, CredentialStore, KeyringStore};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The set of secret strings of one scenario, each with a label for failure messages.
#[derive(Debug, Clone, Default)]
pub struct Canaries {
    items: Vec<(String, String)>,
}

/// A string every [`Canaries::new`] set also looks for, to check that the scans can fail:
/// `ETRADE_TEST_PLANTED_CANARY='starting etrade-mcp' cargo nextest run ...` makes every
/// test that scans a server's log fail, naming the file (see docs/testing.md).
pub const PLANTED_ENV: &str = "ETRADE_TEST_PLANTED_CANARY";

impl Canaries {
    pub fn new() -> Canaries {
        let mut c = Canaries::default();
        if let Ok(planted) = std::env::var(PLANTED_ENV)
            && !planted.is_empty()
        {
            c.add("planted canary", &planted);
        }
        c
    }

    /// Adds `value` under `label` (e.g. "consumer secret"). A canary must be long enough
    /// that finding it by chance is all but impossible: E*TRADE's five-character
    /// verification code is the shortest.
    pub fn with(mut self, label: &str, value: &str) -> Canaries {
        self.add(label, value);
        self
    }

    pub fn add(&mut self, label: &str, value: &str) {
        assert!(
            value.len() >= 5,
            "canary {label:?} is too short to be looked for"
        );
        if !self.items.iter().any(|(_, v)| v == value) {
            self.items.push((label.to_string(), value.to_string()));
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Every form each canary is looked for in: (label, needle).
    fn needles(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for (label, value) in &self.items {
            let upper = runtime::etrade::oauth::encode(value);
            let lower = lowercase_escapes(&upper);
            out.push((label.clone(), value.clone().into_bytes()));
            for (form, encoded) in [("percent-encoded", upper), ("percent-encoded", lower)] {
                if encoded != *value && !out.iter().any(|(_, n)| *n == encoded.as_bytes()) {
                    out.push((format!("{label} ({form})"), encoded.into_bytes()));
                }
            }
        }
        out
    }

    /// The first canary found in `bytes`: its label and the text around it (the canary
    /// itself replaced by its label).
    pub fn find_in_bytes(&self, bytes: &[u8]) -> Option<(String, String)> {
        for (label, needle) in self.needles() {
            if let Some(at) = bytes.windows(needle.len()).position(|w| w == needle) {
                let from = at.saturating_sub(60);
                let to = (at + needle.len() + 60).min(bytes.len());
                let context = format!(
                    "{}<{label}>{}",
                    String::from_utf8_lossy(&bytes[from..at]),
                    String::from_utf8_lossy(&bytes[at + needle.len()..to])
                );
                return Some((label, context));
            }
        }
        None
    }

    /// Panics when a canary (raw or percent-encoded) occurs in `bytes`, the text of `what`.
    pub fn assert_absent_in_bytes(&self, what: &str, bytes: &[u8]) {
        assert!(!self.is_empty(), "no canaries to look for in {what}");
        if let Some((label, context)) = self.find_in_bytes(bytes) {
            panic!("secret canary leaked: the {label} is in {what}: …{context}…");
        }
    }

    pub fn assert_absent_in_str(&self, what: &str, text: &str) {
        self.assert_absent_in_bytes(what, text.as_bytes());
    }

    /// A finished child process: its stdout and its stderr.
    pub fn assert_absent_in_output(&self, what: &str, out: &std::process::Output) {
        self.assert_absent_in_bytes(&format!("{what}: stdout"), &out.stdout);
        self.assert_absent_in_bytes(&format!("{what}: stderr"), &out.stderr);
    }

    /// Every file under `dir`, recursively (state files, databases, lock files, captured
    /// logs). Returns the number of files read, so a caller can tell the scan saw something.
    pub fn assert_absent_in_dir(&self, dir: &Path) -> usize {
        self.assert_absent_in_dir_except(dir, &[])
    }

    /// [`Canaries::assert_absent_in_dir`] but for `except`, the files whose job is to hold
    /// the secrets (the file credential store).
    pub fn assert_absent_in_dir_except(&self, dir: &Path, except: &[PathBuf]) -> usize {
        let files: Vec<PathBuf> = files_under(dir)
            .into_iter()
            .filter(|p| !except.contains(p))
            .collect();
        for path in &files {
            // A file that vanished between the listing and the read (a lock released by a
            // process still running) has nothing left to leak.
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            self.assert_absent_in_bytes(&path.display().to_string(), &bytes);
        }
        files.len()
    }
}

fn lowercase_escapes(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut hex = 0;
    for c in encoded.chars() {
        if c == '%' {
            hex = 2;
            out.push(c);
        } else if hex > 0 {
            hex -= 1;
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Every regular file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The environment that makes a child log at debug level: the most a log can say.
pub const DEBUG_LOG: (&str, &str) = ("ETRADE_MCP_LOG", "debug");

/// A file in `dir` (created, or appended to across restarts) for a child's stderr.
pub fn log_file(dir: &Path, name: &str) -> std::fs::File {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(name))
        .expect("log file")
}

/// Keyutils entries a test wrote, deleted when it ends, whether it passed or not.
pub struct KeyringEntries(pub Vec<CredentialKey>);

impl KeyringEntries {
    pub fn one(environment: Environment, profile: &str) -> KeyringEntries {
        KeyringEntries(vec![
            CredentialKey::new(environment, profile.to_string()).expect("key"),
        ])
    }
}

impl Drop for KeyringEntries {
    fn drop(&mut self) {
        if let Ok(store) = KeyringStore::linux_keyutils() {
            for key in &self.0 {
                let _ = store.delete(key);
            }
        }
    }
}

/// A loopback TCP pass-through in front of `upstream` that keeps a copy of every byte the
/// upstream sent back. Put in front of the fake E*TRADE server, it captures the token
/// responses — the one place a test can learn the request token's secret, which the client
/// holds only in memory. Bytes pass unchanged (the Host header names the tap, so OAuth
/// signatures computed for the tap's URL verify upstream).
pub struct Tap {
    pub url: String,
    received: Arc<Mutex<Vec<u8>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Tap {
    pub async fn start(upstream: std::net::SocketAddr) -> Tap {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the tap");
        let url = format!("http://{}", listener.local_addr().expect("tap address"));
        let received: Arc<Mutex<Vec<u8>>> = Arc::default();
        let sink = received.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let sink = sink.clone();
                tokio::spawn(async move {
                    use tokio::io::{AsyncReadExt, AsyncWriteExt};
                    let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    let (mut cr, mut cw) = client.split();
                    let (mut sr, mut sw) = server.split();
                    let up = async {
                        let _ = tokio::io::copy(&mut cr, &mut sw).await;
                        let _ = sw.shutdown().await;
                    };
                    let down = async {
                        let mut buf = vec![0u8; 16 * 1024];
                        loop {
                            let n = match sr.read(&mut buf).await {
                                Ok(0) | Err(_) => break,
                                Ok(n) => n,
                            };
                            if let Ok(mut s) = sink.lock() {
                                s.extend_from_slice(&buf[..n]);
                            }
                            if cw.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                        let _ = cw.shutdown().await;
                    };
                    tokio::join!(up, down);
                });
            }
        });
        Tap {
            url,
            received,
            task,
        }
    }

    /// Everything the upstream sent so far.
    pub fn received(&self) -> Vec<u8> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Each decoded value of form field `name` (e.g. `oauth_token_secret`) in the upstream's
    /// responses, in order.
    pub fn form_values(&self, name: &str) -> Vec<String> {
        let text = String::from_utf8_lossy(&self.received()).into_owned();
        let needle = format!("{name}=");
        let mut out = Vec::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find(&needle) {
            let start = at + needle.len();
            // A field name must start the body or follow `&`.
            let boundary = at == 0 || matches!(rest.as_bytes()[at - 1], b'&' | b'\n');
            let value: String = rest[start..]
                .chars()
                .take_while(|c| !matches!(c, '&' | '\r' | '\n' | ' '))
                .collect();
            if boundary
                && let Some((_, v)) = runtime::etrade::oauth::parse_form(&format!("{name}={value}"))
                    .into_iter()
                    .next()
            {
                out.push(v);
            }
            rest = &rest[start..];
        }
        out
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.task.abort();
    }
}
