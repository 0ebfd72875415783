//! The machine-readable summary lines every bench prints last, after its own human-readable
//! output. `benches/run-all` collects them into one table:
//!
//! `REPORT\t<measure>\t<value>\t<unit>\t<baseline name>\t<baseline value>\t<ratio>`
//!
//! `ratio` is value ÷ baseline value (both in `unit`); `skipped` as the baseline value (and
//! `-` as the ratio) says the baseline could not run.
//! Also the median the benches that time repeated calls report.

/// Print one summary line; the ratio is `value / baseline_value`.
pub fn report(measure: &str, value: f64, unit: &str, baseline: &str, baseline_value: f64) {
    println!(
        "REPORT\t{measure}\t{}\t{unit}\t{baseline}\t{}\t{}",
        sig(value),
        sig(baseline_value),
        sig(value / baseline_value)
    );
}

/// A summary line whose baseline did not run (e.g. FastMCP is not installed).
#[allow(dead_code)] // not every bench has an optional baseline
pub fn report_skipped(measure: &str, value: f64, unit: &str, baseline: &str) {
    println!(
        "REPORT\t{measure}\t{}\t{unit}\t{baseline}\tskipped\t-",
        sig(value)
    );
}

/// Three significant figures, no exponent (`3457`, `9.30`, `0.00421`).
fn sig(x: f64) -> String {
    if !x.is_finite() {
        return "nan".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).clamp(0, 9) as usize;
    format!("{x:.decimals$}")
}

/// The middle one of a bench's timings (the upper middle of an even count).
#[allow(dead_code)] // only the benches that time repeated calls
pub fn median(mut v: Vec<std::time::Duration>) -> std::time::Duration {
    v.sort_unstable();
    v[v.len() / 2]
}
