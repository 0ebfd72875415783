//! A real `etrade serve --environment sandbox` over stdio, pointed at an in-process fake
//! E*TRADE server, with an access token already in the kernel keyring (profile unique to
//! the test). For read-tool tests.

use super::*;
use fake_etrade::{FakeConfig, FakeEtrade};
use runtime::config::Environment;
use runtime::credentials::{
    CredentialKey, CredentialStore, KeyringStore, Secret, StoredCredentials,
};

pub const CONSUMER_KEY: &str = "ckCANARYreads01";
pub const CONSUMER_SECRET: &str = "CANARY-reads-secret/+=cafe";

pub struct Sandbox {
    pub fake: FakeEtrade,
    pub client: Client,
    pub home: tempfile::TempDir,
    key: CredentialKey,
    pub token: String,
    pub token_secret: String,
}

impl Sandbox {
    /// `name` makes the keyring profile unique per test.
    pub async fn start(name: &str) -> Sandbox {
        Sandbox::start_with(name, FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET)).await
    }

    pub async fn start_with(name: &str, config: FakeConfig) -> Sandbox {
        Sandbox::start_opts(name, config, &[], "").await
    }

    /// With extra `etrade serve` flags (e.g. `--allow-trading`) and extra TOML appended to
    /// the profile's table (e.g. a `[profiles.NAME.trading]` section via `{profile}`).
    pub async fn start_opts(
        name: &str,
        config: FakeConfig,
        flags: &[&str],
        extra_toml: &str,
    ) -> Sandbox {
        let fake = FakeEtrade::start(config).await;
        let home = home();
        let profile = format!("{name}-{}", std::process::id());
        std::fs::write(
            home.path().join("config.toml"),
            format!(
                "[profiles.{profile}]\nenvironment = \"sandbox\"\napi_base_url = \"{}\"\n{}",
                fake.base_url(),
                extra_toml.replace("{profile}", &profile)
            ),
        )
        .expect("config");
        let pair = fake.issue_access_token(CONSUMER_KEY);
        let key = CredentialKey::new(Environment::Sandbox, profile.clone()).expect("key");
        let mut creds = StoredCredentials::new(CONSUMER_KEY, Secret::new(CONSUMER_SECRET));
        creds.authorize(
            Secret::new(pair.token.clone()),
            Secret::new(pair.secret.clone()),
            jiff::Timestamp::now(),
        );
        KeyringStore::linux_keyutils()
            .expect("keyutils")
            .save(&key, &creds)
            .expect("store credentials");
        let envs = [
            ("ETRADE_MCP_CREDENTIAL_STORE", "keyutils"),
            ("ETRADE_MCP_RATE_SCALE", "1000"),
            ("ETRADE_MCP_HTTP_TIMEOUT_MS", "3000"),
            ("ETRADE_MCP_LOG", "debug"),
        ];
        // The server's debug log goes into the state folder, which the canary scan at
        // drop reads along with every state file.
        let log = std::fs::File::create(home.path().join("server-stderr.log")).expect("log file");
        let mut args = vec!["--profile", profile.as_str()];
        args.extend_from_slice(flags);
        let client = stdio_client_with(&home, &args, &envs, Stdio::from(log)).await;
        Sandbox {
            fake,
            client,
            home,
            key,
            token: pair.token,
            token_secret: pair.secret,
        }
    }

    /// Call a tool; returns (isError, payload), checking the payload against the tool's
    /// advertised outputSchema and that no secret reached it.
    pub async fn call(&self, tool: &str, args: Value) -> (bool, Value) {
        let r = call(&self.client, tool, args).await.expect("a tool result");
        let p = payload(&r);
        let d = etrade_mcp::generated::CATALOG
            .tool(tool)
            .expect("tool in catalog");
        let schema: Value = serde_json::from_str(d.output_schema).expect("schema");
        let v = jsonschema::validator_for(&schema).expect("schema compiles");
        let problems: Vec<String> = v
            .iter_errors(&p)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            problems.is_empty(),
            "{tool} payload fits its outputSchema: {problems:?}\n{p}"
        );
        let text = p.to_string();
        for s in [
            CONSUMER_SECRET,
            self.token.as_str(),
            self.token_secret.as_str(),
        ] {
            assert!(!text.contains(s), "{tool}: a secret reached the output");
        }
        if r.is_error != Some(true) {
            assert_no_json_floats(&p["data"], tool);
        }
        (r.is_error == Some(true), p)
    }
}

impl Sandbox {
    /// The broker failures every read tool must classify: 5xx, an expired token and
    /// malformed JSON on `pattern`, each injected once.
    pub async fn expect_broker_faults(&self, pattern: &str, tool: &str, args: Value) {
        use fake_etrade::{Fault, OauthProblem};
        for (fault, code) in [
            (Fault::Status5xx(500), "service_unavailable"),
            (
                Fault::Unauthorized(OauthProblem::TokenExpired),
                "authorization_expired",
            ),
            (Fault::MalformedJson, "invalid_broker_response"),
        ] {
            self.fake.inject_fault(pattern, fault, Some(1));
            let (err, p) = self.call(tool, args.clone()).await;
            assert!(err, "{tool}: {p}");
            assert_eq!(p["error"]["code"], code, "{tool}: {p}");
        }
    }
}

impl Sandbox {
    /// Canary scan: no secret (consumer secret, access token or its secret, raw or
    /// percent-encoded) in any file of the state folder — the trading database, the paper
    /// book, lock files, the server's debug log.
    fn assert_no_secrets_on_disk(&self) {
        let secrets = [
            CONSUMER_SECRET,
            self.token.as_str(),
            self.token_secret.as_str(),
        ];
        let mut stack = vec![self.home.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let bytes = std::fs::read(&path).unwrap_or_default();
                for s in secrets {
                    let encoded = runtime::oauth::encode(s);
                    for needle in [s.as_bytes(), encoded.as_bytes()] {
                        assert!(
                            !bytes.windows(needle.len()).any(|w| w == needle),
                            "a secret reached {}",
                            path.display()
                        );
                    }
                }
            }
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.assert_no_secrets_on_disk();
        }
        if let Ok(store) = KeyringStore::linux_keyutils() {
            let _ = store.delete(&self.key);
        }
    }
}

/// Money, prices and quantities are decimal strings: no JSON number with a fraction or an
/// exponent may appear in tool data (integers are counts, ids and page numbers).
pub fn assert_no_json_floats(v: &Value, tool: &str) {
    match v {
        Value::Number(n) => assert!(
            n.is_i64() || n.is_u64(),
            "{tool}: a JSON number with a fraction in data: {n}"
        ),
        Value::Array(a) => a.iter().for_each(|x| assert_no_json_floats(x, tool)),
        Value::Object(m) => m.values().for_each(|x| assert_no_json_floats(x, tool)),
        _ => {}
    }
}
