//! Linux (and other Unix without launchd): `useradd`, a systemd unit.

use std::path::{Path, PathBuf};

use super::plan::{Condition, Step, argv};
use super::{InstallRequest, UninstallRequest, run_argv};
use crate::platform::Os;
use crate::vault::defaults::SERVICE_NAME;

pub const UNIT_NAME: &str = "etrade-mcp-vault.service";
pub const UNIT_DIR: &str = "/etc/systemd/system";

/// Where systemd keeps its runtime state; present only when systemd runs the machine (the
/// test `sd_booted()` makes). Without it `systemctl` can only fail.
const SYSTEMD_RUNNING: &str = "/run/systemd/system";

pub fn unit_path() -> PathBuf {
    Path::new(UNIT_DIR).join(UNIT_NAME)
}

pub fn install_steps(request: &InstallRequest) -> Vec<Step> {
    let name = &request.account;
    let mut steps = vec![Step::Run {
        argv: vec![
            "useradd".into(),
            "--system".into(),
            "--user-group".into(),
            "--no-create-home".into(),
            "--home-dir".into(),
            request.state.to_string_lossy().into_owned(),
            "--shell".into(),
            "/usr/sbin/nologin".into(),
            "--comment".into(),
            "etrade-mcp trading vault".into(),
            name.clone(),
        ],
        fatal: true,
        when: Condition::IfFails(argv(["id", "-u", name])),
    }];
    steps.extend(super::state_steps(request, name));
    if let Some(dir) = super::socket_dir(Os::Linux, &request.socket) {
        steps.push(Step::CreateDir {
            path: dir,
            mode: Some(0o755),
            owner: Some(name.clone()),
        });
    }
    if request.service {
        steps.extend([
            Step::WriteFile {
                path: unit_path(),
                contents: systemd_unit(request),
                mode: Some(0o644),
                owner: None,
                keep_existing: false,
            },
            Step::Run {
                argv: argv(["systemctl", "daemon-reload"]),
                fatal: true,
                when: Condition::Always,
            },
            Step::Run {
                argv: argv(["systemctl", "enable", UNIT_NAME]),
                fatal: true,
                when: Condition::Always,
            },
            // restart, not `enable --now`: a second install (a new binary, other paths)
            // must replace a running vault, which `--now` leaves alone.
            Step::Run {
                argv: argv(["systemctl", "restart", UNIT_NAME]),
                fatal: true,
                when: Condition::Always,
            },
        ]);
    }
    steps
}

pub fn uninstall_steps(request: &UninstallRequest) -> Vec<Step> {
    let unit = unit_path();
    let mut steps = vec![
        Step::Run {
            argv: argv(["systemctl", "disable", "--now", UNIT_NAME]),
            fatal: false,
            when: Condition::IfExists(unit.clone()),
        },
        Step::RemoveFile { path: unit },
        Step::Run {
            argv: argv(["systemctl", "daemon-reload"]),
            fatal: false,
            when: Condition::IfExists(SYSTEMD_RUNNING.into()),
        },
    ];
    if let Some(dir) = super::socket_dir(Os::Linux, &request.socket) {
        steps.push(Step::RemoveDir { path: dir });
    }
    if request.purge {
        steps.push(Step::RemoveDir {
            path: request.state.clone(),
        });
        match &request.account {
            Some(name) => steps.push(Step::Run {
                argv: argv(["userdel", name]),
                fatal: true,
                when: Condition::IfSucceeds(argv(["id", "-u", name])),
            }),
            None => steps.push(Step::Note(
                "no vault account was found (the state folder is gone or owned by root): no account removed"
                    .into(),
            )),
        }
    }
    steps
}

/// The systemd unit that runs the vault as its account.
///
/// The socket's folder: under `/run` (a tmpfs, emptied at every boot, where only root may
/// create folders) it is the unit's `RuntimeDirectory=`, which systemd makes, owned by the
/// account, before each start; install makes it too, for `--no-service`. Anywhere else the
/// folder install made stays and is listed in `ReadWritePaths=`.
pub fn systemd_unit(request: &InstallRequest) -> String {
    let name = &request.account;
    let exec = run_argv(request)
        .iter()
        .map(|word| systemd_quote(word))
        .collect::<Vec<_>>()
        .join(" ");
    let state = systemd_quote(&request.state.to_string_lossy());
    let socket_dir = super::socket_dir(Os::Linux, &request.socket);
    let runtime_dir = socket_dir
        .as_deref()
        .and_then(|dir| dir.strip_prefix("/run").ok())
        .filter(|rest| rest.components().count() == 1)
        .map(|rest| rest.to_string_lossy().into_owned());
    let mut writable = vec![state.clone()];
    let mut runtime = String::new();
    match (&runtime_dir, &socket_dir) {
        (Some(dir), _) => {
            runtime = format!(
                "RuntimeDirectory={}\nRuntimeDirectoryMode=0755\n",
                systemd_quote(dir)
            );
        }
        (None, Some(dir)) => writable.push(systemd_quote(&dir.to_string_lossy())),
        (None, None) => {}
    }
    format!(
        "\
# Written by `etrade vault install`; `etrade vault uninstall` removes it.
[Unit]
Description=etrade-mcp trading vault ({SERVICE_NAME})
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
User={name}
Group={name}
ExecStart={exec}
WorkingDirectory={state}
{runtime}UMask=0077
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
ReadWritePaths={writable}
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
Restart=on-failure
RestartSec=5

[Install]
WantedBy=multi-user.target
",
        writable = writable.join(" "),
    )
}

/// One word of a unit file's command line or path list: `%` and `$` would be expanded by
/// systemd, and a space would split the word.
fn systemd_quote(word: &str) -> String {
    let escaped = word.replace('%', "%%").replace('$', "$$");
    let plain = !escaped.is_empty()
        && !escaped
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | ';'));
    if plain {
        escaped
    } else {
        format!("\"{}\"", escaped.replace('\\', "\\\\").replace('"', "\\\""))
    }
}
