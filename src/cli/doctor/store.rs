//! The credential store: it opens and reads, what it protects against, and the local
//! estimate of the stored credentials.

use super::*;

/// Opens the chosen store and reads this entry once; `None` when it is unusable. Then one
/// line on every store this system offers, with what each protects against. On paper a
/// store that forgets at reboot is no warning: paper needs no credentials.
pub(super) fn check_keyring(
    r: &mut Report,
    choice: StoreChoice,
    data_dir: &Path,
    key: &CredentialKey,
    paper: bool,
) -> Option<Arc<dyn CredentialStore>> {
    let name = "keyring";
    let others = format!(
        "choose a store that works here with --credential-store (or credential_store in config.toml): {}",
        store_names()
    );
    let opened = match open_store(choice, data_dir) {
        Ok(o) => o,
        Err(e) => {
            r.fail(name, &format!("{e}."), &others);
            explain_stores(r);
            return None;
        }
    };
    let store = opened.store;
    let backend = store.backend_name();
    let how = match &opened.notice {
        Some(notice) => format!(" (auto: {notice})"),
        None => format!(" (--credential-store {choice})"),
    };
    let usable = match store.load(key) {
        Ok(_) | Err(StoreError::Undecodable { .. }) => true,
        Err(e) => {
            r.fail(name, &format!("{e}{how}."), &others);
            false
        }
    };
    if usable {
        match opened.choice {
            StoreChoice::Keyutils if paper => r.ok(
                name,
                &format!(
                    "{backend} opens and reads{how}. Paper needs no credentials; this store matters only for live paper quotes and the E*TRADE environments, and it forgets at reboot."
                ),
            ),
            StoreChoice::Keyutils => r.warn(
                name,
                &format!(
                    "{backend} opens and reads{how}. The kernel keyring lives in memory: the consumer key, secret and token are gone after a reboot."
                ),
                "on a desktop, run a Secret Service (GNOME Keyring, KWallet or KeePassXC) and use --credential-store secret-service; on a server without any keyring, --credential-store file",
            ),
            StoreChoice::File => check_credentials_file(r, data_dir, &how),
            StoreChoice::Memory => r.ok(
                name,
                &format!("{backend} opens and reads{how} (in memory: empty, for tests only)."),
            ),
            _ => r.ok(
                name,
                &format!("{backend} opens and reads{how}; kept across reboots."),
            ),
        }
    }
    explain_stores(r);
    usable.then_some(store)
}

pub(super) fn store_names() -> String {
    StoreChoice::offered_on(platform::CURRENT)
        .map(StoreChoice::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The file store: where it is, its mode, and plainly what it protects against.
pub(super) fn check_credentials_file(r: &mut Report, data_dir: &Path, how: &str) {
    let path = data_dir.join(CREDENTIALS_FILE_NAME);
    let what = "it keeps other users out, not programs running as you, and the secrets are not encrypted (backups carry them)";
    match platform::permission_bits(&path) {
        Some(mode) if mode & 0o077 != 0 => r.fail(
            "keyring",
            &format!(
                "file{how}: {} has mode {mode:04o}, readable by others.",
                path.display()
            ),
            &format!("chmod 600 {}", path.display()),
        ),
        _ => r.ok(
            "keyring",
            &format!("file{how}: {}, owner-only; {what}.", path.display()),
        ),
    }
}

/// One line per store this system offers: what it is and what it does not defend against.
pub(super) fn explain_stores(r: &mut Report) {
    let lines: Vec<String> = StoreChoice::offered_on(platform::CURRENT)
        .map(|c| format!("{}: {}", c.as_str(), c.trade_offs()))
        .collect();
    r.info("stores", &lines.join(" | "));
}

/// The local estimate; returns the stored credentials when they hold an access token.
pub(super) fn check_credentials(
    r: &mut Report,
    store: &dyn CredentialStore,
    key: &CredentialKey,
    settings: &Settings,
) -> Option<StoredCredentials> {
    let name = "credentials";
    if settings.environment == Environment::Paper {
        let live = [Environment::Production, Environment::Sandbox]
            .into_iter()
            .find(|env| {
                CredentialKey::new(*env, settings.profile.clone())
                    .ok()
                    .and_then(|k| store.load(&k).ok().flatten())
                    .is_some_and(|c| c.has_access_token())
            });
        let found = match live {
            Some(env) => format!(
                "not needed for paper; paper quotes come from E*TRADE ({env}:{}) while that login is active.",
                settings.profile
            ),
            None => "not needed for paper (simulated quotes).".to_string(),
        };
        r.ok(name, &found);
        return None;
    }
    let now = jiff::Timestamp::now();
    let e = estimate(store, key, now);
    let loaded = store.load(key).ok().flatten();
    let consumer = loaded
        .as_ref()
        .map(|c| {
            let head: String = c.consumer_key.chars().take(4).collect();
            format!(" Consumer key {head}...")
        })
        .unwrap_or_default();
    let login = login_command(key);
    let renew = format!(
        "etrade auth renew --environment {} --profile {}",
        key.environment(),
        key.profile()
    );
    match e.state {
        CredentialState::Active => {
            let until = e
                .expires_at
                .as_deref()
                .map(|x| format!(" until {x} (midnight US Eastern)"))
                .unwrap_or_default();
            r.ok(
                name,
                &format!("{key}: active{until}, estimated from local records.{consumer}"),
            );
        }
        CredentialState::Inactive => r.warn(
            name,
            &format!("{key}: inactive (over two hours without use).{consumer}"),
            &renew,
        ),
        CredentialState::Missing => r.fail(name, &format!("{key}: nothing stored."), &login),
        CredentialState::Present => r.fail(
            name,
            &format!("{key}: consumer key stored but not logged in.{consumer}"),
            &login,
        ),
        CredentialState::Expired => r.fail(
            name,
            &format!("{key}: the access token expired.{consumer}"),
            &login,
        ),
        // The detail is sanitized (store errors carry classifications only).
        CredentialState::Unavailable => r.fail(name, &format!("{key}: {}", e.detail), &login),
    }
    loaded.filter(StoredCredentials::has_access_token)
}
