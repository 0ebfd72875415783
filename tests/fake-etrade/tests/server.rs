//! The fake E*TRADE server seen from a raw HTTP client, signing with `runtime::etrade::oauth::Signer`.

use std::time::{Duration, Instant};

use fake_etrade::{
    DEFAULT_CONSUMER_KEY as CK, DEFAULT_CONSUMER_SECRET as CS, FakeConfig, FakeEtrade, Fault,
    OauthProblem, TokenPair, TokenState,
};
use jiff::Timestamp;
use runtime::etrade::oauth::{self, Extra, Signer};
use serde_json::Value;

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client")
}

/// The Authorization header for a request, timestamped by the fake's clock.
fn header(
    fake: &FakeEtrade,
    method: &str,
    url: &str,
    token: Option<&TokenPair>,
    extra: &Extra,
) -> String {
    header_with(
        fake,
        method,
        url,
        CS,
        token,
        extra,
        &oauth::nonce().expect("nonce"),
        0,
    )
}

#[allow(clippy::too_many_arguments)]
fn header_with(
    fake: &FakeEtrade,
    method: &str,
    url: &str,
    consumer_secret: &str,
    token: Option<&TokenPair>,
    extra: &Extra,
    nonce: &str,
    skew: i64,
) -> String {
    let signer = Signer {
        consumer_key: CK,
        consumer_secret,
        token: token.map(|t| t.token.as_str()),
        token_secret: token.map(|t| t.secret.as_str()),
    };
    let ts = (fake.now().as_second() + skew) as u64;
    signer
        .authorization_with(method, url, extra, nonce, ts)
        .expect("sign")
}

async fn get(http: &reqwest::Client, url: &str, authorization: &str) -> (u16, String) {
    let r = http
        .get(url)
        .header("Authorization", authorization)
        .send()
        .await
        .expect("response");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

async fn signed_get(
    http: &reqwest::Client,
    fake: &FakeEtrade,
    url: &str,
    token: &TokenPair,
) -> (u16, String) {
    get(
        http,
        url,
        &header(fake, "GET", url, Some(token), &Extra::default()),
    )
    .await
}

fn form_pair(body: &str) -> TokenPair {
    let pairs = oauth::parse_form(body);
    let find = |k: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{k} in {body}"))
    };
    TokenPair {
        token: find("oauth_token"),
        secret: find("oauth_token_secret"),
    }
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// request token → authorize page → access token.
async fn login(http: &reqwest::Client, fake: &FakeEtrade) -> TokenPair {
    let url = format!("{}/oauth/request_token", fake.base_url());
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    let (status, body) = get(http, &url, &header(fake, "GET", &url, None, &extra)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.ends_with("&oauth_callback_confirmed=true"), "{body}");
    let request = form_pair(&body);

    let page = format!(
        "{}?key={}&token={}",
        fake.authorize_url(),
        oauth::encode(CK),
        oauth::encode(&request.token)
    );
    let code = http
        .get(&page)
        .send()
        .await
        .expect("authorize")
        .text()
        .await
        .expect("code");
    assert_eq!(Some(code.clone()), fake.verifier_for(&request.token));

    let url = format!("{}/oauth/access_token", fake.base_url());
    let extra = Extra {
        callback: None,
        verifier: Some(&code),
    };
    let (status, body) = get(
        http,
        &url,
        &header(fake, "GET", &url, Some(&request), &extra),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("oauth_callback_confirmed"));
    form_pair(&body)
}

fn list_url(fake: &FakeEtrade) -> String {
    format!("{}/v1/accounts/list.json", fake.base_url())
}

fn problem_of(body: &str) -> String {
    let start = body.find("oauth_problem=").expect("oauth_problem") + "oauth_problem=".len();
    body[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

#[tokio::test]
async fn oauth_happy_path_and_account_list() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();

    // The raw token response is percent-encoded and the tokens contain / + =.
    let url = format!("{}/oauth/request_token", fake.base_url());
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    let (_, raw) = get(&http, &url, &header(&fake, "GET", &url, None, &extra)).await;
    assert!(
        raw.contains("%2F") && raw.contains("%2B") && raw.contains("%3D"),
        "{raw}"
    );
    let rt = form_pair(&raw);
    assert!(rt.token.contains('/') && rt.token.contains('+') && rt.token.ends_with('='));

    let access = login(&http, &fake).await;
    assert_eq!(
        fake.access_token_state(&access.token),
        Some(TokenState::Active)
    );

    let (status, body) = signed_get(&http, &fake, &list_url(&fake), &access).await;
    assert_eq!(status, 200, "{body}");
    let v = json(&body);
    let accounts = v["AccountListResponse"]["Accounts"]["Account"]
        .as_array()
        .expect("Account[]");
    assert_eq!(accounts.len(), 4);
    for a in accounts {
        assert!(a["accountId"].is_string(), "{a}");
        assert!(
            a["accountIdKey"].as_str().is_some_and(|k| k.len() == 22),
            "{a}"
        );
        for field in [
            "accountMode",
            "accountDesc",
            "accountName",
            "accountType",
            "institutionType",
            "accountStatus",
        ] {
            assert!(a[field].is_string(), "{field} in {a}");
        }
        assert!(a["closedDate"].is_number());
    }
    assert!(accounts.iter().any(|a| a["accountStatus"] == "CLOSED"));

    // The suffix-less form with Accept: application/json.
    let url = format!("{}/v1/accounts/list", fake.base_url());
    let r = http
        .get(&url)
        .header(
            "Authorization",
            header(&fake, "GET", &url, Some(&access), &Extra::default()),
        )
        .header("Accept", "application/json")
        .send()
        .await
        .expect("response");
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );

    // The log: every request verified; tokens but no secrets.
    let log = fake.requests();
    assert_eq!(log.len(), 6);
    assert!(
        log.iter()
            .filter(|r| r.path.starts_with("/oauth/") || r.path.starts_with("/v1/"))
            .all(|r| r.signature_verified)
    );
    assert_eq!(log[5].oauth_token.as_deref(), Some(access.token.as_str()));
    assert_eq!(log[5].consumer_key.as_deref(), Some(CK));
    assert_eq!(fake.count("GET", "/v1/accounts/list"), 2);
    let dump = serde_json::to_string(&log).expect("json");
    assert!(!dump.contains(&access.secret) && !dump.contains(CS));
    assert!(!dump.contains(&oauth::encode(&access.secret)));
    fake.shutdown().await;
}

/// The token endpoints answer form-encoded or plain text only: an Accept admitting neither
/// (JSON only) is refused with 406 before anything else; `*/*`, none, or one that admits
/// text is served. The API endpoints serve JSON whatever the Accept.
#[tokio::test]
async fn oauth_endpoints_refuse_a_json_only_accept() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();
    let url = format!("{}/oauth/request_token", fake.base_url());
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    for (accept, want) in [
        (Some("application/json"), 406),
        (Some("application/json;charset=UTF-8"), 406),
        (Some("*/*"), 200),
        (Some("text/plain, application/json"), 200),
        (None, 200),
    ] {
        let mut r = http
            .get(&url)
            .header("Authorization", header(&fake, "GET", &url, None, &extra));
        if let Some(a) = accept {
            r = r.header("Accept", a);
        }
        let r = r.send().await.expect("response");
        assert_eq!(r.status().as_u16(), want, "{accept:?}");
    }
    let recorded: Vec<_> = fake
        .requests()
        .into_iter()
        .map(|r| (r.accept, r.status))
        .collect();
    assert_eq!(recorded[0], (Some("application/json".into()), Some(406)));
    let access = fake.issue_access_token(CK);
    let list = list_url(&fake);
    let r = http
        .get(&list)
        .header("Accept", "application/json")
        .header(
            "Authorization",
            header(&fake, "GET", &list, Some(&access), &Extra::default()),
        )
        .send()
        .await
        .expect("response");
    assert_eq!(r.status().as_u16(), 200);
}

