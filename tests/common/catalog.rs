//! Tool arguments from the spec itself, for tests that take their tool list from the catalog.

use serde_json::{Map, Value, json};
use std::sync::OnceLock;

/// The checked spec, read and checked once per test binary.
fn spec() -> &'static codegen::ir::Catalog {
    static CATALOG: OnceLock<codegen::ir::Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/spec/tools.yaml");
        let text = std::fs::read_to_string(path).expect("read the spec");
        codegen::load(&text).unwrap_or_else(|e| panic!("spec: {e:?}"))
    })
}

/// The tool's first valid example from the spec, with every id in `ids` (canonical field
/// name → value) put in place of the example's own, whichever spelling it used.
pub fn example_args(tool: &str, ids: &Map<String, Value>) -> Value {
    let t = spec()
        .tools
        .iter()
        .find(|t| t.name == tool)
        .expect("tool in the spec");
    let mut args = t
        .valid_examples
        .first()
        .cloned()
        .unwrap_or_else(|| json!({}));
    let Some(obj) = args.as_object_mut() else {
        panic!("{tool}: its first valid example is not an object");
    };
    for f in &t.input.fields {
        let spellings = [Some(&f.name), f.alias.as_ref()];
        let given = spellings.iter().flatten().any(|s| obj.contains_key(*s));
        if let (true, Some(id)) = (given, ids.get(&f.name)) {
            for s in spellings.iter().flatten() {
                obj.remove(*s);
            }
            obj.insert(f.name.clone(), id.clone());
        }
    }
    args
}
