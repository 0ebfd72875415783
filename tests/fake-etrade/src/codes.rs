//! The `{"Error":{"code"}}` values and message texts the order and alert mutations answer.
//! Codes marked *invented* have no known E*TRADE counterpart (E*TRADE's are undocumented);
//! they all come with HTTP 400 and E*TRADE's error envelope.

/// 400: the account key is not one of the user's (E*TRADE).
pub const ACCOUNT_KEY: i64 = 100;
/// 400: place with an unknown, used, expired, other-account or mismatched preview, or a
/// missing/misnamed `PreviewIds` wrapper (E*TRADE).
pub const PREVIEW_TIMED_OUT: i64 = 101;
pub const PREVIEW_TIMED_OUT_MESSAGE: &str = "For your protection, we have timed out your original order request. If you would like to place this order, please resubmit it now.";
/// 400: a buy estimated above the account's cash buying power (E*TRADE, at preview).
pub const INSUFFICIENT_FUNDS: i64 = 1021;
pub const INSUFFICIENT_FUNDS_MESSAGE: &str =
    "We cannot accept this order because there are insufficient funds in your account.";
/// 400: cancel of an order that is not open (executed, cancelled, rejected, ...) (E*TRADE).
pub const NOT_CANCELLABLE: i64 = 5001;
pub const NOT_CANCELLABLE_MESSAGE: &str =
    "This order is currently being executed or rejected. It cannot be cancelled.";
/// 200: the WARNING message of a successful place (E*TRADE).
pub const PLACED: i64 = 1026;
pub const PLACED_MESSAGE: &str = "200|Your order was successfully entered during market hours.";
/// 200: the WARNING message of a successful cancel (E*TRADE docs' sample, unverified).
pub const CANCEL_REQUESTED: i64 = 5011;
pub const CANCEL_REQUESTED_MESSAGE: &str =
    "200|Your request to cancel your order is being processed.";
/// 400: an alert id that is not a positive integer (E*TRADE, alert details).
pub const BAD_ALERT_ID: i64 = 499;

/// The broker WARNING every preview carries in `Order[0].messages` (*invented* text and
/// code), so tests can check messages are passed through unchanged.
pub const PREVIEW_WARNING: i64 = 9020;
pub const PREVIEW_WARNING_MESSAGE: &str = "The estimated commission and total amount may differ from the actual amounts when your order executes.";

/// 400 (*invented*): the body is not JSON, lacks its root object, or a member is missing or
/// invalid. Message: `Invalid order request: {detail}.`
pub const INVALID_ORDER_REQUEST: i64 = 9001;
/// 400 (*invented*): `clientOrderId` is not 1 to 20 ASCII letters and digits.
pub const INVALID_CLIENT_ORDER_ID: i64 = 9002;
pub const INVALID_CLIENT_ORDER_ID_MESSAGE: &str =
    "The client order id must be 1 to 20 letters and digits.";
/// 400 (*invented*): the `clientOrderId` was already placed in this account.
pub const DUPLICATE_CLIENT_ORDER_ID: i64 = 9003;
pub const DUPLICATE_CLIENT_ORDER_ID_MESSAGE: &str = "Duplicate client order id.";
/// 400 (*invented*): cancel or change of an order id that this account does not have.
pub const ORDER_NOT_FOUND: i64 = 9004;
pub const ORDER_NOT_FOUND_MESSAGE: &str = "The order you requested was not found.";
/// 400 (*invented*): change preview/place of an order that is no longer OPEN.
pub const NOT_CHANGEABLE: i64 = 9005;
pub const NOT_CHANGEABLE_MESSAGE: &str =
    "This order cannot be changed because it is no longer open.";
/// 400 (*invented*): a change that alters the order type, a leg's symbol, security type,
/// option terms or action, or the number of legs.
pub const CHANGE_NOT_ALLOWED: i64 = 9006;
pub const CHANGE_NOT_ALLOWED_MESSAGE: &str = "The order type, symbols and order actions of an order cannot be changed; cancel it and place a new order.";
/// 400 (*invented*): an EXTENDED-session order that is not a LIMIT order.
pub const EXTENDED_HOURS_LIMIT_ONLY: i64 = 9007;
pub const EXTENDED_HOURS_LIMIT_ONLY_MESSAGE: &str =
    "Only limit orders can be placed for the extended hours session.";
