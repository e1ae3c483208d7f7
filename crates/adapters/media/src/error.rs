//! What went wrong talking to a media server, named by what the caller can do. Messages name
//! the method and path only: never the query string, a token or the upstream body.

/// One error class of the media-server adapter.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A transport or status failure of one request (`GET /Items`: ...).
    #[error("{method} {path}: {source}")]
    Http {
        method: &'static str,
        path: String,
        #[source]
        source: httpx::Error,
    },
    /// A paged read that came back short: never answered as a shorter list.
    #[error(
        "{what} could not be read completely: the server reported {total} items but answered {read}"
    )]
    Incomplete {
        what: &'static str,
        total: u64,
        read: u64,
    },
    /// The server has no user of that name (or, for Plex, no token is configured for one).
    #[error("{0}")]
    UnknownUser(String),
    /// The instance's own config cannot make a client (no url, no token).
    #[error("{0}")]
    Config(String),
    /// What was asked for is not what it should be (an id that is no id, a collection that is
    /// gone or is another kind of item, an answer without the id it promised).
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// The server did not answer at all (down, refused, timed out).
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            Error::Http {
                source: httpx::Error::Unreachable { .. } | httpx::Error::Timeout,
                ..
            }
        )
    }

    /// The server has no such item (any more).
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            Error::Http {
                source: httpx::Error::NotFound,
                ..
            }
        )
    }

    /// The server refused the token.
    pub fn is_unauthorized(&self) -> bool {
        matches!(
            self,
            Error::Http {
                source: httpx::Error::Unauthorized { .. },
                ..
            }
        )
    }
}
