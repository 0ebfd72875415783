//! Every `{"Error":{"code","message"}}` value and text the emulators answer with, and the
//! codes of the broker messages inside successful answers.
//!
//! E*TRADE documents few of its codes. Those marked *E\*TRADE* were seen in E*TRADE's
//! answers or documentation; those marked *invented* have no known E*TRADE counterpart and
//! exist so a refusal is still specific. Unless a code says otherwise it comes with HTTP 400
//! and E*TRADE's error envelope.

/// *Invented*: a query parameter has an invalid value. Message: [`invalid_parameter`].
pub const INVALID_PARAMETER: i64 = 1;

/// The message of [`INVALID_PARAMETER`].
pub fn invalid_parameter(name: &str) -> String {
    format!("Invalid value for the parameter {name}.")
}

/// *E\*TRADE*: the account key is not one of the user's.
pub const ACCOUNT_KEY: i64 = 100;
pub const ACCOUNT_KEY_MESSAGE: &str = "Account key does not belong to user.";
/// *E\*TRADE*, with HTTP 500: a request E*TRADE gives up on (a `count` above the most a list
/// serves).
pub const REQUEST_NOT_COMPLETED: i64 = 100;
pub const REQUEST_NOT_COMPLETED_MESSAGE: &str = "Request could not be completed.";

/// *E\*TRADE*: place with an unknown, used, expired, other-account or mismatched preview, or
/// a missing or misshapen `PreviewIds` member.
pub const PREVIEW_TIMED_OUT: i64 = 101;
pub const PREVIEW_TIMED_OUT_MESSAGE: &str = "For your protection, we have timed out your original order request. If you would like to place this order, please resubmit it now.";

/// *E\*TRADE* (alert details): an alert id that is not a positive integer.
pub const BAD_ALERT_ID: i64 = 499;

/// *E\*TRADE*: a symbol the market does not know.
pub const INVALID_SYMBOL: i64 = 1019;
pub const INVALID_SYMBOL_MESSAGE: &str = "Invalid symbol.";

/// *E\*TRADE* (at preview): a debit estimated above the account's buying power.
pub const INSUFFICIENT_FUNDS: i64 = 1021;
pub const INSUFFICIENT_FUNDS_MESSAGE: &str =
    "We cannot accept this order because there are insufficient funds in your account.";

/// *E\*TRADE*, with HTTP 200: the WARNING message of a successful place.
pub const PLACED: i64 = 1026;
pub const PLACED_MESSAGE: &str = "200|Your order was successfully entered during market hours.";
/// The [`PLACED`] text of an order placed while its session is closed (*invented* text).
pub const PLACED_OUTSIDE_MESSAGE: &str = "200|Your order was successfully entered. The market is closed; it will be worked in its next trading session.";

/// *E\*TRADE*: selling more than the account holds (less what open sell orders already use).
pub const NOT_ENOUGH_SHARES: i64 = 1037;
pub const NOT_ENOUGH_SHARES_MESSAGE: &str = "We did not find enough available shares of this security in your account. Shares that are reserved by other open sell orders cannot be sold again.";

/// *E\*TRADE*: cancel of an order that is not open (executed, cancelled, rejected, ...).
pub const NOT_CANCELLABLE: i64 = 5001;
pub const NOT_CANCELLABLE_MESSAGE: &str =
    "This order is currently being executed or rejected. It cannot be cancelled.";

/// *E\*TRADE* (the documentation's sample, unverified), with HTTP 200: the WARNING message
/// of a successful cancel.
pub const CANCEL_REQUESTED: i64 = 5011;
pub const CANCEL_REQUESTED_MESSAGE: &str =
    "200|Your request to cancel your order is being processed.";

/// *E\*TRADE*: a balance request whose `instType` is not `BROKERAGE`.
pub const INVALID_INSTITUTION_TYPE: i64 = 7002;
pub const INVALID_INSTITUTION_TYPE_MESSAGE: &str = "Invalid institution type.";

/// *Invented*: the body is not JSON, lacks its root object, or a member is missing or
/// invalid. Message: `Invalid order request: {detail}.`
pub const INVALID_ORDER_REQUEST: i64 = 9001;
/// *Invented*: `clientOrderId` is not 1 to 20 ASCII letters and digits.
pub const INVALID_CLIENT_ORDER_ID: i64 = 9002;
pub const INVALID_CLIENT_ORDER_ID_MESSAGE: &str =
    "The client order id must be 1 to 20 letters and digits.";
