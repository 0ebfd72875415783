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
        /// Leading and trailing white space is dropped before the checks, and the value is
        /// passed on without it.
        trim: bool,
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

/// A cross-field rule: when its conditions hold, `check` must pass. Rules run after the
/// fields' own checks and skip any field that already failed them, so one mistake is
/// reported once.
#[derive(Debug)]
pub struct RuleSchema {
    /// The rule applies only when this holds (always, if `None`).
    pub when: Option<Condition>,
    /// The rule does not apply when this holds.
    pub unless: Option<Condition>,
    pub check: RuleCheck,
    /// The diagnostic code, where the spec names one instead of the check's own.
    pub code: Option<&'static str>,
    pub message: &'static str,
}

/// `field` holds one of `one_of` (enum values, or `true` / `false` for a boolean). An
/// absent field holds nothing.
#[derive(Debug)]
pub struct Condition {
    pub field: &'static str,
    pub one_of: &'static [&'static str],
}

#[derive(Debug)]
pub enum RuleCheck {
    /// `require` present and `forbid` absent; reported at the containing object
    /// (`conditional_required`, `conditional_forbidden`).
    Conditional {
        require: &'static [&'static str],
        forbid: &'static [&'static str],
    },
    /// When `field` is present, each of `needs` must be too; reported at each missing one
    /// (`missing`).
    Needs {
        field: &'static str,
        needs: &'static [&'static str],
    },
    /// When both are present, `first` ≤ `second` (`<` when `strict`); reported at `second`
    /// (`out_of_range`). Dates, integers or decimals.
    Ordered {
        first: &'static str,
        second: &'static str,
        strict: bool,
    },
    /// At most one of these present; reported at each after the first (`not_allowed`).
    AtMostOne(&'static [&'static str]),
    /// When all three integers are present they name a real calendar date; reported at `day`
    /// (`out_of_range`).
    Date {
        year: &'static str,
        month: &'static str,
        day: &'static str,
    },
    /// The array `field` has at most `max` items (`too_many_items`).
    MaxItems { field: &'static str, max: u64 },
}
