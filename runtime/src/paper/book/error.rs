//! What the book answers with when it does not answer: [`PaperError`] (E*TRADE's refusal,
//! its empty answer, a book another process holds, or a store failure) and the E*TRADE
//! error codes and texts.

/// The `{"Error":{"code"}}` values and texts the paper broker answers with. Codes marked
/// *invented* have no known E*TRADE counterpart; they match the fake E*TRADE server's.
pub mod codes {
    /// 400 (invented): a query parameter has an invalid value.
    pub const INVALID_PARAMETER: i64 = 1;
    pub const ACCOUNT_KEY: i64 = 100;
    pub const ACCOUNT_KEY_MESSAGE: &str = "Account key does not belong to user.";
    pub const PREVIEW_TIMED_OUT: i64 = 101;
    pub const PREVIEW_TIMED_OUT_MESSAGE: &str = "For your protection, we have timed out your original order request. If you would like to place this order, please resubmit it now.";
    pub const INVALID_SYMBOL: i64 = 1019;
    pub const INVALID_SYMBOL_MESSAGE: &str = "Invalid symbol.";
    pub const INSUFFICIENT_FUNDS: i64 = 1021;
    pub const INSUFFICIENT_FUNDS_MESSAGE: &str =
        "We cannot accept this order because there are insufficient funds in your account.";
    pub const PLACED: i64 = 1026;
    pub const PLACED_MESSAGE: &str = "200|Your order was successfully entered during market hours.";
    pub const PLACED_OUTSIDE_MESSAGE: &str = "200|Your order was successfully entered. The market is closed; it will be worked in its next trading session.";
    /// 400: selling more than the account holds (less what open sell orders already use).
    pub const NOT_ENOUGH_SHARES: i64 = 1037;
    pub const NOT_ENOUGH_SHARES_MESSAGE: &str = "We did not find enough available shares of this security in your account. Shares that are reserved by other open sell orders cannot be sold again.";
    pub const NOT_CANCELLABLE: i64 = 5001;
    pub const NOT_CANCELLABLE_MESSAGE: &str =
        "This order is currently being executed or rejected. It cannot be cancelled.";
    pub const CANCEL_REQUESTED: i64 = 5011;
    pub const CANCEL_REQUESTED_MESSAGE: &str =
        "200|Your request to cancel your order is being processed.";
    pub const INVALID_INSTITUTION_TYPE: i64 = 7002;
    pub const INVALID_ORDER_REQUEST: i64 = 9001;
    pub const INVALID_CLIENT_ORDER_ID: i64 = 9002;
    pub const INVALID_CLIENT_ORDER_ID_MESSAGE: &str =
        "The client order id must be 1 to 20 letters and digits.";
    pub const DUPLICATE_CLIENT_ORDER_ID: i64 = 9003;
    pub const DUPLICATE_CLIENT_ORDER_ID_MESSAGE: &str = "Duplicate client order id.";
    pub const ORDER_NOT_FOUND: i64 = 9004;
    pub const ORDER_NOT_FOUND_MESSAGE: &str = "The order you requested was not found.";
    pub const NOT_CHANGEABLE: i64 = 9005;
    pub const NOT_CHANGEABLE_MESSAGE: &str =
        "This order cannot be changed because it is no longer open.";
    pub const CHANGE_NOT_ALLOWED: i64 = 9006;
    pub const CHANGE_NOT_ALLOWED_MESSAGE: &str = "The order type, symbols and order actions of an order cannot be changed; cancel it and place a new order.";
    pub const EXTENDED_HOURS_LIMIT_ONLY: i64 = 9007;
    pub const EXTENDED_HOURS_LIMIT_ONLY_MESSAGE: &str =
        "Only limit orders can be placed for the extended hours session.";
    /// 400 (invented): a short sale in a cash account.
    pub const SHORT_IN_CASH_ACCOUNT: i64 = 9008;
    pub const SHORT_IN_CASH_ACCOUNT_MESSAGE: &str = "Short sales are not permitted in a cash account. A margin account is required to sell short.";
    /// 400 (invented): an option contract the market does not list.
    pub const OPTION_NOT_FOUND: i64 = 9009;
    pub const OPTION_NOT_FOUND_MESSAGE: &str = "The option contract you entered is not available for trading. Please check the expiration date, strike price and call/put type.";
    /// 400 (invented): writing options (sell to open) in a cash account.
    pub const UNCOVERED_IN_CASH_ACCOUNT: i64 = 9010;
    pub const UNCOVERED_IN_CASH_ACCOUNT_MESSAGE: &str = "Selling options to open is not permitted in a cash account except as a covered call (buy-write).";
    /// 400 (invented): buy to cover / buy to close more than the short position.
    pub const NO_SHORT_POSITION: i64 = 9011;
    pub const NO_SHORT_POSITION_MESSAGE: &str = "We did not find a short position large enough to cover in your account (other open orders may already cover it).";
    /// 400 (invented): selling short a security held long in the same account.
    pub const SHORT_WHILE_LONG: i64 = 9012;
    pub const SHORT_WHILE_LONG_MESSAGE: &str =
        "You hold this security long in this account; sell the long position before selling short.";
    /// 400 (invented): something E*TRADE offers that the paper account does not.
    pub const NOT_SUPPORTED: i64 = 9013;
    /// 400 (invented): `advance` with a negative duration.
    pub const TIME_BACKWARDS: i64 = 9014;
}

use crate::store_lease::LeaseError;

#[derive(Debug, thiserror::Error)]
pub enum PaperError {
    /// E*TRADE would answer with this HTTP status and Error{code,message}.
    #[error("{message}")]
    Rejected {
        status: u16,
        code: i64,
        message: String,
    },
    /// 204-style empty answer (no records).
    #[error("no content")]
    Empty,
    /// Another etrade process kept the book's file open past the lock timeout.
    #[error("another etrade process is using the paper book")]
    Busy,
    #[error("paper store: {0}")]
    Store(String),
}

impl From<LeaseError> for PaperError {
    fn from(err: LeaseError) -> PaperError {
        match err {
            LeaseError::Busy => PaperError::Busy,
            LeaseError::Open(text) => PaperError::Store(text),
        }
    }
}

impl PaperError {
    /// A 400 refusal.
    pub(crate) fn rejected(code: i64, message: &str) -> PaperError {
        PaperError::Rejected {
            status: 400,
            code,
            message: message.to_string(),
        }
    }

    pub(crate) fn unknown_account() -> PaperError {
        PaperError::rejected(codes::ACCOUNT_KEY, codes::ACCOUNT_KEY_MESSAGE)
    }

    pub(super) fn timed_out() -> PaperError {
        PaperError::rejected(codes::PREVIEW_TIMED_OUT, codes::PREVIEW_TIMED_OUT_MESSAGE)
    }
}
