//! The local approval page: `http://127.0.0.1:PORT/approve/<one-time id>` shows a stored
//! preview's summary with Approve and Reject.
//!
//! The address is for the person, never for the model: the server opens it in the
//! person's browser itself, and no tool result, log line or error carries it. Only a page
//! that asks for the PIN (something the model cannot know) is also offered to the MCP
//! client, through URL-mode elicitation, which the client shows to its user.
//!
//! The one-time id is not the preview id; it is dead once used or when the preview expires.
//! A POST needs the page's CSRF token and this origin in `Origin`, and every request this
//! origin in `Host`, so another web page in the person's browser (or one that rebinds a
//! DNS name to 127.0.0.1) cannot approve. Neither stops a program on this machine that
//! learns the address, which can send any header: the PIN, when set, is what the page asks
//! for that, and its wrong guesses count in the trading store with every other channel's.

use crate::trading::approval::constant_time_eq;
use crate::trading::approval::{self, ApprovalLinks, Channel, Decision, PageShown};
use crate::trading::approval_pin::{ApprovalPin, PinRefusal};
use crate::trading::store::{DecisionFor, PinPurpose, TradingStore};
use crate::trading::types::PreviewRecord;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jiff::Timestamp;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Wrong PINs a link survives; then it is dead (the count that locks the PIN is the
/// store's, across links and processes).
const PIN_ATTEMPTS: u8 = 3;
/// The form carries a token, a decision and perhaps a PIN.
const MAX_FORM_BYTES: usize = 4096;

/// Opens a URL in the person's browser.
pub type Opener = Box<dyn Fn(&str) -> std::io::Result<()> + Send + Sync>;

struct Link {
    preview_id: String,
    csrf: String,
    expires_at: Timestamp,
    wrong_pins: u8,
    /// When the server opened it in the person's browser.
    shown_at: Option<Timestamp>,
}

pub struct ApprovalPage {
    origin: String,
    /// `Host` as a browser sends it for `origin`.
    host: String,
    store: Arc<TradingStore>,
    environment: String,
    profile: String,
    pin: ApprovalPin,
    links: Mutex<HashMap<String, Link>>,
    opener: Opener,
}

impl ApprovalPage {
    /// The page, served at `origin` (`http://127.0.0.1:PORT`) by whoever mounts
    /// [`ApprovalPage::router`]: its own listener ([`ApprovalPage::bind`]) or the MCP HTTP
    /// listener beside `/mcp`. It opens links in the person's browser
    /// ([`crate::platform::open_in_browser`]).
    pub fn new(
        origin: String,
        store: Arc<TradingStore>,
        environment: &str,
        profile: &str,
        pin: ApprovalPin,
    ) -> Arc<ApprovalPage> {
        ApprovalPage::with_opener(
            origin,
            store,
            environment,
            profile,
            pin,
            Box::new(crate::platform::open_in_browser),
        )
    }

    pub fn with_opener(
        origin: String,
        store: Arc<TradingStore>,
        environment: &str,
        profile: &str,
        pin: ApprovalPin,
        opener: Opener,
    ) -> Arc<ApprovalPage> {
        let host = origin.trim_start_matches("http://").to_string();
        Arc::new(ApprovalPage {
            origin,
            host,
            store,
            environment: environment.to_string(),
            profile: profile.to_string(),
            pin,
            links: Mutex::new(HashMap::new()),
            opener,
        })
    }

    /// Bind the page's own loopback listener on a free port (before the async runtime
    /// starts; [`ApprovalPage::serve`] takes it over).
    pub fn bind(
        store: Arc<TradingStore>,
        environment: &str,
        profile: &str,
        pin: ApprovalPin,
    ) -> std::io::Result<(Arc<ApprovalPage>, std::net::TcpListener)> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let origin = format!("http://127.0.0.1:{port}");
        Ok((
            ApprovalPage::new(origin, store, environment, profile, pin),
            listener,
        ))
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The PIN the page asks for.
    pub fn pin(&self) -> &ApprovalPin {
        &self.pin
    }

    /// `/approve/{id}`: the page and its form's POST. Bodies are small forms.
    pub fn router(self: Arc<Self>) -> axum::Router {
        axum::Router::new()
            .route("/approve/{id}", axum::routing::get(show).post(decide))
            .layer(axum::extract::DefaultBodyLimit::max(MAX_FORM_BYTES))
            .with_state(self)
    }

    /// Serve on the page's own listener until `shutdown` fires.
    pub async fn serve(
        self: Arc<Self>,
        listener: std::net::TcpListener,
        shutdown: CancellationToken,
    ) {
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(l) => l,
            Err(e) => {
                tracing::error!(error = %e, "the approval page cannot listen");
                return;
            }
        };
        super::http::serve_connections(listener, self.router(), shutdown).await;
    }

    fn live_link(&self, id: &str) -> Option<(String, String)> {
        let now = Timestamp::now();
        let mut links = self.links.lock().ok()?;
        links.retain(|_, l| l.expires_at > now);
        links
            .get(id)
            .map(|l| (l.preview_id.clone(), l.csrf.clone()))
    }

    /// The preview's live link id, minted on first use.
    fn link_id(links: &mut HashMap<String, Link>, preview: &PreviewRecord) -> Option<String> {
        let existing = links
            .iter()
            .find(|(_, l)| l.preview_id == preview.preview_id)
            .map(|(id, _)| id.clone());
        if existing.is_some() {
            return existing;
        }
        let id = random_hex()?;
        links.insert(
            id.clone(),
            Link {
                preview_id: preview.preview_id.clone(),
                csrf: random_hex()?,
                expires_at: preview.expires_at,
                wrong_pins: 0,
                shown_at: None,
            },
        );
        Some(id)
    }

    fn url(&self, id: &str) -> String {
        format!("{}/approve/{id}", self.origin)
    }

    /// Whether `headers` name this page's own host: a page reached through another name
    /// (DNS rebinding) answers nothing.
    fn own_host(&self, headers: &HeaderMap) -> bool {
        headers.get(header::HOST).and_then(|h| h.to_str().ok()) == Some(self.host.as_str())
    }
}