/// *Invented*: the `clientOrderId` was already placed in this account.
pub const DUPLICATE_CLIENT_ORDER_ID: i64 = 9003;
pub const DUPLICATE_CLIENT_ORDER_ID_MESSAGE: &str = "Duplicate client order id.";
/// *Invented*: cancel or change of an order id that this account does not have.
pub const ORDER_NOT_FOUND: i64 = 9004;
pub const ORDER_NOT_FOUND_MESSAGE: &str = "The order you requested was not found.";
/// *Invented*: change preview or place of an order that is no longer OPEN.
pub const NOT_CHANGEABLE: i64 = 9005;
pub const NOT_CHANGEABLE_MESSAGE: &str =
    "This order cannot be changed because it is no longer open.";
/// *Invented*: a change that alters the order type, a leg's instrument or action, or the
/// number of legs.
pub const CHANGE_NOT_ALLOWED: i64 = 9006;
pub const CHANGE_NOT_ALLOWED_MESSAGE: &str = "The order type, symbols and order actions of an order cannot be changed; cancel it and place a new order.";
/// *Invented*: an EXTENDED-session order that is not a LIMIT order.
pub const EXTENDED_HOURS_LIMIT_ONLY: i64 = 9007;
pub const EXTENDED_HOURS_LIMIT_ONLY_MESSAGE: &str =
    "Only limit orders can be placed for the extended hours session.";
/// *Invented*: a short sale in a cash account.
pub const SHORT_IN_CASH_ACCOUNT: i64 = 9008;
pub const SHORT_IN_CASH_ACCOUNT_MESSAGE: &str =
    "Short sales are not permitted in a cash account. A margin account is required to sell short.";
/// *Invented*: an option contract the market does not list.
pub const OPTION_NOT_FOUND: i64 = 9009;
pub const OPTION_NOT_FOUND_MESSAGE: &str = "The option contract you entered is not available for trading. Please check the expiration date, strike price and call/put type.";
/// *Invented*: writing options (sell to open) in a cash account.
pub const UNCOVERED_IN_CASH_ACCOUNT: i64 = 9010;
pub const UNCOVERED_IN_CASH_ACCOUNT_MESSAGE: &str = "Selling options to open is not permitted in a cash account except as a covered call (buy-write).";
/// *Invented*: buy to cover or buy to close more than the short position.
pub const NO_SHORT_POSITION: i64 = 9011;
pub const NO_SHORT_POSITION_MESSAGE: &str = "We did not find a short position large enough to cover in your account (other open orders may already cover it).";
/// *Invented*: selling short a security held long in the same account.
pub const SHORT_WHILE_LONG: i64 = 9012;
pub const SHORT_WHILE_LONG_MESSAGE: &str =
    "You hold this security long in this account; sell the long position before selling short.";
/// *Invented*: something E*TRADE offers that the paper account does not.
pub const NOT_SUPPORTED: i64 = 9013;
pub const MUTUAL_FUNDS_NOT_SUPPORTED_MESSAGE: &str =
    "Mutual fund orders are not available in the paper account.";
pub const QUANTITY_TYPE_NOT_SUPPORTED_MESSAGE: &str =
    "Only orders by quantity are available in the paper account.";
pub const GOOD_TILL_DATE_NOT_SUPPORTED_MESSAGE: &str =
    "GOOD_TILL_DATE orders are not available in the paper account.";
/// *Invented*: moving the paper book's simulated time backwards (or beyond its range).
pub const TIME_BACKWARDS: i64 = 9014;
pub const TIME_BACKWARDS_MESSAGE: &str = "Simulated time can only move forward.";
pub const TIME_TOO_FAR_MESSAGE: &str = "Simulated time cannot move that far.";

/// *Invented* code and text: the broker WARNING every preview carries in
/// `Order[0].messages`, so tests can check messages are passed through unchanged.
pub const PREVIEW_WARNING: i64 = 9020;
pub const PREVIEW_WARNING_MESSAGE: &str = "The estimated commission and total amount may differ from the actual amounts when your order executes.";
