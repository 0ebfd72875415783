//! `etrade tools` and `etrade tools show NAME`.

use etrade_mcp::generated::{CATALOG, TOOLS};
use std::process::ExitCode;

pub fn list() -> ExitCode {
    let width = TOOLS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for t in TOOLS.iter() {
        let summary = t.description.split(". ").next().unwrap_or(t.description);
        let summary = summary.trim_end_matches('.');
        println!("{:width$}  {:13}  {summary}.", t.name, t.permission);
    }
    ExitCode::SUCCESS
}

pub fn show(name: &str) -> ExitCode {
    let Some(t) = CATALOG.tool(name) else {
        eprintln!("etrade: no tool named {name:?}; `etrade tools` lists them");
        return ExitCode::from(2);
    };
    let pretty = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text)
            .and_then(|v| serde_json::to_string_pretty(&v))
            .unwrap_or_else(|_| text.to_string())
    };
    println!("{} — {}\n\n{}\n", t.name, t.title, t.description);
    println!("permission: {}", t.permission);
    println!(
        "annotations: readOnlyHint={} destructiveHint={} idempotentHint={} openWorldHint={}",
        t.read_only, t.destructive, t.idempotent, t.open_world
    );
    println!("error codes: {}\n", t.error_codes.join(", "));
    println!("input schema:\n{}\n", pretty(t.input_schema));
    println!("output schema:\n{}", pretty(t.output_schema));
    ExitCode::SUCCESS
}
