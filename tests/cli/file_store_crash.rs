//! The file credential store under `kill -9`: a process killed at any instant of a write
//! leaves the old entry or the new one, never a torn file, and the next write removes what
//! the killed one left behind.
//!
//! The writer is this test binary run again with `WRITER_ENV` set: it saves ever-newer
//! versions of one entry (each about a megabyte, so a kill often lands mid-write) until it
//! is killed.

use runtime::config::Environment;
use runtime::credentials::{
    CREDENTIALS_FILE_NAME, CredentialKey, CredentialStore, FileStore, Secret, StoredCredentials,
};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const WRITER_ENV: &str = "ETRADE_TEST_FILE_STORE_WRITER";
/// The test's name as the harness filters it: its module path without the binary's name.
fn test_name() -> String {
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    format!("{module}::a_writer_killed_mid_write_leaves_the_old_entry_or_the_new")
}
const PAD: usize = 1 << 20;

fn key() -> CredentialKey {
    CredentialKey::new(Environment::Sandbox, "crash").expect("key")
}

/// Version `n`: every field says `n`, so a mix of two versions cannot pass for either.
fn version(n: u64) -> StoredCredentials {
    let mut c = StoredCredentials::new(
        format!("v{n}-{}", "k".repeat(PAD)),
        Secret::new(format!("secret-{n}")),
    );
    c.authorize(
        Secret::new(format!("token-{n}")),
        Secret::new(format!("token-secret-{n}")),
        jiff::Timestamp::now(),
    );
    c
}

/// The version an entry is, if it is exactly one.
fn version_of(c: &StoredCredentials) -> Option<u64> {
    let (head, pad) = c.consumer_key.split_once('-')?;
    let n: u64 = head.strip_prefix('v')?.parse().ok()?;
    let whole = pad.len() == PAD
        && c.consumer_secret.expose() == format!("secret-{n}")
        && c.access_token.as_ref().map(|t| t.expose().to_string()) == Some(format!("token-{n}"))
        && c.access_token_secret
            .as_ref()
            .map(|t| t.expose().to_string())
            == Some(format!("token-secret-{n}"));
    whole.then_some(n)
}

fn write_forever(dir: &Path) -> ! {
    let store = FileStore::in_dir(dir);
    let mut n = store
        .load(&key())
        .ok()
        .flatten()
        .and_then(|c| version_of(&c))
        .unwrap_or(0);
    loop {
        n += 1;
        store.save(&key(), &version(n)).expect("save");
    }
}

fn temporaries(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name.starts_with(&format!(".{CREDENTIALS_FILE_NAME}.")) && name.ends_with(".tmp")
        })
        .count()
}

#[test]
fn a_writer_killed_mid_write_leaves_the_old_entry_or_the_new() {
    if let Some(dir) = std::env::var_os(WRITER_ENV) {
        write_forever(Path::new(&dir));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let store = FileStore::in_dir(dir.path());
    store.save(&key(), &version(1)).expect("seed");
    let exe = std::env::current_exe().expect("test binary");
    let mut last = 1;
    let mut killed_mid_write = 0;
    let rounds = 30;
    for round in 0..rounds {
        let mut child = Command::new(&exe)
            .args(["--exact", &test_name(), "--nocapture", "--test-threads=1"])
            .env(WRITER_ENV, dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the writer");
        // Once it has written a new version, kill it at a moment that varies by round.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let now = store.load(&key()).expect("decodes while written");
            if now.as_ref().and_then(version_of).is_some_and(|n| n > last) {
                break;
            }
            assert!(Instant::now() < deadline, "the writer wrote nothing");
            std::thread::sleep(Duration::from_millis(1));
        }
        if round % 2 == 0 {
            // Aim inside a write: kill as soon as its temporary file appears.
            let deadline = Instant::now() + Duration::from_secs(5);
            while temporaries(dir.path()) == 0 && Instant::now() < deadline {
                std::hint::spin_loop();
            }
        } else {
            std::thread::sleep(Duration::from_millis((round as u64 * 7) % 40));
        }
        child.kill().expect("kill -9");
        child.wait().expect("reap");
        if temporaries(dir.path()) > 0 {
            killed_mid_write += 1;
        }
        let entry = store
            .load(&key())
            .expect("the file decodes after every kill")
            .expect("the entry is there");
        let n = version_of(&entry).expect("one whole version, not a mix");
        assert!(n >= last, "versions never go back: {n} after {last}");
        last = n;
    }
    assert!(last > rounds as u64, "every writer made progress: {last}");
    assert!(
        killed_mid_write > 0,
        "no kill landed inside a write in {rounds} rounds; the test proved nothing"
    );
    // The next write removes what killed writers left.
    store.save(&key(), &version(last + 1)).expect("save");
    assert_eq!(temporaries(dir.path()), 0);
    eprintln!("{killed_mid_write} of {rounds} kills landed mid-write; last version {last}");
}
