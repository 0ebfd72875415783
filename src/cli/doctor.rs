//! `etrade doctor`: check the local setup (configuration, state folder, keyring,
//! credentials, clock, permissions, paper book, trading database) one line per check, each
//! with what was found and, when something is wrong, the command that fixes it.
//!
//! Read-only where it can be: nothing is created except the state folder itself (every
//! command creates it), and the stored credentials are not touched. No secret is printed;
//! at most the first four characters of the consumer key.

use super::EnvironmentArg;
use super::output::outln;
use etrade_mcp::generated::PERMISSIONS;
use runtime::config::{ConfigFile, Environment, Settings};
use runtime::contract::broker_message::KnownSecrets;
use runtime::contract::error_mapping::{BrokerFailure, Operation, to_tool_error};
use runtime::credentials::{
    CREDENTIALS_FILE_NAME, CredentialKey, CredentialState, CredentialStore, StoreChoice,
    StoreError, StoredCredentials, estimate, open_store,
};
use runtime::etrade::auth_flow::login_command;
use runtime::etrade::endpoints::Endpoints;
use runtime::etrade::{EtradeHttp, Method, Module, session};
use runtime::paths::StatePaths;
use runtime::platform;
use std::fmt;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// E*TRADE refuses OAuth timestamps more than five minutes off.
const SKEW_FAIL_SECS: i64 = 300;
const SKEW_WARN_SECS: i64 = 60;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Environment to check; overrides the profile's `environment` in config.toml.
    #[arg(long, value_enum, env = "ETRADE_MCP_ENVIRONMENT")]
    environment: Option<EnvironmentArg>,
    /// Profile from config.toml (also names the keyring entry and the paper book).
    #[arg(long, env = "ETRADE_MCP_PROFILE")]
    profile: Option<String>,
    /// Where credentials are kept (default: the profile's `credential_store`, else auto).
    #[arg(long, value_parser = super::store_choice(), env = "ETRADE_MCP_CREDENTIAL_STORE")]
    credential_store: Option<StoreChoice>,
    /// The `etrade serve` flags whose permissions to check.
    #[command(flatten)]
    grants: super::GrantFlags,
    /// Make no request to E*TRADE (skips the clock check).
    #[arg(long)]
    offline: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Warn,
    Fail,
    /// Not run (offline, or nothing to run it with); never a failure.
    Skip,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Padded so the check names line up.
        f.write_str(match self {
            Status::Ok => "ok  ",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        })
    }
}

/// Prints each check as it is made and keeps the tally.
#[derive(Default)]
struct Report {
    ok: usize,
    warn: usize,
    fail: usize,
    skip: usize,
}

impl Report {
    fn line(&mut self, status: Status, name: &str, found: &str, next: Option<&str>) {
        match status {
            Status::Ok => self.ok += 1,
            Status::Warn => self.warn += 1,
            Status::Fail => self.fail += 1,
            Status::Skip => self.skip += 1,
        }
        match next {
            Some(n) => outln!("{status} {name}: {found} Next: {n}"),
            None => outln!("{status} {name}: {found}"),
        }
    }

    fn ok(&mut self, name: &str, found: &str) {
        self.line(Status::Ok, name, found, None);
    }

    fn warn(&mut self, name: &str, found: &str, next: &str) {
        self.line(Status::Warn, name, found, Some(next));
    }

    fn fail(&mut self, name: &str, found: &str, next: &str) {
        self.line(Status::Fail, name, found, Some(next));
    }

    fn skip(&mut self, name: &str, found: &str) {
        self.line(Status::Skip, name, found, None);
    }

    /// Explanation that is not a check: printed, never counted.
    fn info(&mut self, name: &str, found: &str) {
        outln!("info {name}: {found}");
    }

    fn finish(self) -> ExitCode {
        let mut summary = format!(
            "summary: {} ok, {} warn, {} FAIL",
            self.ok, self.warn, self.fail
        );
        if self.skip > 0 {
            summary.push_str(&format!(", {} skipped", self.skip));
        }
        if self.fail == 0 {
            summary.push_str(" - no problems that stop etrade");
        }
        outln!("{summary}");
        if self.fail == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}

pub fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let mut r = Report::default();

