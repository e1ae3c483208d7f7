//! What went wrong talking to a library service, named by what the caller can do. Messages name
//! the method and path, never the query string, the API key or the upstream body.

/// One error class of the library adapters.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A transport or status failure of one request (`GET /api/v3/queue`: ...).
    #[error("{method} {path}: {source}")]
    Http {
        method: &'static str,
        path: String,
        #[source]
        source: httpx::Error,
    },
    /// A paged read that came back short: never answered as a shorter list.
    #[error(
        "{what} could not be read completely: the service reported {total} records but answered {read}"
    )]
    Incomplete {
        what: &'static str,
        total: u64,
        read: u64,
    },
    /// The title the caller named is not known to the service (its lookup found nothing).
    #[error("{0}")]
    NotFound(String),
    /// The service cannot do this for that kind of title (a season search on Radarr, say).
    #[error("{0}")]
    Unsupported(String),
    /// The instance's own config cannot make a client (no url, no key).
    #[error("{0}")]
    Config(String),
}

impl Error {
    /// The instance did not answer at all (down, refused, timed out).
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            Error::Http {
                source: httpx::Error::Unreachable { .. } | httpx::Error::Timeout,
                ..
            }
        )
    }

    /// The instance refused the API key.
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
