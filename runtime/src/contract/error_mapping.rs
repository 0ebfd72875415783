//! Maps broker, transport and credential failures to the error object of a tool result, once
//! for every tool.
//!
//! | Condition                                        | Read / Preview                 | Mutation                       |
//! |--------------------------------------------------|--------------------------------|--------------------------------|
//! | HTTP 401 with `oauth_problem=token_expired` | `authorization_expired` | `authorization_expired` |
//! | HTTP 401 with `token_rejected`, `consumer_key_rejected`, `signature_invalid`, "Invalid access token", or anything else | `authentication_failed` | `authentication_failed` |
//! | HTTP 403                                         | `broker_rejection`             | `broker_rejection`             |
//! | HTTP 404                                         | `not_found`                    | `not_found`                    |
//! | HTTP 408                                         | `transport_error`              | `uncertain_execution`          |
//! | HTTP 429                                         | `rate_limited`                 | `rate_limited`                 |
//! | HTTP 400 with E*TRADE's HTML rate-limit page     | `rate_limited`                 | `rate_limited`                 |
//! | HTTP 400 and any other 4xx                       | `broker_rejection`             | `broker_rejection`             |
//! | HTTP 5xx                                         | `service_unavailable`          | `uncertain_execution`          |
//! | HTTP status outside 400–599                      | `invalid_broker_response`      | `uncertain_execution`          |
//! | Transport: connect (nothing was sent)            | `transport_error`              | `transport_error`              |
//! | Transport: TLS, timeout, reset, body read        | `transport_error`              | `uncertain_execution`          |
//! | Malformed response                               | `invalid_broker_response`      | `uncertain_execution`          |
//! | Cancelled                                        | `internal_error`               | `uncertain_execution`          |
//! | Credentials missing                              | `authentication_required`      | `authentication_required`      |
//! | Token expired (known locally)                    | `authorization_expired`        | `authorization_expired`        |
//! | Token rejected (renewal refused)                 | `authentication_failed`        | `authentication_failed`        |
//! | Store unavailable, lock timeout, concurrent change | `credential_coordination_failed` | `credential_coordination_failed` |
//!
//! Every HTTP-derived error carries `status_code` and the sanitized `broker_code`,
//! `broker_message` and `request_id` (see [`crate::contract::broker_message`]); other errors carry none.
//! Broker text never selects the code. Two structural signals the client recognizes in the
//! body are consulted: E*TRADE's `oauth_problem`, only on a 401, where it merely chooses
//! between two credential codes; and E*TRADE's rate-limit page — an HTML document (never a
//! JSON or XML `Error`) whose text is the sentence E*TRADE documents for it — only on a 400,
//! where E*TRADE documents it and says the request was not processed. A JSON or XML error
//! saying the same words stays a `broker_rejection`, and a 500 saying "Unauthorized request"
//! stays a server error.
//!
//! A 200 answer that gives nothing asked for and says why in its messages (a quote answer
//! with no quote) is `broker_rejection` with the first message's code and every message's
//! text, without a `status_code` ([`answer_refusal`]).
//!
//! Callers handle E*TRADE's "empty list" signals before mapping: 204 for empty accounts,
//! orders, transactions and portfolios, and 404 code 53 for an empty alert inbox, are results,
//! not failures.

use crate::contract::errors::{ErrorCode, ToolError};
use crate::etrade::answers::AnswerRefusal;
use crate::etrade::broker_message::{self, KnownSecrets, RawBrokerCode};
pub use crate::etrade::failure::{
    BrokerError, BrokerErrorBody, BrokerFailure, OauthProblem, Operation, TransportFailure,
};

/// Why a mutation's outcome is unknown; becomes the second sentence of the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Uncertainty {
    ServerError,
    ConnectionLost,
    UnreadableResponse,
    Cancelled,
}

impl Uncertainty {
    fn explanation(self) -> &'static str {
        match self {
            Uncertainty::ServerError => {
                "The broker reported a server error after receiving the request, so it may have been applied."
            }
            Uncertainty::ConnectionLost => {
                "The connection failed after the request may have reached the broker."
            }
            Uncertainty::UnreadableResponse => {
                "The broker's response could not be understood, so the request may have been applied."
            }
            Uncertainty::Cancelled => {
                "The call was cancelled after the request may have reached the broker."
            }
        }
    }
}

