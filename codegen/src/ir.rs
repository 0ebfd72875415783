//! The checked catalog: what the emitters consume. Named types are resolved, implicit error
//! codes added, and every name is known to be valid, so emitters never fail.

use serde_json::Value;

#[derive(Debug, Clone)]
pub struct Catalog {
    pub permissions: Vec<Permission>,
    /// The spec's `endpoints:`, in spec order.
    pub endpoints: Vec<Endpoint>,
    pub error_codes: Vec<ErrorCode>,
    pub tools: Vec<Tool>,
    /// The MCP Apps the tools name, once each, in spec order.
    pub apps: Vec<App>,
}

/// One E*TRADE endpoint: the runtime's `Endpoint` variant and its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub variant: String,
    /// `GET`, `POST`, `PUT` or `DELETE`.
    pub verb: String,
    /// `ACCOUNTS`, `MARKET`, `ORDERS` or `ALERTS`.
    pub module: String,
    /// With E*TRADE's parameter names, e.g. `/v1/accounts/{accountIdKey}/balance`.
    pub path: String,
}

/// One MCP App: a `ui://` resource served as one self-contained HTML document.
#[derive(Debug, Clone, PartialEq)]
pub struct App {
    pub uri: String,
    /// The source under `apps/` (relative to the workspace root).
    pub source: String,
    /// The generated file's name under `generated/apps/` and OUT_DIR/apps/.
    pub file: String,
    pub description: String,
    /// Where the spec names the source, for a diagnostic when it cannot be assembled.
    pub line: u64,
    pub column: u64,
}

/// A tool's `ui:`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ui {
    pub resource: Option<String>,
    /// Empty: the default (`model` and `app`).
    pub visibility: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Permission {
    pub name: String,
    pub description: String,
    pub flag: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ErrorCode {
    pub code: String,
    pub category: String,
    pub message: String,
    pub when: String,
    pub host_action: String,
}

#[derive(Debug, Clone)]
pub struct Tool {
    pub name: String,
    pub title: String,
    pub group: String,
    pub permission: String,
    pub description: String,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
    pub input: Object,
    pub output: Object,
    /// Declared codes plus the implicit ones, in catalog order.
    pub errors: Vec<String>,
    pub valid_examples: Vec<Value>,
    pub invalid_examples: Vec<(Value, String)>,
    /// Docs excerpt of a successful `data` object.
    pub output_example: Option<Value>,
    pub binding: Option<Binding>,
    /// `limits:` in spec order: snake_case name, value ≥ 1.
    pub limits: Vec<(String, u32)>,
    pub ui: Option<Ui>,
    /// The compact projection the `detail` input field chooses, for list tools.
    pub compact: Option<Compact>,
}

/// The input field that chooses between full and compact rows, and its compact value.
pub const DETAIL_FIELD: &str = "detail";
pub const DETAIL_COMPACT: &str = "compact";

/// A list tool's compact rows: where they are in `data` and what each keeps.
#[derive(Debug, Clone)]
pub struct Compact {
    /// Key paths from `data` to the rows; arrays on the way are walked element by element.
    pub rows: Vec<Vec<String>>,
    pub fields: Vec<CompactField>,
}

/// One key of a compact row: its value is the full row's at the first of `paths` (array
/// indices as digits) that holds one, left out when none does.
#[derive(Debug, Clone)]
pub struct CompactField {
    pub name: String,
    pub paths: Vec<Vec<String>>,
    /// The full row's field there, without its nullability.
    pub node: TyNode,
}

/// A checked broker binding: the runtime endpoint and how each input field is sent.
#[derive(Debug, Clone)]
pub struct Binding {
    /// The runtime's `Endpoint` variant.
    pub endpoint: String,
    /// `GET /v1/...` with the spec's field names, for docs and messages.
    pub display: String,
    pub path: Vec<BoundField>,
    pub query: Vec<BoundField>,
    /// The runtime model (`BrokerAnswer`) that reads the answer.
    pub answer: String,
    /// The whole handler is generated (no hand-written logic).
    pub generated_handler: bool,
}

#[derive(Debug, Clone)]
pub struct BoundField {
    /// The input field (its Rust name).
    pub field: String,
    /// The name E*TRADE knows it by.
    pub wire: String,
    /// Present in every valid input (a plain value, not an `Option`).
    pub always: bool,
    pub kind: ParamKind,
    /// Wire value sent when the caller left the field out.
    pub default: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// Owned values: strings and lists of strings.
    Cloned,
    /// `Copy` values: integers, booleans, dates, decimals.
    Copied,
    /// Generated enums: their wire value.
    Enum,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// Rust type name of the generated input struct.
    pub rust_name: String,
    pub description: Option<String>,
    pub fields: Vec<Field>,
    pub rules: Vec<Rule>,
    pub extension_fields: Vec<String>,
    /// Output objects marked `model:`: the runtime model generated for it.
    pub model: Option<String>,
    /// The named type this object is, if it is one.
    pub type_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub alias: Option<String>,
    pub required: bool,
    pub node: TyNode,
    /// How a model reads the field from E*TRADE's answer (outputs only).
    pub wire: Wire,
}

/// A model field's wire reading; the empty value means "as its type implies".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Wire {
    /// Keys E*TRADE sends it under, preferred first; empty: the default key.
    pub keys: Vec<String>,
    /// A reader of the runtime's `etrade::models::read` instead of the type's.
    pub read: Option<String>,
    /// Arrays: absent → the answer is refused.
    pub required: bool,
    /// Strings: the value when absent.
    pub default: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TyNode {
    pub ty: Ty,
    pub nullable: bool,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    String {
        min_length: Option<u64>,
        max_length: Option<u64>,
        pattern: Option<String>,
        /// White space at either end is dropped before the checks.
        trim: bool,
    },
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
    },
    Boolean,
    Decimal {
        greater_than: Option<String>,
        less_than: Option<String>,
    },
    Date,
    DateTime,
    Enum {
        rust_name: String,
        values: Vec<String>,
        /// One of E*TRADE's order words (`etrade::OrderAction` in the spec): the runtime's
        /// `etrade::vocabulary` type holds the value instead of a generated enum, and `values`
        /// is the subset the tool accepts.
        vocabulary: Option<String>,
    },
    Array {
        items: Box<TyNode>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    Object(Box<Object>),
    Any,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub when: Option<Condition>,
    pub unless: Option<Condition>,
    pub check: Check,
    /// The diagnostic code the spec names instead of the check's own.
    pub code: Option<String>,
    pub message: String,
}

/// A field holds one of these values (an enum's, or `true` / `false`).
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub field: String,
    pub one_of: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    Conditional {
        require: Vec<String>,
        forbid: Vec<String>,
    },
    Needs {
        field: String,
        needs: Vec<String>,
    },
    Ordered {
        first: String,
        second: String,
        strict: bool,
    },
    AtMostOne(Vec<String>),
    Date {
        year: String,
        month: String,
        day: String,
    },
    MaxItems {
        field: String,
        max: u64,
    },
}

/// The decimal-string syntax shared by the JSON Schema and the runtime validator.
pub const DECIMAL_PATTERN: &str = "^-?[0-9]{1,20}(\\.[0-9]{1,10})?$";
/// ISO calendar date syntax; the runtime also checks that the date exists.
pub const DATE_PATTERN: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";
