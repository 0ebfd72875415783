//! A real `etrade serve` on the paper broker (the default environment), in its own state
//! folder, with simulated time moved into a regular session first so market orders fill.

use super::*;
use rust_decimal::Decimal;
use std::str::FromStr;

pub struct Paper {
    pub home: tempfile::TempDir,
    pub client: Option<Client>,
    pub flags: Vec<String>,
}

/// Run `etrade paper ARGS` in `home`; returns its stdout (panics on failure).
pub async fn paper_cli(home: &tempfile::TempDir, args: &[&str]) -> String {
    let mut full = vec!["paper"];
    full.extend_from_slice(args);
    let out = command(home, &full)
        .output()
        .await
        .expect("run etrade paper");
    assert!(
        out.status.success(),
        "etrade paper {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Seconds from now to one hour after the next regular open (0 when the regular session
/// has at least three hours left), so scenario tests trade in session whatever the real
/// time is.
pub fn into_session() -> i64 {
    use runtime::trading::calendar::{
        SessionPhase, next_regular_open, phase_at, regular_hours, trading_day,
    };
    let now = jiff::Timestamp::now();
    if phase_at(now) == SessionPhase::Regular
        && let Some((_, close)) = regular_hours(trading_day(now))
        && close.duration_since(now).as_secs() > 3 * 3600
    {
        return 0;
    }
    next_regular_open(now).duration_since(now).as_secs() + 3600
}

impl Paper {
    pub async fn start(flags: &[&str]) -> Paper {
        let home = home();
        let secs = into_session();
        paper_cli(&home, &["advance", &format!("{secs}s")]).await;
        let mut p = Paper {
            home,
            client: None,
            flags: flags.iter().map(|s| s.to_string()).collect(),
        };
        p.restart().await;
        p
    }

    /// Stop the server (if running) and start it again on the same state.
    pub async fn restart(&mut self) {
        if let Some(c) = self.client.take() {
            let _ = c.cancel().await;
        }
        let flags: Vec<&str> = self.flags.iter().map(String::as_str).collect();
        self.client = Some(stdio_client(&self.home, &flags).await);
    }

    /// Stop the server so the CLI can open the book.
    pub async fn stop(&mut self) {
        if let Some(c) = self.client.take() {
            let _ = c.cancel().await;
        }
    }

    /// (isError, payload), checked against the tool's outputSchema and for JSON floats.
    pub async fn call(&self, tool: &str, args: Value) -> (bool, Value) {
        let client = self.client.as_ref().expect("server running");
        let r = call(client, tool, args).await.expect("a tool result");
        let p = payload(&r);
        let d = etrade_mcp::generated::CATALOG.tool(tool).expect("tool");
        let schema: Value = serde_json::from_str(d.output_schema).expect("schema");
        let v = jsonschema::validator_for(&schema).expect("schema compiles");
        let problems: Vec<String> = v
            .iter_errors(&p)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            problems.is_empty(),
            "{tool} fits its outputSchema: {problems:?}\n{p}"
        );
        if r.is_error != Some(true) {
            sandbox::assert_no_json_floats(&p["data"], tool);
        }
        (r.is_error == Some(true), p)
    }

    /// Like `call`, asserting success; returns `data`.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let (err, p) = self.call(tool, args).await;
        assert!(!err, "{tool}: {p}");
        p["data"].clone()
    }
}

pub fn dec(v: &Value) -> Decimal {
    Decimal::from_str(v.as_str().unwrap_or("x")).unwrap_or_else(|_| panic!("a decimal string: {v}"))
}
