//! macOS: a hidden system account made with `dscl`, LaunchDaemons.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::plan::{Condition, Step, argv};
use super::{InstallRequest, UninstallRequest, run_argv};
use crate::platform::Os;

pub const LABEL: &str = "com.etrade-mcp.vault";
/// A second, root LaunchDaemon that remakes the socket's folder at boot: `/var/run` is
/// emptied at every boot and only root may create folders there, while the vault runs as
/// its own account. (launchd has nothing like systemd's `RuntimeDirectory=`.)
pub const RUNDIR_LABEL: &str = "com.etrade-mcp.vault.rundir";
pub const DAEMON_DIR: &str = "/Library/LaunchDaemons";
pub const LOG_DIR: &str = "/Library/Logs/etrade-mcp";
pub const LOG_FILE: &str = "/Library/Logs/etrade-mcp/vault.log";
/// Apple's range for daemons' accounts (below 500, where people's accounts start).
pub const SYSTEM_IDS: std::ops::Range<u32> = 200..400;

pub fn plist_path(label: &str) -> PathBuf {
    Path::new(DAEMON_DIR).join(format!("{label}.plist"))
}

pub fn install_steps(request: &InstallRequest) -> Vec<Step> {
    let name = &request.account;
    let socket_dir = super::socket_dir(Os::MacOs, &request.socket);
    let mut steps = vec![Step::CreateMacAccount {
        name: name.clone(),
        home: request.state.clone(),
    }];
    steps.extend(super::state_steps(request, name));
    if let Some(dir) = &socket_dir {
        steps.push(Step::CreateDir {
            path: dir.clone(),
            mode: Some(0o755),
            owner: Some(name.clone()),
        });
    }
    if !request.service {
        return steps;
    }
    steps.push(Step::CreateDir {
        path: LOG_DIR.into(),
        mode: Some(0o750),
        owner: Some(name.clone()),
    });
    let mut daemons = vec![(LABEL, launchd_plist(request))];
    if let Some(dir) = socket_dir.as_deref().filter(|dir| is_emptied_at_boot(dir)) {
        daemons.insert(0, (RUNDIR_LABEL, rundir_plist(name, dir)));
    }
    for (label, contents) in daemons {
        let path = plist_path(label);
        // bootstrap refuses a job that is loaded: unload it first, which also makes a
        // second install take the new definition.
        steps.extend([
            bootout(label, &path),
            Step::WriteFile {
                path: path.clone(),
                contents,
                mode: Some(0o644),
                owner: None,
                keep_existing: false,
            },
            Step::Run {
                argv: vec![
                    "launchctl".into(),
                    "bootstrap".into(),
                    "system".into(),
                    path.to_string_lossy().into_owned(),
                ],
                fatal: true,
                when: Condition::Always,
            },
        ]);
    }
    steps
}

/// Unloads the job `label` when its plist at `path` exists (a job not loaded is no error).
fn bootout(label: &str, path: &std::path::Path) -> Step {
    Step::Run {
        argv: vec![
            "launchctl".into(),
            "bootout".into(),
            format!("system/{label}"),
        ],
        fatal: false,
        when: Condition::IfExists(path.to_path_buf()),
    }
}

pub fn uninstall_steps(request: &UninstallRequest) -> Vec<Step> {
    let mut steps = Vec::new();
    for label in [LABEL, RUNDIR_LABEL] {
        let path = plist_path(label);
        steps.extend([bootout(label, &path), Step::RemoveFile { path }]);
    }
    if let Some(dir) = super::socket_dir(Os::MacOs, &request.socket) {
        steps.push(Step::RemoveDir { path: dir });
    }
    if request.purge {
        steps.push(Step::RemoveDir {
            path: request.state.clone(),
        });
        steps.push(Step::RemoveDir {
            path: LOG_DIR.into(),
        });
        match &request.account {
            Some(name) => steps.extend([
                Step::Run {
                    argv: vec![
                        "dscl".into(),
                        ".".into(),
                        "-delete".into(),
                        format!("/Users/{name}"),
                    ],
                    fatal: true,
                    when: Condition::IfSucceeds(argv(["id", "-u", name])),
                },
                Step::Run {
                    argv: vec![
                        "dscl".into(),
                        ".".into(),
                        "-delete".into(),
                        format!("/Groups/{name}"),
                    ],
                    fatal: false,
                    when: Condition::IfSucceeds(vec![
                        "dscl".into(),
                        ".".into(),
                        "-read".into(),
                        format!("/Groups/{name}"),
                    ]),
                },
            ]),
            None => steps.push(Step::Note(
                "no vault account was found (the state folder is gone or owned by root): no account removed"
                    .into(),
            )),
        }
    }
    steps
}

