//! The one error type of this crate, named by what the caller can do about it.

use std::fmt;

/// What went wrong talking to a download client. Messages are lowercase, name the thing,
/// and never carry a password, a session cookie or a tracker passkey.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// Nothing answered: connection refused, DNS failure, reset. The request never reached the client.
    #[error("cannot reach the download client: {detail}")]
    Unreachable { detail: String },
    /// The client accepted the connection but did not answer in time.
    #[error("the download client did not answer in time")]
    Timeout,
    /// Wrong credentials, or a session that could not be renewed.
    #[error("the download client refused the credentials: {detail}")]
    Unauthorized { detail: String },
    /// The thing asked for does not exist on the client (a torrent, an endpoint).
    #[error("not found: {what}")]
    NotFound { what: String },
    /// The client understood the request and said no (unknown category, invalid torrent file, duplicate).
    #[error("the download client refused the request: {detail}")]
    Refused { detail: String },
    /// The client locked itself after too many failed sign-ins and refuses everyone, the right
    /// password included, until it is restarted (Transmission) or its ban lapses (qBittorrent).
    #[error(
        "the download client locked itself after too many failed sign-ins (it said: {detail}); restart the daemon (or wait until its ban lapses), then check the instance's password in marquee.toml"
    )]
    LockedOut { detail: String },
    /// The client asked us to slow down.
    #[error("the download client is rate limiting requests")]
    RateLimited,
    /// Any other unexpected HTTP status.
    #[error("the download client answered HTTP {status}: {detail}")]
    Upstream { status: u16, detail: String },
    /// The answer could not be read: not JSON, wrong shape, garbage.
    #[error("the download client answered something unreadable: {detail}")]
    Decode { detail: String },
    /// An argument this adapter refuses before sending anything.
    #[error("{detail}")]
    Invalid { detail: String },
}

/// The class of an [`Error`], small and `Copy`, for reports and for matching.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, strum::Display, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ErrorClass {
    Unreachable,
    Timeout,
    Unauthorized,
    NotFound,
    Refused,
    LockedOut,
    RateLimited,
    Upstream,
    Decode,
    Invalid,
}

impl ErrorClass {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl Error {
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Unreachable { .. } => ErrorClass::Unreachable,
            Error::Timeout => ErrorClass::Timeout,
            Error::Unauthorized { .. } => ErrorClass::Unauthorized,
            Error::NotFound { .. } => ErrorClass::NotFound,
            Error::Refused { .. } => ErrorClass::Refused,
            Error::LockedOut { .. } => ErrorClass::LockedOut,
            Error::RateLimited => ErrorClass::RateLimited,
            Error::Upstream { .. } => ErrorClass::Upstream,
            Error::Decode { .. } => ErrorClass::Decode,
            Error::Invalid { .. } => ErrorClass::Invalid,
        }
    }

    pub(crate) fn decode(what: &str, e: impl fmt::Display) -> Error {
        Error::Decode {
            detail: httpx::redact(&format!("{what}: {e}")),
        }
    }

    pub(crate) fn invalid(detail: impl Into<String>) -> Error {
        Error::Invalid {
            detail: detail.into(),
        }
    }

    pub(crate) fn refused(body: &str) -> Error {
        Error::Refused {
            detail: trimmed(body),
        }
    }

    /// Classifies a transport error from reqwest.
    pub(crate) fn transport(e: &httpx::reqwest::Error) -> Error {
        Error::from(httpx::Error::from_reqwest(e))
    }

    /// Classifies a non-success status with its (trimmed, redacted) body.
    pub(crate) fn status(status: u16, body: &str) -> Error {
        match status {
            400 | 409 | 415 => Error::refused(body),
            404 => {
                let what = trimmed(body);
                let what = if what.is_empty() || what == "Not Found" {
                    "the requested resource".into()
                } else {
                    what
                };
                Error::NotFound { what }
            }
            _ => Error::from(httpx::Error::from_status(status, body)),
        }
    }
}

fn trimmed(body: &str) -> String {
    let t: String = body.trim().chars().take(200).collect();
    httpx::redact(&t)
}

impl From<httpx::Error> for Error {
    fn from(e: httpx::Error) -> Error {
        match e {
            httpx::Error::Unreachable { detail } => Error::Unreachable { detail },
            httpx::Error::Timeout => Error::Timeout,
            httpx::Error::Unauthorized { status } => Error::Unauthorized {
                detail: format!("HTTP {status}"),
            },
            httpx::Error::NotFound => Error::NotFound {
                what: "the requested resource".into(),
            },
            httpx::Error::Conflict { detail } => Error::Refused { detail },
            httpx::Error::RateLimited { .. } => Error::RateLimited,
            httpx::Error::Upstream { status, detail } => Error::Upstream { status, detail },
            httpx::Error::Decode { detail } => Error::Decode { detail },
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
