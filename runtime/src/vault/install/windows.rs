//! Windows: a service running as its virtual account (`NT SERVICE\etrade-mcp-vault`: no
//! password, made and removed with the service), `sc.exe`, `icacls`.

use std::path::Path;

use sha1::{Digest, Sha1};

use super::plan::{Condition, Step, argv};
use super::{InstallRequest, UninstallRequest, run_argv};
use crate::platform::Os;
use crate::vault::defaults::{CONFIG_FILE, SERVICE_NAME};

/// LocalSystem and the Administrators group, as SIDs: `icacls` takes `*SID` in any display
/// language, where "SYSTEM" and "Administrators" are translated names.
pub const SYSTEM_SID: &str = "S-1-5-18";
pub const ADMINISTRATORS_SID: &str = "S-1-5-32-544";

/// The service's virtual account.
pub fn service_account() -> String {
    format!(r"NT SERVICE\{SERVICE_NAME}")
}

/// The SID of a service's virtual account: `S-1-5-80-` and the SHA-1 of the upper-cased
/// service name in UTF-16LE, as five little-endian numbers (what `sc.exe showsid` prints).
/// Computed rather than looked up so the state folder's ACL can be set before the service,
/// and with it the account, exists (`--no-service`).
pub fn service_sid(service: &str) -> String {
    let utf16: Vec<u8> = service
        .to_uppercase()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let digest = Sha1::digest(&utf16);
    let mut sid = String::from("S-1-5-80");
    for chunk in digest.chunks_exact(4) {
        let value = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        sid.push_str(&format!("-{value}"));
    }
    sid
}

pub fn install_steps(request: &InstallRequest) -> Vec<Step> {
    let mut steps = Vec::new();
    if request.account != service_account() {
        steps.push(Step::Note(format!(
            "on Windows the vault runs as the service's virtual account {} (no password), \
             not as {}",
            service_account(),
            request.account
        )));
    }
    steps.extend([
        Step::CreateDir {
            path: request.state.clone(),
            mode: None,
            owner: None,
        },
        // Before any file is written, so vault.toml inherits the folder's ACL, never
        // %ProgramData%'s (where every user may read).
        Step::Run {
            argv: icacls_argv(&request.state),
            fatal: true,
            when: Condition::Always,
        },
        Step::WriteFile {
            path: super::join_for(Os::Windows, &request.state, CONFIG_FILE),
            contents: super::default_vault_toml(),
            mode: None,
            owner: None,
            keep_existing: true,
        },
    ]);
    if request.service {
        steps.extend(service_steps(request));
    }
    steps
}

pub fn uninstall_steps(request: &UninstallRequest) -> Vec<Step> {
    let query = query_argv();
    let mut steps = vec![
        Step::Run {
            argv: argv(["sc.exe", "stop", SERVICE_NAME]),
            fatal: false,
            when: Condition::IfSucceeds(query.clone()),
        },
        Step::Run {
            argv: argv(["sc.exe", "delete", SERVICE_NAME]),
            fatal: true,
            when: Condition::IfSucceeds(query),
        },
    ];
    if request.purge {
        steps.push(Step::RemoveDir {
            path: request.state.clone(),
        });
    }
    steps
}

fn query_argv() -> Vec<String> {
    argv(["sc.exe", "query", SERVICE_NAME])
}

/// `icacls STATE`: inheritance from %ProgramData% cut, full control for the service's
/// account, LocalSystem and Administrators only, passed down to every file and folder in it.
pub fn icacls_argv(state: &Path) -> Vec<String> {
    let grant = |sid: &str| format!("*{sid}:(OI)(CI)F");
    vec![
        "icacls".into(),
        state.to_string_lossy().into_owned(),
        "/inheritance:r".into(),
        "/grant:r".into(),
        grant(&service_sid(SERVICE_NAME)),
        grant(SYSTEM_SID),
        grant(ADMINISTRATORS_SID),
    ]
}

/// The service's command line as the Service Control Manager stores it (`binPath=`).
pub fn service_command_line(request: &InstallRequest) -> String {
    let words = run_argv(request);
    let mut line = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        // The program always in quotes: an unquoted path with a space is the classic
        // hijack (`C:\Program.exe`).
        if i == 0 {
            line.push(format!("\"{word}\""));
        } else {
            line.push(windows_quote(word));
        }
    }
    line.join(" ")
}

/// The `sc.exe` commands that define, describe and start the service. `sc.exe` wants each
/// `key=` and its value as two arguments.
pub fn service_steps(request: &InstallRequest) -> Vec<Step> {
    let account = service_account();
    let command = service_command_line(request);
    let settings = |verb: &str| -> Vec<String> {
        vec![
            "sc.exe".into(),
            verb.into(),
            SERVICE_NAME.into(),
            "binPath=".into(),
            command.clone(),
            "obj=".into(),
            account.clone(),
            "start=".into(),
            "auto".into(),
            "DisplayName=".into(),
            "etrade-mcp trading vault".into(),
        ]
    };
    let run = |argv: Vec<String>, fatal: bool| Step::Run {
        argv,
        fatal,
        when: Condition::Always,
    };
    vec![
        // `config` for a service an earlier install made, `create` otherwise; `config` goes
        // first so that the probe still finds no service on a first install.
        Step::Run {
            argv: settings("config"),
            fatal: true,
            when: Condition::IfSucceeds(query_argv()),
        },
        Step::Run {
            argv: settings("create"),
            fatal: true,
            when: Condition::IfFails(query_argv()),
        },
        run(
            argv([
                "sc.exe",
                "description",
                SERVICE_NAME,
                "The etrade-mcp trading vault: holds the E*TRADE login, approvals, the halt and the paper book under its own account.",
            ]),
            true,
        ),
        // The service SID is what the state folder's ACL names.
        run(
            argv(["sc.exe", "sidtype", SERVICE_NAME, "unrestricted"]),
            true,
        ),
        // Restart after a crash, as systemd's Restart=on-failure.
        run(
            argv([
                "sc.exe",
                "failure",
                SERVICE_NAME,
                "reset=",
                "86400",
                "actions=",
                "restart/5000/restart/5000/restart/60000",
            ]),
            true,
        ),
        // Not fatal: on a second install the service is already running (error 1056).
        run(argv(["sc.exe", "start", SERVICE_NAME]), false),
    ]
}

/// One argument as Windows programs split a command line (the C runtime's rules): quoted
/// when it has a space, tab or quote, with backslashes doubled only before a quote.
pub fn windows_quote(word: &str) -> String {
    if !word.is_empty() && !word.contains([' ', '\t', '\n', '"']) {
        return word.to_owned();
    }
    let mut out = String::from("\"");
    let mut backslashes = 0;
    for c in word.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                out.push_str(&"\\".repeat(backslashes * 2 + 1));
                out.push('"');
                backslashes = 0;
            }
            _ => {
                out.push_str(&"\\".repeat(backslashes));
                out.push(c);
                backslashes = 0;
            }
        }
    }
    out.push_str(&"\\".repeat(backslashes * 2));
    out.push('"');
    out
}
