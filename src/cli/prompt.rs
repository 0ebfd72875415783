//! Answers from the person at a terminal: a terminal when there is one (secrets not
//! echoed), else one line of standard input per answer (scripts that showed the person
//! what they answer themselves).

use anyhow::bail;
use std::io::{BufRead, IsTerminal};

pub struct Input {
    terminal: bool,
    lines: std::io::Lines<std::io::StdinLock<'static>>,
}

impl Input {
    pub fn new() -> Input {
        Input {
            terminal: std::io::stdin().is_terminal() || remote_terminal(),
            lines: std::io::stdin().lock().lines(),
        }
    }

    fn line(&mut self, prompt: &str) -> anyhow::Result<String> {
        if remote_terminal() {
            ask("line", prompt);
        } else if self.terminal {
            eprint!("{prompt}");
        }
        self.answer()
    }

    /// A y/N question; refused without a terminal (the caller offers `--yes`).
    pub fn confirm(&mut self, prompt: &str) -> anyhow::Result<bool> {
        if !self.terminal {
            bail!(
                "standard input is not a terminal: show the summary to the person, then run again with --yes"
            );
        }
        let answer = self.line(prompt)?.to_ascii_lowercase();
        Ok(answer == "y" || answer == "yes")
    }

    pub fn secret(&mut self, prompt: &str) -> anyhow::Result<String> {
        if remote_terminal() {
            ask("secret", prompt);
            return self.answer();
        }
        if self.terminal {
            return Ok(rpassword::prompt_password(prompt)?);
        }
        self.line(prompt)
    }

    fn answer(&mut self) -> anyhow::Result<String> {
        match self.lines.next() {
            Some(line) => Ok(line?.trim().to_string()),
            None => bail!("no answer on standard input"),
        }
    }
}

/// Whether the vault runs this command for a person at a terminal on the other side: the
/// question then goes to them as a prompt line, and their answer comes back on stdin.
fn remote_terminal() -> bool {
    runtime::paths::inside_vault()
        && std::env::var_os(runtime::vault::supervisor::REMOTE_TERMINAL_VAR).is_some()
}

fn ask(kind: &str, prompt: &str) {
    crate::cli::output::noteln!("{}{kind} {prompt}", runtime::vault::wire::PROMPT_MARK);
}
