//! `PUT /v1/accounts/{key}/orders/cancel` with `{"CancelOrderRequest":{"orderId":N}}`: an
//! OPEN (or partially filled) order becomes CANCELLED at once (E*TRADE may pass through
//! CANCEL_REQUESTED first; the fake does not). Any other status → 400 code 5001; an order
//! id the account does not have → 400 (invented code).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use runtime::emulation::answers::order_entry::cancel_response;
use runtime::emulation::cancel_request::cancel_order_id;
use runtime::emulation::entry_rules::{self, EntryBook};
use runtime::emulation::order_request::json_body;

use crate::api::order_request::refusal;
use crate::api::orders::account;
use crate::responses::{entry_refusal, ok_json};
use crate::state::Shared;

/// `PUT /v1/accounts/{key}/orders/cancel`
pub(crate) async fn cancel(
    State(s): State<Arc<Shared>>,
    Path(key): Path<String>,
    body: Bytes,
) -> Response {
    let acct = match account(&s, &key) {
        Ok(a) => a,
        Err(r) => return r,
    };
    let id = match json_body(&body).and_then(|v| cancel_order_id(&v)) {
        Ok(id) => id,
        Err(e) => return refusal(&e),
    };
    let now_ms = s.now().as_millisecond();
    {
        let mut inner = s.lock();
        let book = inner.book();
        let status = book.account_order(&key, id).map(|(status, _)| status);
        if let Err(refusal) = entry_rules::check_cancel(status) {
            return entry_refusal(refusal);
        }
        book.cancel(&key, id, now_ms);
    }
    ok_json(&cancel_response(&acct.id, id, now_ms))
}
