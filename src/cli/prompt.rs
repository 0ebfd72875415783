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
            terminal: std::io::stdin().is_terminal(),
            lines: std::io::stdin().lock().lines(),
        }
    }

    fn line(&mut self, prompt: &str) -> anyhow::Result<String> {
        if self.terminal {
            eprint!("{prompt}");
        }
        match self.lines.next() {
            Some(line) => Ok(line?.trim().to_string()),
            None => bail!("no answer on standard input"),
        }
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
        if self.terminal {
            return Ok(rpassword::prompt_password(prompt)?);
        }
        self.line(prompt)
    }
}
