//! Schema tables, `'static` so the generated code can declare them as plain statics.

/// An object: its fields, cross-field rules and the extension fields it passes through.
#[derive(Debug)]
pub struct ObjectSchema {
    pub fields: &'static [FieldSchema],
    pub rules: &'static [RuleSchema],
    /// Accepted as given and carried to the broker unchanged.
    pub extension_fields: &'static [&'static str],
}

#[derive(Debug)]
pub struct FieldSchema {
    /// Canonical snake_case name, used in every diagnostic path.
    pub name: &'static str,
    /// A client spelling also accepted (e.g. E*TRADE's `limitPrice`).
    pub alias: Option<&'static str>,
    pub required: bool,
    pub ty: TypeSchema,
}

#[derive(Debug)]
pub struct TypeSchema {
    pub kind: TypeKind,
    pub nullable: bool,
}

#[derive(Debug)]
pub enum TypeKind {
    String {
        min_length: Option<u64>,
        max_length: Option<u64>,
        pattern: Option<&'static str>,
    },
    Integer {
        minimum: Option<i64>,
        maximum: Option<i64>,
    },
    Boolean,
    /// A decimal string; bounds are exclusive and written as decimal strings.
    Decimal {
        greater_than: Option<&'static str>,
        less_than: Option<&'static str>,
    },
    Date,
    DateTime,
    Enum {
        values: &'static [&'static str],
    },
    Array {
        items: &'static TypeSchema,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    Object(&'static ObjectSchema),
    Any,
}

/// When `when_field` holds one of `when_in`, the `require` fields must be present and the
/// `forbid` fields absent. A violation points at the containing object.
#[derive(Debug)]
pub struct RuleSchema {
    pub when_field: &'static str,
    pub when_in: &'static [&'static str],
    pub require: &'static [&'static str],
    pub forbid: &'static [&'static str],
    pub message: &'static str,
}
