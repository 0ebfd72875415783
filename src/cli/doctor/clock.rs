//! The clock against E*TRADE's (its `Date`, or the range a refused timestamp names): E*TRADE
//! refuses OAuth timestamps more than five minutes off.

use super::*;

/// E*TRADE refuses OAuth timestamps more than five minutes off.
pub(super) const SKEW_FAIL_SECS: i64 = 300;
pub(super) const SKEW_WARN_SECS: i64 = 60;

/// What a signed probe request found out.
pub(super) struct Probe {
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
    pub(super) fn from_text(
        local: jiff::Timestamp,
        date: Option<jiff::Timestamp>,
        text: &str,
    ) -> Probe {
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
pub(super) fn acceptable_mid(text: &str) -> Option<i64> {
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

pub(super) const CLOCK_FIX: &str =
    "fix the system clock (e.g. enable NTP: timedatectl set-ntp true)";

pub(super) fn skew_text(endpoints: &Endpoints, skew: i64, source: &str) -> String {
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
pub(super) fn check_clock_unsigned(r: &mut Report, endpoints: &Endpoints) {
    let name = "clock";
    let reading = || -> Result<Option<i64>, String> {
        let (rt, http) = client(endpoints)?;
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

pub(super) fn check_clock(
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

/// A one-request runtime and the E*TRADE client for `endpoints`.
fn client(endpoints: &Endpoints) -> Result<(tokio::runtime::Runtime, EtradeHttp), String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|_| "cannot start the async runtime".to_string())?;
    let http = EtradeHttp::new(endpoints.clone(), &crate::cli::setup::client_options())?;
    Ok((rt, http))
}

/// One cheap signed call (list accounts), as `etrade auth status --check` makes (without
/// recording a use of the token); the answer's `Date` is E*TRADE's clock.
pub(super) fn probe(endpoints: &Endpoints, creds: &StoredCredentials) -> Result<Probe, String> {
    let secrets = session::known_secrets(creds);
    let (rt, http) = client(endpoints)?;
    let started = jiff::Timestamp::now();
    let answer = rt
        .block_on(http.api_answer(
            &session::signer(creds),
            &EtradeRequest::read(Endpoint::AccountList),
        ))
        .map_err(|f| describe_failure(&f, &secrets))?;
    let local = midpoint(started, jiff::Timestamp::now());
    let mut probe = Probe::from_text(local, answer.date, &answer.body);
    if !answer.is_success() {
        probe.failure = Some(describe_failure(&answer.failure(), &secrets));
    }
    Ok(probe)
}

pub(super) fn midpoint(a: jiff::Timestamp, b: jiff::Timestamp) -> jiff::Timestamp {
    a.checked_add(b.duration_since(a) / 2).unwrap_or(b)
}

pub(super) fn describe_failure(f: &BrokerFailure, secrets: &KnownSecrets) -> String {
    let e = to_tool_error(f, Operation::Read, secrets);
    match e.status_code {
        Some(s) => format!("{}, HTTP {s}", e.code.as_str()),
        None => e.code.as_str().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn acceptable_timestamps_give_the_server_clock() {
        assert_eq!(
            acceptable_mid("oauth_problem=timestamp_refused,oauth_acceptable_timestamps=100-700"),
            Some(400)
        );
        assert_eq!(acceptable_mid("oauth_acceptable_timestamps=9-1"), None);
        assert_eq!(acceptable_mid("nothing"), None);
    }
}