    // 1. Configuration file.
    let paths = match StatePaths::from_env() {
        Ok(p) => p,
        Err(e) => {
            r.fail(
                "config",
                &format!("{e}."),
                "export ETRADE_MCP_HOME=/path/to/a/folder (or set HOME)",
            );
            return Ok(r.finish());
        }
    };
    let config_path = paths.config_file();
    let (file, config_ok) = check_config(&mut r, &config_path);

    // 2. Environment and profile.
    let flag_env: Option<Environment> = args.environment.map(Into::into);
    let settings = match Settings::resolve(&file, flag_env, args.profile.clone()) {
        Ok(s) => s,
        Err(e) => {
            r.fail(
                "settings",
                &format!("{e}."),
                "pass --profile NAME with letters, digits, `_` or `-` only",
            );
            return Ok(r.finish());
        }
    };
    check_settings(&mut r, &args, &file, &settings, config_ok);
    let key = match CredentialKey::from_settings(&settings) {
        Ok(k) => k,
        Err(e) => {
            r.fail("settings", &format!("{e}."), "pass another --profile");
            return Ok(r.finish());
        }
    };
    let endpoints = if settings.environment == Environment::Paper {
        None
    } else {
        match Endpoints::resolve(&file, &settings) {
            Ok(e) => {
                r.ok(
                    "endpoints",
                    &format!("api {}, oauth {}.", e.api_base, e.oauth_base),
                );
                Some(e)
            }
            Err(e) => {
                r.fail(
                    "endpoints",
                    &format!("{e}."),
                    &format!("fix the URL in {}", config_path.display()),
                );
                None
            }
        }
    };

    // 3. State folder.
    let state_ok = check_state_dir(&mut r, &paths.data_dir);

    // 4. Keyring backend, 5. credentials.
    let choice = args
        .credential_store
        .or_else(|| {
            file.profile(&settings.profile)
                .and_then(|p| p.credential_store)
        })
        .unwrap_or_default();
    let store = check_keyring(&mut r, choice, &paths.data_dir, &key);
    let stored = match &store {
        Some(s) => check_credentials(&mut r, s.as_ref(), &key, &settings),
        None => {
            r.skip(
                "credentials",
                "not checked: the credential store cannot be opened.",
            );
            None
        }
    };

    // 6. Clock skew, against E*TRADE's Date header.
    if settings.environment != Environment::Paper {
        match (&endpoints, &stored) {
            _ if args.offline => r.skip("clock", "not checked against E*TRADE (--offline)."),
            (None, _) => r.skip("clock", "not checked: no usable E*TRADE endpoints."),
            (Some(e), None) => check_clock_unsigned(&mut r, e),
            (Some(e), Some(c)) => check_clock(&mut r, e, c, &key),
        }
    }

    // 7. Permissions.
    check_permissions(&mut r, &args, settings.environment);

    // 8. Paper book, 9. trading database.
    if state_ok {
        if settings.environment == Environment::Paper {
            check_paper(&mut r, &paths.data_dir, &settings.profile);
        }
        check_trading(&mut r, &paths.data_dir, &settings);
    } else {
        if settings.environment == Environment::Paper {
            r.skip("paper", "not checked: the state folder is unusable.");
        }
        r.skip("trading db", "not checked: the state folder is unusable.");
    }

    Ok(r.finish())
}

fn check_config(r: &mut Report, path: &Path) -> (ConfigFile, bool) {
    let exists = path.exists();
    match ConfigFile::load(path) {
        Ok(file) if exists => {
            let n = file.profiles.len();
            r.ok(
                "config",
                &format!(
                    "{} parsed ({n} profile{}).",
                    path.display(),
                    if n == 1 { "" } else { "s" }
                ),
            );
            (file, true)
        }
        Ok(file) => {
            r.ok(
                "config",
                &format!("{} not found; using the defaults.", path.display()),
            );
            (file, true)
        }
        Err(e) => {
            // The error names file:line:col and the key; it never quotes secrets (the file
            // holds none).
            r.fail(
                "config",
                &format!("{e}."),
                &format!(
                    "edit {} (see \"Configuration\" in the README); the checks below assume the defaults",
                    path.display()
                ),
            );
            (ConfigFile::default(), false)
        }
    }
}

