//! `generated/` must be exactly what spec/tools.yaml generates, and what the build compiled.

use std::path::Path;

const REFRESH: &str = "cargo run -p etrade-codegen -- write";

#[test]
fn generated_mirror_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join("spec/tools.yaml")).expect("spec");
    let files = codegen::generate(&spec).expect("spec is valid");
    let mut stale = Vec::new();
    for (rel, content) in &files {
        let on_disk = std::fs::read_to_string(root.join("generated").join(rel)).ok();
        if on_disk.as_deref().map(|s| s.replace("\r\n", "\n")) != Some(content.clone()) {
            stale.push(rel.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "generated/ is stale ({}); run `{REFRESH}` and commit the result",
        stale.join(", ")
    );
}

#[test]
fn compiled_code_equals_the_mirror() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mirror = std::fs::read_to_string(root.join("generated/tools.rs")).expect("mirror");
    assert!(
        mirror == etrade_mcp::GENERATED_TOOLS_RS,
        "OUT_DIR/tools.rs differs from generated/tools.rs; run `{REFRESH}`"
    );
}

#[test]
fn compiled_models_equal_the_mirror() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mirror =
        std::fs::read_to_string(root.join("generated").join(codegen::MODELS_FILE)).expect("mirror");
    assert!(
        mirror == runtime::etrade::models::generated::SOURCE,
        "the runtime's OUT_DIR/models.rs differs from generated/models.rs; run `{REFRESH}`"
    );
}

#[test]
fn compiled_endpoints_equal_the_mirror() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mirror = std::fs::read_to_string(
        root.join("generated")
            .join(codegen::emit_endpoints::ENDPOINTS_FILE),
    )
    .expect("mirror");
    assert!(
        mirror == runtime::etrade::request::ENDPOINTS_SOURCE,
        "the runtime's OUT_DIR/endpoints.rs differs from generated/endpoints.rs; run `{REFRESH}`"
    );
}

#[test]
fn generation_is_deterministic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join("spec/tools.yaml")).expect("spec");
    assert_eq!(codegen::generate(&spec).ok(), codegen::generate(&spec).ok());
}

#[test]
fn compiled_outputs_equal_the_mirror() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mirror = std::fs::read_to_string(
        root.join("generated")
            .join(codegen::emit_outputs::OUTPUTS_FILE),
    )
    .expect("mirror");
    assert!(
        mirror == runtime::outputs::SOURCE,
        "the runtime's OUT_DIR/outputs.rs differs from generated/outputs.rs; run `{REFRESH}`"
    );
}
