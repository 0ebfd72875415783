//! `etrade paper reset|status|advance` on a fresh state folder, on a profile whose canary
//! E*TRADE credentials are in the keyring (tests/common/paper.rs): each run at debug level is
//! scanned (stdout, stderr), and at the end every file of the state folder.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::paper::PaperCredentials;
use serde_json::Value;

async fn run(
    home: &tempfile::TempDir,
    credentials: &PaperCredentials,
    args: &[&str],
) -> (bool, String, String) {
    let mut full = vec!["paper"];
    full.extend_from_slice(args);
    let out = credentials
        .command(home, &full)
        .output()
        .await
        .expect("run");
    credentials
        .canaries
        .assert_absent_in_output(&format!("etrade paper {args:?}"), &out);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("status prints JSON")
}

#[tokio::test]
async fn status_advance_and_reset() {
    let home = common::home();
    let credentials = PaperCredentials::install(&home);
    let (ok, out, _) = run(&home, &credentials, &["status"]).await;
    assert!(ok);
    let s = json(&out);
    assert_eq!(s["marketSource"], "simulated");
    assert_eq!(
        s["accounts"].as_array().map(Vec::len),
        Some(2),
        "two default accounts"
    );
    let before: jiff::Timestamp = s["simulatedTime"]
        .as_str()
        .expect("time")
        .parse()
        .expect("ts");

    let (ok, out, _) = run(&home, &credentials, &["advance", "1d 2h"]).await;
    assert!(ok);
    let after: jiff::Timestamp = json(&out)["simulatedTime"]
        .as_str()
        .expect("time")
        .parse()
        .expect("ts");
    let moved = after.duration_since(before).as_secs();
    assert!(
        (26 * 3600..26 * 3600 + 60).contains(&moved),
        "moved {moved} s"
    );

    let (ok, out, _) = run(&home, &credentials, &["reset", "--cash", "5000.50"]).await;
    assert!(ok);
    let s = json(&out);
    for a in s["accounts"].as_array().expect("accounts") {
        assert_eq!(a["cash"].to_string(), "5000.5", "{a}");
    }
    assert_eq!(s["offsetSeconds"], 0, "reset returns to real time");

    for bad in [
        vec!["advance", "soon"],
        vec!["advance", "-2h"],
        vec!["reset", "--cash", "-1"],
        vec!["reset", "--cash", "lots"],
    ] {
        let (ok, _, err) = run(&home, &credentials, &bad).await;
        assert!(!ok, "{bad:?} is refused");
        assert!(!err.trim().is_empty(), "{bad:?} explains itself");
    }
    let scanned = credentials.canaries.assert_absent_in_dir(home.path());
    assert!(scanned >= 2, "the config and the book: {scanned}");
}
