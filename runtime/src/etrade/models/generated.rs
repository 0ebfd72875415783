//! The models generated from the spec's `model:` objects (build.rs → OUT_DIR; mirrored in
//! `generated/models.rs`).

include!(concat!(env!("OUT_DIR"), "/models.rs"));

/// The generated source, so a test can compare it with the committed mirror.
pub const SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/models.rs"));
