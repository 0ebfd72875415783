//! Which command lines the vault runs for the person's side.
//!
//! The vault runs `etrade` itself, as its own account, for each connection, so what the
//! person may ask for is a command line. The rule here is an allow list, flag by flag: the
//! person picks a command, a profile by name and the choices each command offers a person
//! today; nothing that points the vault elsewhere (a transport or listen address, a file to
//! read, a credential store, an environment for the server) passes. What passes is parsed
//! again by the command itself, with today's errors.

/// Why a command line was refused, said to the person as is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the vault runs serve, approve, halt, resume, auth, doctor and paper; not {0:?}")]
    Command(String),
    #[error("the vault does not take {flag} with `etrade {command}`: {why}")]
    Flag {
        command: String,
        flag: String,
        why: &'static str,
    },
    #[error("{flag} needs a value")]
    MissingValue { flag: String },
    #[error("the vault does not take {flag} {value:?}")]
    Value { flag: String, value: String },
    #[error("`etrade {command}` through the vault takes no argument {arg:?} here")]
    Argument { command: String, arg: String },
    #[error("nothing to run: name a command")]
    Empty,
}

/// One flag a command accepts through the vault.
#[derive(Clone, Copy)]
struct Flag {
    name: &'static str,
    takes_value: bool,
    /// The values accepted, when not any.
    values: Option<&'static [&'static str]>,
}

const fn switch(name: &'static str) -> Flag {
    Flag {
        name,
        takes_value: false,
        values: None,
    }
}

const fn valued(name: &'static str) -> Flag {
    Flag {
        name,
        takes_value: true,
        values: None,
    }
}

