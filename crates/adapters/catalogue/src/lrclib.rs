//! LRCLIB (no key): song lyrics, plain and time-synced. `GET /api/search` finds records by
//! words or by track and artist, `GET /api/get/{id}` reads one, and `GET /api/get` looks a song
//! up by its exact signature (track, artist, album, duration within two seconds). LRCLIB asks
//! every client to name itself in its User-Agent.

use async_trait::async_trait;
use domain::{MediaId, MediaSource, MediaType};
use serde::Deserialize;
use url::Url;

use crate::{
    Catalogue, Certification, Error, Lyrics, LyricsQuery, MusicItem, MusicKind, MusicSearch, Page,
    Result, http,
};

/// LRCLIB's public service.
pub const DEFAULT_BASE_URL: &str = "https://lrclib.net";
const SERVICE: &str = "lrclib";
/// How far (seconds) a record's duration may be from the asked one, as LRCLIB's own lookup allows.
const DURATION_SLACK: f64 = 2.0;

/// One LRCLIB instance's settings.
#[derive(Clone, Debug)]
pub struct LrclibConfig {
    pub base_url: Url,
    pub timeouts: httpx::Timeouts,
}

impl Default for LrclibConfig {
    fn default() -> LrclibConfig {
        LrclibConfig {
            base_url: Url::parse(DEFAULT_BASE_URL).expect("the default base URL parses"),
            timeouts: httpx::Timeouts::default(),
        }
    }
}

/// An LRCLIB client.
#[derive(Debug)]
pub struct Lrclib {
    http: httpx::reqwest::Client,
    base_url: Url,
}

/// One LRCLIB record.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    id: u64,
    track_name: Option<String>,
    artist_name: Option<String>,
    album_name: Option<String>,
    duration: Option<f64>,
    #[serde(default)]
    instrumental: bool,
    plain_lyrics: Option<String>,
    synced_lyrics: Option<String>,
}

impl Record {
    fn fits(&self, duration: Option<f64>) -> bool {
        match (duration, self.duration) {
            (Some(want), Some(have)) => (want - have).abs() <= DURATION_SLACK,
            _ => true,
        }
    }

    fn lyrics(self) -> Lyrics {
        let text = |t: Option<String>| t.filter(|t| !t.trim().is_empty());
        Lyrics {
            id: MediaId::new(MediaSource::Lrclib, self.id.to_string()),
            track: self.track_name.unwrap_or_default(),
            artist: self.artist_name.unwrap_or_default(),
            album: text(self.album_name),
            duration: self.duration,
            instrumental: self.instrumental,
            plain: text(self.plain_lyrics),
            synced: text(self.synced_lyrics),
        }
    }

    fn item(self) -> MusicItem {
        MusicItem {
            id: MediaId::new(MediaSource::Lrclib, self.id.to_string()),
            kind: MusicKind::Recording,
            media_type: MediaType::Music,
            title: self.track_name.unwrap_or_default(),
            artist: self.artist_name,
            album: self.album_name.filter(|a| !a.is_empty()),
            year: None,
            certification: Certification::Unrated { region: None },
            genres: Vec::new(),
            type_name: None,
            disambiguation: None,
            country: None,
            length_ms: self.duration.map(|s| (s * 1000.0).round() as u64),
            score: None,
        }
    }
}

impl Lrclib {
    pub fn new(config: LrclibConfig) -> Result<Lrclib> {
        let http = http::client(SERVICE, httpx::builder(config.timeouts))?;
        Ok(Lrclib {
            http,
            base_url: config.base_url,
        })
    }

    async fn get<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T> {
        tracing::debug!(path, "lrclib request");
        let sent = self
            .http
            .get(httpx::join(&self.base_url, path))
            .query(query)
            .send()
            .await;
        http::read_json(SERVICE, path, &[429], sent).await
    }

    fn not_found(what: String) -> Error {
        Error::NotFound {
            what: "song",
            id: what,
            catalogue: MediaSource::Lrclib,
        }
    }
}

