//! Each E*TRADE answer shape is written once, in the spec: its output schema and its runtime
//! model (`generated/models.rs`) come from the same fields. So adding a field to an answer is
//! one spec edit: the model reads it, every tool that returns it advertises it, and no
//! hand-written code has to name it (the second test keeps it so).

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn spec() -> String {
    std::fs::read_to_string(root().join("spec/tools.yaml")).expect("spec")
}

/// The names of the generated model structs.
fn model_names(models: &str) -> BTreeSet<String> {
    models
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub struct "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// The body of `pub struct NAME { … }` in generated source.
fn struct_body<'a>(models: &'a str, name: &str) -> &'a str {
    let start = models
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("no model {name}"));
    let end = models[start..].find("\n}").expect("end of struct") + start;
    &models[start..end]
}

#[test]
fn adding_a_field_to_an_answer_is_one_spec_edit() {
    let spec = spec();
    let before = codegen::generate(&spec).expect("spec is valid");
    // The edit: one field on the `Product` block that positions, transactions, quotes and
    // orders all carry.
    let anchor = "  Product:\n    description: \"The security of a position, transaction, quote or order leg (E*TRADE `Product`).\"\n    model: Product\n    fields:\n";
    assert!(
        spec.contains(anchor),
        "the Product type moved; update the anchor"
    );
    let edited = spec.replacen(
        anchor,
        &format!(
            "{anchor}      - name: settlementLag\n        type: decimal\n        nullable: true\n"
        ),
        1,
    );
    let after = codegen::generate(&edited).expect("the edited spec is valid");

    // The model reads it with the decimal reader and serializes it under its output name.
    let models = &after[codegen::MODELS_FILE];
    let product = struct_body(models, "Product");
    assert!(
        product.contains("pub settlement_lag: Option<rust_decimal::Decimal>"),
        "{product}"
    );
    assert!(product.contains("read::decimal_opt"), "{product}");

    // Every tool whose answer carries a Product advertises it.
    for tool in [
        "get_portfolio",
        "list_transactions",
        "get_transaction_details",
        "get_quotes",
        "list_orders",
        "preview_order",
        "place_order",
    ] {
        let schema = &after[&format!("schemas/{tool}.output.json")];
        assert!(schema.contains("\"settlementLag\""), "{tool}");
        assert!(!before[&format!("schemas/{tool}.output.json")].contains("settlementLag"));
    }

    // Only generated files change: the models, the advertised schemas (in the tool layer,
    // the schema files and the docs).
    let changed: Vec<&String> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .map(|(k, _)| k)
        .collect();
    for k in &changed {
        assert!(
            [codegen::MODELS_FILE, "tools.rs"].contains(&k.as_str())
                || k.starts_with("schemas/")
                || k.starts_with("docs/"),
            "{k} changed"
        );
    }
    assert!(changed.iter().any(|k| k.as_str() == codegen::MODELS_FILE));
}

