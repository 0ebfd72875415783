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

/// The width `etrade tools` wraps its summaries to.
const LINE_WIDTH: usize = 100;

pub fn list() -> ExitCode {
    let width = TOOLS.iter().map(|t| t.name.len()).max().unwrap_or(0);
    let indent = width + 2 + 13 + 2;
    for t in TOOLS.iter() {
        let summary = t.description.split(". ").next().unwrap_or(t.description);
        let summary = format!("{}.", summary.trim_end_matches('.'));
        let mut lines = wrap(&summary, LINE_WIDTH.saturating_sub(indent).max(30)).into_iter();
        let first = lines.next().unwrap_or_default();
        outln!("{:width$}  {:13}  {first}", t.name, t.permission);
        for line in lines {
            outln!("{:indent$}{line}", "");
        }
    }
    ExitCode::SUCCESS
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word stands
/// on a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
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

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn summaries_wrap_at_spaces() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(
            wrap("averyveryverylongword x", 5),
            ["averyveryverylongword", "x"]
        );
        assert!(wrap("", 10).is_empty());
    }
}
