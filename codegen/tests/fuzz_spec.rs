//! Mutation fuzzing of spec parsing: the real `spec/tools.yaml`, edited the way a contributor
//! can break it (lines deleted, duplicated, swapped or re-indented, tokens replaced, bytes
//! inserted, cut short), through `codegen::load` and, when that succeeds, `codegen::generate`.
//! Neither may panic; a refusal must carry diagnostics that point into the file (line ≥ 1,
//! at most one past the last line, column ≥ 1, a message).
//!
//! Short run by default; a long run:
//! `ETRADE_FUZZ_CASES=20000 cargo test -p etrade-codegen --release --test fuzz_spec -- --nocapture`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

fn cases() -> u64 {
    std::env::var("ETRADE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60)
}

/// xorshift64*: reproducible from the printed seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Tokens a spec edit might put where another belongs.
const TOKENS: &[&str] = &[
    "string",
    "integer",
    "decimal",
    "boolean",
    "object",
    "array",
    "date",
    "true",
    "false",
    "null",
    "~",
    "-1",
    "0",
    "99999999999999999999",
    "1.5e308",
    "\"\"",
    "[]",
    "{}",
    "&a",
    "*a",
    "!!binary",
    "- ",
    ": ",
    "'",
    "\"",
    "#",
    "\t",
    "|",
    ">",
    "name:",
    "type:",
    "fields:",
    "items:",
    "enum:",
    "rules:",
    "minimum:",
    "maximum:",
    "pattern: \"[\"",
    "ü",
    "\u{0}",
];

fn mutate(lines: &[&str], rng: &mut Rng) -> String {
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    for _ in 0..=rng.below(3) {
        let n = out.len();
        let i = rng.below(n);
        match rng.below(8) {
            0 => {
                out.remove(i);
            }
            1 => {
                let dup = out[i].clone();
                out.insert(i, dup);
            }
            2 => out.swap(i, rng.below(n)),
            3 => {
                let line = out[i].trim_start().to_string();
                let indent = " ".repeat(rng.below(12));
                out[i] = format!("{indent}{line}");
            }
            4 => {
                // Replace one word of the line with a token.
                let words: Vec<&str> = out[i].split(' ').collect();
                let w = rng.below(words.len());
                let mut words: Vec<String> = words.iter().map(|s| (*s).to_string()).collect();
                words[w] = TOKENS[rng.below(TOKENS.len())].to_string();
                out[i] = words.join(" ");
            }
            5 => {
                let at = out[i]
                    .char_indices()
                    .map(|(k, _)| k)
                    .nth(rng.below(out[i].chars().count() + 1))
                    .unwrap_or(out[i].len());
                out[i].insert_str(at, TOKENS[rng.below(TOKENS.len())]);
            }
            6 => {
                // A block of lines moved elsewhere (a misplaced paste).
                let len = rng.below(20).min(n - i);
                let block: Vec<String> = out.drain(i..i + len).collect();
                let to = rng.below(out.len() + 1);
                for (k, l) in block.into_iter().enumerate() {
                    out.insert(to + k, l);
                }
            }
            _ => out.truncate(i.max(1)),
        }
        if out.is_empty() {
            out.push(String::new());
        }
    }
    out.join("\n")
}

#[test]
fn mutated_specs_never_panic_and_point_into_the_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/tools.yaml");
    let text = std::fs::read_to_string(&path).expect("spec/tools.yaml");
    let lines: Vec<&str> = text.lines().collect();
    let seed = std::env::var("ETRADE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x005e_ed0f_7001_u64);
    let mut rng = Rng(seed | 1);
    let (mut refused, mut accepted, mut problems) = (0u64, 0u64, Vec::new());
    let started = std::time::Instant::now();
    for case in 0..cases() {
        let spec = mutate(&lines, &mut rng);
        let last_line = spec.lines().count() as u64 + 1;
        let outcome = catch_unwind(AssertUnwindSafe(|| match codegen::load(&spec) {
            Ok(_) => codegen::generate(&spec).map(|_| ()),
            Err(d) => Err(d),
        }));
        match outcome {
            Err(_) => problems.push(format!("case {case} (seed {seed}): panicked")),
            Ok(Ok(())) => accepted += 1,
            Ok(Err(diags)) => {
                refused += 1;
                if diags.is_empty() {
                    problems.push(format!("case {case}: refused without a diagnostic"));
                }
                for d in &diags {
                    if d.line == 0 || d.line > last_line || d.column == 0 || d.message.is_empty() {
                        problems.push(format!("case {case}: diagnostic {d} outside the file"));
                    }
                }
            }
        }
    }
    println!(
        "fuzz_spec: {} mutated specs (seed {seed}): {refused} refused with diagnostics, \
         {accepted} accepted and generated, {} problems, {:.1} s",
        cases(),
        problems.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        refused > 0,
        "no mutation was refused: the mutator is not mutating"
    );
}