/// A struct literal naming every field (`Quote { symbol, … }`) would have to grow with the
/// model; hand-written code builds models from the wire, or with `..Default::default()`.
#[test]
fn hand_written_code_never_builds_a_model_field_by_field() {
    let models = std::fs::read_to_string(root().join("generated").join(codegen::MODELS_FILE))
        .expect("mirror");
    let names = model_names(&models);
    assert!(
        names.contains("Quote") && names.contains("Balance"),
        "{names:?}"
    );
    let mut files = Vec::new();
    for dir in ["runtime/src", "src", "tests", "benches"] {
        rust_files(&root().join(dir), &mut files);
    }
    let mut found = Vec::new();
    for path in &files {
        if path.ends_with("tests/spec/models_once.rs") {
            continue; // this file plants one on purpose
        }
        let text = std::fs::read_to_string(path).expect("read");
        // A file's own type of the same name (paper's `OptionContract`) is not the model.
        let names: BTreeSet<String> = names
            .iter()
            .filter(|n| !defines_or_imports_another(&text, n))
            .cloned()
            .collect();
        for literal in full_literals(&text, &names) {
            found.push(format!("{}: {literal}", path.display()));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_literal_check_finds_a_planted_literal() {
    let names: BTreeSet<String> = ["AlertList".to_string()].into();
    let planted = "fn e() -> AlertList {\n    AlertList {\n        total_alerts: Some(0),\n        alerts: Vec::new(),\n    }\n}\n";
    assert_eq!(full_literals(planted, &names).len(), 1);
    let fine = "impl AlertList {\n fn e() -> AlertList {\n  AlertList { total_alerts: Some(0), ..Default::default() }\n }\n}\nstruct X { a: AlertList }\n// AlertList { a }\nlet AlertList { alerts, .. } = x;\n";
    assert!(full_literals(fine, &names).is_empty());
}

/// The file declares its own `name`, or imports one from outside the E*TRADE models.
fn defines_or_imports_another(text: &str, name: &str) -> bool {
    let declares = text.lines().any(|l| {
        let l = l.trim();
        [format!("struct {name} "), format!("enum {name} ")]
            .iter()
            .any(|d| l.contains(d.as_str()))
    });
    // A `use` statement, however many lines it spans, naming `name` from anywhere but the
    // models (`etrade::models`, `etrade::answers`, the generated module).
    let imports = text
        .split(';')
        .filter_map(|statement| {
            let lines: Vec<&str> = statement
                .lines()
                .map(|l| l.split("//").next().unwrap_or("").trim())
                .collect();
            let start = lines
                .iter()
                .position(|l| l.starts_with("use ") || l.starts_with("pub use "))?;
            Some(lines[start..].join(" "))
        })
        .any(|u| {
            u.contains(name)
                && !(u.contains("etrade::models")
                    || u.contains("etrade::answers")
                    || u.contains("models::")
                    || u.contains("generated"))
        });
    declares || imports
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if !p.ends_with("target") && !p.ends_with("fixtures") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `Name { … }` expressions (comments aside) that list fields without `..` rest.
fn full_literals(text: &str, names: &BTreeSet<String>) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    for name in names {
        let mut from = 0;
        while let Some(i) = code[from..].find(name.as_str()) {
            let at = from + i;
            from = at + name.len();
            if at > 0 && is_ident(bytes[at - 1]) || bytes.get(from).is_some_and(|b| is_ident(*b)) {
                continue;
            }
            let rest = code[from..].trim_start();
            if !rest.starts_with('{') {
                continue;
            }
            let before = code[..at].trim_end();
            let declaration = ["struct", "impl", "for", "->", "enum", "mod"]
                .iter()
                .any(|k| before.ends_with(k));
            if declaration {
                continue;
            }
            let open = code.len() - rest.len();
            let mut depth = 0usize;
            let mut has_rest = false;
            let mut end = open;
            for (k, c) in code[open..].char_indices() {
                match c {
                    '{' | '(' | '[' => depth += 1,
                    '}' | ')' | ']' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + k;
                            break;
                        }
                    }
                    '.' if depth == 1 && code[open + k..].starts_with("..") => has_rest = true,
                    _ => {}
                }
            }
            let body = &code[open..=end.min(code.len() - 1)];
            if !has_rest {
                out.push(format!(
                    "{name} {}",
                    body.split_whitespace().collect::<Vec<_>>().join(" ")
                ));
            }
        }
    }
    out
}

/// The values E*TRADE accepts for a portfolio's `sortBy` and `view` are written in the spec
/// (the input contract) and in the emulation core (what paper and the fake accept); they
/// must be the same list.
#[test]
fn the_emulation_accepts_what_the_spec_offers() {
    let catalog = codegen::load(&spec()).expect("spec is valid");
    let tool = catalog
        .tools
        .iter()
        .find(|t| t.name == "get_portfolio")
        .expect("get_portfolio");
    let values = |field: &str| -> Vec<String> {
        let f = tool
            .input
            .fields
            .iter()
            .find(|f| f.name == field)
            .expect(field);
        match &f.node.ty {
            codegen::ir::Ty::Enum { values, .. } => values.clone(),
            other => panic!("{field}: {other:?}"),
        }
    };
    use runtime::emulation::query_params::{PORTFOLIO_SORT_KEYS, PORTFOLIO_VIEWS};
    assert_eq!(values("sort_by"), PORTFOLIO_SORT_KEYS);
    assert_eq!(values("view"), PORTFOLIO_VIEWS);
}
