//! `endpoints.rs`: the spec's `endpoints:` as the rows of the runtime's `endpoints!` macro,
//! which expands them into `Endpoint`, `Endpoint::ALL` and `Endpoint::shape`.

use crate::emit_rust::HEADER;
use crate::ir::Catalog;

/// The file's name in OUT_DIR and in the `generated/` mirror.
pub const ENDPOINTS_FILE: &str = "endpoints.rs";

pub fn endpoints_rs(catalog: &Catalog) -> String {
    let mut out = String::from(HEADER);
    out.push_str(
        "// One row per E*TRADE endpoint: `Name = VERB MODULE \"path\";`.\nendpoints! {\n",
    );
    for e in &catalog.endpoints {
        // The checks allow no quote or backslash in a path.
        out.push_str(&format!(
            "    {} = {} {} \"{}\";\n",
            e.variant, e.verb, e.module, e.path
        ));
    }
    out.push_str("}\n");
    out
}
