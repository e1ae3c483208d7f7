//! The `Catalogue` trait: one surface for every catalogue source, object-safe so the tools layer
//! can hold `Arc<dyn Catalogue>` per configured instance.

use async_trait::async_trait;
use domain::{MediaId, MediaSource, MediaType};

use crate::{
    BrowseFilters, CertificationInfo, CollectionSummary, EpisodeDetails, Error, Lyrics,
    LyricsQuery, MusicItem, MusicKind, MusicSearch, Page, Result, TimeWindow, TitleDetails,
    TitleKind, TitleSearch, TitleSummary,
};

/// A catalogue of titles. Each method a source cannot answer returns [`Error::Unsupported`] naming
/// the sources that can; the defaults below do exactly that, and each adapter overrides what it answers.
#[async_trait]
pub trait Catalogue: Send + Sync {
    /// The source this catalogue's ids come from (`builtin`, `tmdb`, `musicbrainz`).
    fn source(&self) -> MediaSource;

    /// Asks the source whether it answers and accepts Marquee's credentials (for diagnose), with a
    /// short description of what it found. Sources that have no cheaper check than a real question
    /// answer `Unsupported`, and diagnose keeps its plain reachability check for them.
    async fn check(&self) -> Result<String> {
        Err(Error::unsupported(
            "a health check",
            self.source(),
            &[
                MediaSource::Builtin,
                MediaSource::Tmdb,
                MediaSource::Musicbrainz,
                MediaSource::Tvdb,
                MediaSource::Anilist,
                MediaSource::Lrclib,
            ],
        ))
    }

    /// Titles matching a free-text query.
    async fn search_titles(&self, search: &TitleSearch) -> Result<Page<TitleSummary>> {
        let _ = search;
        Err(Error::unsupported(
            "title search",
            self.source(),
            &[
                MediaSource::Builtin,
                MediaSource::Tmdb,
                MediaSource::Tvdb,
                MediaSource::Anilist,
            ],
        ))
    }

    /// Collections (film series) matching a query.
    async fn search_collections(&self, query: &str, page: u32) -> Result<Page<CollectionSummary>> {
        let _ = (query, page);
        Err(Error::unsupported(
            "collection search",
            self.source(),
            &[MediaSource::Tmdb],
        ))
    }

    /// What is trending now.
    async fn trending(
        &self,
        kind: TitleKind,
        window: TimeWindow,
        page: u32,
    ) -> Result<Page<TitleSummary>> {
        let _ = (kind, window, page);
        Err(Error::unsupported(
            "trending",
            self.source(),
            &[MediaSource::Tmdb],
        ))
    }

    /// Titles matching filters, most relevant first.
    async fn browse(&self, filters: &BrowseFilters) -> Result<Page<TitleSummary>> {
        let _ = filters;
        Err(Error::unsupported(
            "browsing titles",
            self.source(),
            &[MediaSource::Builtin, MediaSource::Tmdb],
        ))
    }

    /// A title's full record; its row's certification is the one for `region` (ISO 3166-1).
    async fn title_details(
        &self,
        id: &MediaId,
        media_type: MediaType,
        region: &str,
    ) -> Result<TitleDetails> {
        let _ = (id, media_type, region);
        Err(Error::unsupported(
            "title details",
            self.source(),
            &[
                MediaSource::Builtin,
                MediaSource::Tmdb,
                MediaSource::Tvdb,
                MediaSource::Anilist,
            ],
        ))
    }

    /// One episode of a show: its name, overview and air date.
    async fn episode_details(
        &self,
        show: &MediaId,
        season: u32,
        episode: u32,
    ) -> Result<EpisodeDetails> {
        let _ = (show, season, episode);
        Err(Error::unsupported(
            "episode details",
            self.source(),
            &[MediaSource::Tmdb, MediaSource::Tvdb],
        ))
    }

    /// Titles like this one.
    async fn recommendations(
        &self,
        id: &MediaId,
        media_type: MediaType,
        page: u32,
    ) -> Result<Page<TitleSummary>> {
        let _ = (id, media_type, page);
        Err(Error::unsupported(
            "recommendations",
            self.source(),
            &[
                MediaSource::Builtin,
                MediaSource::Tmdb,
                MediaSource::Anilist,
            ],
        ))
    }

    /// The certifications (movies) or content ratings (TV) a region uses, mildest first.
    async fn certifications(
        &self,
        media_type: MediaType,
        region: &str,
    ) -> Result<Vec<CertificationInfo>> {
        let _ = (media_type, region);
        Err(Error::unsupported(
            "certification lists",
            self.source(),
            &[MediaSource::Builtin, MediaSource::Tmdb],
        ))
    }

    /// The genre names the catalogue uses for a media type.
    async fn genres(&self, media_type: MediaType) -> Result<Vec<String>> {
        let _ = media_type;
        Err(Error::unsupported(
            "genre lists",
            self.source(),
            &[MediaSource::Builtin, MediaSource::Tmdb],
        ))
    }

    /// Artists, release groups or recordings matching a query.
    async fn search_music(&self, search: &MusicSearch) -> Result<Page<MusicItem>> {
        let _ = search;
        Err(Error::unsupported(
            "music search",
            self.source(),
            &[MediaSource::Musicbrainz, MediaSource::Lrclib],
        ))
    }

    /// One artist, release group or recording by id.
    async fn music_details(&self, id: &MediaId, kind: MusicKind) -> Result<MusicItem> {
        let _ = (id, kind);
        Err(Error::unsupported(
            "music lookups",
            self.source(),
            &[MediaSource::Musicbrainz],
        ))
    }

    /// A song's lyrics.
    async fn lyrics(&self, query: &LyricsQuery) -> Result<Lyrics> {
        let _ = query;
        Err(Error::unsupported(
            "lyrics",
            self.source(),
            &[MediaSource::Lrclib],
        ))
    }
}
