//! The flags several commands share: environment, transport, the permission grants and the
//! credential store's name.

use clap::ValueEnum;
use runtime::config::Environment;
use runtime::credentials::StoreChoice;

/// The startup flags that grant permissions, shared by `serve` and `doctor` (which reports
/// what `serve` would grant with the same flags).
#[derive(Debug, clap::Args)]
pub struct GrantFlags {
    /// Grant the `trade` permission: place, change and cancel orders. `--allow-trading=false`
    /// (what an MCP Bundle's "trading" switch passes when off) grants nothing.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true",
          value_parser = clap::builder::BoolishValueParser::new(), hide_default_value = true,
          hide_possible_values = true)]
    pub allow_trading: bool,
    /// Grant the `alerts_delete` permission: delete alerts.
    #[arg(long)]
    pub allow_alert_deletion: bool,
    /// Required with --allow-trading in the production environment: real orders, real money.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true,
          default_value = "false", default_missing_value = "true",
          value_parser = clap::builder::BoolishValueParser::new(), hide_default_value = true,
          hide_possible_values = true)]
    pub confirm_production: bool,
}

impl GrantFlags {
    /// Whether the startup flag named in the spec (`--allow-trading`, ...) was given.
    pub fn given(&self, flag: &str) -> bool {
        match flag {
            "--allow-trading" => self.allow_trading,
            "--allow-alert-deletion" => self.allow_alert_deletion,
            _ => false,
        }
    }

    /// Each permission with a startup flag is granted only when that flag was given.
    pub fn granted(&self) -> Vec<&'static str> {
        etrade_mcp::generated::PERMISSIONS
            .iter()
            .filter(|p| p.flag.is_none_or(|f| self.given(f)))
            .map(|p| p.name)
            .collect()
    }

    /// Trading in production needs the explicit confirmation.
    pub fn production_unconfirmed(&self, environment: Environment) -> bool {
        environment == Environment::Production && self.allow_trading && !self.confirm_production
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum EnvironmentArg {
    Paper,
    Sandbox,
    Production,
}

impl From<EnvironmentArg> for Environment {
    fn from(e: EnvironmentArg) -> Environment {
        match e {
            EnvironmentArg::Paper => Environment::Paper,
            EnvironmentArg::Sandbox => Environment::Sandbox,
            EnvironmentArg::Production => Environment::Production,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportArg {
    Stdio,
    Http,
}

/// `--credential-store`: the names and one-line descriptions come from [`StoreChoice`].
pub fn store_choice() -> impl clap::builder::TypedValueParser<Value = StoreChoice> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        StoreChoice::ALL.map(|c| PossibleValue::new(c.as_str()).help(c.describe())),
    )
    .try_map(|name| name.parse::<StoreChoice>())
}
