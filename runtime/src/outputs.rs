//! What the tools with logic of their own answer: one struct per tool, generated from its
//! `output:` schema in spec/tools.yaml (build.rs → OUT_DIR; mirrored in `generated/outputs.rs`),
//! with a struct or enum for every object and enum beneath it. The handlers, the summaries and
//! `server_status`'s parts build these directly, so their answers have the advertised shape
//! by construction; the generated dispatch serializes them as the tool's `data`.
//!
//! Fields that carry E*TRADE's answer unchanged hold the runtime's answer models, so this
//! module comes after `etrade` in the layers.

use crate::etrade::models::generated as models;

include!(concat!(env!("OUT_DIR"), "/outputs.rs"));

/// The generated source, so a test can compare it with the committed mirror.
pub const SOURCE: &str = include_str!(concat!(env!("OUT_DIR"), "/outputs.rs"));
