//! The person's side of the vault.
