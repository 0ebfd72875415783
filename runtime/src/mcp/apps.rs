//! MCP Apps (extension `io.modelcontextprotocol/ui`, revision 2026-01-26): the `ui://`
//! resources a host renders beside a tool's result, the tools' `_meta.ui`, and who may see
//! an app-only tool.
//!
//! The server cannot tell whether a call comes from an app or from the model; a host that
//! renders apps keeps app-only tools from the model. So an app-only tool is offered only to
//! a client that says it renders apps, and its handler binds what it does to what the app was
//! shown (a preview id and its hash), as the elicitation form is trusted to its host.

use crate::mcp::catalog::{AppDescriptor, ToolDescriptor};
use rmcp::model::{ClientCapabilities, MetaObject, Resource, ResourceContents};
use serde_json::{Value, json};

/// The extension's id, as clients advertise it under `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// What an app resource is served as.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The client renders apps: it declared the extension (for this request, or at initialize).
pub fn renders_apps(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|c| c.extensions.as_ref())
        .is_some_and(|e| e.contains_key(UI_EXTENSION))
}

/// A tool's `_meta.ui`, if it has an app or a visibility of its own.
pub fn tool_meta(d: &ToolDescriptor) -> Option<MetaObject> {
    if d.ui_resource.is_none() && d.visibility.is_empty() {
        return None;
    }
    let mut ui = serde_json::Map::new();
    if let Some(uri) = d.ui_resource {
        ui.insert("resourceUri".into(), json!(uri));
    }
    if !d.visibility.is_empty() {
        ui.insert("visibility".into(), json!(d.visibility));
    }
    let mut meta = serde_json::Map::new();
    meta.insert("ui".into(), Value::Object(ui));
    Some(MetaObject(meta))
}

/// The resource's `_meta.ui`: no outside domain of any kind (everything is inline), and a
/// border, since the apps draw none of their own.
fn resource_meta() -> MetaObject {
    let ui = json!({
        "csp": {
            "connectDomains": [],
            "resourceDomains": [],
            "frameDomains": [],
            "baseUriDomains": []
        },
        "prefersBorder": true
    });
    let mut meta = serde_json::Map::new();
    meta.insert("ui".into(), ui);
    MetaObject(meta)
}

/// The app's entry in `resources/list`.
pub fn resource(app: &AppDescriptor) -> Resource {
    Resource::new(app.uri, app.name)
        .with_description(app.description)
        .with_mime_type(APP_MIME_TYPE)
        .with_size(app.html.len() as u64)
        .with_meta(resource_meta())
}

/// The app's document, as `resources/read` answers.
pub fn contents(app: &AppDescriptor) -> ResourceContents {
    ResourceContents::TextResourceContents {
        uri: app.uri.to_string(),
        mime_type: Some(APP_MIME_TYPE.to_string()),
        text: app.html.to_string(),
        meta: Some(resource_meta()),
    }
}
