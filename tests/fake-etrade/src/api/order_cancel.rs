//! `PUT /v1/accounts/{key}/orders/cancel` with `{"CancelOrderRequest":{"orderId":N}}`: an
//! OPEN (or partially filled) order becomes CANCELLED at once (E*TRADE may pass through
//! CANCEL_REQUESTED first; the fake does not). Any other status → 400 code 5001; an order
//! id the account does not have → 400 (invented code).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use runtime::emulation::OrderStatus;
use runtime::emulation::answers::order_entry::cancel_response;
use runtime::emulation::cancel_request::cancel_order_id;
use runtime::emulation::entry_rules::{self, EntryRefusal};
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
        let order = inner.book().get_mut(id).filter(|o| o.account_id == acct.id);
        let status = order.as_ref().and_then(|o| OrderStatus::parse(&o.status));
        if let Err(refusal) = entry_rules::check_cancel(status) {
            return entry_refusal(refusal);
        }
        let Some(o) = order else {
            return entry_refusal(EntryRefusal::OrderNotFound);
        };
        o.status = OrderStatus::Cancelled.as_str().into();
        o.cancel_time = Some(now_ms);
    }
    ok_json(&cancel_response(&acct.id, id, now_ms))
}