#[tokio::test]
async fn bad_signature_is_signature_invalid() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();
    let url = format!("{}/oauth/request_token", fake.base_url());
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    let nonce = oauth::nonce().expect("nonce");
    let h = header_with(&fake, "GET", &url, "wrong-secret", None, &extra, &nonce, 0);
    let (status, body) = get(&http, &url, &h).await;
    assert_eq!(status, 401);
    assert!(
        body.contains("<h1>HTTP Status 401 - oauth_problem=signature_invalid</h1>"),
        "{body}"
    );

    // On the API: JSON, and a token secret that does not match.
    let mut access = fake.issue_access_token(CK);
    access.secret.push('x');
    let (status, body) = signed_get(&http, &fake, &list_url(&fake), &access).await;
    assert_eq!(status, 401);
    assert_eq!(
        json(&body),
        serde_json::json!({"Error": {"message": "oauth_problem=signature_invalid"}})
    );
    // Signing a different URL than the one sent (the .json suffix is signed).
    access.secret.pop();
    let other = format!("{}/v1/accounts/list", fake.base_url());
    let h = header(&fake, "GET", &other, Some(&access), &Extra::default());
    let (status, body) = get(&http, &list_url(&fake), &h).await;
    assert_eq!(
        (status, problem_of(&body).as_str()),
        (401, "signature_invalid")
    );
    let log = fake.requests();
    assert!(log.iter().all(|r| !r.signature_verified));
    assert_eq!(log[2].oauth_problem.as_deref(), Some("signature_invalid"));

    // With verification switched off the same request passes.
    let lax = FakeEtrade::start(FakeConfig::default().verify_signatures(false)).await;
    let access = lax.issue_access_token(CK);
    let h = header(&lax, "GET", &other, Some(&access), &Extra::default());
    let (status, _) = get(&http, &list_url(&lax), &h).await;
    assert_eq!(status, 200);
    assert!(!lax.requests()[0].signature_verified);
}

