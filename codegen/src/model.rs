//! The spec as written: serde types that mirror `spec/tools.yaml` one to one.
//!
//! Every value a semantic check may complain about is wrapped in [`Spanned`] so the
//! diagnostic can point at its line and column. No `flatten` or `untagged` anywhere: serde
//! buffers those and the spans would be lost.

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

pub type S<T> = Spanned<T>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub version: S<u32>,
    pub permissions: Vec<PermissionDef>,
    pub error_codes: Vec<ErrorCodeDef>,
    /// Every E*TRADE endpoint the runtime calls, once: its name is the runtime's `Endpoint`
    /// variant.
    #[serde(default)]
    pub endpoints: OrderedMap<S<EndpointDef>>,
    #[serde(default)]
    pub types: OrderedMap<Node>,
    pub tools: Vec<ToolDef>,
}

/// One E*TRADE endpoint.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointDef {
    /// GET, POST, PUT or DELETE.
    pub method: S<String>,
    /// E*TRADE's API module (the pacing bucket): accounts, market, orders or alerts.
    pub module: S<String>,
    /// The path with E*TRADE's parameter names: `/v1/accounts/{accountIdKey}/balance`.
    pub path: S<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PermissionDef {
    pub name: S<String>,
    pub description: Option<S<String>>,
    /// The `etrade serve` flag that grants it; null = always granted.
    pub flag: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorCodeDef {
    pub code: S<String>,
    pub category: S<String>,
    pub message: Option<S<String>>,
    pub when: Option<S<String>>,
    pub host_action: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDef {
    pub name: S<String>,
    pub title: Option<S<String>>,
    pub group: S<String>,
    pub permission: S<String>,
    pub description: Option<S<String>>,
    pub annotations: S<Annotations>,
    pub input: S<Node>,
    pub output: S<Node>,
    #[serde(default)]
    pub errors: Vec<S<String>>,
    #[serde(default)]
    pub examples: Examples,
    /// How the tool maps onto E*TRADE, for tools that make one request per call.
    pub broker: Option<S<BrokerDef>>,
    /// Named bounds of the tool's own work (pages it reads, rows it returns), generated as
    /// constants on its input type so the handler and the docs state the same numbers.
    #[serde(default)]
    pub limits: OrderedMap<S<u32>>,
    /// The tool's MCP App (extension `io.modelcontextprotocol/ui`), or its visibility.
    pub ui: Option<S<UiDef>>,
    /// A list tool's compact projection, chosen by its `detail` input field.
    pub compact: Option<S<CompactDef>>,
}

/// `compact:` on a list tool: where its rows are and what a compact row keeps.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactDef {
    /// Dotted paths from `data` to the rows (an array's elements are walked through), e.g.
    /// `accountPortfolio.position` or `optionPairs.call`.
    pub rows: Vec<S<String>>,
    /// Each compact key and the dotted path in the full row it takes its value from (an
    /// array needs an index: `orderDetail.0.status`); `a.x|b.x` takes the first that is not
    /// null (a quote's block depends on detail_flag). Null values are left out.
    pub fields: OrderedMap<S<String>>,
}

/// `ui:` on a tool: the app a host renders beside its result, and who may call it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiDef {
    /// The app's `ui://` resource URI.
    pub resource: Option<S<String>>,
    /// The app's HTML under `apps/`, assembled and embedded at build time.
    pub source: Option<S<String>>,
    /// What the resource says it is (`resources/list`).
    pub description: Option<S<String>>,
    /// `[model, app]` (the default) or `[app]`: an app-only tool hosts keep from the model.
    pub visibility: Option<S<Vec<S<String>>>>,
}

