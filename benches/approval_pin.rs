//! What one approval-PIN guess costs: the argon2id check of a PIN set now, against the
//! PBKDF2-HMAC-SHA256 (100,000 iterations) check of older versions' PIN files, in the same
//! run. The cost is what bounds an offline guesser that copied the record; online guesses
//! are bounded by the lockout instead.
//!
//! Run: `cargo bench --bench approval_pin` (env `BENCH_ITERS`, default 9 checks each, median
//! reported). The last line is a `REPORT` summary line for `benches/run-all`.

#[path = "support/report.rs"]
mod summary;

use runtime::trading::pin_hash::{self, PinHash};
use runtime::trading::pin_strength::{average_guesses, classify, core_time_words};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn median_of(iters: usize, mut f: impl FnMut()) -> Duration {
    f();
    let runs = (0..iters)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    summary::median(runs)
}

fn main() {
    let iters: usize = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9)
        .max(1);
    let hash = PinHash::new("bench-pin-1").expect("hash");
    let argon = median_of(iters, || {
        black_box(hash.matches(black_box("bench-pin-2")).ok());
    });
    let salt = [5u8; 16];
    let legacy = median_of(iters, || {
        black_box(pin_hash::pbkdf2_sha256(
            black_box(b"bench-pin-2"),
            &salt,
            100_000,
        ));
    });
    let six_digits_days = argon.as_secs_f64() * 1e6 / 86_400.0;
    println!(
        "argon2id ({} MiB, {} passes, {} lane): {argon:?} a guess; PBKDF2-SHA256 100k: {legacy:?}",
        pin_hash::MEMORY_KIB / 1024,
        pin_hash::PASSES,
        pin_hash::LANES
    );
    println!(
        "offline, one core: every 6-digit PIN in {six_digits_days:.1} days (PBKDF2: {:.1} hours)",
        legacy.as_secs_f64() * 1e6 / 3600.0
    );
    // The weakest PINs the rule for new PINs accepts: 8 characters of digits and one
    // lower-case letter class, and three short words.
    for weakest in ["1234567a", "red cat sun"] {
        let class = classify(weakest).map(|c| c.as_str()).unwrap_or("refused");
        println!(
            "offline, on average, the weakest accepted ({class}): {:.1e} guesses, {}",
            average_guesses(weakest),
            core_time_words(average_guesses(weakest), argon)
        );
    }
    summary::report(
        "one approval-PIN guess (argon2id, 64 MiB)",
        argon.as_secs_f64() * 1e3,
        "ms",
        "PBKDF2-SHA256 100k (older PIN files)",
        legacy.as_secs_f64() * 1e3,
    );
}
