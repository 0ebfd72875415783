//! Runtime validation tables built from codegen's IR at run time, for specs that are not
//! compiled in (the kitchen-sink fixture). Mirrors what `emit_rust` writes as statics;
//! leaked to get the `'static` lifetime the tables use. Shared by tests and benches.

#![allow(dead_code)]

use codegen::ir;
use runtime::contract::validation::{FieldSchema, ObjectSchema, RuleSchema, TypeKind, TypeSchema};

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
            when_field: leak_str(&r.when_field),
            when_in: leak_strs(&r.when_in),
            require: leak_strs(&r.require),
            forbid: leak_strs(&r.forbid),
            message: leak_str(&r.message),
        })
        .collect();
    Box::leak(Box::new(ObjectSchema {
        fields: Box::leak(fields.into_boxed_slice()),
        rules: Box::leak(rules.into_boxed_slice()),
        extension_fields: leak_strs(&o.extension_fields),
    }))
}

fn leak_type(n: &ir::TyNode) -> TypeSchema {
    let kind = match &n.ty {
        ir::Ty::String {
            min_length,
            max_length,
            pattern,
        } => TypeKind::String {
            min_length: *min_length,
            max_length: *max_length,
            pattern: pattern.as_deref().map(leak_str),
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
