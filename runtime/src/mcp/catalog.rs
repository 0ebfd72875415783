//! Descriptor types for the generated catalog: static data the MCP server reads.

/// One tool as declared in the spec. Schemas are JSON text, parsed once at startup.
#[derive(Debug)]
pub struct ToolDescriptor {
    pub name: &'static str,
    pub title: &'static str,
    pub group: &'static str,
    pub permission: &'static str,
    pub description: &'static str,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
    pub input_schema: &'static str,
    pub output_schema: &'static str,
    /// The validation table the runtime checks arguments against.
    pub input_table: &'static crate::contract::validation::ObjectSchema,
    pub error_codes: &'static [&'static str],
    /// The E*TRADE endpoint the spec binds the tool to; `None` for tools whose handler
    /// decides its requests (or makes none).
    pub endpoint: Option<crate::etrade::Endpoint>,
    /// The MCP App a host renders beside the result (`_meta.ui.resourceUri`).
    pub ui_resource: Option<&'static str>,
    /// `_meta.ui.visibility`; empty: the default (the model and apps). `["app"]`: an
    /// app-only tool, which hosts keep from the model.
    pub visibility: &'static [&'static str],
}

impl ToolDescriptor {
    /// Only an app may call it: hosts that render apps keep it from the model.
    pub fn app_only(&self) -> bool {
        !self.visibility.is_empty() && !self.visibility.contains(&"model")
    }
}

/// One MCP App: a `ui://` resource, one self-contained HTML document.
#[derive(Debug)]
pub struct AppDescriptor {
    pub uri: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub html: &'static str,
}

#[derive(Debug)]
pub struct PermissionDescriptor {
    pub name: &'static str,
    pub description: &'static str,
    /// The `etrade serve` flag that grants it; `None` means always granted.
    pub flag: Option<&'static str>,
}

#[derive(Debug)]
pub struct ErrorCodeDescriptor {
    pub code: &'static str,
    pub category: &'static str,
    pub message: &'static str,
}

#[derive(Debug)]
pub struct Catalog {
    pub tools: &'static [ToolDescriptor],
    pub permissions: &'static [PermissionDescriptor],
    pub error_codes: &'static [ErrorCodeDescriptor],
    pub apps: &'static [AppDescriptor],
}

impl Catalog {
    pub fn tool(&self, name: &str) -> Option<&'static ToolDescriptor> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn app(&self, uri: &str) -> Option<&'static AppDescriptor> {
        self.apps.iter().find(|a| a.uri == uri)
    }

    pub fn permission(&self, name: &str) -> Option<&'static PermissionDescriptor> {
        self.permissions.iter().find(|p| p.name == name)
    }
}
