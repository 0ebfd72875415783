//! The `vault.toml` a first install writes.

/// The vault's first configuration: config.toml's format (docs/guide/configuration.md),
/// one `default` profile on the paper broker.
///
/// - `credential_store = "file"`: the vault's account has no desktop session, so no
///   keyring; its E*TRADE login lives in an owner-only file in the state folder.
/// - `approval = "required"` with `approval_channel = "out_of_band"`: a person approves
///   each order with `etrade approve` in a terminal, never through the agent's client
///   (which could answer its own elicitation form).
pub fn default_vault_toml() -> String {
    "\
# The trading vault's configuration, in config.toml's format (see docs/guide/configuration.md).
# Only root (an administrator) and the vault's own account can change this file. A person's
# config.toml can narrow what it allows, never widen it.

[profiles.default]
environment = \"paper\"
# The vault's account has no desktop keyring: its E*TRADE login is kept in an owner-only
# file in this folder.
credential_store = \"file\"

[profiles.default.trading]
# A person approves each order and change in a terminal (`etrade approve`), with the PIN.
approval = \"required\"
approval_channel = \"out_of_band\"
"
    .to_owned()
}