#[tokio::test]
async fn stale_timestamp_is_refused() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();
    let access = fake.issue_access_token(CK);
    let url = list_url(&fake);
    for skew in [-301, 301] {
        let nonce = oauth::nonce().expect("nonce");
        let h = header_with(
            &fake,
            "GET",
            &url,
            CS,
            Some(&access),
            &Extra::default(),
            &nonce,
            skew,
        );
        let (status, body) = get(&http, &url, &h).await;
        assert_eq!(status, 401);
        let msg = json(&body)["Error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            msg.starts_with("oauth_problem=timestamp_refused,oauth_acceptable_timestamps="),
            "{msg}"
        );
    }
    let nonce = oauth::nonce().expect("nonce");
    let h = header_with(
        &fake,
        "GET",
        &url,
        CS,
        Some(&access),
        &Extra::default(),
        &nonce,
        -290,
    );
    assert_eq!(get(&http, &url, &h).await.0, 200);

    // A client on the real clock after the fake jumped ahead.
    fake.advance_clock(Duration::from_secs(600));
    let signer = Signer {
        consumer_key: CK,
        consumer_secret: CS,
        token: Some(&access.token),
        token_secret: Some(&access.secret),
    };
    let h = signer
        .authorization("GET", &url, &Extra::default())
        .expect("sign");
    let (status, body) = get(&http, &url, &h).await;
    assert_eq!(
        (status, problem_of(&body).as_str()),
        (401, "timestamp_refused")
    );
}

#[tokio::test]
async fn reused_nonce_is_rejected() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();
    let access = fake.issue_access_token(CK);
    let url = list_url(&fake);
    let h = header_with(
        &fake,
        "GET",
        &url,
        CS,
        Some(&access),
        &Extra::default(),
        "samenonce",
        0,
    );
    assert_eq!(get(&http, &url, &h).await.0, 200);
    let (status, body) = get(&http, &url, &h).await;
    assert_eq!((status, problem_of(&body).as_str()), (401, "nonce_used"));
    // On the OAuth endpoints too (Tomcat page).
    let renew = format!("{}/oauth/renew_access_token", fake.base_url());
    let h = header_with(
        &fake,
        "GET",
        &renew,
        CS,
        Some(&access),
        &Extra::default(),
        "n2",
        0,
    );
    assert_eq!(get(&http, &renew, &h).await.0, 200);
    let (status, body) = get(&http, &renew, &h).await;
    assert_eq!(status, 401);
    assert!(
        body.contains("HTTP Status 401 - oauth_problem=nonce_used"),
        "{body}"
    );
}

#[tokio::test]
async fn consumer_key_unknown_and_rejected() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();
    let url = format!("{}/oauth/request_token", fake.base_url());
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    let signer = Signer {
        consumer_key: "nobody",
        consumer_secret: CS,
        token: None,
        token_secret: None,
    };
    let ts = fake.now().as_second() as u64;
    let h = signer
        .authorization_with("GET", &url, &extra, "n1", ts)
        .expect("sign");
    let (status, body) = get(&http, &url, &h).await;
    assert_eq!(
        (status, problem_of(&body).as_str()),
        (401, "consumer_key_unknown")
    );

    assert!(fake.set_consumer_rejected(CK, true));
    let (status, body) = get(&http, &url, &header(&fake, "GET", &url, None, &extra)).await;
    assert_eq!(
        (status, problem_of(&body).as_str()),
        (401, "consumer_key_rejected")
    );

    // Missing callback / non-oob callback.
    fake.set_consumer_rejected(CK, false);
    let (status, body) = get(
        &http,
        &url,
        &header(&fake, "GET", &url, None, &Extra::default()),
    )
    .await;
    assert_eq!(
        (status, problem_of(&body).as_str()),
        (401, "parameter_absent")
    );
    let cb = Extra {
        callback: Some("https://example.invalid/cb"),
        verifier: None,
    };
    let (status, body) = get(&http, &url, &header(&fake, "GET", &url, None, &cb)).await;
    assert_eq!(status, 401);
    assert!(body.contains("oauth_problem=callback_rejected,oauth_acceptable_callback=oob"));
    // No Authorization header at all on the API.
    let r = http.get(list_url(&fake)).send().await.expect("response");
    assert_eq!(r.status().as_u16(), 401);
}

#[tokio::test]
async fn idle_token_goes_inactive_until_renewed() {
    let fake = FakeEtrade::start(
        FakeConfig::default().start_time("2026-10-16T14:00:00Z".parse().expect("time")),
    )
    .await;
    let http = client();
    let access = login(&http, &fake).await;
    let url = list_url(&fake);
    // Each request refreshes the idle timer.
    fake.advance_clock(Duration::from_secs(110 * 60));
    assert_eq!(signed_get(&http, &fake, &url, &access).await.0, 200);
    fake.advance_clock(Duration::from_secs(110 * 60));
    assert_eq!(signed_get(&http, &fake, &url, &access).await.0, 200);

    fake.advance_clock(Duration::from_secs(2 * 3600 + 1));
    let (status, body) = signed_get(&http, &fake, &url, &access).await;
    assert_eq!(status, 401);
    assert_eq!(
        json(&body),
        serde_json::json!({"Error": {"message": "oauth_problem=token_rejected"}})
    );
    assert_eq!(
        fake.access_token_state(&access.token),
        Some(TokenState::Inactive)
    );

    let renew = format!("{}/oauth/renew_access_token", fake.base_url());
    let (status, body) = signed_get(&http, &fake, &renew, &access).await;
    assert_eq!(
        (status, body.as_str()),
        (200, "Access Token has been renewed")
    );
    assert_eq!(signed_get(&http, &fake, &url, &access).await.0, 200);

    let revoke = format!("{}/oauth/revoke_access_token", fake.base_url());
    let (status, body) = signed_get(&http, &fake, &revoke, &access).await;
    assert_eq!((status, body.as_str()), (200, "Revoked Access Token"));
    let (status, body) = signed_get(&http, &fake, &url, &access).await;
    assert_eq!(
        (status, problem_of(&body).as_str()),
        (401, "token_rejected")
    );
    let (status, body) = signed_get(&http, &fake, &renew, &access).await;
    assert_eq!(
        (status, problem_of(&body).as_str()),
        (401, "token_rejected")
    );
}