impl ApprovalLinks for ApprovalPage {
    fn link_for_client(&self, preview: &PreviewRecord) -> Option<String> {
        // An address that travels over MCP may reach the model: only a page that also asks
        // for the PIN is offered there.
        if !self.pin.is_set() {
            return None;
        }
        let mut links = self.links.lock().ok()?;
        let id = ApprovalPage::link_id(&mut links, preview)?;
        Some(self.url(&id))
    }

    fn show_to_person(&self, preview: &PreviewRecord) -> PageShown {
        let Ok(mut links) = self.links.lock() else {
            return PageShown::Unavailable;
        };
        let Some(id) = ApprovalPage::link_id(&mut links, preview) else {
            return PageShown::Unavailable;
        };
        let Some(link) = links.get_mut(&id) else {
            return PageShown::Unavailable;
        };
        if let Some(at) = link.shown_at {
            return PageShown::AlreadyOpened { at };
        }
        match (self.opener)(&self.url(&id)) {
            Ok(()) => {
                let now = Timestamp::now();
                link.shown_at = Some(now);
                tracing::info!(preview = %preview.preview_id, "opened the approval page in the browser");
                PageShown::Opened
            }
            Err(e) => {
                // The address stays out of the log: the error says only why it failed.
                tracing::warn!(error = %e, "cannot open the approval page in a browser");
                PageShown::Unavailable
            }
        }
    }
}

fn random_hex() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>body{{font-family:sans-serif;max-width:40em;margin:2em auto}}pre{{white-space:pre-wrap;background:#f4f4f4;padding:1em}}button{{font-size:1.1em;margin-right:1em}}</style>\
         </head><body><h1>{title}</h1>{body}</body></html>",
        title = escape(title)
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_FRAME_OPTIONS, "DENY"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
            ),
        ],
        html,
    )
        .into_response()
}

fn gone() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "Link used or expired",
        "<p>This approval link was used or has expired. Ask the agent to call place_order again for a new one, or run <code>etrade approve --list</code>.</p>",
    )
}

/// The preview, and whether the PIN is asked for.
async fn load(p: &Arc<ApprovalPage>, preview_id: &str) -> Option<(PreviewRecord, bool)> {
    let page = p.clone();
    let id = preview_id.to_string();
    tokio::task::spawn_blocking(move || {
        let preview = page.store.preview(&id).ok()??;
        Some((preview, page.pin.is_set()))
    })
    .await
    .ok()?
}

fn wrong_host() -> Response {
    page(
        StatusCode::MISDIRECTED_REQUEST,
        "Wrong address",
        "<p>This page answers only at the address the server opened. Nothing was approved.</p>",
    )
}

