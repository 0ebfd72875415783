//! Inventory: the compiled registry equals the spec, examples behave as declared, annotations
//! agree with permissions, and the error-code table agrees with the runtime's taxonomy.
//! Per-tool tests are generated (`generated/inventory_tests.rs`); the rest is here.

use etrade_mcp::generated as g;
use runtime::__codegen::ToolDescriptor;
use runtime::contract::errors::ErrorCode;

include!(concat!(env!("OUT_DIR"), "/inventory_tests.rs"));

fn __args(text: &str) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => panic!("example args are an object: {text}"),
    }
}

/// Examples whose expected code is not `invalid_input` are policy outcomes; today that is
/// only `execution_disabled`, which holds whenever the tool needs a startup flag.
fn __expect_code(tool: &str, _args: &str, code: &str) {
    let d = g::CATALOG.tool(tool).expect("tool");
    match code {
        "execution_disabled" => {
            let p = g::CATALOG.permission(d.permission).expect("permission");
            assert!(p.flag.is_some(), "{tool} is disabled by default");
        }
        other => panic!("no inventory check for example code {other}"),
    }
}

fn __check_annotations(d: &ToolDescriptor) {
    match d.permission {
        "read" => assert!(
            d.read_only && !d.destructive,
            "{} read tools are read-only",
            d.name
        ),
        "preview" => assert!(!d.destructive, "{} previews are not destructive", d.name),
        _ => assert!(!d.read_only, "{} mutations are not read-only", d.name),
    }
    assert!(
        d.error_codes.contains(&"invalid_input") && d.error_codes.contains(&"internal_error"),
        "{} declares the implicit codes",
        d.name
    );
}

fn spec_catalog() -> codegen::ir::Catalog {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/tools.yaml"))
        .expect("spec");
    codegen::load(&text).expect("spec is valid")
}

#[test]
fn registry_equals_spec() {
    let spec = spec_catalog();
    let names: Vec<&str> = spec.tools.iter().map(|t| t.name.as_str()).collect();
    let registry: Vec<&str> = g::TOOLS.iter().map(|t| t.name).collect();
    assert_eq!(names, registry);
    for (s, d) in spec.tools.iter().zip(g::TOOLS.iter()) {
        assert_eq!(s.permission, d.permission);
        assert_eq!(s.description, d.description);
        assert_eq!(
            (s.read_only, s.destructive, s.idempotent, s.open_world),
            (d.read_only, d.destructive, d.idempotent, d.open_world)
        );
        assert_eq!(s.errors, d.error_codes);
    }
}

#[test]
fn error_codes_agree_with_runtime_taxonomy() {
    assert_eq!(g::ERROR_CODES.len(), ErrorCode::ALL.len());
    for d in g::ERROR_CODES.iter() {
        let code =
            ErrorCode::parse(d.code).unwrap_or_else(|| panic!("{} unknown to runtime", d.code));
        assert_eq!(code.category().as_str(), d.category, "{}", d.code);
        assert_eq!(code.summary(), d.message, "{}", d.code);
    }
}

#[test]
fn every_schema_is_valid_json_schema() {
    for d in g::TOOLS.iter() {
        for text in [d.input_schema, d.output_schema] {
            let v: serde_json::Value = serde_json::from_str(text).expect("JSON");
            assert!(
                jsonschema::meta::is_valid(&v),
                "{} schema is valid 2020-12",
                d.name
            );
            assert_eq!(v["type"], "object");
        }
    }
}

#[test]
fn decimal_syntax_matches_the_advertised_pattern() {
    assert_eq!(
        runtime::__codegen::DECIMAL_PATTERN,
        codegen::ir::DECIMAL_PATTERN
    );
}

#[test]
fn docs_mention_every_tool_and_code() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/generated/docs/");
    let tools = std::fs::read_to_string(format!("{root}tools.md")).expect("tools.md");
    let errors = std::fs::read_to_string(format!("{root}errors.md")).expect("errors.md");
    for t in g::TOOLS.iter() {
        assert!(tools.contains(&format!("## {}", t.name)), "{}", t.name);
    }
    for c in g::ERROR_CODES.iter() {
        assert!(errors.contains(&format!("## {}", c.code)), "{}", c.code);
    }
}
