//! Checks that read only local state: the configuration file and settings, the state
//! folder, the permissions the flags grant, the paper book and the trading database.

use super::*;

pub(super) fn check_config(r: &mut Report, path: &Path) -> (ConfigFile, bool) {
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
                    "edit {} (see docs/guide/configuration.md); the checks below assume the defaults",
                    path.display()
                ),
            );
            (ConfigFile::default(), false)
        }
    }
}

pub(super) fn check_settings(
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
pub(super) fn check_state_dir(r: &mut Report, dir: &Path) -> bool {
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
    match platform::permission_bits(dir) {
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

pub(super) fn probe_write(dir: &Path) -> std::io::Result<()> {
    let path = dir.join(format!(".doctor-{}.tmp", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::fs::remove_file(&path)
}

pub(super) fn check_permissions(r: &mut Report, args: &DoctorArgs, environment: Environment) {
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

pub(super) fn check_paper(r: &mut Report, data_dir: &Path, profile: &str) {
    use runtime::paper::book::{PaperBook, PaperConfig, PaperError};
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
    let market = Arc::new(SimulatedMarket::new(crate::cli::paper::MARKET_SEED));
    let opened = PaperBook::open(&path, PaperConfig::default(), market).and_then(|b| b.try_now());
    match opened {
        Ok(now) => {
            let now = now.strftime("%Y-%m-%dT%H:%M:%SZ");
            r.ok(
                name,
                &format!("{} opens; simulated time {now}.", path.display()),
            );
        }
        Err(PaperError::Busy) => r.warn(
            name,
            &format!(
                "{} is busy (another etrade process keeps it open).",
                path.display()
            ),
            "run etrade doctor again in a moment",
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

pub(super) fn check_trading(r: &mut Report, data_dir: &Path, settings: &Settings) {
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
    let opened = TradingStore::open_existing(&path).and_then(|s| {
        s.needing_reconciliation(settings.environment.as_str(), &settings.profile)
            .map(|v| v.len())
    });
    match opened {
        Ok(0) => r.ok(name, &format!("{} opens.", path.display())),
        Err(TradingError::Missing(_)) => r.ok(
            name,
            &format!(
                "{} is still empty; etrade serve fills it at its first preview.",
                path.display()
            ),
        ),
        Ok(n) => r.warn(
            name,
            &format!(
                "{} opens; {n} order request(s) of {}:{} have an uncertain outcome.",
                path.display(),
                settings.environment,
                settings.profile
            ),
            "start etrade serve and let it reconcile them (see docs/guide/trading-and-approvals.md)",
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