async fn show(
    State(p): State<Arc<ApprovalPage>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    if !p.own_host(&headers) {
        return wrong_host();
    }
    let Some((preview_id, csrf)) = p.live_link(&id) else {
        return gone();
    };
    let Some((preview, pin_set)) = load(&p, &preview_id).await else {
        return gone();
    };
    if preview.used_at.is_some() || preview.approval.is_some() {
        return gone();
    }
    let pin = if pin_set {
        "<p><label>Approval PIN <input type=\"password\" name=\"pin\" autocomplete=\"off\"></label></p>"
    } else {
        ""
    };
    page(
        StatusCode::OK,
        "Approve this order?",
        &format!(
            "<pre>{summary}</pre>\
             <form method=\"post\" action=\"/approve/{id}\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">{pin}\
             <button type=\"submit\" name=\"decision\" value=\"approve\" id=\"approve\">Approve</button>\
             <button type=\"submit\" name=\"decision\" value=\"reject\" id=\"reject\">Reject</button>\
             </form>",
            summary = escape(&approval::summary(&preview)),
            id = escape(&id),
        ),
    )
}

async fn decide(
    State(p): State<Arc<ApprovalPage>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let forbidden = || {
        page(
            StatusCode::FORBIDDEN,
            "Refused",
            "<p>This request did not come from the approval page. Nothing was approved.</p>",
        )
    };
    if !p.own_host(&headers) {
        return wrong_host();
    }
    if headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) != Some(p.origin.as_str()) {
        return forbidden();
    }
    let Some((preview_id, csrf)) = p.live_link(&id) else {
        return gone();
    };
    let form = crate::etrade::oauth::parse_form(&String::from_utf8_lossy(&body));
    let field = |name: &str| {
        form.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if !constant_time_eq(field("csrf").unwrap_or(""), &csrf) {
        return forbidden();
    }
    let decision = match field("decision") {
        Some("approve") => Decision::Approved,
        Some("reject") => Decision::Rejected,
        _ => return forbidden(),
    };
    if decision == Decision::Approved {
        let page_state = p.clone();
        let given = field("pin").unwrap_or("").to_string();
        // The hash takes about a quarter of a second: off the async threads.
        let checked = tokio::task::spawn_blocking(move || {
            if !page_state.pin.is_set() {
                return Ok(());
            }
            page_state.pin.verify(&given, PinPurpose::ApprovePage)
        })
        .await
        .unwrap_or_else(|_| Err(PinRefusal::Unusable("the check failed".into())));
        if let Err(refusal) = checked {
            if matches!(refusal, PinRefusal::Wrong { .. })
                && let Ok(mut links) = p.links.lock()
                && let Some(link) = links.get_mut(&id)
            {
                link.wrong_pins += 1;
                if link.wrong_pins >= PIN_ATTEMPTS {
                    links.remove(&id);
                }
            }
            let title = match refusal {
                PinRefusal::Wrong { .. } => "Wrong PIN",
                PinRefusal::Locked { .. } => "PIN locked",
                PinRefusal::ClockBehind { .. } => "Clock behind",
                PinRefusal::Unusable(_) => "PIN unusable",
                PinRefusal::NotSet => "No PIN set",
            };
            return page(
                StatusCode::FORBIDDEN,
                title,
                &format!(
                    "<p>Nothing was approved: {}.</p>",
                    escape(&refusal.to_string())
                ),
            );
        }
    }
    // One use: the link dies whatever the outcome.
    if let Ok(mut links) = p.links.lock() {
        links.remove(&id);
    }
    let store = p.store.clone();
    let (env, profile) = (p.environment.clone(), p.profile.clone());
    let recorded = tokio::task::spawn_blocking(move || {
        store.record_decision(&DecisionFor {
            preview_id: &preview_id,
            environment: &env,
            profile: &profile,
            decision,
            channel: Channel::Page,
            now: Timestamp::now(),
        })
    })
    .await;
    match recorded {
        Ok(Ok(_)) if decision == Decision::Approved => page(
            StatusCode::OK,
            "Approved",
            "<p id=\"result\">Approved. The agent can place the order now; you can close this page.</p>",
        ),
        Ok(Ok(_)) => page(
            StatusCode::OK,
            "Rejected",
            "<p id=\"result\">Rejected. This order will not be placed.</p>",
        ),
        Ok(Err(e)) => page(
            StatusCode::CONFLICT,
            "Not recorded",
            &format!("<p>{}</p>", escape(&e.to_string())),
        ),
        Err(_) => page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Not recorded",
            "<p>The decision could not be recorded.</p>",
        ),
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn html_is_escaped() {
        assert_eq!(
            super::escape("<b>\"AT&T\"</b>'"),
            "&lt;b&gt;&quot;AT&amp;T&quot;&lt;/b&gt;&#39;"
        );
        assert!(super::constant_time_eq("abc", "abc"));
        assert!(!super::constant_time_eq("abc", "abd"));
        assert!(!super::constant_time_eq("abc", "ab"));
    }
}