fn check_settings(
    r: &mut Report,
    args: &DoctorArgs,
    file: &ConfigFile,
    settings: &Settings,
    config_ok: bool,
) {
    let from_env = |var: &str, value: &str| {
        std::env::var(var)
            .ok()
            .is_some_and(|v| v.trim().eq_ignore_ascii_case(value))
    };
    let env = settings.environment.as_str();
    let env_source = if args.environment.is_some() {
        if from_env("ETRADE_MCP_ENVIRONMENT", env) {
            "ETRADE_MCP_ENVIRONMENT"
        } else {
            "--environment"
        }
    } else if file
        .profile(&settings.profile)
        .and_then(|p| p.environment)
        .is_some()
    {
        "config.toml"
    } else {
        "default"
    };
    let profile_source = if args.profile.is_some() {
        if from_env("ETRADE_MCP_PROFILE", &settings.profile) {
            "ETRADE_MCP_PROFILE"
        } else {
            "--profile"
        }
    } else {
        "default"
    };
    let table = if file.profile(&settings.profile).is_some() {
        "has a table in config.toml"
    } else {
        "no table in config.toml"
    };
    let found = format!(
        "environment {env} (from {env_source}), profile {} (from {profile_source}; {table}).",
        settings.profile
    );
    if config_ok {
        r.ok("settings", &found);
    } else {
        r.warn(
            "settings",
            &found,
            "fix config.toml first: its settings were not applied",
        );
    }
}

/// Exists or can be created, mode 0700, and a file can be created and removed in it.
fn check_state_dir(r: &mut Report, dir: &Path) -> bool {
    let name = "state dir";
    let existed = dir.is_dir();
    if !existed {
        if dir.exists() {
            r.fail(
                name,
                &format!("{} exists but is not a directory.", dir.display()),
                &format!(
                    "move it away, or set ETRADE_MCP_HOME to another folder: mv {0} {0}.bak",
                    dir.display()
                ),
            );
            return false;
        }
        let paths = StatePaths {
            config_dir: dir.to_path_buf(),
            data_dir: dir.to_path_buf(),
        };
        if let Err(e) = paths.ensure_data_dir() {
            r.fail(
                name,
                &format!("{e}."),
                "check the parent folder's owner and permissions, or set ETRADE_MCP_HOME",
            );
            return false;
        }
    }
    if let Err(e) = probe_write(dir) {
        r.fail(
            name,
            &format!("{} is not writable ({e}).", dir.display()),
            &format!(
                "give your user write access: chown -R \"$USER\" {}",
                dir.display()
            ),
        );
        return false;
    }
    let created = if existed { "" } else { " (created)" };
    match mode_of(dir) {
        Some(mode) if mode & 0o077 != 0 => {
            r.warn(
                name,
                &format!(
                    "{}{created} is writable but has mode {mode:04o}: other local users may read account state.",
                    dir.display()
                ),
                &format!(
                    "chmod 700 {} (etrade serve also tightens it when it starts)",
                    dir.display()
                ),
            );
        }
        Some(mode) => r.ok(
            name,
            &format!("{}{created} is writable, mode {mode:04o}.", dir.display()),
        ),
        None => r.ok(name, &format!("{}{created} is writable.", dir.display())),
    }
    true
}

fn mode_of(dir: &Path) -> Option<u32> {
    platform::permission_bits(dir)
}