const RECONCILE: &str = "List orders (or alerts) to reconcile before retrying.";

/// The mapping decision: the code, and for `uncertain_execution` why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Code(ErrorCode),
    Uncertain(Uncertainty),
}

impl Outcome {
    fn code(self) -> ErrorCode {
        match self {
            Outcome::Code(code) => code,
            Outcome::Uncertain(_) => ErrorCode::UncertainExecution,
        }
    }
}

/// The error code a failure maps to; [`to_tool_error`] without the detail fields.
pub fn classify(failure: &BrokerFailure, op: Operation) -> ErrorCode {
    outcome(failure, op).code()
}

/// The error object for a failed broker call. Only `to_tool_error` turns broker failures
/// into tool errors, so every tool reports the same condition the same way.
pub fn to_tool_error(failure: &BrokerFailure, op: Operation, secrets: &KnownSecrets) -> ToolError {
    let mut error = match outcome(failure, op) {
        Outcome::Code(code) => ToolError::new(code),
        Outcome::Uncertain(why) => ToolError {
            message: format!(
                "{} {} {RECONCILE}",
                ErrorCode::UncertainExecution.summary(),
                why.explanation()
            ),
            ..ToolError::new(ErrorCode::UncertainExecution)
        },
    };
    if let BrokerFailure::NotOffered { why } | BrokerFailure::Internal { why: Some(why) } = failure
    {
        error.message = format!("{} {why}", error.message);
    }
    if let BrokerFailure::Http { status, body } = failure {
        error.status_code = Some(*status);
        error.broker_code =
            broker_message::broker_code(body.code.as_deref().map(RawBrokerCode::Text))
                // A numeric verifier could equal a code; the contract excludes known secrets.
                .filter(|code| !secrets.exposes(code));
        error.broker_message = broker_message::sanitize(body.message.as_deref(), secrets);
        error.request_id = broker_message::request_id(body.request_id.as_deref(), secrets);
    }
    error
}

fn outcome(failure: &BrokerFailure, op: Operation) -> Outcome {
    let mutation = op == Operation::Mutation;
    let unless_mutation = |code: ErrorCode, why: Uncertainty| {
        if mutation {
            Outcome::Uncertain(why)
        } else {
            Outcome::Code(code)
        }
    };
    match failure {
        BrokerFailure::Http { status, body } => match *status {
            // OAuth is checked before E*TRADE acts on a request, so a 401 is definite even for
            // a mutation.
            // Only an expired token is fixed by the daily login alone; a rejected token, a
            // rejected consumer key or a bad signature means the credentials themselves are
            // wrong (the server renews inactive tokens before calling, so an idle token does
            // not end up here).
            401 => match body.oauth_signal() {
                Some(OauthProblem::TokenExpired) => Outcome::Code(ErrorCode::AuthorizationExpired),
                Some(OauthProblem::TokenRejected | OauthProblem::Other) | None => {
                    Outcome::Code(ErrorCode::AuthenticationFailed)
                }
            },
            // E*TRADE reports OAuth failures only as 401, and its documented permission
            // refusals ("User does not have access on this account", "Unauthorized access to
            // this API is restricted") as 400 errors. A 403 is therefore a refusal of this
            // particular request, which logging in again would not fix.
            403 => Outcome::Code(ErrorCode::BrokerRejection),
            404 => Outcome::Code(ErrorCode::NotFound),
            // The server gave up waiting for the request, which is a timeout; an intermediary
            // may have sent it, so a mutation is treated like any other timeout.
            408 => unless_mutation(ErrorCode::TransportError, Uncertainty::ConnectionLost),
            // Rate limiting happens before the request is processed: E*TRADE documents that
            // requests over the limit "are not processed", answered by its HTML page as a 400.
            429 => Outcome::Code(ErrorCode::RateLimited),
            400 if body.rate_limit_page => Outcome::Code(ErrorCode::RateLimited),
            400..=499 => Outcome::Code(ErrorCode::BrokerRejection),
            // A server error can come after the order was accepted (E*TRADE sends sporadic
            // 500s under load), so for a mutation it says nothing about the outcome.
            500..=599 => unless_mutation(ErrorCode::ServiceUnavailable, Uncertainty::ServerError),
            _ => unless_mutation(
                ErrorCode::InvalidBrokerResponse,
                Uncertainty::UnreadableResponse,
            ),
        },
        // A connect failure means no request byte left this machine, so even a mutation
        // provably did not happen; every later failure may follow a received request.
        BrokerFailure::Transport(transport) if transport.request_may_have_been_sent() => {
            unless_mutation(ErrorCode::TransportError, Uncertainty::ConnectionLost)
        }
        BrokerFailure::Transport(_) => Outcome::Code(ErrorCode::TransportError),
        BrokerFailure::Malformed => unless_mutation(
            ErrorCode::InvalidBrokerResponse,
            Uncertainty::UnreadableResponse,
        ),
        // A cancelled call normally produces no tool result (the SDK drops the response). If
        // one is produced anyway, a read was not failed by the broker or the network, so it is
        // an internal matter; a mutation may already be at the broker.
        BrokerFailure::Cancelled => {
            unless_mutation(ErrorCode::InternalError, Uncertainty::Cancelled)
        }
        // Credential problems are found before a request is sent (a 401 is reported as
        // `Http`), so none of them leaves a mutation uncertain.
        BrokerFailure::CredentialsMissing => Outcome::Code(ErrorCode::AuthenticationRequired),
        BrokerFailure::TokenExpired => Outcome::Code(ErrorCode::AuthorizationExpired),
        BrokerFailure::TokenRejected => Outcome::Code(ErrorCode::AuthenticationFailed),
        BrokerFailure::StoreUnavailable
        | BrokerFailure::LockTimeout
        | BrokerFailure::ConcurrentChange => Outcome::Code(ErrorCode::CredentialCoordinationFailed),
        BrokerFailure::NotOffered { .. } => Outcome::Code(ErrorCode::ToolNotAvailable),
        BrokerFailure::Internal { .. } => Outcome::Code(ErrorCode::InternalError),
    }
}