#[tokio::test]
async fn token_expires_at_midnight_eastern() {
    // 23:50 EDT on 2026-10-16.
    let start: Timestamp = "2026-10-17T03:50:00Z".parse().expect("time");
    let fake = FakeEtrade::start(FakeConfig::default().start_time(start)).await;
    let http = client();
    let access = login(&http, &fake).await;
    let url = list_url(&fake);
    fake.advance_clock(Duration::from_secs(9 * 60));
    assert_eq!(signed_get(&http, &fake, &url, &access).await.0, 200);
    fake.advance_clock(Duration::from_secs(2 * 60));
    let (status, body) = signed_get(&http, &fake, &url, &access).await;
    assert_eq!(status, 401);
    assert_eq!(
        json(&body),
        serde_json::json!({"Error": {"message": "oauth_problem=token_expired"}})
    );
    assert_eq!(
        fake.access_token_state(&access.token),
        Some(TokenState::Expired)
    );
    let renew = format!("{}/oauth/renew_access_token", fake.base_url());
    let (status, body) = signed_get(&http, &fake, &renew, &access).await;
    assert_eq!(status, 401);
    assert!(body.contains("oauth_problem=token_expired"), "{body}");
    // A new login works.
    let fresh = login(&http, &fake).await;
    assert_eq!(signed_get(&http, &fake, &url, &fresh).await.0, 200);
}

#[tokio::test]
async fn request_token_lives_five_minutes() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();
    let url = format!("{}/oauth/request_token", fake.base_url());
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    let (_, body) = get(&http, &url, &header(&fake, "GET", &url, None, &extra)).await;
    let request = form_pair(&body);
    let code = fake.verifier_for(&request.token).expect("verifier");
    let access_url = format!("{}/oauth/access_token", fake.base_url());

    // A wrong verifier is rejected; the token stays usable.
    let wrong = Extra {
        callback: None,
        verifier: Some("ZZZZZ9"),
    };
    let (status, body) = get(
        &http,
        &access_url,
        &header(&fake, "GET", &access_url, Some(&request), &wrong),
    )
    .await;
    assert_eq!(
        (status, problem_of(&body).as_str()),
        (401, "token_rejected")
    );

    fake.advance_clock(Duration::from_secs(301));
    let extra = Extra {
        callback: None,
        verifier: Some(&code),
    };
    let (status, body) = get(
        &http,
        &access_url,
        &header(&fake, "GET", &access_url, Some(&request), &extra),
    )
    .await;
    assert_eq!((status, problem_of(&body).as_str()), (401, "token_expired"));
    // The authorize page refuses it as well.
    let page = format!(
        "{}?key={}&token={}",
        fake.authorize_url(),
        oauth::encode(CK),
        oauth::encode(&request.token)
    );
    let r = http.get(&page).send().await.expect("page");
    assert_eq!(r.status().as_u16(), 401);
}

#[tokio::test]
async fn request_token_is_single_use() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();
    let url = format!("{}/oauth/request_token", fake.base_url());
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    let (_, body) = get(&http, &url, &header(&fake, "GET", &url, None, &extra)).await;
    let request = form_pair(&body);
    let code = fake.verifier_for(&request.token).expect("verifier");
    let access_url = format!("{}/oauth/access_token", fake.base_url());
    let extra = Extra {
        callback: None,
        verifier: Some(&code),
    };
    let (status, _) = get(
        &http,
        &access_url,
        &header(&fake, "GET", &access_url, Some(&request), &extra),
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = get(
        &http,
        &access_url,
        &header(&fake, "GET", &access_url, Some(&request), &extra),
    )
    .await;
    assert_eq!((status, problem_of(&body).as_str()), (401, "token_used"));
}

// ---------------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------------

struct Setup {
    fake: FakeEtrade,
    http: reqwest::Client,
    access: TokenPair,
}

async fn setup() -> Setup {
    setup_with(FakeConfig::default()).await
}

async fn setup_with(config: FakeConfig) -> Setup {
    let fake = FakeEtrade::start(config).await;
    let access = fake.issue_access_token(CK);
    Setup {
        fake,
        http: client(),
        access,
    }
}

impl Setup {
    async fn send_with(
        &self,
        http: &reqwest::Client,
        url: &str,
    ) -> reqwest::Result<reqwest::Response> {
        let h = header(
            &self.fake,
            "GET",
            url,
            Some(&self.access),
            &Extra::default(),
        );
        http.get(url).header("Authorization", h).send().await
    }

    async fn list_with(&self, http: &reqwest::Client) -> reqwest::Result<(u16, String)> {
        let r = self.send_with(http, &list_url(&self.fake)).await?;
        let status = r.status().as_u16();
        Ok((status, r.text().await?))
    }

