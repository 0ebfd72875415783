//! What the book answers with when it does not answer: [`PaperError`] (E*TRADE's refusal,
//! its empty answer, a book another process holds, or a store failure). The codes and texts
//! of the refusals are [`crate::emulation::codes`].

use crate::emulation::query_params::ParamError;
use crate::emulation::{EntryRefusal, RequestError, codes};
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

impl From<RequestError> for PaperError {
    fn from(err: RequestError) -> PaperError {
        PaperError::rejected(err.code(), &err.to_string())
    }
}

impl From<EntryRefusal> for PaperError {
    fn from(refusal: EntryRefusal) -> PaperError {
        PaperError::rejected(refusal.code(), &refusal.to_string())
    }
}

impl From<ParamError> for PaperError {
    fn from(err: ParamError) -> PaperError {
        PaperError::Rejected {
            status: err.status(),
            code: err.code(),
            message: err.to_string(),
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
}
