//! The error taxonomy: fifteen stable codes, their categories and summary messages, and the
//! error object every failed tool result carries. The spec's error-code table must agree
//! with [`ErrorCode`]; a generated inventory test holds them together.

use crate::contract::validation::ValidationError;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidInput,
    ExecutionDisabled,
    ToolNotAvailable,
    AuthenticationRequired,
    AuthorizationExpired,
    AuthenticationFailed,
    CredentialCoordinationFailed,
    BrokerRejection,
    RateLimited,
    NotFound,
    ServiceUnavailable,
    InvalidBrokerResponse,
    TransportError,
    UncertainExecution,
    InternalError,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCategory {
    /// Invalid requests and policy refusals.
    Request,
    Credentials,
    /// Broker and transport failures.
    Broker,
    /// A mutation may or may not have happened.
    Uncertain,
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::InvalidInput,
        ErrorCode::ExecutionDisabled,
        ErrorCode::ToolNotAvailable,
        ErrorCode::AuthenticationRequired,
        ErrorCode::AuthorizationExpired,
        ErrorCode::AuthenticationFailed,
        ErrorCode::CredentialCoordinationFailed,
        ErrorCode::BrokerRejection,
        ErrorCode::RateLimited,
        ErrorCode::NotFound,
        ErrorCode::ServiceUnavailable,
        ErrorCode::InvalidBrokerResponse,
        ErrorCode::TransportError,
        ErrorCode::UncertainExecution,
        ErrorCode::InternalError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::ExecutionDisabled => "execution_disabled",
            ErrorCode::ToolNotAvailable => "tool_not_available",
            ErrorCode::AuthenticationRequired => "authentication_required",
            ErrorCode::AuthorizationExpired => "authorization_expired",
            ErrorCode::AuthenticationFailed => "authentication_failed",
            ErrorCode::CredentialCoordinationFailed => "credential_coordination_failed",
            ErrorCode::BrokerRejection => "broker_rejection",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::NotFound => "not_found",
            ErrorCode::ServiceUnavailable => "service_unavailable",
            ErrorCode::InvalidBrokerResponse => "invalid_broker_response",
            ErrorCode::TransportError => "transport_error",
            ErrorCode::UncertainExecution => "uncertain_execution",
            ErrorCode::InternalError => "internal_error",
        }
    }

    pub fn parse(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }

    pub fn category(self) -> ErrorCategory {
        use ErrorCode::*;
        match self {
            InvalidInput | ExecutionDisabled | ToolNotAvailable => ErrorCategory::Request,
            AuthenticationRequired
            | AuthorizationExpired
            | AuthenticationFailed
            | CredentialCoordinationFailed => ErrorCategory::Credentials,
            BrokerRejection
            | RateLimited
            | NotFound
            | ServiceUnavailable
            | InvalidBrokerResponse
            | TransportError => ErrorCategory::Broker,
            UncertainExecution => ErrorCategory::Uncertain,
            InternalError => ErrorCategory::Internal,
        }
    }

    /// The stable summary message. Hosts may match on it; it never carries request data.
    pub fn summary(self) -> &'static str {
        use ErrorCode::*;
        match self {
            InvalidInput => "Tool arguments are invalid.",
            ExecutionDisabled => {
                "Execution is disabled by the server's startup permissions or policy."
            }
            ToolNotAvailable => "This tool is not available in the configured environment.",
            AuthenticationRequired => {
                "Run etrade auth login for the configured environment/profile."
            }
            AuthorizationExpired => {
                "The E*TRADE authorization expired. Run etrade auth login for the configured environment/profile."
            }
            AuthenticationFailed => {
                "E*TRADE rejected the credentials. Run etrade auth login for the configured environment/profile."
            }
            CredentialCoordinationFailed => {
                "The credential store is busy or changed concurrently. Try again shortly."
            }
            BrokerRejection => "Broker rejection.",
            RateLimited => "The broker rate limit was reached.",
            NotFound => "The requested item was not found.",
            ServiceUnavailable => "The broker service is unavailable.",
            InvalidBrokerResponse => "The broker returned a response that could not be understood.",
            TransportError => "The broker could not be reached.",
            UncertainExecution => {
                "The outcome of this order or alert change is unknown. Reconcile before doing anything else."
            }
            InternalError => "Internal server error.",
        }
    }
}

impl ErrorCategory {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCategory::Request => "request",
            ErrorCategory::Credentials => "credentials",
            ErrorCategory::Broker => "broker",
            ErrorCategory::Uncertain => "uncertain",
            ErrorCategory::Internal => "internal",
        }
    }
}

/// Which alerts a partially failed `delete_alerts` did and did not delete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AlertDeletionResult {
    pub deleted: Vec<i64>,
    pub failed: Vec<i64>,
}

/// The error object of a failed tool result. Always serializes all eight keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    pub status_code: Option<u16>,
    pub broker_code: Option<String>,
    pub broker_message: Option<String>,
    pub request_id: Option<String>,
    pub validation_errors: Vec<ValidationError>,
    pub alert_deletion_result: Option<AlertDeletionResult>,
}

/// How an order waiting for a person's approval is announced (see
/// [`ToolError::awaiting_approval`]).
pub const AWAITING_APPROVAL: &str = "Not placed yet: a person is being asked to approve this order. Do not preview it again or place another order meanwhile.";

impl ToolError {
    /// An error with the code's summary message and nothing else.
    pub fn new(code: ErrorCode) -> Self {
        ToolError {
            code,
            message: code.summary().to_string(),
            status_code: None,
            broker_code: None,
            broker_message: None,
            request_id: None,
            validation_errors: Vec::new(),
            alert_deletion_result: None,
        }
    }

    /// `invalid_input` with its diagnostics (already limited by the validator).
    pub fn invalid_input(validation_errors: Vec<ValidationError>) -> Self {
        ToolError {
            validation_errors,
            ..ToolError::new(ErrorCode::InvalidInput)
        }
    }

    /// `execution_disabled` naming what refused, e.g. the missing startup flag.
    pub fn execution_disabled(reason: &str) -> Self {
        ToolError {
            message: format!("{} {reason}", ErrorCode::ExecutionDisabled.summary()),
            ..ToolError::new(ErrorCode::ExecutionDisabled)
        }
    }

    /// `execution_disabled` for an order that waits for a person's approval. It is still
    /// `execution_disabled` (the contract's code for "not executed because of policy"), but
    /// it does not begin with that code's summary: "Execution is disabled" reads as "give
    /// up", and here the model should wait for the person and then try again.
    pub fn awaiting_approval(what_to_do: &str) -> Self {
        ToolError {
            message: format!("{AWAITING_APPROVAL} {what_to_do}"),
            ..ToolError::new(ErrorCode::ExecutionDisabled)
        }
    }

    /// `tool_not_available` saying why.
    pub fn tool_not_available(reason: &str) -> Self {
        ToolError {
            message: format!("{} {reason}", ErrorCode::ToolNotAvailable.summary()),
            ..ToolError::new(ErrorCode::ToolNotAvailable)
        }
    }

    /// `not_found` saying what.
    pub fn not_found(reason: &str) -> Self {
        ToolError {
            message: format!("{} {reason}", ErrorCode::NotFound.summary()),
            ..ToolError::new(ErrorCode::NotFound)
        }
    }

    pub fn internal() -> Self {
        ToolError::new(ErrorCode::InternalError)
    }
}
