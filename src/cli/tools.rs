//! `etrade tools` and `etrade tools show NAME`.

use super::output::outln;
use clap::Subcommand;
use etrade_mcp::generated::{CATALOG, TOOLS};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ToolsArgs {
    #[command(subcommand)]
    command: Option<ToolsCommand>,
}

#[derive(Debug, Subcommand)]
enum ToolsCommand {
    /// Print a tool's input and output JSON Schemas.
    Show {
        /// Tool name, e.g. server_status.
        name: String,
    },
}

/// `etrade tools`, as parsed.
pub fn run(args: ToolsArgs) -> ExitCode {
    match args.command {
        None => list(),
        Some(ToolsCommand::Show { name }) => show(&name),
    }
}

pub fn list() -> ExitCode {
    let width = TOOLS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for t in TOOLS.iter() {
        let summary = t.description.split(". ").next().unwrap_or(t.description);
        let summary = summary.trim_end_matches('.');
        outln!("{:width$}  {:13}  {summary}.", t.name, t.permission);
    }
    ExitCode::SUCCESS
}

pub fn show(name: &str) -> ExitCode {
    let Some(t) = CATALOG.tool(name) else {
        crate::cli::output::noteln!("etrade: no tool named {name:?}; `etrade tools` lists them");
        return ExitCode::from(2);
    };
    let pretty = |text: &str| {
        serde_json::from_str::<serde_json::Value>(text)
            .and_then(|v| serde_json::to_string_pretty(&v))
            .unwrap_or_else(|_| text.to_string())
    };
    outln!("{} — {}\n\n{}\n", t.name, t.title, t.description);
    outln!("permission: {}", t.permission);
    outln!(
        "annotations: readOnlyHint={} destructiveHint={} idempotentHint={} openWorldHint={}",
        t.read_only,
        t.destructive,
        t.idempotent,
        t.open_world
    );
    outln!("error codes: {}\n", t.error_codes.join(", "));
    outln!("input schema:\n{}\n", pretty(t.input_schema));
    outln!("output schema:\n{}", pretty(t.output_schema));
    ExitCode::SUCCESS
}
