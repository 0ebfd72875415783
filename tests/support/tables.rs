//! Runtime validation tables built from codegen's IR at run time, for specs that are not
//! compiled in (the kitchen-sink fixture). Mirrors what `emit_rust` writes as statics;
//! leaked to get the `'static` lifetime the tables use. Shared by tests and benches.

#![allow(dead_code)]

use codegen::ir;
use runtime::contract::validation::{
    Condition, FieldSchema, ObjectSchema, RuleCheck, RuleSchema, TypeKind, TypeSchema,
};

/// The kitchen-sink fixture's catalog: every input feature in one tool.
pub fn kitchen_sink() -> ir::Catalog {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/spec/fixtures/good_kitchen_sink.yaml"
    ))
    .expect("fixture");
    codegen::load(&text).expect("fixture valid")
}

// The generator turns the same IR into static tables; the fixture's tables are built here
// at test time the same way, leaked to get the `'static` the tables use.
pub fn leak_object(o: &ir::Object) -> &'static ObjectSchema {
    let fields: Vec<FieldSchema> = o
        .fields
        .iter()
        .map(|f| FieldSchema {
            name: leak_str(&f.name),
            alias: f.alias.as_deref().map(leak_str),
            required: f.required,
            ty: leak_type(&f.node),
        })
        .collect();
    let rules: Vec<RuleSchema> = o
        .rules
        .iter()
        .map(|r| RuleSchema {
            when: r.when.as_ref().map(leak_condition),
            unless: r.unless.as_ref().map(leak_condition),
            check: leak_check(&r.check),
            code: r.code.as_deref().map(leak_str),
            message: leak_str(&r.message),
        })
        .collect();
    Box::leak(Box::new(ObjectSchema {
        fields: Box::leak(fields.into_boxed_slice()),
        rules: Box::leak(rules.into_boxed_slice()),
        extension_fields: leak_strs(&o.extension_fields),
    }))
}

fn leak_condition(c: &ir::Condition) -> Condition {
    Condition {
        field: leak_str(&c.field),
        one_of: leak_strs(&c.one_of),
    }
}

fn leak_check(c: &ir::Check) -> RuleCheck {
    match c {
        ir::Check::Conditional { require, forbid } => RuleCheck::Conditional {
            require: leak_strs(require),
            forbid: leak_strs(forbid),
        },
        ir::Check::Needs { field, needs } => RuleCheck::Needs {
            field: leak_str(field),
            needs: leak_strs(needs),
        },
        ir::Check::Ordered {
            first,
            second,
            strict,
        } => RuleCheck::Ordered {
            first: leak_str(first),
            second: leak_str(second),
            strict: *strict,
        },
        ir::Check::AtMostOne(names) => RuleCheck::AtMostOne(leak_strs(names)),
        ir::Check::Date { year, month, day } => RuleCheck::Date {
            year: leak_str(year),
            month: leak_str(month),
            day: leak_str(day),
        },
        ir::Check::MaxItems { field, max } => RuleCheck::MaxItems {
            field: leak_str(field),
            max: *max,
        },
    }
}

fn leak_type(n: &ir::TyNode) -> TypeSchema {
    let kind = match &n.ty {
        ir::Ty::String {
            min_length,
            max_length,
            pattern,
            trim,
        } => TypeKind::String {
            min_length: *min_length,
            max_length: *max_length,
            pattern: pattern.as_deref().map(leak_str),
            trim: *trim,
        },
        ir::Ty::Integer { minimum, maximum } => TypeKind::Integer {
            minimum: *minimum,
            maximum: *maximum,
        },
        ir::Ty::Boolean => TypeKind::Boolean,
        ir::Ty::Decimal {
            greater_than,
            less_than,
        } => TypeKind::Decimal {
            greater_than: greater_than.as_deref().map(leak_str),
            less_than: less_than.as_deref().map(leak_str),
        },
        ir::Ty::Date => TypeKind::Date,
        ir::Ty::DateTime => TypeKind::DateTime,
        ir::Ty::Enum { values, .. } => TypeKind::Enum {
            values: leak_strs(values),
        },
        ir::Ty::Array {
            items,
            min_items,
            max_items,
        } => TypeKind::Array {
            items: Box::leak(Box::new(leak_type(items))),
            min_items: *min_items,
            max_items: *max_items,
        },
        ir::Ty::Object(o) => TypeKind::Object(leak_object(o)),
        ir::Ty::Any => TypeKind::Any,
    };
    TypeSchema {
        kind,
        nullable: n.nullable,
    }
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn leak_strs(v: &[String]) -> &'static [&'static str] {
    Box::leak(
        v.iter()
            .map(|s| leak_str(s))
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}
