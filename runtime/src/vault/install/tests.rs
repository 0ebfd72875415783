//! The plans, the generated service definitions (golden files under tests/golden/vault/;
//! `UPDATE_GOLDEN=1` rewrites them), the default vault.toml and the executor's safety.

use std::path::{Path, PathBuf};

use super::plan::{Condition, Step, argv};
use super::*;
use crate::config::trading::{ApprovalMode, ChannelPolicy};
use crate::config::{ConfigFile, Environment, StoreChoice};

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/vault")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("golden folder");
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("{}: {err} (UPDATE_GOLDEN=1 writes it)", path.display()));
    assert!(
        expected == actual,
        "{} differs from what is generated now (UPDATE_GOLDEN=1 rewrites it):\n{actual}",
        path.display()
    );
}

fn linux_request() -> InstallRequest {
    InstallRequest {
        account: "etrade-vault".into(),
        state: "/var/lib/etrade-mcp".into(),
        socket: "/run/etrade-mcp/vault.sock".into(),
        program: "/usr/local/bin/etrade".into(),
        service: true,
    }
}

fn macos_request() -> InstallRequest {
    InstallRequest {
        account: "_etrade-vault".into(),
        state: "/Library/Application Support/etrade-mcp".into(),
        socket: "/var/run/etrade-mcp/vault.sock".into(),
        program: "/usr/local/bin/etrade".into(),
        service: true,
    }
}

fn windows_request() -> InstallRequest {
    InstallRequest {
        account: windows::service_account(),
        state: r"C:\ProgramData\etrade-mcp".into(),
        socket: r"\\.\pipe\etrade-mcp-vault".into(),
        program: r"C:\Program Files\etrade-mcp\etrade.exe".into(),
        service: true,
    }
}

fn uninstall_request(install: &InstallRequest, purge: bool) -> UninstallRequest {
    UninstallRequest {
        state: install.state.clone(),
        socket: install.socket.clone(),
        purge,
        account: purge.then(|| install.account.clone()),
    }
}

fn plan_text(plan: &InstallPlan) -> String {
    plan.steps.iter().map(|s| format!("{s}\n")).collect()
}

#[test]
fn the_systemd_unit_is_pinned() {
    golden(
        "etrade-mcp-vault.service",
        &linux::systemd_unit(&linux_request()),
    );
}

#[test]
fn the_launchd_daemons_are_pinned() {
    let request = macos_request();
    golden(
        "com.etrade-mcp.vault.plist",
        &macos::launchd_plist(&request),
    );
    golden(
        "com.etrade-mcp.vault.rundir.plist",
        &macos::rundir_plist(&request.account, Path::new("/var/run/etrade-mcp")),
    );
}

