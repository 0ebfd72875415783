//! MCP Apps (extension `io.modelcontextprotocol/ui`): a tool's `ui:` key, and the apps it
//! names, each assembled into one self-contained HTML document.
//!
//! An app's source is `apps/<app>/index.html`; a line that is only `<!-- inline: PATH -->`
//! (PATH relative to the file, `.css` or `.js`) becomes that file inside `<style>` or
//! `<script>`, so apps share code without any request leaving the document. The assembled
//! document is a generated file (mirrored in `generated/apps/`), embedded in the binary.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::ir;
use crate::model::{S, ToolDef};
use std::path::{Path, PathBuf};

/// Where `apps/` lives: the workspace root (codegen sits inside the workspace), else, for the
/// published crates, the current directory: the `etrade-mcp` package a build script runs in,
/// which carries `apps/`.
fn workspace_root() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    if workspace.join(APPS_DIR).is_dir() {
        workspace
    } else {
        PathBuf::from(".")
    }
}

/// Where app sources must live, relative to the workspace root.
pub const APPS_DIR: &str = "apps";

const VISIBILITIES: [&str; 2] = ["model", "app"];

/// Check a tool's `ui:`; assemble and collect the app it names.
pub fn check(t: &ToolDef, apps: &mut Vec<ir::App>, d: &mut Diagnostics) -> Option<ir::Ui> {
    let ui = &t.ui.as_ref()?.value;
    let mut visibility = Vec::new();
    if let Some(v) = &ui.visibility {
        if v.value.is_empty() {
            d.at(v, "`visibility` lists `model`, `app` or both");
        }
        for x in &v.value {
            if !VISIBILITIES.contains(&x.value.as_str()) {
                d.at(
                    x,
                    format!("visibility is `model` or `app`, not `{}`", x.value),
                );
            } else if visibility.contains(&x.value) {
                d.at(x, format!("`{}` is listed twice", x.value));
            } else {
                visibility.push(x.value.clone());
            }
        }
    }
    // The default (both) is left implicit.
    if visibility.len() == 2 {
        visibility.clear();
    }
    let resource = match (&ui.resource, &ui.source) {
        (Some(r), Some(s)) => {
            app(r, s, ui.description.as_ref(), apps, d);
            Some(r.value.clone())
        }
        (Some(r), None) => {
            d.at(
                r,
                "an app `resource` needs its `source` (apps/<app>/index.html)",
            );
            None
        }
        (None, Some(s)) => {
            d.at(
                s,
                "an app `source` needs its `resource` (ui://etrade/<app>.html)",
            );
            None
        }
        (None, None) => {
            if let Some(desc) = &ui.description {
                d.at(
                    desc,
                    "`description` describes an app resource; this tool names none",
                );
            }
            None
        }
    };
    Some(ir::Ui {
        resource,
        visibility,
    })
}

fn app(
    resource: &S<String>,
    source: &S<String>,
    description: Option<&S<String>>,
    apps: &mut Vec<ir::App>,
    d: &mut Diagnostics,
) {
    let uri = &resource.value;
    let Some(file) = uri
        .strip_prefix("ui://etrade/")
        .filter(|f| {
            f.ends_with(".html")
                && f.len() > 5
                && f.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        })
        .map(str::to_string)
    else {
        d.at(
            resource,
            "an app resource is `ui://etrade/<name>.html` (lower case, digits, `-`)",
        );
        return;
    };
    let src = &source.value;
    if !src.starts_with(&format!("{APPS_DIR}/")) || !src.ends_with(".html") || src.contains("..") {
        d.at(source, "an app source is an .html file under apps/");
        return;
    }
    if let Some(known) = apps.iter().find(|a| &a.uri == uri) {
        if &known.source != src {
            d.at(
                source,
                format!("`{uri}` is already built from {}", known.source),
            );
        }
        return;
    }
    let description = match description {
        Some(x) => x.value.trim().to_string(),
        None => {
            d.at(resource, "an app resource needs a `description`");
            String::new()
        }
    };
    apps.push(ir::App {
        uri: uri.clone(),
        source: src.clone(),
        file,
        description,
        line: source.referenced.line(),
        column: source.referenced.column(),
    });
}

/// Every app's assembled document, keyed by its file name; a source that cannot be read is
/// reported at its `source:` line.
pub fn assemble_all(catalog: &ir::Catalog) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for app in &catalog.apps {
        let assembled = assemble(&workspace_root().join(&app.source)).and_then(|html| {
            match outside_urls(&html).as_slice() {
                [] => Ok(html),
                found => Err(format!(
                    "{} names an outside address ({}): an app inlines everything it needs",
                    app.source,
                    found.join(", ")
                )),
            }
        });
        match assembled {
            Ok(html) => out.push((app.file.clone(), html)),
            Err(message) => problems.push(Diagnostic {
                line: app.line.max(1),
                column: app.column.max(1),
                message,
            }),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// The app's HTML with every `<!-- inline: PATH -->` line replaced by the file it names.
pub fn assemble(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read app source {}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out = String::with_capacity(text.len() * 2);
    for line in text.lines() {
        let t = line.trim();
        let inline = t
            .strip_prefix("<!-- inline:")
            .and_then(|r| r.strip_suffix("-->"))
            .map(str::trim);
        match inline {
            Some(rel) => {
                let (open, close) = if rel.ends_with(".css") {
                    ("<style>", "</style>")
                } else if rel.ends_with(".js") {
                    ("<script>", "</script>")
                } else {
                    return Err(format!(
                        "{}: only .css and .js are inlined, not {rel}",
                        path.display()
                    ));
                };
                let file = dir.join(rel);
                let body = std::fs::read_to_string(&file).map_err(|e| {
                    format!(
                        "cannot read {} (inlined by {}): {e}",
                        file.display(),
                        path.display()
                    )
                })?;
                if body.contains(close) {
                    return Err(format!("{} contains `{close}`", file.display()));
                }
                out.push_str(open);
                out.push('\n');
                out.push_str(body.trim_end());
                out.push('\n');
                out.push_str(close);
                out.push('\n');
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// Outside addresses an app must not contain: everything it needs is inline.
pub fn outside_urls(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for scheme in ["http://", "https://", "ws://", "wss://"] {
        let mut from = 0;
        while let Some(i) = html[from..].find(scheme) {
            let at = from + i;
            let end = html[at..]
                .find(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == ')')
                .map_or(html.len(), |e| at + e);
            found.push(html[at..end].to_string());
            from = end.max(at + 1);
        }
    }
    found
}
