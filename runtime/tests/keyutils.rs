//! One real round trip through the Linux kernel keyring (the default store on headless
//! Linux and in CI), with canary secrets that must come back intact and never leak.

#![cfg(target_os = "linux")]

use runtime::config::Environment;
use runtime::credentials::{
    CredentialKey, CredentialStore, KeyringStore, Secret, StoredCredentials,
};

#[test]
fn keyutils_round_trip() {
    let store = KeyringStore::linux_keyutils().expect("linux-keyutils store opens");
    let profile = format!("test-{}", std::process::id());
    let key = CredentialKey::new(Environment::Sandbox, profile).expect("key");
    let canary = "CANARY-consumer-secret-7f3a";
    let mut creds = StoredCredentials::new("ck-test".to_string(), Secret::new(canary.to_string()));
    creds.authorize(
        Secret::new("CANARY-token-91b2".to_string()),
        Secret::new("CANARY-token-secret-c4d5".to_string()),
        jiff::Timestamp::now(),
    );
    store.save(&key, &creds).expect("save");
    let back = store.load(&key).expect("load").expect("entry exists");
    assert_eq!(back.consumer_secret.expose(), canary);
    assert!(back.has_access_token());
    assert!(
        !format!("{back:?}").contains("CANARY"),
        "Debug redacts secrets"
    );
    store.delete(&key).expect("delete");
    assert!(store.load(&key).expect("load after delete").is_none());
}