/// A tool's binding to an E*TRADE endpoint.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrokerDef {
    /// The endpoint, by its name in the spec's `endpoints:`. Each `{param}` of its path is
    /// sent from the input field whose wire name (alias, else name) is `param`.
    pub endpoint: S<String>,
    /// Input fields sent as query parameters, in this order, under their wire names.
    #[serde(default)]
    pub query: Vec<S<String>>,
    /// Wire values sent for query fields the caller left out.
    #[serde(default)]
    pub defaults: OrderedMap<S<String>>,
    /// The runtime model that reads E*TRADE's answer.
    pub answer: S<String>,
    /// `generated` (default): the whole handler is generated. `hand`: a hand-written
    /// handler with logic of its own builds on the generated request.
    pub handler: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Annotations {
    pub read_only: S<bool>,
    pub destructive: S<bool>,
    pub idempotent: S<bool>,
    pub open_world: S<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    #[serde(default)]
    pub valid: Vec<S<serde_json::Value>>,
    #[serde(default)]
    pub invalid: Vec<S<InvalidExample>>,
    /// An excerpt of a successful result's `data`, for the docs; must fit the output schema.
    pub output: Option<S<serde_json::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvalidExample {
    pub args: serde_json::Value,
    pub code: S<String>,
}

/// One schema node: a named type, a field, an array's items, or a tool's input/output root.
/// Which keys apply depends on `type`; the checker rejects keys that do not.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Node {
    pub name: Option<S<String>>,
    pub alias: Option<S<String>>,
    #[serde(rename = "type")]
    pub ty: Option<S<String>>,
    pub description: Option<S<String>>,
    pub required: Option<S<bool>>,
    pub nullable: Option<S<bool>>,
    pub min_length: Option<S<u64>>,
    pub max_length: Option<S<u64>>,
    pub pattern: Option<S<String>>,
    pub trim: Option<S<bool>>,
    pub minimum: Option<S<i64>>,
    pub maximum: Option<S<i64>>,
    pub greater_than: Option<S<String>>,
    pub less_than: Option<S<String>>,
    pub values: Option<S<Vec<String>>>,
    pub items: Option<Box<S<Node>>>,
    pub min_items: Option<S<u64>>,
    pub max_items: Option<S<u64>>,
    pub fields: Option<S<Vec<S<Node>>>>,
    pub rules: Option<S<Vec<S<RuleDef>>>>,
    pub extension_fields: Option<S<Vec<S<String>>>>,
    /// Output objects: generate this object (and every object beneath it) as a runtime model
    /// of E*TRADE's answer, under this Rust name.
    pub model: Option<S<String>>,
    /// Output fields of a model: the key(s) E*TRADE sends the field under, the first one
    /// preferred; the field's own name is always accepted too.
    pub wire: Option<S<WireKeys>>,
    /// Output fields of a model: the wire reader (a function of the runtime's
    /// `etrade::models::read`) used instead of the one the field's type implies.
    pub read: Option<S<String>>,
    /// Output arrays of a model: an answer without this field is refused (otherwise absent
    /// reads as empty).
    pub wire_required: Option<S<bool>>,
    /// Output strings of a model: the value when E*TRADE does not send the field.
    pub wire_default: Option<S<String>>,
}

/// One wire key (`wire: Messages`) or several (`wire: [Messages, messageList]`).
#[derive(Debug, Clone)]
pub struct WireKeys(pub Vec<String>);

impl<'de> Deserialize<'de> for WireKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = WireKeys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a wire key or a list of wire keys")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<WireKeys, E> {
                Ok(WireKeys(vec![v.to_string()]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<WireKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = seq.next_element::<String>()? {
                    keys.push(k);
                }
                Ok(WireKeys(keys))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDef {
    /// The rule applies only when this holds.
    pub when: Option<S<WhenDef>>,
    /// The rule does not apply when this holds.
    pub unless: Option<S<WhenDef>>,
    #[serde(default)]
    pub require: Vec<S<String>>,
    #[serde(default)]
    pub forbid: Vec<S<String>>,
    /// With `needs` or `max_items`: the field the rule is about.
    pub field: Option<S<String>>,
    pub needs: Option<S<Vec<S<String>>>>,
    pub max_items: Option<S<u64>>,
    pub ordered: Option<S<Vec<S<String>>>>,
    pub strict: Option<S<bool>>,
    pub at_most_one: Option<S<Vec<S<String>>>>,
    pub date: Option<S<Vec<S<String>>>>,
    pub code: Option<S<String>>,
    pub message: S<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WhenDef {
    pub field: S<String>,
    #[serde(rename = "in")]
    pub one_of: Vec<S<String>>,
}

/// A YAML mapping kept in file order with the span of every key.
#[derive(Debug)]
pub struct OrderedMap<T>(pub Vec<(S<String>, T)>);

impl<T> Default for OrderedMap<T> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OrderedMap<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OrderedMap<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<S<String>, T>()? {
                    out.push((k, v));
                }
                Ok(OrderedMap(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}