    async fn list(&self) -> reqwest::Result<(u16, String)> {
        self.list_with(&self.http).await
    }
}

#[tokio::test]
async fn refuse_drops_the_connection_unread() {
    let s = setup().await;
    // Warm a pooled connection first: refusals also apply to reused connections.
    assert_eq!(s.list().await.expect("ok").0, 200);
    s.fake
        .inject_fault("GET /v1/accounts/list", Fault::Refuse, Some(2));
    s.fake.clear_requests();
    let e = s.list().await.expect_err("refused");
    assert!(!e.is_timeout(), "{e:?}");
    // A fresh client: the refusal happens at accept time, before the request is read.
    let e = s.list_with(&client()).await.expect_err("refused");
    assert!(!e.is_timeout(), "{e:?}");
    let log = s.fake.requests();
    assert_eq!(log.len(), 2, "{log:?}");
    for r in &log {
        assert_eq!(r.fault.as_deref(), Some("refuse"));
        assert_eq!(r.status, None);
        assert_eq!(r.endpoint, "/v1/accounts/list");
        assert_eq!(r.path, "/v1/accounts/list.json");
    }
    // Used up: the next request goes through.
    assert_eq!(s.list().await.expect("ok").0, 200);
    assert!(s.fake.faults().is_empty());
}

#[tokio::test]
async fn reset_before_response_is_a_client_error_with_one_request_recorded() {
    let s = setup().await;
    s.fake
        .inject_fault("/v1/accounts/list", Fault::ResetBeforeResponse, Some(1));
    let e = s.list().await.expect_err("reset");
    assert!(!e.is_timeout(), "{e:?}");
    let log = s.fake.requests();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].fault.as_deref(), Some("reset_before_response"));
    assert_eq!(log[0].status, None);
    // The request was authenticated and processed before the connection went.
    assert!(log[0].signature_verified);
    assert_eq!(s.list().await.expect("ok").0, 200);

    s.fake
        .inject_fault("*", Fault::ResetWithoutProcessing, Some(1));
    assert!(s.list().await.is_err());
    assert_eq!(s.fake.count("GET", "/v1/accounts/list"), 3);
    assert_eq!(
        s.fake.requests()[2].fault.as_deref(),
        Some("reset_without_processing")
    );
}

