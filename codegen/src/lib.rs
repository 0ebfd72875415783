//! The etrade-mcp code generator: `spec/tools.yaml` → checked catalog → Rust tool layer,
//! inventory tests, Markdown references and JSON Schema files.
//!
//! A library first (so it is testable without Cargo in the loop); `build.rs` and the
//! `codegen` CLI are thin shells over [`generate`].

pub mod apps;
pub mod binding;
pub mod check;
pub mod compact;
pub mod diagnostics;
pub mod emit_docs;
pub mod emit_endpoints;
pub mod emit_models;
pub mod emit_outputs;
pub mod emit_rust;
pub mod ir;
pub mod json_schema;
pub mod model;
mod rules;
mod syntax;

pub use diagnostics::Diagnostic;
use std::collections::BTreeMap;

/// Where the catalog lives, relative to the workspace root; diagnostics name it.
pub const SPEC_PATH: &str = "spec/tools.yaml";

/// Parse and check a spec. Every problem found is returned at once, sorted by position.
pub fn load(spec_text: &str) -> Result<ir::Catalog, Vec<Diagnostic>> {
    let spec: model::Spec = match serde_saphyr::from_str(spec_text) {
        Ok(s) => s,
        Err(e) => return Err(vec![syntax::diagnostic(&e, spec_text)]),
    };
    let mut d = diagnostics::Diagnostics::default();
    let catalog = check::check(&spec, &mut d);
    let checks_clean = d.is_empty();
    check_examples(&spec, &catalog, checks_clean, &mut d);
    if d.is_empty() {
        Ok(catalog)
    } else {
        Err(d.into_sorted())
    }
}

/// Every generated file, keyed by its path relative to `generated/` (and OUT_DIR), with the
/// apps assembled from the workspace's `apps/`.
pub fn generate(spec_text: &str) -> Result<BTreeMap<String, String>, Vec<Diagnostic>> {
    generate_from(spec_text, &apps::workspace_root())
}

/// [`generate`], with the apps' sources under `root` (a published crate carries them).
pub fn generate_from(
    spec_text: &str,
    root: &std::path::Path,
) -> Result<BTreeMap<String, String>, Vec<Diagnostic>> {
    let catalog = load(spec_text)?;
    let mut out = BTreeMap::new();
    out.insert("tools.rs".to_string(), emit_rust::tools_rs(&catalog));
    out.insert(
        "inventory_tests.rs".to_string(),
        emit_rust::inventory_rs(&catalog),
    );
    out.insert(MODELS_FILE.to_string(), emit_models::models_rs(&catalog));
    out.insert(
        emit_outputs::OUTPUTS_FILE.to_string(),
        emit_outputs::outputs_rs(&catalog),
    );
    out.insert(
        emit_endpoints::ENDPOINTS_FILE.to_string(),
        emit_endpoints::endpoints_rs(&catalog),
    );
    for (file, html) in apps::assemble_all(&catalog, root)? {
        out.insert(format!("apps/{file}"), html);
    }
    emit_docs::docs(&catalog, &mut out);
    Ok(out)
}

/// The runtime's generated models, keyed in [`generate`]'s map (and the mirror) by this name.
pub const MODELS_FILE: &str = "models.rs";

/// The files the runtime compiles itself; the rest of [`generate`]'s map is the tool layer,
/// which the binary's build script takes from the runtime's.
pub const RUNTIME_FILES: [&str; 3] = [
    MODELS_FILE,
    emit_endpoints::ENDPOINTS_FILE,
    emit_outputs::OUTPUTS_FILE,
];

