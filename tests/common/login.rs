//! A profile of its own pointed at an in-process fake E*TRADE, with an active sandbox login
//! for it in the kernel keyring: what every credentialed scenario starts from.

use super::canary::{Canaries, KeyringEntries};
use fake_etrade::FakeEtrade;
use runtime::config::Environment;
use runtime::credentials::{
    CredentialKey, CredentialStore, KeyringStore, Secret, StoredCredentials,
};

pub struct FakeLogin {
    /// `NAME-PID`, unique per test process.
    pub profile: String,
    /// The sandbox entry of `profile`.
    pub key: CredentialKey,
    pub token: String,
    pub token_secret: String,
    consumer_secret: String,
    /// Deletes the keyring entry when the login is dropped, pass or fail.
    _entry: KeyringEntries,
}

impl FakeLogin {
    /// Writes `[profiles.NAME-PID]` with `environment`, `api_base_url` = the fake and
    /// `extra_toml` (`{profile}` replaced by the profile's name) to `home/config.toml`, and
    /// stores an access token the fake issued for the consumer, authorized now.
    pub fn new(
        home: &std::path::Path,
        fake: &FakeEtrade,
        name: &str,
        environment: &str,
        extra_toml: &str,
        (consumer_key, consumer_secret): (&str, &str),
    ) -> FakeLogin {
        let profile = format!("{name}-{}", std::process::id());
        std::fs::write(
            home.join("config.toml"),
            format!(
                "[profiles.{profile}]\nenvironment = \"{environment}\"\napi_base_url = \"{}\"\n{}",
                fake.base_url(),
                extra_toml.replace("{profile}", &profile)
            ),
        )
        .expect("config");
        let key = CredentialKey::new(Environment::Sandbox, profile.clone()).expect("key");
        let entry = KeyringEntries(vec![key.clone()]);
        let pair = fake.issue_access_token(consumer_key);
        let mut creds = StoredCredentials::new(consumer_key, Secret::new(consumer_secret));
        creds.authorize(
            Secret::new(pair.token.clone()),
            Secret::new(pair.secret.clone()),
            jiff::Timestamp::now(),
        );
        KeyringStore::linux_keyutils()
            .expect("keyutils")
            .save(&key, &creds)
            .expect("store credentials");
        FakeLogin {
            profile,
            key,
            token: pair.token,
            token_secret: pair.secret,
            consumer_secret: consumer_secret.to_string(),
            _entry: entry,
        }
    }

    /// The consumer secret, the access token and its secret.
    pub fn canaries(&self) -> Canaries {
        Canaries::new()
            .with("consumer secret", &self.consumer_secret)
            .with("access token", &self.token)
            .with("access token secret", &self.token_secret)
    }
}