#[tokio::test]
async fn reset_hits_a_mutation_once_and_it_is_flagged() {
    let s = setup().await;
    s.fake.inject_fault(
        "POST /v1/accounts/*/orders/place",
        Fault::ResetBeforeResponse,
        Some(1),
    );
    let url = format!(
        "{}/v1/accounts/JIdOIAcSpwR1Jva7RQBraQ/orders/place.json",
        s.fake.base_url()
    );
    let h = header(&s.fake, "POST", &url, Some(&s.access), &Extra::default());
    let r = s
        .http
        .post(&url)
        .header("Authorization", h)
        .header("Content-Type", "application/json")
        .body(r#"{"PlaceOrderRequest":{"orderType":"EQ"}}"#)
        .send()
        .await;
    assert!(r.is_err());
    let log = s.fake.requests();
    assert_eq!(log.len(), 1);
    assert!(log[0].mutation);
    assert_eq!(
        log[0].body.as_deref(),
        Some(r#"{"PlaceOrderRequest":{"orderType":"EQ"}}"#)
    );
    assert_eq!(
        s.fake
            .count("POST", "/v1/accounts/JIdOIAcSpwR1Jva7RQBraQ/orders/place"),
        1
    );
}

#[tokio::test]
async fn timeout_holds_the_response() {
    let s = setup().await;
    s.fake.inject_fault(
        "/v1/accounts/list",
        Fault::Timeout(Duration::from_millis(600)),
        None,
    );
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(150))
        .build()
        .expect("client");
    let e = s.list_with(&impatient).await.expect_err("timeout");
    assert!(e.is_timeout(), "{e:?}");
    let t = Instant::now();
    assert_eq!(s.list().await.expect("slow").0, 200);
    assert!(t.elapsed() >= Duration::from_millis(550));
    assert_eq!(s.fake.faults().len(), 1, "None = until cleared");
    s.fake.clear_faults();
    let t = Instant::now();
    assert_eq!(s.list().await.expect("fast").0, 200);
    assert!(t.elapsed() < Duration::from_millis(500));
}

#[tokio::test]
async fn echo_authorization_appends_the_header_to_a_success_text() {
    let s = setup().await;
    s.fake
        .inject_fault("GET /v1/accounts/list", Fault::EchoAuthorization, Some(1));
    let (status, body) = s.list().await.expect("answer");
    assert_eq!(status, 200);
    let v = json(&body);
    let account = &v["AccountListResponse"]["Accounts"]["Account"][0];
    let encoded_token = oauth::encode(&s.access.token);
    for field in ["accountDesc", "accountName"] {
        let text = account[field].as_str().expect("a string");
        assert!(text.contains(" (request Authorization: OAuth "), "{text}");
        let key = oauth::encode(CK);
        assert!(
            text.contains(&format!("oauth_consumer_key=\"{key}\"")),
            "{text}"
        );
        assert!(
            text.contains(&format!("oauth_token=\"{encoded_token}\"")),
            "{text}"
        );
    }
    assert_eq!(account["accountIdKey"], "JIdOIAcSpwR1Jva7RQBraQ");
    let recorded = s.fake.requests();
    assert_eq!(recorded[0].fault.as_deref(), Some("echo_authorization"));
    assert_eq!(recorded[0].status, Some(200));
    let (_, plain) = s.list().await.expect("answer");
    assert!(!plain.contains("Authorization"), "one use: {plain}");
}

#[tokio::test]
async fn error_answers() {
    let s = setup().await;
    let list = "GET /v1/accounts/list";

    s.fake.inject_fault(list, Fault::Status5xx(503), Some(1));
    let (status, body) = s.list().await.expect("answer");
    assert_eq!(status, 503);
    assert_eq!(
        json(&body),
        serde_json::json!({"Error": {"code": 100, "message": "The requested service is not currently available, please try after sometime."}})
    );

    s.fake.inject_fault(list, Fault::RateLimitPage, Some(1));
    let (status, body) = s.list().await.expect("answer");
    assert_eq!(status, 400);
    assert!(body.contains("Number of requests exceeded the rate limit set"));
    assert!(body.starts_with('<'));

    s.fake.inject_fault(list, Fault::Http429, Some(1));
    assert_eq!(s.list().await.expect("answer").0, 429);

    s.fake.inject_fault(list, Fault::MalformedJson, Some(1));
    let (status, body) = s.list().await.expect("answer");
    assert_eq!(status, 200);
    assert!(body.starts_with("{\"AccountListResponse\""), "{body}");
    assert!(serde_json::from_str::<Value>(&body).is_err());

    s.fake.inject_fault(list, Fault::HtmlErrorPage, Some(1));
    let (status, body) = s.list().await.expect("answer");
    assert_eq!(status, 500);
    assert!(body.starts_with("<!DOCTYPE html>"));

    for (problem, text) in [
        (OauthProblem::TokenExpired, "token_expired"),
        (OauthProblem::TokenRejected, "token_rejected"),
        (OauthProblem::ConsumerKeyRejected, "consumer_key_rejected"),
        (OauthProblem::SignatureInvalid, "signature_invalid"),
    ] {
        s.fake
            .inject_fault(list, Fault::Unauthorized(problem), Some(1));
        let (status, body) = s.list().await.expect("answer");
        assert_eq!(status, 401);
        assert_eq!(
            json(&body),
            serde_json::json!({"Error": {"message": format!("oauth_problem={text}")}})
        );
    }
    // On an OAuth endpoint the same fault is a Tomcat page.
    s.fake.inject_fault(
        "/oauth/**",
        Fault::Unauthorized(OauthProblem::TokenRejected),
        Some(1),
    );
    let renew = format!("{}/oauth/renew_access_token", s.fake.base_url());
    let r = s.send_with(&s.http, &renew).await.expect("answer");
    assert_eq!(r.status().as_u16(), 401);
    assert!(
        r.text()
            .await
            .expect("body")
            .contains("HTTP Status 401 - oauth_problem=token_rejected")
    );

    // All used up; every request was recorded with its fault and status.
    assert_eq!(s.list().await.expect("ok").0, 200);
    let log = s.fake.requests();
    let faults: Vec<_> = log.iter().map(|r| (r.fault.clone(), r.status)).collect();
    assert_eq!(faults[0], (Some("status5xx".into()), Some(503)));
    assert_eq!(faults[3], (Some("malformed_json".into()), Some(200)));
    assert_eq!(faults.last(), Some(&(None, Some(200))));
}

// ---------------------------------------------------------------------------------------------
// API data
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn balance_and_paged_portfolio() {
    let s = setup().await;
    let base = s.fake.base_url();
    let key = "JIdOIAcSpwR1Jva7RQBraQ";

    let url = format!("{base}/v1/accounts/{key}/balance.json?instType=BROKERAGE&realTimeNAV=true");
    let (status, body) = signed_get(&s.http, &s.fake, &url, &s.access).await;
    assert_eq!(status, 200, "{body}");
    let b = &json(&body)["BalanceResponse"];
    assert_eq!(b["accountId"], "84010429");
    assert!(b["Computed"]["cashBuyingPower"].is_number());
    assert!(b["Computed"]["RealTimeValues"]["totalAccountValue"].is_number());
    let url = format!("{base}/v1/accounts/{key}/balance.json");
    let (status, body) = signed_get(&s.http, &s.fake, &url, &s.access).await;
    assert_eq!(
        (status, json(&body)["Error"]["code"].as_i64()),
        (400, Some(7002))
    );

    // 10 positions, 4 a page → 3 pages.
    let mut url = format!("{base}/v1/accounts/{key}/portfolio.json?count=4&totalsRequired=true");
    let mut seen = Vec::new();
    for page in 1..=3 {
        let (status, body) = signed_get(&s.http, &s.fake, &url, &s.access).await;
        assert_eq!(status, 200, "{body}");
        let v = json(&body);
        let ap = &v["PortfolioResponse"]["AccountPortfolio"][0];
        assert_eq!(ap["totalPages"], 3);
        assert!(v["PortfolioResponse"]["Totals"]["totalMarketValue"].is_number());
        let positions = ap["Position"].as_array().expect("Position[]");
        assert_eq!(positions.len(), if page < 3 { 4 } else { 2 });
        for p in positions {
            assert!(p["positionId"].is_i64());
            assert!(p["Quick"]["lastTrade"].is_number(), "{p}");
            seen.push(p["positionId"].as_i64().unwrap());
        }
        if page < 3 {
            assert_eq!(ap["nextPageNo"], (page + 1).to_string());
            url = ap["next"].as_str().expect("next").to_string();
            assert!(url.starts_with(&base));
        } else {
            assert!(ap.get("nextPageNo").is_none() && ap.get("next").is_none());
        }
    }
    seen.dedup();
    assert_eq!(seen.len(), 10);

    // Sorting, views, the misspelt sort key, lots.
    let url = format!(
        "{base}/v1/accounts/{key}/portfolio?sortBy=MARKET_VALUE&sortOrder=DESC&view=PERFORMANCE&lotsRequired=true"
    );
    let (_, body) = signed_get(&s.http, &s.fake, &url, &s.access).await;
    let v = json(&body);
    let positions = v["PortfolioResponse"]["AccountPortfolio"][0]["Position"]
        .as_array()
        .unwrap()
        .clone();
    let mv: Vec<f64> = positions
        .iter()
        .map(|p| p["marketValue"].as_f64().unwrap())
        .collect();
    assert!(mv.windows(2).all(|w| w[0] >= w[1]), "{mv:?}");
    assert!(positions[0]["Performance"].is_object());
    assert!(positions[0]["positionLot"].is_array());
    let option = positions
        .iter()
        .find(|p| p["Product"]["securityType"] == "OPTN")
        .unwrap();
    assert_eq!(option["osiKey"], "AAPL--270115C00180000");
    let url = format!("{base}/v1/accounts/{key}/portfolio?sortBy=INTRINSIC_VALUE");
    assert_eq!(signed_get(&s.http, &s.fake, &url, &s.access).await.0, 400);
    let url = format!("{base}/v1/accounts/{key}/portfolio?sortBy=INSTRINIC_VALUE");
    assert_eq!(signed_get(&s.http, &s.fake, &url, &s.access).await.0, 200);
    let url = format!("{base}/v1/accounts/{key}/portfolio/10002345678.json");
    let (status, body) = signed_get(&s.http, &s.fake, &url, &s.access).await;
    assert_eq!(status, 200);
    assert!(json(&body)["PositionLotsResponse"]["PositionLot"][0]["remainingQty"].is_number());

    // Empty portfolio → 204; unknown account → 400; unknown path → 404 JSON.
    let url = format!("{base}/v1/accounts/4Wq1Lm9ZcT7nYbRk2XsHvA/portfolio.json");
    let (status, body) = signed_get(&s.http, &s.fake, &url, &s.access).await;
    assert_eq!((status, body.as_str()), (204, ""));
    let url = format!("{base}/v1/accounts/nope/portfolio.json");
    assert_eq!(signed_get(&s.http, &s.fake, &url, &s.access).await.0, 400);
    let url = format!("{base}/v1/nothing/here.json");
    let (status, body) = signed_get(&s.http, &s.fake, &url, &s.access).await;
    assert_eq!(status, 404);
    assert!(json(&body)["Error"]["message"].is_string());
}

#[tokio::test]
async fn empty_account_list_is_204() {
    let fake =
        FakeEtrade::start(FakeConfig::default().with_fixtures(fake_etrade::Fixtures::empty()))
            .await;
    let access = fake.issue_access_token(CK);
    let (status, body) = signed_get(&client(), &fake, &list_url(&fake), &access).await;
    assert_eq!((status, body.as_str()), (204, ""));
}

// ---------------------------------------------------------------------------------------------
// Control API and binary
// ---------------------------------------------------------------------------------------------

async fn control(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    body: &str,
) -> Value {
    let r = http
        .request(method, url)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("control");
    assert!(r.status().is_success(), "{}", r.status());
    json(&r.text().await.expect("body"))
}

#[tokio::test]
async fn http_control_api() {
    // Two hours on from noon Eastern: the token goes idle, not past its midnight expiry,
    // whatever the hour the test runs at.
    let now = jiff::Timestamp::now().as_second();
    let noon =
        jiff::Timestamp::from_second(now - now.rem_euclid(86_400) + 17 * 3_600).expect("a time");
    let s = setup_with(FakeConfig::default().start_time(noon)).await;
    let base = s.fake.base_url();
    let before = s.fake.now();
    let v = control(
        &s.http,
        reqwest::Method::POST,
        format!("{base}/__fake/clock/advance"),
        r#"{"seconds":7201}"#,
    )
    .await;
    let now: Timestamp = v["now"].as_str().unwrap().parse().unwrap();
    assert!(now.duration_since(before).as_secs() >= 7201);
    // The token went idle.
    let (status, _) = s.list().await.expect("answer");
    assert_eq!(status, 401);
    let v = control(
        &s.http,
        reqwest::Method::GET,
        format!(
            "{base}/__fake/token_state?token={}",
            oauth::encode(&s.access.token)
        ),
        "",
    )
    .await;
    assert_eq!(v["state"], "inactive");

    control(
        &s.http,
        reqwest::Method::POST,
        format!("{base}/__fake/clock/set"),
        r#"{"time":"2030-01-02T15:00:00Z"}"#,
    )
    .await;
    let v = control(
        &s.http,
        reqwest::Method::POST,
        format!("{base}/__fake/access_token"),
        &format!(r#"{{"consumer_key":"{CK}"}}"#),
    )
    .await;
    let access = TokenPair {
        token: v["oauth_token"].as_str().unwrap().into(),
        secret: v["oauth_token_secret"].as_str().unwrap().into(),
    };
    let v = control(
        &s.http,
        reqwest::Method::POST,
        format!("{base}/__fake/faults"),
        r#"{"pattern":"GET /v1/accounts/list","fault":{"kind":"status5xx","status":502},"times":1}"#,
    )
    .await;
    assert!(v["id"].is_u64());
    let (status, _) = signed_get(&s.http, &s.fake, &list_url(&s.fake), &access).await;
    assert_eq!(status, 502);
    let (status, _) = signed_get(&s.http, &s.fake, &list_url(&s.fake), &access).await;
    assert_eq!(status, 200);

    let v = control(
        &s.http,
        reqwest::Method::GET,
        format!("{base}/__fake/requests"),
        "",
    )
    .await;
    let log = v.as_array().unwrap();
    assert_eq!(log.len(), 3, "control requests are not recorded");
    assert_eq!(log[1]["status"], 502);
    assert_eq!(log[1]["fault"], "status5xx");
    let v = control(
        &s.http,
        reqwest::Method::GET,
        format!("{base}/__fake/count?method=GET&prefix=/v1/accounts/list"),
        "",
    )
    .await;
    assert_eq!(v["count"], 3);
    control(
        &s.http,
        reqwest::Method::DELETE,
        format!("{base}/__fake/requests"),
        "",
    )
    .await;
    assert!(s.fake.requests().is_empty());

    let r = s
        .http
        .post(format!("{base}/__fake/faults"))
        .body(r#"{"pattern":"x","fault":{"kind":"nope"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
}

#[tokio::test]
async fn binary_listens_and_is_driven_over_http() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};

    // `option_env!`: a cross-target `cargo check` (.ci/check-targets) does not define it.
    let Some(bin) = option_env!("CARGO_BIN_EXE_fake-etrade") else {
        panic!("CARGO_BIN_EXE_fake-etrade is unset: build the tests with cargo test or nextest");
    };
    let mut child = Command::new(bin)
        .args(["--consumer-key", "ck-bin", "--consumer-secret", "cs/bin+="])
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fake-etrade");
    let stderr = child.stderr.take().expect("stderr");
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stderr).read_line(&mut line).expect("read");
        line
    })
    .await
    .expect("join");
    let base = line
        .trim()
        .strip_prefix("fake-etrade: listening on ")
        .unwrap_or_else(|| panic!("{line:?}"))
        .to_string();
    assert!(base.starts_with("http://127.0.0.1:"));
    let http = client();
    let v = control(
        &http,
        reqwest::Method::GET,
        format!("{base}/__fake/clock"),
        "",
    )
    .await;
    assert!(v["now"].is_string());

    let url = format!("{base}/oauth/request_token");
    let signer = Signer {
        consumer_key: "ck-bin",
        consumer_secret: "cs/bin+=",
        token: None,
        token_secret: None,
    };
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    let h = signer.authorization("GET", &url, &extra).expect("sign");
    let (status, body) = get(&http, &url, &h).await;
    assert_eq!(status, 200, "{body}");
    child.kill().expect("kill");
    let _ = child.wait();
}

