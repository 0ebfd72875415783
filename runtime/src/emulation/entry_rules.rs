//! The order-entry rules that depend on the orders already in the book: which preview a
//! place may use, which order a change or cancel may name, and which orders a repeated
//! `clientOrderId` is allowed for. Both emulators run them over their own book through
//! [`EntryBook`]: paper's durable ledger and the fake's in-memory one.

use jiff::{SignedDuration, Timestamp};

use super::codes;
use super::order_request::OrderRequest;
use super::order_status::OrderStatus;

/// A preview, place, change or cancel refused by the state of the book (HTTP 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EntryRefusal {
    /// [`codes::PREVIEW_TIMED_OUT`]: the place names no fresh, matching preview.
    #[error("{}", codes::PREVIEW_TIMED_OUT_MESSAGE)]
    PreviewTimedOut,
    /// [`codes::ORDER_NOT_FOUND`].
    #[error("{}", codes::ORDER_NOT_FOUND_MESSAGE)]
    OrderNotFound,
    /// [`codes::NOT_CHANGEABLE`].
    #[error("{}", codes::NOT_CHANGEABLE_MESSAGE)]
    NotChangeable,
    /// [`codes::CHANGE_NOT_ALLOWED`].
    #[error("{}", codes::CHANGE_NOT_ALLOWED_MESSAGE)]
    ChangeNotAllowed,
    /// [`codes::DUPLICATE_CLIENT_ORDER_ID`].
    #[error("{}", codes::DUPLICATE_CLIENT_ORDER_ID_MESSAGE)]
    DuplicateClientOrderId,
    /// [`codes::NOT_CANCELLABLE`].
    #[error("{}", codes::NOT_CANCELLABLE_MESSAGE)]
    NotCancellable,
    /// [`codes::INSUFFICIENT_FUNDS`].
    #[error("{}", codes::INSUFFICIENT_FUNDS_MESSAGE)]
    InsufficientFunds,
}

impl EntryRefusal {
    /// The `Error.code` E*TRADE's envelope carries.
    pub fn code(self) -> i64 {
        match self {
            EntryRefusal::PreviewTimedOut => codes::PREVIEW_TIMED_OUT,
            EntryRefusal::OrderNotFound => codes::ORDER_NOT_FOUND,
            EntryRefusal::NotChangeable => codes::NOT_CHANGEABLE,
            EntryRefusal::ChangeNotAllowed => codes::CHANGE_NOT_ALLOWED,
            EntryRefusal::DuplicateClientOrderId => codes::DUPLICATE_CLIENT_ORDER_ID,
            EntryRefusal::NotCancellable => codes::NOT_CANCELLABLE,
            EntryRefusal::InsufficientFunds => codes::INSUFFICIENT_FUNDS,
        }
    }
}

/// A stored preview, as place checks it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredPreview<'a, S> {
    pub account_key: &'a str,
    /// For a change preview: the order it changes.
    pub change_of: Option<i64>,
    /// What place must send again (a book chooses how strictly it compares).
    pub sent: &'a S,
    pub created_at: Timestamp,
    pub used: bool,
}

/// What the entry rules read from an emulator's book.
pub trait EntryBook {
    /// What a preview stored of its request, for place to compare.
    type Sent: PartialEq;
    fn stored_preview(&self, preview_id: i64) -> Option<StoredPreview<'_, Self::Sent>>;
    /// The account's order `order_id`: its status and what was ordered.
    fn account_order(
        &self,
        account_key: &str,
        order_id: i64,
    ) -> Option<(OrderStatus, &OrderRequest)>;
    /// The order `order_id` replaced, if it was placed by a change.
    fn replaces(&self, order_id: i64) -> Option<i64>;
    /// Whether an order of this account, other than those in `except`, was placed with
    /// `client_order_id`.
    fn client_order_id_used(
        &self,
        account_key: &str,
        client_order_id: &str,
        except: &[i64],
    ) -> bool;
}

/// A place (or change place) as sent.
#[derive(Debug, Clone, Copy)]
pub struct PlaceAttempt<'a, S> {
    pub account_key: &'a str,
    /// The `previewId` the body names.
    pub preview_id: Option<i64>,
    pub change_of: Option<i64>,
    pub request: &'a OrderRequest,
    pub sent: &'a S,
    pub now: Timestamp,
    /// How long a preview can be placed.
    pub preview_ttl: SignedDuration,
}

/// A preview (or change preview) of `request`: a change must name a changeable order.
pub fn check_preview<B: EntryBook>(
    book: &B,
    account_key: &str,
    change_of: Option<i64>,
    request: &OrderRequest,
) -> Result<(), EntryRefusal> {
    match change_of {
        Some(id) => check_change(book.account_order(account_key, id), request),
        None => Ok(()),
    }
}