/// Valid examples must satisfy the advertised input schema. (Invalid ones, and the checks
/// JSON Schema cannot express, are exercised by the generated inventory tests.)
///
/// A schema that is not valid JSON Schema is only reported when the checks passed: otherwise
/// a check has already pointed at the cause (e.g. an invalid `pattern`), more precisely.
fn check_examples(
    spec: &model::Spec,
    catalog: &ir::Catalog,
    checks_clean: bool,
    d: &mut diagnostics::Diagnostics,
) {
    for (def, tool) in spec.tools.iter().zip(&catalog.tools) {
        let schema = json_schema::input_schema(tool);
        let validator = match jsonschema::validator_for(&schema) {
            Ok(v) => v,
            Err(e) => {
                if checks_clean {
                    d.at(
                        &def.input,
                        format!("input schema is not valid JSON Schema: {e}"),
                    );
                }
                continue;
            }
        };
        for ex in &def.examples.valid {
            // Aliases are accepted but not advertised: compare in canonical names.
            let canonical = canonical_names(&tool.input, &ex.value);
            if let Some(err) = validator.iter_errors(&canonical).next() {
                let path = err.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_string()
                } else {
                    path
                };
                d.at(
                    ex,
                    format!("valid example does not match the input schema at {path}: {err}"),
                );
            }
        }
        for ex in &def.examples.invalid {
            if !ex.value.args.is_object() {
                d.at(ex, "example args must be an object");
            }
        }
        // Both output forms, the advertised one and the documented one it is derived from;
        // they accept the same results, so a problem is reported once.
        let outputs = [
            json_schema::output_schema(catalog, tool),
            json_schema::documented_output_schema(catalog, tool),
        ];
        for schema in &outputs {
            let validator = match jsonschema::validator_for(schema) {
                Ok(v) => v,
                Err(e) => {
                    if checks_clean {
                        d.at(
                            &def.output,
                            format!("output schema is not valid JSON Schema: {e}"),
                        );
                    }
                    break;
                }
            };
            if let Some(ex) = &def.examples.output {
                let envelope = serde_json::json!({
                    "data": with_nulls(&tool.output, &ex.value),
                    "error": null,
                    "meta": {"environment": "paper", "profile": "default", "observed_at": "2026-10-17T12:00:00Z"}
                });
                if let Some(err) = validator.iter_errors(&envelope).next() {
                    let path = err.instance_path().to_string();
                    d.at(
                        ex,
                        format!("output example does not match the output schema at {path}: {err}"),
                    );
                    break;
                }
            }
        }
    }
}

/// An output example is an excerpt: a nullable field it leaves out reads as null, so adding
/// a nullable field to a shared type does not make every example that shows the type stale.
fn with_nulls(o: &ir::Object, v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let Value::Object(map) = v else {
        return v.clone();
    };
    let mut out = map.clone();
    for f in &o.fields {
        match out.get_mut(&f.name) {
            Some(x) => *x = with_nulls_node(&f.node.ty, x),
            None if f.node.nullable => {
                out.insert(f.name.clone(), Value::Null);
            }
            None => {}
        }
    }
    Value::Object(out)
}

fn with_nulls_node(t: &ir::Ty, v: &serde_json::Value) -> serde_json::Value {
    match (t, v) {
        (ir::Ty::Object(o), _) => with_nulls(o, v),
        (ir::Ty::Array { items, .. }, serde_json::Value::Array(list)) => {
            serde_json::Value::Array(list.iter().map(|x| with_nulls_node(&items.ty, x)).collect())
        }
        _ => v.clone(),
    }
}

/// An example's arguments with client aliases replaced by canonical field names.
fn canonical_names(o: &ir::Object, v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let Value::Object(map) = v else {
        return v.clone();
    };
    let mut out = serde_json::Map::new();
    for (k, v) in map {
        match o
            .fields
            .iter()
            .find(|f| &f.name == k || f.alias.as_ref() == Some(k))
        {
            Some(f) => {
                out.insert(f.name.clone(), canonical_node(&f.node.ty, v));
            }
            None => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

fn canonical_node(t: &ir::Ty, v: &serde_json::Value) -> serde_json::Value {
    match (t, v) {
        (ir::Ty::Object(o), _) => canonical_names(o, v),
        (ir::Ty::Array { items, .. }, serde_json::Value::Array(list)) => {
            serde_json::Value::Array(list.iter().map(|x| canonical_node(&items.ty, x)).collect())
        }
        _ => v.clone(),
    }
}
