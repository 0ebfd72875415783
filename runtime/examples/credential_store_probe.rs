//! Writes, reads back or deletes one credential entry through a named store, the way the
//! CLI opens it (`open_store`, as `--credential-store NAME` does), so that a test can check
//! that an entry outlives the process that wrote it. tests/windows drives it under Wine
//! against the Windows Credential Manager.
//!
//! Usage: credential_store_probe STORE write|read|delete PROFILE
//! The entry is the sandbox environment's for PROFILE. `write` stores the consumer key and
//! secret from PROBE_CONSUMER_KEY and PROBE_CONSUMER_SECRET; `read` prints `absent`, or
//! `present key=KEY secret=same|different` (the secret compared with
//! PROBE_CONSUMER_SECRET, never printed); `delete` prints `deleted`. Failures exit 1.

use std::process::ExitCode;

use runtime::config::Environment;
use runtime::credentials::{CredentialKey, Secret, StoreChoice, StoredCredentials, open_store};

fn run(args: &[String]) -> Result<String, String> {
    let [store, action, profile] = args else {
        return Err("usage: credential_store_probe STORE write|read|delete PROFILE".into());
    };
    let choice: StoreChoice = store.parse().map_err(|e| format!("{e}"))?;
    let key =
        CredentialKey::new(Environment::Sandbox, profile.as_str()).map_err(|e| e.to_string())?;
    // Only the file store uses this folder; the native stores keep nothing there.
    let opened = open_store(choice, &std::env::temp_dir()).map_err(|e| e.to_string())?;
    let store = opened.store;
    let var = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
    match action.as_str() {
        "write" => {
            let credentials = StoredCredentials::new(
                var("PROBE_CONSUMER_KEY")?,
                Secret::new(var("PROBE_CONSUMER_SECRET")?),
            );
            store.save(&key, &credentials).map_err(|e| e.to_string())?;
            Ok("written".into())
        }
        "read" => match store.load(&key).map_err(|e| e.to_string())? {
            None => Ok("absent".into()),
            Some(c) => {
                let same = c.consumer_secret.expose() == var("PROBE_CONSUMER_SECRET")?;
                let secret = if same { "same" } else { "different" };
                Ok(format!("present key={} secret={secret}", c.consumer_key))
            }
        },
        "delete" => {
            store.delete(&key).map_err(|e| e.to_string())?;
            Ok("deleted".into())
        }
        other => Err(format!("unknown action {other:?}: write, read or delete")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("credential_store_probe: {e}");
            ExitCode::FAILURE
        }
    }
}