#[test]
fn the_windows_service_commands_are_pinned() {
    let request = windows_request();
    let render = |plan: InstallPlan| -> String {
        plan.steps
            .iter()
            .filter_map(|step| match step {
                Step::Run { argv, .. } => Some(
                    argv.iter()
                        .map(|w| windows::windows_quote(w))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            })
            .map(|line| line + "\n")
            .collect()
    };
    let install = install_plan(Os::Windows, &request).expect("a plan");
    let uninstall =
        uninstall_plan(Os::Windows, &uninstall_request(&request, true)).expect("a plan");
    let text = format!(
        "# vault install (the state folder's ACL, then the service)\n{}\
         # vault uninstall --purge\n{}",
        render(install),
        render(uninstall)
    );
    golden("windows-service.txt", &text);
}

#[test]
fn every_plan_is_pinned() {
    for (os, name, request) in [
        (Os::Linux, "linux", linux_request()),
        (Os::MacOs, "macos", macos_request()),
        (Os::Windows, "windows", windows_request()),
    ] {
        let install = install_plan(os, &request).expect("a plan");
        let uninstall = uninstall_plan(os, &uninstall_request(&request, false)).expect("a plan");
        let purge = uninstall_plan(os, &uninstall_request(&request, true)).expect("a plan");
        let text = format!(
            "# vault install\n{}# vault uninstall\n{}# vault uninstall --purge\n{}",
            plan_text(&install),
            plan_text(&uninstall),
            plan_text(&purge)
        );
        golden(&format!("plan-{name}.txt"), &text);
    }
}

#[test]
fn the_linux_install_plan_without_a_service() {
    let request = InstallRequest {
        service: false,
        ..linux_request()
    };
    let plan = install_plan(Os::Linux, &request).expect("a plan");
    let expected = vec![
        Step::Run {
            argv: argv([
                "useradd",
                "--system",
                "--user-group",
                "--no-create-home",
                "--home-dir",
                "/var/lib/etrade-mcp",
                "--shell",
                "/usr/sbin/nologin",
                "--comment",
                "etrade-mcp trading vault",
                "etrade-vault",
            ]),
            fatal: true,
            when: Condition::IfFails(argv(["id", "-u", "etrade-vault"])),
        },
        Step::CreateDir {
            path: "/var/lib/etrade-mcp".into(),
            mode: Some(0o700),
            owner: Some("etrade-vault".into()),
        },
        Step::WriteFile {
            path: "/var/lib/etrade-mcp/vault.toml".into(),
            contents: default_vault_toml(),
            mode: Some(0o600),
            owner: Some("etrade-vault".into()),
            keep_existing: true,
        },
        Step::CreateDir {
            path: "/run/etrade-mcp".into(),
            mode: Some(0o755),
            owner: Some("etrade-vault".into()),
        },
    ];
    assert_eq!(plan.steps, expected);

    let with_service = install_plan(Os::Linux, &linux_request()).expect("a plan");
    assert_eq!(&with_service.steps[..4], &expected[..]);
    assert_eq!(
        with_service.steps[4],
        Step::WriteFile {
            path: "/etc/systemd/system/etrade-mcp-vault.service".into(),
            contents: linux::systemd_unit(&linux_request()),
            mode: Some(0o644),
            owner: None,
            keep_existing: false,
        }
    );
    let commands: Vec<&Vec<String>> = with_service.steps[5..]
        .iter()
        .filter_map(|s| match s {
            Step::Run {
                argv,
                fatal: true,
                when: Condition::Always,
            } => Some(argv),
            _ => None,
        })
        .collect();
    assert_eq!(
        commands,
        [
            &argv(["systemctl", "daemon-reload"]),
            &argv(["systemctl", "enable", "etrade-mcp-vault.service"]),
            &argv(["systemctl", "restart", "etrade-mcp-vault.service"]),
        ]
    );
}

#[test]
fn the_default_vault_toml_parses_with_the_real_config_parser() {
    let file = ConfigFile::parse(Path::new("vault.toml"), &default_vault_toml())
        .expect("vault.toml parses");
    let profile = file.profile("default").expect("a default profile");
    assert_eq!(profile.environment, Some(Environment::Paper));
    assert_eq!(profile.credential_store, Some(StoreChoice::File));
    let trading = profile.trading.as_ref().expect("a trading table");
    assert_eq!(trading.approval, Some(ApprovalMode::Required));
    assert_eq!(trading.approval_channel, Some(ChannelPolicy::OutOfBand));
    assert_eq!(file.profiles.len(), 1);
}

#[test]
fn a_socket_folder_outside_run_is_listed_as_writable() {
    let request = InstallRequest {
        state: "/srv/etrade vault/state".into(),
        socket: "/srv/etrade-sock/vault.sock".into(),
        program: "/opt/etrade 100%/etrade".into(),
        ..linux_request()
    };
    let unit = linux::systemd_unit(&request);
    assert!(!unit.contains("RuntimeDirectory"), "{unit}");
    assert!(
        unit.contains("ReadWritePaths=\"/srv/etrade vault/state\" /srv/etrade-sock\n"),
        "{unit}"
    );
    assert!(
        unit.contains("ExecStart=\"/opt/etrade 100%%/etrade\" vault run --state \"/srv/etrade vault/state\" --socket /srv/etrade-sock/vault.sock\n"),
        "{unit}"
    );
}

#[test]
fn the_service_sid_is_windows_own() {
    // What `sc.exe showsid TrustedInstaller` prints on every Windows.
    assert_eq!(
        windows::service_sid("TrustedInstaller"),
        "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
    );
}

#[test]
fn windows_arguments_are_quoted_as_the_c_runtime_splits_them() {
    assert_eq!(
        windows::windows_quote(r"C:\ProgramData\x"),
        r"C:\ProgramData\x"
    );
    assert_eq!(
        windows::windows_quote(r"C:\Program Files\x"),
        r#""C:\Program Files\x""#
    );
    assert_eq!(windows::windows_quote(r"C:\a b\"), r#""C:\a b\\""#);
    assert_eq!(windows::windows_quote(r#"say "hi""#), r#""say \"hi\"""#);
    assert_eq!(windows::windows_quote(""), r#""""#);
}

#[test]
fn a_free_system_id_skips_every_taken_uid_and_gid() {
    let users = "_www 70\n_a 200\n_b 201\nperson 501\n";
    let groups = "staff 20\n_c 202\n";
    assert_eq!(macos::free_system_id(users, groups), Some(203));
    let full: String = (200..400).map(|id| format!("u{id} {id}\n")).collect();
    assert_eq!(macos::free_system_id(&full, ""), None);
}

#[test]
fn the_mac_account_is_hidden_without_a_shell_or_password() {
    let commands = macos::account_commands("_etv", Path::new("/Library/x y"), 250);
    let lines: Vec<String> = commands.iter().map(|c| c.join(" ")).collect();
    for expected in [
        "dscl . -create /Users/_etv UniqueID 250",
        "dscl . -create /Users/_etv PrimaryGroupID 250",
        "dscl . -create /Groups/_etv PrimaryGroupID 250",
        "dscl . -create /Users/_etv UserShell /usr/bin/false",
        "dscl . -create /Users/_etv NFSHomeDirectory /Library/x y",
        "dscl . -create /Users/_etv Password *",
        "dscl . -create /Users/_etv IsHidden 1",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "{expected} in {lines:#?}"
        );
    }
}

#[test]
fn requests_that_would_take_over_shared_folders_are_refused() {
    let base = linux_request();
    let with = |state: &str, socket: &str| InstallRequest {
        state: state.into(),
        socket: socket.into(),
        ..base.clone()
    };
    for (request, why) in [
        (with("/", "/run/etrade-mcp/vault.sock"), "the root"),
        (
            with("/var/lib", "/run/etrade-mcp/vault.sock"),
            "a shared folder",
        ),
        (
            with("/var/lib/x/../..", "/run/etrade-mcp/vault.sock"),
            "dot-dot",
        ),
        (
            with("var/lib/etrade-mcp", "/run/etrade-mcp/vault.sock"),
            "relative",
        ),
        (
            with("/var/lib/etrade-mcp", "/run/vault.sock"),
            "/run itself",
        ),
        (
            with("/var/lib/etrade-mcp", "/tmp/vault.sock"),
            "/tmp itself",
        ),
        (
            with("/var/lib/etrade-mcp", "/var/lib/etrade-mcp/vault.sock"),
            "inside the state",
        ),
        (
            with("/srv/v/state", "/srv/v/vault.sock"),
            "state inside the socket's folder",
        ),
    ] {
        assert!(
            install_plan(Os::Linux, &request).is_err(),
            "{why}: {request:?}"
        );
    }
    for name in ["root", "Vault", "-rf", "a b", "", &"x".repeat(33)] {
        let request = InstallRequest {
            account: name.into(),
            ..base.clone()
        };
        assert!(
            install_plan(Os::Linux, &request).is_err(),
            "account {name:?}"
        );
    }
    let mut windows = windows_request();
    windows.socket = PathBuf::from(r"C:\vault.sock");
    assert!(install_plan(Os::Windows, &windows).is_err(), "not a pipe");
}

#[test]
fn the_next_step_without_a_service_is_running_the_vault_as_its_account() {
    let request = InstallRequest {
        service: false,
        ..linux_request()
    };
    assert_eq!(
        next_steps(Os::Linux, &request),
        "no service was installed; start the vault as its account with: runuser -u etrade-vault -- \
         /usr/local/bin/etrade vault run --state /var/lib/etrade-mcp --socket /run/etrade-mcp/vault.sock"
    );
}

#[cfg(unix)]
mod executor {
    use super::*;
    use crate::platform::owned_files::symlink;

    fn mode(path: &Path) -> u32 {
        crate::platform::owned_files::mode(&std::fs::symlink_metadata(path).expect("metadata"))
            .expect("a mode")
    }

    fn run(steps: Vec<Step>) -> Result<String, ExecError> {
        let mut out = Vec::new();
        execute(&InstallPlan { steps }, &mut out)?;
        Ok(String::from_utf8(out).expect("utf-8"))
    }

    #[test]
    fn folders_and_files_get_their_modes_and_an_edited_file_is_kept() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let state = tmp.path().join("a/state");
        let file = state.join("vault.toml");
        let steps = || {
            vec![
                Step::CreateDir {
                    path: state.clone(),
                    mode: Some(0o700),
                    owner: None,
                },
                Step::WriteFile {
                    path: file.clone(),
                    contents: "first\n".into(),
                    mode: Some(0o600),
                    owner: None,
                    keep_existing: true,
                },
            ]
        };
        let report = run(steps()).expect("first run");
        assert_eq!(report.lines().count(), 2, "{report}");
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(&file), 0o600);
        std::fs::write(&file, "edited\n").expect("edit");
        crate::platform::owned_files::set_mode(&file, 0o644).expect("chmod");
        crate::platform::owned_files::set_mode(&state, 0o755).expect("chmod");
        let report = run(steps()).expect("second run");
        assert!(report.contains("kept"), "{report}");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "edited\n");
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&state), 0o700);
    }

    #[test]
    fn a_symlink_or_hard_link_in_place_of_a_file_is_not_followed() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let target = tmp.path().join("system-file");
        std::fs::write(&target, "system\n").expect("write");
        crate::platform::owned_files::set_mode(&target, 0o644).expect("chmod");
        let write = |path: PathBuf| Step::WriteFile {
            path,
            contents: "x".into(),
            mode: Some(0o600),
            owner: None,
            keep_existing: true,
        };
        let link = tmp.path().join("symlink.toml");
        symlink(&target, &link).expect("symlink");
        assert!(run(vec![write(link)]).is_err());
        let hard = tmp.path().join("hard.toml");
        std::fs::hard_link(&target, &hard).expect("hard link");
        assert!(matches!(
            run(vec![write(hard)]),
            Err(ExecError::Unsafe { .. })
        ));
        let folder = tmp.path().join("folder-link");
        symlink(tmp.path(), &folder).expect("symlink");
        let dir = Step::CreateDir {
            path: folder,
            mode: Some(0o700),
            owner: None,
        };
        assert!(matches!(run(vec![dir]), Err(ExecError::Unsafe { .. })));
        assert_eq!(mode(&target), 0o644);
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "system\n");
        assert_eq!(mode(tmp.path()) & 0o700, 0o700);
    }

    #[test]
    fn conditions_skip_and_a_non_fatal_failure_goes_on() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let gone = tmp.path().join("gone");
        let report = run(vec![
            Step::Run {
                argv: argv(["false"]),
                fatal: true,
                when: Condition::IfExists(gone.clone()),
            },
            Step::Run {
                argv: argv(["false"]),
                fatal: true,
                when: Condition::IfFails(argv(["true"])),
            },
            Step::Run {
                argv: argv(["false"]),
                fatal: false,
                when: Condition::Always,
            },
            Step::RemoveDir { path: gone },
        ])
        .expect("runs");
        assert_eq!(report.matches("skipped").count(), 2, "{report}");
        assert!(report.contains("not fatal"), "{report}");
        assert!(matches!(
            run(vec![Step::Run {
                argv: argv(["false"]),
                fatal: true,
                when: Condition::IfSucceeds(argv(["true"])),
            }]),
            Err(ExecError::Failed { .. })
        ));
    }
}
