//! The one error type of the catalogue adapters, named by what the caller can do about it.

use domain::MediaSource;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading a catalogue. Messages are lowercase, name the thing, and never carry a secret.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The catalogue cannot answer this question at all; `supported_by` names the sources that can.
    #[error(
        "{what} is not supported by the {catalogue} catalogue; {}",
        supported_sentence(supported_by)
    )]
    Unsupported {
        what: String,
        catalogue: MediaSource,
        supported_by: Vec<MediaSource>,
    },
    /// A name (genre, provider, keyword, company, certification, region) the catalogue does not know.
    /// `options` holds the valid values, or close matches when the full list is long or unknown.
    #[error("unknown {what} \"{given}\"; {}", options_sentence(options, *close_matches))]
    UnknownName {
        what: &'static str,
        given: String,
        options: Vec<String>,
        close_matches: bool,
    },
    /// The id is of the right source but no title carries it.
    #[error("no {what} {id} in the {catalogue} catalogue")]
    NotFound {
        what: &'static str,
        id: String,
        catalogue: MediaSource,
    },
    /// An argument that can never be answered as given (an empty query, an inverted range).
    #[error("invalid {what}: {detail}")]
    InvalidArgument { what: &'static str, detail: String },
    /// The backend failed; `error` says how (unreachable, unauthorized, rate limited, ...).
    #[error("{service}: {error}")]
    Backend {
        service: &'static str,
        #[source]
        error: httpx::Error,
    },
}

impl Error {
    pub(crate) fn unsupported(
        what: impl Into<String>,
        catalogue: MediaSource,
        supported_by: &[MediaSource],
    ) -> Error {
        Error::Unsupported {
            what: what.into(),
            catalogue,
            supported_by: supported_by.to_vec(),
        }
    }

    /// An id of another source: refused naming the catalogues that take such ids.
    pub(crate) fn foreign_id(id: &domain::MediaId, catalogue: MediaSource) -> Error {
        let takers: &[MediaSource] = match id.media_source {
            MediaSource::Builtin | MediaSource::Imdb => &[MediaSource::Builtin],
            MediaSource::Tmdb => &[MediaSource::Tmdb],
            MediaSource::Musicbrainz => &[MediaSource::Musicbrainz],
            MediaSource::Tvdb => &[MediaSource::Tvdb],
            MediaSource::Anilist | MediaSource::Myanimelist => &[MediaSource::Anilist],
            MediaSource::Lrclib => &[MediaSource::Lrclib],
            MediaSource::Goodreads => &[],
        };
        Error::unsupported(format!("the id {id}"), catalogue, takers)
    }

    pub(crate) fn invalid(what: &'static str, detail: impl Into<String>) -> Error {
        Error::InvalidArgument {
            what,
            detail: detail.into(),
        }
    }

    /// The backend error class, when the backend failed.
    pub fn backend(&self) -> Option<&httpx::Error> {
        match self {
            Error::Backend { error, .. } => Some(error),
            _ => None,
        }
    }
}

fn supported_sentence(sources: &[MediaSource]) -> String {
    if sources.is_empty() {
        return "no configured source can answer it".to_string();
    }
    let names: Vec<&str> = sources.iter().map(|s| s.as_str()).collect();
    format!("use a catalogue of: {}", names.join(", "))
}

fn options_sentence(options: &[String], close: bool) -> String {
    match (options.is_empty(), close) {
        (true, _) => "no close match".to_string(),
        (false, true) => format!("close matches: {}", options.join(", ")),
        (false, false) => format!("valid values: {}", options.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_thing() {
        let e = Error::unsupported("trending", MediaSource::Builtin, &[MediaSource::Tmdb]);
        assert_eq!(
            e.to_string(),
            "trending is not supported by the builtin catalogue; use a catalogue of: tmdb"
        );
        let e = Error::UnknownName {
            what: "genre",
            given: "Sci-fy".into(),
            options: vec!["Sci-Fi".into()],
            close_matches: true,
        };
        assert_eq!(
            e.to_string(),
            "unknown genre \"Sci-fy\"; close matches: Sci-Fi"
        );
    }
}