const fn one_of(name: &'static str, values: &'static [&'static str]) -> Flag {
    Flag {
        name,
        takes_value: true,
        values: Some(values),
    }
}

/// A command: its flags, and the words it takes in order (subcommands, then positionals).
struct Rule {
    command: &'static str,
    flags: &'static [Flag],
    /// For each position: the words accepted there (`None`: any word not starting with `-`).
    words: &'static [Option<&'static [&'static str]>],
}

const PROFILE: Flag = valued("--profile");
const ENVIRONMENT: Flag = valued("--environment");
// `--allow-trading` and `--confirm-production` take `=BOOL` only (require_equals).
const GRANTS: [Flag; 3] = [
    switch("--allow-trading"),
    switch("--allow-alert-deletion"),
    switch("--confirm-production"),
];

const RULES: &[Rule] = &[
    Rule {
        command: "serve",
        flags: &[
            PROFILE,
            GRANTS[0],
            GRANTS[1],
            GRANTS[2],
            switch("--keepalive"),
            // Over HTTP the vault's server listens on a loopback port the vault picks,
            // behind the person's own listener (see `http_relay`).
            one_of("--transport", &["stdio", "http"]),
        ],
        words: &[],
    },
    Rule {
        command: "approve",
        flags: &[
            PROFILE,
            ENVIRONMENT,
            switch("--yes"),
            switch("--reject"),
            switch("--list"),
            switch("--set-pin"),
        ],
        words: &[None],
    },
    Rule {
        command: "halt",
        flags: &[PROFILE, ENVIRONMENT, switch("--all"), valued("--reason")],
        words: &[],
    },
    Rule {
        command: "resume",
        flags: &[PROFILE, ENVIRONMENT, switch("--all")],
        words: &[],
    },
    Rule {
        command: "auth",
        flags: &[PROFILE, ENVIRONMENT, switch("--check")],
        words: &[Some(&["login", "status", "renew", "logout"])],
    },
    Rule {
        command: "doctor",
        flags: &[
            PROFILE,
            ENVIRONMENT,
            GRANTS[0],
            GRANTS[1],
            GRANTS[2],
            switch("--offline"),
            valued("--transport"),
        ],
        words: &[],
    },
    Rule {
        command: "paper",
        flags: &[PROFILE, valued("--cash")],
        words: &[Some(&["reset", "status", "advance"]), None],
    },
];

/// Why a flag that exists is not taken through the vault.
fn why_not(flag: &str) -> &'static str {
    match flag {
        "--environment" => "the vault's profile decides where the server goes",
        "--credential-store" => "the vault keeps its login in its own store",
        "--listen"
        | "--allowed-host"
        | "--max-body-bytes"
        | "--max-sessions"
        | "--session-idle-timeout" => {
            "the person's own listener takes it; the vault's server listens where the vault says"
        }
        "--http-token-file" => "the vault reads no file the person names",
        _ => "it is not one of the choices this command offers a person",
    }
}

/// The command the person's side asked for, whether the vault runs it.
pub fn admit(argv: &[String]) -> Result<&'static str, Refusal> {
    let command = argv.first().ok_or(Refusal::Empty)?;
    if matches!(command.as_str(), "--help" | "-h" | "--version" | "-V") {
        return Ok("help");
    }
    let rule = RULES
        .iter()
        .find(|r| r.command == command)
        .ok_or_else(|| Refusal::Command(command.clone()))?;
    let mut words = 0;
    let mut rest = argv[1..].iter();
    while let Some(arg) = rest.next() {
        if arg == "--help" || arg == "-h" {
            continue;
        }
        if arg.starts_with('-') {
            let name = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
            let flag = rule
                .flags
                .iter()
                .find(|f| f.name == name)
                .ok_or_else(|| Refusal::Flag {
                    command: rule.command.into(),
                    flag: name.into(),
                    why: why_not(name),
                })?;
            if flag.takes_value {
                let value = match arg.split_once('=') {
                    Some((_, value)) => value,
                    None => rest
                        .next()
                        .filter(|v| !v.starts_with('-'))
                        .ok_or_else(|| Refusal::MissingValue { flag: name.into() })?,
                };
                if flag.values.is_some_and(|ok| !ok.contains(&value)) {
                    return Err(Refusal::Value {
                        flag: name.into(),
                        value: value.into(),
                    });
                }
            }
            continue;
        }
        let allowed = rule.words.get(words).ok_or_else(|| Refusal::Argument {
            command: rule.command.into(),
            arg: arg.clone(),
        })?;
        if allowed.is_some_and(|list| !list.contains(&arg.as_str())) {
            return Err(Refusal::Argument {
                command: rule.command.into(),
                arg: arg.clone(),
            });
        }
        words += 1;
    }
    Ok(rule.command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_person_s_commands_pass() {
        for line in [
            "serve",
            "serve --allow-trading --profile default",
            "serve --allow-trading=false --keepalive",
            "serve --transport http --allow-trading",
            "serve --transport=stdio",
            "approve PV123 --yes",
            "approve --list --profile p2",
            "approve --set-pin",
            "approve PV1 --reject --environment sandbox",
            "halt --reason stop-now",
            "halt --reason=why --all",
            "resume --all",
            "auth login --environment production",
            "auth status --check",
            "doctor --offline --allow-trading",
            "paper status",
            "paper reset --cash 5000",
            "paper advance 2h --profile p2",
            "--version",
        ] {
            assert!(
                admit(&args(line)).is_ok(),
                "{line}: {:?}",
                admit(&args(line))
            );
        }
    }

    #[test]
    fn what_would_point_the_vault_elsewhere_is_refused() {
        for line in [
            "",
            "vault run",
            "vault install --account x",
            "tools list",
            "serve --transport sse",
            "serve --transport=tcp",
            "serve --listen 0.0.0.0:1",
            "serve --environment production",
            "serve --environment=production",
            "serve --http-token-file /etc/shadow",
            "serve --credential-store file",
            "serve extra",
            "doctor --http-token-file /x",
            "doctor --credential-store keyring",
            "auth login --credential-store file",
            "auth export",
            "approve PV1 PV2",
            "halt --reason",
            "paper wipe",
            "paper advance 1h 2h",
            "serve -- --transport http",
        ] {
            assert!(admit(&args(line)).is_err(), "{line} passed");
        }
    }

    #[test]
    fn a_refusal_says_why() {
        let e = admit(&args("serve --listen 0.0.0.0:9")).unwrap_err();
        assert!(e.to_string().contains("own listener"), "{e}");
        let e = admit(&args("serve --environment production")).unwrap_err();
        assert!(e.to_string().contains("profile decides"), "{e}");
    }
}