fn missing_as(e: Error, what: &str) -> Error {
    match e.backend() {
        Some(httpx::Error::NotFound) => Lrclib::not_found(what.to_string()),
        _ => e,
    }
}

#[async_trait]
impl Catalogue for Lrclib {
    fn source(&self) -> MediaSource {
        MediaSource::Lrclib
    }

    async fn check(&self) -> Result<String> {
        let _: Vec<Record> = self
            .get("api/search", &[("q", "marquee".to_string())])
            .await?;
        Ok("LRCLIB answers a search".into())
    }

    /// Recordings only: LRCLIB holds songs, not artists or albums.
    async fn search_music(&self, search: &MusicSearch) -> Result<Page<MusicItem>> {
        if search.kind != MusicKind::Recording {
            return Err(Error::unsupported(
                "searching artists and release groups",
                MediaSource::Lrclib,
                &[MediaSource::Musicbrainz],
            ));
        }
        let words = search.query.trim();
        if words.is_empty() {
            return Err(Error::invalid("query", "it is empty"));
        }
        if search.page != 1 {
            return Err(Error::invalid(
                "page",
                "LRCLIB answers one page of at most 20 songs; narrow the words instead",
            ));
        }
        let found: Vec<Record> = self.get("api/search", &[("q", words.to_string())]).await?;
        let n = found.len() as u64;
        Ok(Page {
            items: found.into_iter().map(Record::item).collect(),
            page: 1,
            total_pages: u32::from(n > 0),
            total_results: n,
            unapplied_filters: Vec::new(),
        })
    }

    async fn lyrics(&self, query: &LyricsQuery) -> Result<Lyrics> {
        match query {
            LyricsQuery::Id(id) => {
                if id.media_source != MediaSource::Lrclib {
                    return Err(Error::foreign_id(id, MediaSource::Lrclib));
                }
                let n: u64 = id.media_id.trim().parse().map_err(|_| {
                    Error::invalid("lrclib id", format!("\"{}\" is not a number", id.media_id))
                })?;
                let record: Record = self
                    .get(&format!("api/get/{n}"), &[])
                    .await
                    .map_err(|e| missing_as(e, &id.to_string()))?;
                Ok(record.lyrics())
            }
            LyricsQuery::Song {
                track,
                artist,
                album,
                duration,
            } => {
                let named = format!("\"{}\" by {}", track.trim(), artist.trim());
                if track.trim().is_empty() || artist.trim().is_empty() {
                    return Err(Error::invalid("song", "both track and artist are needed"));
                }
                let mut query = vec![
                    ("track_name", track.trim().to_string()),
                    ("artist_name", artist.trim().to_string()),
                ];
                if let (Some(album), Some(duration)) = (album, duration) {
                    // The exact signature: LRCLIB's own lookup, the closest match it has.
                    query.push(("album_name", album.trim().to_string()));
                    query.push(("duration", format!("{}", duration.round() as u64)));
                    let exact: Result<Record> = self.get("api/get", &query).await;
                    match exact {
                        Ok(record) => return Ok(record.lyrics()),
                        Err(e) if !matches!(e.backend(), Some(httpx::Error::NotFound)) => {
                            return Err(e);
                        }
                        Err(_) => query.truncate(2),
                    }
                }
                let found: Vec<Record> = self.get("api/search", &query).await?;
                // Of the records of the right length, the one on the named album, else the first.
                let mut fitting: Vec<Record> =
                    found.into_iter().filter(|r| r.fits(*duration)).collect();
                let on_album = album.as_ref().and_then(|a| {
                    fitting.iter().position(|r| {
                        r.album_name
                            .as_deref()
                            .is_some_and(|b| b.eq_ignore_ascii_case(a.trim()))
                    })
                });
                let chosen = on_album.or((!fitting.is_empty()).then_some(0));
                chosen
                    .map(|i| fitting.swap_remove(i).lyrics())
                    .ok_or_else(|| Lrclib::not_found(named))
            }
        }
    }
}