/// A place: it names an unused preview of this account, of the same kind (plain, or a change
/// of this very order) and request, young enough; a change still names a changeable order;
/// and the `clientOrderId` is new to the account (a change may keep its lineage's). Gives
/// the preview's id.
pub fn check_place<B: EntryBook>(
    book: &B,
    place: &PlaceAttempt<'_, B::Sent>,
) -> Result<i64, EntryRefusal> {
    let preview_id = place.preview_id.ok_or(EntryRefusal::PreviewTimedOut)?;
    let fresh = book.stored_preview(preview_id).is_some_and(|p| {
        !p.used
            && p.account_key == place.account_key
            && p.change_of == place.change_of
            && p.sent == place.sent
            && place.now.duration_since(p.created_at) <= place.preview_ttl
    });
    if !fresh {
        return Err(EntryRefusal::PreviewTimedOut);
    }
    check_preview(book, place.account_key, place.change_of, place.request)?;
    let except = place
        .change_of
        .map(|id| lineage(id, |o| book.replaces(o)))
        .unwrap_or_default();
    if book.client_order_id_used(place.account_key, &place.request.client_order_id, &except) {
        return Err(EntryRefusal::DuplicateClientOrderId);
    }
    Ok(preview_id)
}

/// A change of `old` (its status and request; None when the account has no such order)
/// into `new`: only an OPEN order, keeping its order type, instruments and actions.
pub fn check_change(
    old: Option<(OrderStatus, &OrderRequest)>,
    new: &OrderRequest,
) -> Result<(), EntryRefusal> {
    let Some((status, old)) = old else {
        return Err(EntryRefusal::OrderNotFound);
    };
    if status != OrderStatus::Open {
        return Err(EntryRefusal::NotChangeable);
    }
    if !new.keeps_shape_of(old) {
        return Err(EntryRefusal::ChangeNotAllowed);
    }
    Ok(())
}

/// A cancel of an order with this status (None when the account has no such order): only a
/// working one.
pub fn check_cancel(status: Option<OrderStatus>) -> Result<(), EntryRefusal> {
    match status {
        None => Err(EntryRefusal::OrderNotFound),
        Some(s) if s.is_open() => Ok(()),
        Some(_) => Err(EntryRefusal::NotCancellable),
    }
}

/// The ids of this order and of every order it (transitively) replaced, by `replaces`
/// (the order an order replaced). A change may keep the `clientOrderId` of these.
pub fn lineage(order_id: i64, replaces: impl Fn(i64) -> Option<i64>) -> Vec<i64> {
    let mut ids = vec![order_id];
    let mut current = replaces(order_id);
    while let Some(id) = current {
        if ids.contains(&id) {
            break;
        }
        ids.push(id);
        current = replaces(id);
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulation::order_request::{OrderRoot, OrderScope, parse};

    fn request(symbol: &str, order_type: &str) -> Option<OrderRequest> {
        let body = serde_json::json!({"PreviewOrderRequest": {"orderType": order_type,
            "clientOrderId": "c1", "Order": {"priceType": "MARKET",
                "orderTerm": "GOOD_FOR_DAY", "marketSession": "REGULAR",
                "Instrument": {"Product": {"securityType": "EQ", "symbol": symbol},
                    "orderAction": "BUY", "quantityType": "QUANTITY", "quantity": 1}}}});
        parse(&body, OrderRoot::Preview, OrderScope::Etrade)
            .ok()
            .map(|p| p.request)
    }

    #[test]
    fn only_an_open_order_changes_and_keeps_its_shape() {
        let (Some(aapl), Some(ibm)) = (request("AAPL", "EQ"), request("IBM", "EQ")) else {
            panic!("requests");
        };
        let open = Some((OrderStatus::Open, &aapl));
        assert_eq!(check_change(open, &aapl), Ok(()));
        assert_eq!(
            check_change(open, &ibm),
            Err(EntryRefusal::ChangeNotAllowed)
        );
        let done = Some((OrderStatus::Executed, &aapl));
        assert_eq!(check_change(done, &aapl), Err(EntryRefusal::NotChangeable));
        assert_eq!(check_change(None, &aapl), Err(EntryRefusal::OrderNotFound));
    }

    #[test]
    fn only_a_working_order_cancels() {
        assert_eq!(check_cancel(Some(OrderStatus::IndividualFills)), Ok(()));
        assert_eq!(
            check_cancel(Some(OrderStatus::Cancelled)),
            Err(EntryRefusal::NotCancellable)
        );
        assert_eq!(check_cancel(None), Err(EntryRefusal::OrderNotFound));
        assert_eq!(EntryRefusal::NotCancellable.code(), codes::NOT_CANCELLABLE);
    }

    #[test]
    fn lineage_follows_replacements_and_stops_at_a_cycle() {
        let replaces = |id| match id {
            3 => Some(2),
            2 => Some(1),
            1 => Some(3),
            _ => None,
        };
        assert_eq!(lineage(3, replaces), [3, 2, 1]);
        assert_eq!(lineage(9, replaces), [9]);
    }
}