/// The error of a successful answer that refused the whole request
/// ([`crate::etrade::answers::BrokerAnswer::refusal`]): `broker_rejection` with the
/// broker's code and text, and no status code (the HTTP answer itself was a 200).
pub fn answer_refusal(refusal: &AnswerRefusal) -> ToolError {
    let secrets = KnownSecrets::default();
    ToolError {
        broker_code: broker_message::broker_code(refusal.code.as_deref().map(RawBrokerCode::Text)),
        broker_message: broker_message::sanitize(refusal.message.as_deref(), &secrets),
        ..ToolError::new(ErrorCode::BrokerRejection)
    }
}

/// The one way a failure crosses from the broker seam into a tool result.
impl From<BrokerError> for ToolError {
    fn from(e: BrokerError) -> ToolError {
        to_tool_error(&e.failure, e.operation, &e.secrets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ErrorCode::*;
    use Operation::*;
    use std::collections::HashSet;

    const OPS: [Operation; 3] = [Read, Preview, Mutation];

    fn http(status: u16, message: Option<&str>) -> BrokerFailure {
        BrokerFailure::Http {
            status,
            body: BrokerErrorBody::new(None, message),
        }
    }

    /// (condition, code for Read, Preview, Mutation)
    fn table() -> Vec<(&'static str, BrokerFailure, [ErrorCode; 3])> {
        let same = |code| [code, code, code];
        let uncertain_on_mutation = |code| [code, code, UncertainExecution];
        let mut rows = vec![
            (
                "401 token_expired",
                http(401, Some("oauth_problem=token_expired")),
                same(AuthorizationExpired),
            ),
            (
                "401 token_rejected",
                http(401, Some("oauth_problem=token_rejected")),
                same(AuthenticationFailed),
            ),
            (
                "401 invalid access token",
                http(401, Some("Invalid access token used")),
                same(AuthenticationFailed),
            ),
            (
                "401 structured signal from an HTML body",
                BrokerFailure::Http {
                    status: 401,
                    body: BrokerErrorBody {
                        oauth_problem: Some(OauthProblem::TokenExpired),
                        ..BrokerErrorBody::default()
                    },
                },
                same(AuthorizationExpired),
            ),
            (
                "401 consumer key rejected",
                http(401, Some("oauth_problem=consumer_key_rejected")),
                same(AuthenticationFailed),
            ),
            ("401 no body", http(401, None), same(AuthenticationFailed)),
            ("403", http(403, Some("Forbidden")), same(BrokerRejection)),
            ("404", http(404, Some("Not found")), same(NotFound)),
            (
                "408",
                http(408, None),
                uncertain_on_mutation(TransportError),
            ),
            ("429", http(429, None), same(RateLimited)),
            (
                "400 rate-limit page",
                BrokerFailure::Http {
                    status: 400,
                    body: BrokerErrorBody {
                        rate_limit_page: true,
                        ..BrokerErrorBody::new(None, Some("Number of requests exceeded"))
                    },
                },
                same(RateLimited),
            ),
            (
                "other 4xx with a rate-limit page is not E*TRADE's documented answer",
                BrokerFailure::Http {
                    status: 403,
                    body: BrokerErrorBody {
                        rate_limit_page: true,
                        ..BrokerErrorBody::default()
                    },
                },
                same(BrokerRejection),
            ),
            (
                "600",
                http(600, None),
                uncertain_on_mutation(InvalidBrokerResponse),
            ),
            (
                "200 reported as failure",
                http(200, None),
                uncertain_on_mutation(InvalidBrokerResponse),
            ),
            (
                "302",
                http(302, None),
                uncertain_on_mutation(InvalidBrokerResponse),
            ),
            (
                "transport connect",
                BrokerFailure::Transport(TransportFailure::Connect),
                same(TransportError),
            ),
            (
                "malformed",
                BrokerFailure::Malformed,
                uncertain_on_mutation(InvalidBrokerResponse),
            ),
            (
                "cancelled",
                BrokerFailure::Cancelled,
                uncertain_on_mutation(InternalError),
            ),
            (
                "credentials missing",
                BrokerFailure::CredentialsMissing,
                same(AuthenticationRequired),
            ),
            (
                "token expired",
                BrokerFailure::TokenExpired,
                same(AuthorizationExpired),
            ),
            (
                "token rejected",
                BrokerFailure::TokenRejected,
                same(AuthenticationFailed),
            ),
            (
                "store unavailable",
                BrokerFailure::StoreUnavailable,
                same(CredentialCoordinationFailed),
            ),
            (
                "lock timeout",
                BrokerFailure::LockTimeout,
                same(CredentialCoordinationFailed),
            ),
            (
                "concurrent change",
                BrokerFailure::ConcurrentChange,
                same(CredentialCoordinationFailed),
            ),
            (
                "not offered by this broker",
                BrokerFailure::NotOffered {
                    why: "Use another.",
                },
                same(ToolNotAvailable),
            ),
            (
                "internal",
                BrokerFailure::Internal { why: None },
                same(InternalError),
            ),
        ];
        for status in [400, 402, 405, 409, 410, 413, 415, 422, 499] {
            rows.push(("other 4xx", http(status, Some("x")), same(BrokerRejection)));
        }
        for status in [500, 501, 502, 503, 504, 599] {
            rows.push((
                "5xx",
                http(status, Some("x")),
                uncertain_on_mutation(ServiceUnavailable),
            ));
        }
        for transport in [
            TransportFailure::Tls,
            TransportFailure::Timeout,
            TransportFailure::ConnectionReset,
            TransportFailure::BodyRead,
        ] {
            rows.push((
                "transport after connect",
                BrokerFailure::Transport(transport),
                uncertain_on_mutation(TransportError),
            ));
        }
        rows
    }

    #[test]
    fn mapping_table() {
        let secrets = KnownSecrets::default();
        for (name, failure, expected) in table() {
            for (op, code) in OPS.into_iter().zip(expected) {
                assert_eq!(classify(&failure, op), code, "{name} ({failure}) as {op:?}");
                let error = to_tool_error(&failure, op, &secrets);
                assert_eq!(error.code, code, "{name} as {op:?}");
                assert!(
                    error.message.starts_with(code.summary()),
                    "{name} as {op:?}"
                );
                assert!(error.validation_errors.is_empty());
                assert_eq!(error.alert_deletion_result, None);
            }
        }
    }

    #[test]
    fn preview_is_never_uncertain() {
        for (name, failure, _) in table() {
            assert_ne!(classify(&failure, Preview), UncertainExecution, "{name}");
            assert_ne!(classify(&failure, Read), UncertainExecution, "{name}");
        }
    }

    /// A broker's fixed explanation follows the code's summary; the seam's error converts
    /// through the same mapping with the secrets it carries.
    #[test]
    fn the_seam_error_maps_once_with_its_explanation_and_secrets() {
        let e = ToolError::from(BrokerError::new(
            BrokerFailure::NotOffered {
                why: "Use --environment sandbox.",
            },
            Read,
        ));
        assert_eq!(e.code, ToolNotAvailable);
        assert!(
            e.message.ends_with("Use --environment sandbox."),
            "{}",
            e.message
        );
        let secret = "Zq9xVb7KsecretValue";
        let refusal = BrokerError::new(http(400, Some(&format!("bad token {secret}"))), Mutation)
            .with_secrets(&KnownSecrets::new([secret]));
        let e = ToolError::from(refusal);
        assert_eq!(e.code, BrokerRejection);
        assert!(!format!("{e:?}").contains(secret));
    }

    #[test]
    fn every_broker_reachable_code_is_reachable() {
        let reached: HashSet<ErrorCode> = table()
            .iter()
            .flat_map(|(_, failure, _)| OPS.map(|op| classify(failure, op)))
            .collect();
        let local_only = [
            InvalidInput,
            ExecutionDisabled,
            ToolNotAvailable,
            InternalError,
        ];
        for code in ErrorCode::ALL {
            if !local_only.contains(&code) {
                assert!(reached.contains(&code), "{} is unreachable", code.as_str());
            }
        }
        // tool_not_available also comes from a broker that does not offer a request (paper
        // has no alerts); input and policy refusals never come from a broker.
        for code in [InvalidInput, ExecutionDisabled] {
            assert!(
                !reached.contains(&code),
                "{} comes from policy",
                code.as_str()
            );
        }
    }

    #[test]
    fn broker_text_never_changes_the_code() {
        let texts = [
            "please retry the order",
            "order placed successfully",
            "Your order was successfully entered during market hours.",
            "Number of requests exceeded the rate limit set",
            "Unauthorized request - invalid Consumer key and/or session token",
            "HTTP 503 Service Unavailable",
            "oauth_problem=token_expired",
            "Invalid access token used",
        ];
        let statuses = [200, 400, 403, 404, 408, 409, 429, 500, 502, 503, 504, 600];
        for status in statuses {
            for op in OPS {
                let baseline = classify(&http(status, None), op);
                for text in texts {
                    let failure = BrokerFailure::Http {
                        status,
                        body: BrokerErrorBody {
                            code: Some("1026".into()),
                            message: Some(text.into()),
                            request_id: Some("req-1".into()),
                            oauth_problem: OauthProblem::detect(text),
                            rate_limit_page: false,
                        },
                    };
                    assert_eq!(classify(&failure, op), baseline, "{status} {op:?} {text:?}");
                }
            }
        }
        // On a 401 only the structured token signal matters.
        for op in OPS {
            for text in &texts[..6] {
                assert_eq!(
                    classify(&http(401, Some(text)), op),
                    AuthenticationFailed,
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn broker_rejection_carries_sanitized_details() {
        let secrets = KnownSecrets::new(["Zq9xVb7K"]);
        let failure = BrokerFailure::Http {
            status: 400,
            body: BrokerErrorBody {
                request_id: Some(" abc-123 ".into()),
                ..BrokerErrorBody::new(
                    Some(51016u64.into()),
                    Some("Quantity cannot be changed\nfor Buy Write/Spread Orders."),
                )
            },
        };
        let error = to_tool_error(&failure, Preview, &secrets);
        let expected = ToolError {
            status_code: Some(400),
            broker_code: Some("51016".into()),
            broker_message: Some("Quantity cannot be changed for Buy Write/Spread Orders.".into()),
            request_id: Some("abc-123".into()),
            ..ToolError::new(BrokerRejection)
        };
        assert_eq!(error, expected);
        assert_eq!(error.message, "Broker rejection.");
    }

    #[test]
    fn secrets_never_reach_the_error() {
        let secret = "Zq9xVb7K";
        let secrets = KnownSecrets::new([secret, "12345"]);
        let failure = BrokerFailure::Http {
            status: 401,
            body: BrokerErrorBody {
                code: Some("12345".into()),
                message: Some(format!("oauth_problem=token_rejected&oauth_token={secret}")),
                request_id: Some(format!("id-{secret}")),
                oauth_problem: None,
                rate_limit_page: false,
            },
        };
        let error = to_tool_error(&failure, Read, &secrets);
        assert_eq!(error.code, AuthenticationFailed);
        assert_eq!(error.status_code, Some(401));
        assert_eq!(error.broker_code, None);
        assert_eq!(error.broker_message, None);
        assert_eq!(error.request_id, None);
        let json = serde_json::to_string(&error).expect("serializes");
        assert!(!json.contains(secret));
    }

    #[test]
    fn non_numeric_codes_are_dropped() {
        let failure = BrokerFailure::Http {
            status: 400,
            body: BrokerErrorBody::new(
                Some("{com.etrade.api.v1.order.InvalidPreviewId}".into()),
                Some("Invalid Preview Id"),
            ),
        };
        let error = to_tool_error(&failure, Mutation, &KnownSecrets::default());
        assert_eq!(error.code, BrokerRejection);
        assert_eq!(error.broker_code, None);
        assert_eq!(error.broker_message.as_deref(), Some("Invalid Preview Id"));
    }

    #[test]
    fn uncertain_messages_start_with_the_summary_and_say_what_to_do() {
        let secrets = KnownSecrets::default();
        let failures = [
            http(500, Some("order placed successfully")),
            http(408, None),
            http(204, None),
            BrokerFailure::Transport(TransportFailure::Timeout),
            BrokerFailure::Malformed,
            BrokerFailure::Cancelled,
        ];
        let mut messages = HashSet::new();
        for failure in failures {
            let error = to_tool_error(&failure, Mutation, &secrets);
            assert_eq!(error.code, UncertainExecution, "{failure}");
            assert!(error.message.starts_with(UncertainExecution.summary()));
            assert!(error.message.ends_with(RECONCILE));
            assert!(!error.message.contains("successfully"));
            messages.insert(error.message);
        }
        assert_eq!(messages.len(), 4, "one explanation per kind of uncertainty");
    }

    #[test]
    fn uncertain_server_error_keeps_broker_details() {
        let failure = BrokerFailure::Http {
            status: 500,
            body: BrokerErrorBody::new(
                Some(100u64.into()),
                Some(
                    "The requested service is not currently available, please try after sometime.",
                ),
            ),
        };
        let error = to_tool_error(&failure, Mutation, &KnownSecrets::default());
        assert_eq!(error.code, UncertainExecution);
        assert_eq!(error.status_code, Some(500));
        assert_eq!(error.broker_code.as_deref(), Some("100"));
        assert!(error.broker_message.is_some());
    }

    #[test]
    fn non_http_errors_carry_no_broker_fields() {
        let secrets = KnownSecrets::default();
        for failure in [
            BrokerFailure::Transport(TransportFailure::Connect),
            BrokerFailure::Malformed,
            BrokerFailure::CredentialsMissing,
            BrokerFailure::LockTimeout,
        ] {
            for op in OPS {
                let error = to_tool_error(&failure, op, &secrets);
                assert_eq!(error.status_code, None);
                assert_eq!(error.broker_code, None);
                assert_eq!(error.broker_message, None);
                assert_eq!(error.request_id, None);
            }
        }
    }

    #[test]
    fn oauth_problem_detection() {
        let cases = [
            (
                "oauth_problem=token_expired",
                Some(OauthProblem::TokenExpired),
            ),
            (
                "HTTP Status 401 - oauth_problem=token_rejected",
                Some(OauthProblem::TokenRejected),
            ),
            (
                "oauth_problem=timestamp_refused,oauth_acceptable_timestamps=1-2",
                Some(OauthProblem::Other),
            ),
            ("oauth_problem=token_expiredish", Some(OauthProblem::Other)),
            (
                "Invalid Access Token used",
                Some(OauthProblem::TokenRejected),
            ),
            ("token_expired", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(OauthProblem::detect(text), expected, "{text:?}");
        }
    }

    #[test]
    fn formatting_hides_broker_text() {
        let failure = http(400, Some("secret-ish broker text"));
        assert_eq!(failure.to_string(), "the broker answered HTTP 400");
        let debug = format!("{failure:?}");
        assert!(!debug.contains("broker text"), "{debug}");
        assert!(debug.contains("has_message: true"));
    }
}