fn probe_write(dir: &Path) -> std::io::Result<()> {
    let path = dir.join(format!(".doctor-{}.tmp", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::fs::remove_file(&path)
}

/// Opens the chosen store and reads this entry once; `None` when it is unusable. Then one
/// line on every store this system offers, with what each protects against.
fn check_keyring(
    r: &mut Report,
    choice: StoreChoice,
    data_dir: &Path,
    key: &CredentialKey,
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
        Some(notice) => format!(" (auto: {})", notice.trim_start_matches("credentials: ")),
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

fn store_names() -> String {
    StoreChoice::available_on(platform::CURRENT)
        .into_iter()
        .filter(|c| *c != StoreChoice::Memory)
        .map(StoreChoice::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The file store: where it is, its mode, and plainly what it protects against.
fn check_credentials_file(r: &mut Report, data_dir: &Path, how: &str) {
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
fn explain_stores(r: &mut Report) {
    let lines: Vec<String> = StoreChoice::available_on(platform::CURRENT)
        .into_iter()
        .filter(|c| *c != StoreChoice::Memory)
        .map(|c| format!("{}: {}", c.as_str(), c.trade_offs()))
        .collect();
    r.info("stores", &lines.join(" | "));
}

/// The local estimate; returns the stored credentials when they hold an access token.
fn check_credentials(
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

/// What a signed probe request found out.
struct Probe {
    /// Local time halfway through the request.
    local: jiff::Timestamp,
    /// The answer's `Date` header.
    date: Option<jiff::Timestamp>,
    /// The sanitized error code and HTTP status when the request failed.
    failure: Option<String>,
    /// E*TRADE said `oauth_problem=timestamp_refused`.
    timestamp_refused: bool,
    /// The middle of the `oauth_acceptable_timestamps=FROM-TO` range of a refusal: the
    /// server's clock, in Unix seconds.
    acceptable_mid: Option<i64>,
}

impl Probe {
    fn from_text(local: jiff::Timestamp, date: Option<jiff::Timestamp>, text: &str) -> Probe {
        Probe {
            local,
            date,
            failure: None,
            timestamp_refused: text.contains("timestamp_refused"),
            acceptable_mid: acceptable_mid(text),
        }
    }
}

/// `oauth_acceptable_timestamps=1700000000-1700000600` → 1700000300.
fn acceptable_mid(text: &str) -> Option<i64> {
    const KEY: &str = "oauth_acceptable_timestamps=";
    let rest = &text[text.find(KEY)? + KEY.len()..];
    let range: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    let (from, to) = range.split_once('-')?;
    let (from, to): (i64, i64) = (from.parse().ok()?, to.parse().ok()?);
    (from <= to).then(|| from + (to - from) / 2)
}

const CLOCK_FIX: &str = "fix the system clock (e.g. enable NTP: timedatectl set-ntp true)";

fn skew_text(endpoints: &Endpoints, skew: i64, source: &str) -> String {
    let how = if skew > 0 {
        format!("the local clock is {skew}s behind the server")
    } else if skew < 0 {
        format!("the local clock is {}s ahead of the server", -skew)
    } else {
        "no measurable difference".to_string()
    };
    format!(
        "skew {skew:+}s against {} by {source} ({how}; E*TRADE refuses OAuth timestamps more than 5 minutes off).",
        endpoints.api_base
    )
}

/// Before the first login there is no token to sign with, but E*TRADE's clock is one unsigned
/// request away (its `Date`), and a wrong clock is worth knowing before `etrade auth login`.
fn check_clock_unsigned(r: &mut Report, endpoints: &Endpoints) {
    let name = "clock";
    let reading = || -> Result<Option<i64>, String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|_| "cannot start the async runtime".to_string())?;
        let http = EtradeHttp::new(endpoints.clone(), &super::client_options())?;
        let started = jiff::Timestamp::now();
        let date = rt
            .block_on(http.server_date())
            .map_err(|_| "transport_error".to_string())?;
        let local = midpoint(started, jiff::Timestamp::now());
        Ok(date.map(|d| d.duration_since(local).as_secs()))
    };
    let network = "check the network connection (or run with --offline)";
    match reading() {
        Err(why) => r.warn(
            name,
            &format!("skew unknown: E*TRADE could not be reached ({why})."),
            network,
        ),
        Ok(None) => r.warn(
            name,
            "skew unknown: E*TRADE's answer had no Date header.",
            network,
        ),
        Ok(Some(skew)) => {
            let found = skew_text(endpoints, skew, "the Date header of an unsigned request");
            if skew.abs() > SKEW_FAIL_SECS {
                r.fail(name, &found, CLOCK_FIX);
            } else if skew.abs() > SKEW_WARN_SECS {
                r.warn(name, &found, CLOCK_FIX);
            } else {
                r.ok(
                    name,
                    &format!("{found} (No login yet, so nothing was signed.)"),
                );
            }
        }
    }
}

fn check_clock(
    r: &mut Report,
    endpoints: &Endpoints,
    creds: &StoredCredentials,
    key: &CredentialKey,
) {
    let name = "clock";
    let status_check = format!(
        "etrade auth status --check --environment {} --profile {}",
        key.environment(),
        key.profile()
    );
    let probe = match probe(endpoints, creds) {
        Ok(p) => p,
        Err(code) => {
            r.warn(
                name,
                &format!("skew unknown: the signed request failed ({code})."),
                &status_check,
            );
            return;
        }
    };
    let local = probe.local.as_second();
    let by_range = probe
        .acceptable_mid
        .map(|mid| (mid - local, "the refusal's acceptable timestamps"));
    let by_date = probe
        .date
        .map(|d| (d.duration_since(probe.local).as_secs(), "the Date header"));
    // A refusal's range is the clock that judged the timestamp; otherwise the Date header.
    let measured = if probe.timestamp_refused {
        by_range.or(by_date)
    } else {
        by_date
    };
    if probe.timestamp_refused {
        let found = match measured {
            Some((skew, source)) => format!(
                "E*TRADE refused the request's OAuth timestamp; {}",
                skew_text(endpoints, skew, source)
            ),
            None => "E*TRADE refused the request's OAuth timestamp: the clock is more than 5 minutes off.".to_string(),
        };
        r.fail(name, &found, CLOCK_FIX);
        return;
    }
    let Some((skew, source)) = measured else {
        let found = match &probe.failure {
            Some(code) => format!("skew unknown: the signed request failed ({code})."),
            None => "skew unknown: the answer had no Date header.".to_string(),
        };
        r.warn(name, &found, &status_check);
        return;
    };
    let found = skew_text(endpoints, skew, source);
    if skew.abs() > SKEW_FAIL_SECS {
        r.fail(name, &found, CLOCK_FIX);
    } else if skew.abs() > SKEW_WARN_SECS {
        r.warn(name, &found, CLOCK_FIX);
    } else if let Some(code) = &probe.failure {
        r.warn(
            name,
            &format!("{found} The signed request itself failed ({code})."),
            &status_check,
        );
    } else {
        r.ok(name, &format!("{found} E*TRADE accepted a signed request."));
    }
}

/// One cheap signed call (list accounts), as `etrade auth status --check` makes (without
/// recording a use of the token); the answer's `Date` is E*TRADE's clock.
fn probe(endpoints: &Endpoints, creds: &StoredCredentials) -> Result<Probe, String> {
    let secrets = session::known_secrets(creds);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|_| "cannot start the async runtime".to_string())?;
    let http = EtradeHttp::new(endpoints.clone(), &super::client_options())?;
    let started = jiff::Timestamp::now();
    let answer = rt
        .block_on(http.api_answer(
            &session::signer(creds),
            Method::GET,
            "/v1/accounts/list",
            &[],
            None,
            Module::Accounts,
        ))
        .map_err(|f| describe_failure(&f, &secrets))?;
    let local = midpoint(started, jiff::Timestamp::now());
    let mut probe = Probe::from_text(local, answer.date, &answer.body);
    if !answer.is_success() {
        probe.failure = Some(describe_failure(&answer.failure(), &secrets));
    }
    Ok(probe)
}

fn midpoint(a: jiff::Timestamp, b: jiff::Timestamp) -> jiff::Timestamp {
    a.checked_add(b.duration_since(a) / 2).unwrap_or(b)
}

fn describe_failure(f: &BrokerFailure, secrets: &KnownSecrets) -> String {
    let e = to_tool_error(f, Operation::Read, secrets);
    match e.status_code {
        Some(s) => format!("{}, HTTP {s}", e.code.as_str()),
        None => e.code.as_str().to_string(),
    }
}

fn check_permissions(r: &mut Report, args: &DoctorArgs, environment: Environment) {
    let name = "permissions";
    let grants = &args.grants;
    let granted = grants.granted();
    let withheld: Vec<String> = PERMISSIONS
        .iter()
        .filter_map(|p| {
            p.flag
                .filter(|f| !grants.given(f))
                .map(|f| format!("{} ({f})", p.name))
        })
        .collect();
    let mut found = format!("etrade serve would grant {}", granted.join(", "));
    if !withheld.is_empty() {
        found.push_str(&format!("; not {}", withheld.join(", ")));
    }
    found.push('.');
    if grants.production_unconfirmed(environment) {
        r.fail(
            name,
            &format!(
                "{found} In production, etrade serve refuses --allow-trading without --confirm-production (real orders, real money)."
            ),
            "add --confirm-production if you mean it, or drop --allow-trading",
        );
        return;
    }
    if environment == Environment::Production && grants.allow_trading {
        found.push_str(" Production trading is confirmed: orders are real.");
    }
    r.ok(name, &found);
}

fn check_paper(r: &mut Report, data_dir: &Path, profile: &str) {
    use runtime::paper::book::{PaperBook, PaperConfig};
    use runtime::paper::market::SimulatedMarket;
    use std::sync::Arc;

    let name = "paper";
    let path = data_dir.join(format!("paper-{profile}.redb"));
    if !path.exists() {
        r.ok(
            name,
            &format!(
                "{} not created yet; etrade serve or etrade paper status creates it.",
                path.display()
            ),
        );
        return;
    }
    let market = Arc::new(SimulatedMarket::new(super::paper::MARKET_SEED));
    match PaperBook::open(&path, PaperConfig::default(), market) {
        Ok(book) => {
            let now = book.now().strftime("%Y-%m-%dT%H:%M:%SZ");
            r.ok(
                name,
                &format!("{} opens; simulated time {now}.", path.display()),
            );
        }
        Err(e) if e.to_string().contains("already open") => r.warn(
            name,
            &format!(
                "{} is held by another process (a running etrade serve?).",
                path.display()
            ),
            "that is fine while the server runs; stop it to use etrade paper commands",
        ),
        Err(e) => r.fail(
            name,
            &format!("{} cannot be opened: {e}.", path.display()),
            &format!(
                "move it away to start a fresh book: mv {0} {0}.bak",
                path.display()
            ),
        ),
    }
}

fn check_trading(r: &mut Report, data_dir: &Path, settings: &Settings) {
    use runtime::trading::store::{StoreError as TradingError, TradingStore};

    let name = "trading db";
    let path = data_dir.join("trading.redb");
    if !path.exists() {
        r.ok(
            name,
            &format!(
                "{} not created yet; etrade serve creates it.",
                path.display()
            ),
        );
        return;
    }
    let opened = TradingStore::open(&path).and_then(|s| {
        s.needing_reconciliation(settings.environment.as_str(), &settings.profile)
            .map(|v| v.len())
    });
    match opened {
        Ok(0) => r.ok(name, &format!("{} opens.", path.display())),
        Ok(n) => r.warn(
            name,
            &format!(
                "{} opens; {n} order request(s) of {}:{} have an uncertain outcome.",
                path.display(),
                settings.environment,
                settings.profile
            ),
            "start etrade serve and let it reconcile them (see \"Trading\" in the README)",
        ),
        Err(TradingError::Busy) => r.warn(
            name,
            &format!(
                "{} is busy (another etrade process keeps it open).",
                path.display()
            ),
            "run etrade doctor again in a moment",
        ),
        Err(e) => r.fail(
            name,
            &format!("{} cannot be used: {e}.", path.display()),
            &format!(
                "stop every etrade process, then move it away: mv {0} {0}.bak",
                path.display()
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceptable_timestamps_give_the_server_clock() {
        assert_eq!(
            acceptable_mid("oauth_problem=timestamp_refused,oauth_acceptable_timestamps=100-700"),
            Some(400)
        );
        assert_eq!(acceptable_mid("oauth_acceptable_timestamps=9-1"), None);
        assert_eq!(acceptable_mid("nothing"), None);
    }
}