#[tokio::test]
async fn authorize_page_accepts_raw_or_encoded_tokens() {
    let fake = FakeEtrade::start(FakeConfig::default()).await;
    let http = client();
    let url = format!("{}/oauth/request_token", fake.base_url());
    let extra = Extra {
        callback: Some("oob"),
        verifier: None,
    };
    let (_, body) = get(&http, &url, &header(&fake, "GET", &url, None, &extra)).await;
    let request = form_pair(&body);
    let code = fake.verifier_for(&request.token).expect("verifier");
    // The token pasted raw (with its '+', '/' and '=') still finds the request token.
    let raw = format!("{}?key={CK}&token={}", fake.authorize_url(), request.token);
    let r = http.get(&raw).send().await.expect("page");
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.text().await.expect("body"), code);
    // A browser gets a minimal page with the code.
    let r = http
        .get(&raw)
        .header("Accept", "text/html,application/xhtml+xml")
        .send()
        .await
        .expect("page");
    let page = r.text().await.expect("body");
    assert!(page.contains(&format!("value=\"{code}\"")), "{page}");
    // Unknown token / consumer.
    let r = http
        .get(format!("{}?key={CK}&token=nope", fake.authorize_url()))
        .send()
        .await
        .expect("page");
    assert_eq!(r.status().as_u16(), 401);
    let r = http
        .get(format!("{}?key=nobody&token=nope", fake.authorize_url()))
        .send()
        .await
        .expect("page");
    assert!(
        r.text()
            .await
            .expect("body")
            .contains("consumer_key_unknown")
    );
}
