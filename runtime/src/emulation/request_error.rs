//! Why an order-entry body ([`super::order_request`], [`super::cancel_request`]) is refused:
//! each refusal is HTTP 400 with its [`RequestError::code`] and its text as the message.

use super::codes;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// [`codes::INVALID_ORDER_REQUEST`]: the body is not JSON, lacks its root object, or a
    /// member is missing or invalid (the detail says which).
    #[error("Invalid order request: {0}.")]
    Invalid(String),
    /// [`codes::INVALID_CLIENT_ORDER_ID`].
    #[error("{}", codes::INVALID_CLIENT_ORDER_ID_MESSAGE)]
    ClientOrderId,
    /// [`codes::EXTENDED_HOURS_LIMIT_ONLY`].
    #[error("{}", codes::EXTENDED_HOURS_LIMIT_ONLY_MESSAGE)]
    ExtendedHoursLimitOnly,
    /// [`codes::NOT_SUPPORTED`]: a valid E*TRADE order the paper account does not take.
    #[error(transparent)]
    NotSupported(#[from] Unsupported),
}

/// What the paper account does not offer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsupported {
    #[error("{}", codes::MUTUAL_FUNDS_NOT_SUPPORTED_MESSAGE)]
    MutualFunds,
    #[error("{}", codes::QUANTITY_TYPE_NOT_SUPPORTED_MESSAGE)]
    QuantityType,
    #[error("The price type {0} is not available for this order in the paper account.")]
    PriceType(String),
    #[error("{}", codes::GOOD_TILL_DATE_NOT_SUPPORTED_MESSAGE)]
    GoodTillDate,
}

impl RequestError {
    pub(super) fn invalid(detail: impl Into<String>) -> RequestError {
        RequestError::Invalid(detail.into())
    }

    /// The `Error.code` E*TRADE's envelope carries.
    pub fn code(&self) -> i64 {
        match self {
            RequestError::Invalid(_) => codes::INVALID_ORDER_REQUEST,
            RequestError::ClientOrderId => codes::INVALID_CLIENT_ORDER_ID,
            RequestError::ExtendedHoursLimitOnly => codes::EXTENDED_HOURS_LIMIT_ONLY,
            RequestError::NotSupported(_) => codes::NOT_SUPPORTED,
        }
    }
}