fn is_emptied_at_boot(dir: &Path) -> bool {
    dir.starts_with("/var/run") || dir.starts_with("/private/var/run")
}

/// The `dscl` commands that make the account `name` (and its group of the same name) with
/// uid and gid `id`: hidden, no shell, no password, its home the state folder.
pub fn account_commands(name: &str, home: &Path, id: u32) -> Vec<Vec<String>> {
    let user = format!("/Users/{name}");
    let group = format!("/Groups/{name}");
    let id = id.to_string();
    let home = home.to_string_lossy().into_owned();
    let set = |record: &str, key: &str, value: &str| -> Vec<String> {
        argv(["dscl", ".", "-create", record, key, value])
    };
    vec![
        argv(["dscl", ".", "-create", &group]),
        set(&group, "PrimaryGroupID", &id),
        set(&group, "RealName", "etrade-mcp trading vault"),
        set(&group, "Password", "*"),
        argv(["dscl", ".", "-create", &user]),
        set(&user, "UniqueID", &id),
        set(&user, "PrimaryGroupID", &id),
        set(&user, "UserShell", "/usr/bin/false"),
        set(&user, "NFSHomeDirectory", &home),
        set(&user, "RealName", "etrade-mcp trading vault"),
        set(&user, "Password", "*"),
        set(&user, "IsHidden", "1"),
    ]
}

/// The lowest id in [`SYSTEM_IDS`] used by no account and no group, from the output of
/// `dscl . -list /Users UniqueID` and `dscl . -list /Groups PrimaryGroupID` (a name and a
/// number per line).
pub fn free_system_id(users: &str, groups: &str) -> Option<u32> {
    let taken: BTreeSet<u32> = users
        .lines()
        .chain(groups.lines())
        .filter_map(|line| line.split_whitespace().last()?.parse().ok())
        .collect();
    SYSTEM_IDS.clone().find(|id| !taken.contains(id))
}

/// The LaunchDaemon that runs the vault as its account.
pub fn launchd_plist(request: &InstallRequest) -> String {
    let args: String = run_argv(request)
        .iter()
        .map(|word| format!("\t\t<string>{}</string>\n", xml_escape(word)))
        .collect();
    let name = xml_escape(&request.account);
    let state = xml_escape(&request.state.to_string_lossy());
    format!(
        "\
<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">
<!-- Written by `etrade vault install`; `etrade vault uninstall` removes it. -->
<plist version=\"1.0\">
<dict>
\t<key>Label</key>
\t<string>{LABEL}</string>
\t<key>ProgramArguments</key>
\t<array>
{args}\t</array>
\t<key>UserName</key>
\t<string>{name}</string>
\t<key>GroupName</key>
\t<string>{name}</string>
\t<key>WorkingDirectory</key>
\t<string>{state}</string>
\t<key>Umask</key>
\t<integer>63</integer>
\t<key>RunAtLoad</key>
\t<true/>
\t<key>KeepAlive</key>
\t<true/>
\t<key>StandardErrorPath</key>
\t<string>{LOG_FILE}</string>
</dict>
</plist>
"
    )
}

/// The root LaunchDaemon that makes the socket's folder at each boot ([`RUNDIR_LABEL`]).
pub fn rundir_plist(account: &str, dir: &Path) -> String {
    let account = xml_escape(account);
    let dir = xml_escape(&dir.to_string_lossy());
    format!(
        "\
<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">
<!-- Written by `etrade vault install`; `etrade vault uninstall` removes it. -->
<plist version=\"1.0\">
<dict>
\t<key>Label</key>
\t<string>{RUNDIR_LABEL}</string>
\t<key>ProgramArguments</key>
\t<array>
\t\t<string>/usr/bin/install</string>
\t\t<string>-d</string>
\t\t<string>-o</string>
\t\t<string>{account}</string>
\t\t<string>-g</string>
\t\t<string>{account}</string>
\t\t<string>-m</string>
\t\t<string>0755</string>
\t\t<string>{dir}</string>
\t</array>
\t<key>RunAtLoad</key>
\t<true/>
</dict>
</plist>
"
    )
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}
