//! The E*TRADE session in process, with an injected clock: keepalive renews shortly before
//! the idle deadline and not earlier; a fresh login is picked up without a restart.
//! Secret canaries (consumer secret, every access token and token secret): no error the
//! session returns (its full debug form) and no file of its lock folder holds one. In process,
//! so there is no stdout, stderr or log of a child to scan.

// Linux only: the harness keeps E*TRADE credentials in the Linux kernel keyring.
#![cfg(target_os = "linux")]

use crate::common;

use common::canary::Canaries;
use fake_etrade::{FakeConfig, FakeEtrade};
use runtime::config::Environment;
use runtime::credentials::{
    Coordinator, CredentialKey, CredentialStore, KeyringStore, Secret, StoredCredentials,
};
use runtime::etrade::endpoints::Endpoints;
use runtime::etrade::{ClientOptions, Endpoint, EtradeHttp, EtradeRequest, EtradeSession};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const CONSUMER_KEY: &str = "ckCANARYsession";
const CONSUMER_SECRET: &str = "CANARY-session-secret/+=cafe";

struct Rig {
    fake: FakeEtrade,
    store: Arc<KeyringStore>,
    key: CredentialKey,
    now: Arc<Mutex<jiff::Timestamp>>,
    session: EtradeSession,
    dir: tempfile::TempDir,
    canaries: Mutex<Canaries>,
}

async fn rig() -> Rig {
    let mut config = FakeConfig::new(CONSUMER_KEY, CONSUMER_SECRET);
    // The tests move the clocks by hours; requests are signed with the real clock.
    config.timestamp_window = Duration::from_secs(3 * 24 * 3600);
    let start = common::midday_eastern();
    let fake = FakeEtrade::start(config.start_time(start)).await;
    let store = Arc::new(KeyringStore::mock().expect("mock store"));
    let key = CredentialKey::new(Environment::Sandbox, "default").expect("key");
    let endpoints = Endpoints {
        api_base: fake.base_url().to_string(),
        oauth_base: fake.base_url().to_string(),
        authorize: fake.authorize_url().to_string(),
    };
    let options = ClientOptions {
        rate_scale: 100,
        ..ClientOptions::default()
    };
    let http = EtradeHttp::new(endpoints, &options).expect("client");
    let dir = tempfile::tempdir().expect("temp");
    let now = Arc::new(Mutex::new(start));
    let clock_now = now.clone();
    let session = EtradeSession::new(
        http,
        store.clone(),
        key.clone(),
        Coordinator::new(dir.path(), Duration::from_secs(2)),
        Arc::new(move || *clock_now.lock().expect("clock")),
    );
    Rig {
        fake,
        store,
        key,
        now,
        session,
        dir,
        canaries: Mutex::new(Canaries::new().with("consumer secret", CONSUMER_SECRET)),
    }
}

impl Rig {
    fn log_in(&self, at: jiff::Timestamp) {
        let pair = self.fake.issue_access_token(CONSUMER_KEY);
        {
            let mut canaries = self.canaries.lock().expect("canaries");
            canaries.add("access token", &pair.token);
            canaries.add("access token secret", &pair.secret);
        }
        let mut c = StoredCredentials::new(CONSUMER_KEY, Secret::new(CONSUMER_SECRET));
        c.authorize(Secret::new(pair.token), Secret::new(pair.secret), at);
        self.store.save(&self.key, &c).expect("save");
    }

    fn advance(&self, by: Duration) {
        let mut now = self.now.lock().expect("clock");
        *now = now
            .checked_add(jiff::SignedDuration::try_from(by).expect("duration"))
            .expect("time");
    }

    async fn list(&self) -> Result<(), String> {
        self.session
            .call(&EtradeRequest::read(Endpoint::AccountList))
            .await
            .map(|_| ())
            .map_err(|e| {
                self.canaries
                    .lock()
                    .expect("canaries")
                    .assert_absent_in_str("a session error", &format!("{e:?} {e}"));
                let e = runtime::contract::errors::ToolError::from(e);
                self.canaries
                    .lock()
                    .expect("canaries")
                    .assert_absent_in_str("its tool error", &format!("{e:?}"));
                e.code.as_str().to_string()
            })
    }

    /// The scan at the end: no canary in the lock folder.
    fn assert_clean(&self) {
        self.canaries
            .lock()
            .expect("canaries")
            .assert_absent_in_dir(self.dir.path());
    }
}

#[tokio::test]
async fn keepalive_renews_near_the_idle_deadline_only() {
    let r = rig().await;
    let start = *r.now.lock().expect("clock");
    r.log_in(start);
    let margin = Duration::from_secs(15 * 60);
    r.advance(Duration::from_secs(60 * 60));
    assert!(
        !r.session.keep_alive(margin).await.expect("ok"),
        "an hour in: too early"
    );
    assert_eq!(r.fake.count("GET", "/oauth/renew_access_token"), 0);
    r.advance(Duration::from_secs(50 * 60));
    assert!(
        r.session.keep_alive(margin).await.expect("ok"),
        "1 h 50 min: renew"
    );
    assert_eq!(r.fake.count("GET", "/oauth/renew_access_token"), 1);
    let c = r.store.load(&r.key).expect("load").expect("entry");
    assert!(c.last_used_at.is_some(), "the renewal is recorded as a use");
    assert!(
        !r.session.keep_alive(margin).await.expect("ok"),
        "just renewed"
    );
    r.assert_clean();
}

#[tokio::test]
async fn inactive_estimate_renews_before_the_call_and_login_is_picked_up() {
    let r = rig().await;
    assert_eq!(r.list().await, Err("authentication_required".into()));
    let start = *r.now.lock().expect("clock");
    r.log_in(start);
    assert_eq!(
        r.list().await,
        Ok(()),
        "a fresh login is used without a restart"
    );
    r.advance(Duration::from_secs(2 * 3600 + 60));
    r.fake.advance_clock(Duration::from_secs(2 * 3600 + 60));
    r.fake.clear_requests();
    assert_eq!(r.list().await, Ok(()));
    let paths: Vec<String> = r
        .fake
        .requests()
        .iter()
        .map(|x| x.endpoint.clone())
        .collect();
    assert_eq!(
        paths,
        vec![
            "/oauth/renew_access_token".to_string(),
            "/v1/accounts/list".to_string()
        ],
        "renewed first, then one call"
    );
    r.assert_clean();
}
