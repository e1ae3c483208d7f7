//! Library services: Radarr v3, Sonarr v3, Lidarr v1 and Readarr v1 behind one client. A shared
//! core does what the four have in common (key header, timeouts, no redirects, complete paged
//! reads, the redaction boundary); one module per service does what differs. Knows nothing of
//! MCP, SQL or permissions.

mod common;
mod core;
mod custom_format;
mod error;
mod lidarr;
mod manual_import;
mod media_info;
mod model;
mod radarr;
mod readarr;
pub mod redact;
mod releases;
mod repair;
mod service_config;
mod settings;
mod sonarr;

use domain::Secret;

use crate::core::Core;
pub use crate::{
    core::SEARCH_TIMEOUT,
    error::Error,
    manual_import::{Candidate, ImportMapping},
    model::{
        AddOptions, AudioStream, CalendarEntry, Command, ConfigEntry, CustomFormat, Disk, Episode,
        ExternalIds, Found, Health, HistoryEvent, ItemKind, LibraryItem, MediaFile, MediaInfo,
        MediaRef, Profile, QueueItem, RootFolder, SearchTarget, Season, Service, ServiceConfig,
        SubtitleStream, Tag,
    },
    readarr::BookHit,
    repair::{Release, ReleaseScope, Removal},
    service_config::CONFIG_BOUND,
    settings::{FieldChange, FormatSpec, ProfileEdit, SettingsDraft, SettingsRef, SpecInput},
};

/// One library instance's client: reads here, writes through [`LibraryClient::writer`].
pub struct LibraryClient {
    service: Service,
    core: Core,
}

impl LibraryClient {
    pub fn new(service: Service, base: url::Url, key: Secret) -> Result<LibraryClient, Error> {
        LibraryClient::with_timeouts(service, base, key, httpx::Timeouts::default())
    }

    /// A client whose requests give up after `timeouts` (the instance's `timeout_seconds`); an
    /// interactive release search keeps its own longer limit.
    pub fn with_timeouts(
        service: Service,
        base: url::Url,
        key: Secret,
        timeouts: httpx::Timeouts,
    ) -> Result<LibraryClient, Error> {
        Ok(LibraryClient {
            service,
            core: Core::new(base, key, service.api(), timeouts)?,
        })
    }

    pub fn service(&self) -> Service {
        self.service
    }

    /// Whether the instance answers and accepts its key, from its own `system/status`: a
    /// sentence naming the service and version it reports.
    pub async fn status(&self) -> Result<String, Error> {
        let (app, version) = self.core.system_status().await?;
        let app = if app.is_empty() {
            self.service.as_str().to_string()
        } else {
            app
        };
        Ok(if version.is_empty() {
            format!("{app} answers")
        } else {
            format!("{app} {version} answers")
        })
    }

    /// The whole queue; a queue that cannot be read completely is an error.
    pub async fn queue(&self) -> Result<Vec<QueueItem>, Error> {
        common::queue(&self.core).await
    }

    /// The latest `size` events of the whole history.
    pub async fn history(&self, size: u32) -> Result<Vec<HistoryEvent>, Error> {
        common::history(&self.core, size).await
    }

    /// One item's own history, read from the service's per-item endpoint.
    pub async fn item_history(&self, item: &LibraryItem) -> Result<Vec<HistoryEvent>, Error> {
        let parent = item.parent_id.unwrap_or(0);
        match self.service {
            Service::Radarr => radarr::history(&self.core, item.id).await,
            Service::Sonarr => sonarr::history(&self.core, item.id).await,
            Service::Lidarr => lidarr::history(&self.core, item.id, parent).await,
            Service::Readarr => readarr::history(&self.core, item.id, parent).await,
        }
    }

    /// Sonarr: one season's history, or one episode's (`episode_id`, an episode of that season).
    pub async fn episode_history(
        &self,
        series_id: i64,
        season: u32,
        episode_id: Option<i64>,
    ) -> Result<Vec<HistoryEvent>, Error> {
        match self.service {
            Service::Sonarr => {
                sonarr::episode_history(&self.core, series_id, season, episode_id).await
            }
            other => Err(Error::Unsupported(format!(
                "{} has no seasons or episodes",
                other.as_str()
            ))),
        }
    }

    pub async fn health(&self) -> Result<Vec<Health>, Error> {
        common::health(&self.core).await
    }

    pub async fn disk_space(&self) -> Result<Vec<Disk>, Error> {
        common::disk_space(&self.core).await
    }

    pub async fn quality_profiles(&self) -> Result<Vec<Profile>, Error> {
        common::profiles(&self.core, "qualityprofile").await
    }

    /// Lidarr and Readarr: the metadata profiles an artist or author is added with.
    pub async fn metadata_profiles(&self) -> Result<Vec<Profile>, Error> {
        match self.service {
            Service::Lidarr | Service::Readarr => {
                common::profiles(&self.core, "metadataprofile").await
            }
            Service::Radarr | Service::Sonarr => Ok(Vec::new()),
        }
    }

    pub async fn custom_formats(&self) -> Result<Vec<CustomFormat>, Error> {
        common::custom_formats(&self.core).await
    }

    pub async fn root_folders(&self) -> Result<Vec<RootFolder>, Error> {
        common::root_folders(&self.core).await
    }

    pub async fn tags(&self) -> Result<Vec<Tag>, Error> {
        common::tags(&self.core).await
    }

    pub async fn command(&self, id: i64) -> Result<Command, Error> {
        common::command(&self.core, id).await
    }

    /// Indexers, download clients, delay and release profiles, remote path mappings: bounded
    /// and secret-free.
    pub async fn service_config(&self) -> Result<ServiceConfig, Error> {
        service_config::service_config(&self.core).await
    }

    /// The top level of the library: movies, series, artists or authors.
    pub async fn library(&self) -> Result<Vec<LibraryItem>, Error> {
        match self.service {
            Service::Radarr => radarr::library(&self.core).await,
            Service::Sonarr => sonarr::library(&self.core).await,
            Service::Lidarr => lidarr::library(&self.core).await,
            Service::Readarr => readarr::library(&self.core).await,
        }
    }

    /// Every catalogue id of what the library holds (movies, series, artists and albums,
    /// books), read in one or two requests: what discovery marks `in_library`.
    pub async fn held_ids(&self) -> Result<Vec<(domain::MediaSource, String)>, Error> {
        use domain::MediaSource as S;
        let mut out = Vec::new();
        let mut push = |ids: ExternalIds| {
            let pairs = [
                (S::Tmdb, ids.tmdb),
                (S::Imdb, ids.imdb),
                (S::Tvdb, ids.tvdb),
                (S::Musicbrainz, ids.musicbrainz),
                (S::Goodreads, ids.book_source),
            ];
            out.extend(
                pairs
                    .into_iter()
                    .filter_map(|(s, id)| id.filter(|i| !i.is_empty()).map(|i| (s, i))),
            );
        };
        match self.service {
            Service::Radarr | Service::Sonarr => {
                self.library().await?.into_iter().for_each(|i| push(i.ids));
            }
            Service::Lidarr => {
                let (artists, albums) =
                    tokio::try_join!(self.library(), lidarr::all_albums(&self.core))?;
                artists.into_iter().chain(albums).for_each(|i| push(i.ids));
            }
            Service::Readarr => {
                readarr::all_books(&self.core)
                    .await?
                    .into_iter()
                    .for_each(|i| push(i.ids));
            }
        }
        Ok(out)
    }

    /// An artist's albums or an author's books.
    pub async fn children(&self, parent_id: i64) -> Result<Vec<LibraryItem>, Error> {
        match self.service {
            Service::Lidarr => lidarr::albums(&self.core, parent_id).await,
            Service::Readarr => readarr::books(&self.core, parent_id).await,
            Service::Radarr | Service::Sonarr => Err(Error::Unsupported(format!(
                "{} items have no albums or books to drill into",
                self.service.as_str()
            ))),
        }
    }

    /// One item by its id in this service (a movie, series, album or book).
    pub async fn item(&self, id: i64) -> Result<LibraryItem, Error> {
        match self.service {
            Service::Radarr => radarr::item(&self.core, id).await,
            Service::Sonarr => sonarr::item(&self.core, id).await,
            Service::Lidarr => lidarr::item(&self.core, id).await,
            Service::Readarr => readarr::item(&self.core, id).await,
        }
    }

    /// A title named as discovery names it, through the service's own lookup.
    pub async fn find(&self, media: &MediaRef) -> Result<Found, Error> {
        match self.service {
            Service::Radarr => radarr::find(&self.core, media).await,
            Service::Sonarr => sonarr::find(&self.core, media).await,
            Service::Lidarr => lidarr::find(&self.core, media).await,
            Service::Readarr => readarr::find(&self.core, media).await,
        }
    }

    /// Sonarr: a series' episodes, one season or all.
    pub async fn episodes(
        &self,
        series_id: i64,
        season: Option<u32>,
    ) -> Result<Vec<Episode>, Error> {
        match self.service {
            Service::Sonarr => sonarr::episodes(&self.core, series_id, season).await,
            other => Err(Error::Unsupported(format!(
                "{} has no episodes",
                other.as_str()
            ))),
        }
    }

    /// The media files of a movie or series, with the service's analysis of each.
    pub async fn files(&self, item_id: i64) -> Result<Vec<MediaFile>, Error> {
        match self.service {
            Service::Radarr => radarr::files(&self.core, item_id).await,
            Service::Sonarr => sonarr::files(&self.core, item_id).await,
            other => Err(Error::Unsupported(format!(
                "{} file details are not read by this version",
                other.as_str()
            ))),
        }
    }

    /// Releases and air dates between two ISO dates.
    pub async fn calendar(&self, start: &str, end: &str) -> Result<Vec<CalendarEntry>, Error> {
        match self.service {
            Service::Radarr => radarr::calendar(&self.core, start, end).await,
            Service::Sonarr => sonarr::calendar(&self.core, start, end).await,
            other => Err(Error::Unsupported(format!(
                "{} calendars are not read by this version",
                other.as_str()
            ))),
        }
    }

    /// Readarr: books found by its own search.
    pub async fn lookup_books(&self, term: &str) -> Result<Vec<BookHit>, Error> {
        match self.service {
            Service::Readarr => readarr::lookup(&self.core, term).await,
            other => Err(Error::Unsupported(format!(
                "{} has no books",
                other.as_str()
            ))),
        }
    }

    /// Readarr: the book of the library whose book source id (`foreignBookId`, as
    /// [`LibraryClient::lookup_books`] shows it) is `id`, when the library holds it.
    pub async fn held_book(&self, id: &str) -> Result<Option<LibraryItem>, Error> {
        match self.service {
            Service::Readarr => readarr::held_book(&self.core, id).await,
            other => Err(Error::Unsupported(format!(
                "{} has no books",
                other.as_str()
            ))),
        }
    }

    /// Interactive release search of one scope (the longer timeout). The releases carry no GUID
    /// or URL; [`LibraryClient::release_ref`] names one.
    pub async fn releases(&self, scope: &ReleaseScope) -> Result<Vec<Release>, Error> {
        releases::search(&self.core, self.service, scope).await
    }

    /// The one-way reference of a release this instance (`instance`) found in `scope`.
    pub fn release_ref(&self, instance: &str, scope: &ReleaseScope, release: &Release) -> String {
        release.reference(self.core.key().expose().as_bytes(), instance, scope)
    }

    /// Manual import candidates of a download (its download id) or a folder.
    pub async fn manual_import_candidates(
        &self,
        download_id: Option<&str>,
        folder: Option<&str>,
    ) -> Result<Vec<Candidate>, Error> {
        manual_import::candidates(&self.core, self.service, download_id, folder).await
    }

    /// The writing half, unchecked: this crate knows no policy. Marquee's tools hand it out
    /// only through their own gate, with the proof `policy::decide` gave for this instance.
    pub fn unchecked_writer(&self) -> Writer<'_> {
        Writer { client: self }
    }
}

/// What changes a library: adding a title, starting a search or a rescan.
pub struct Writer<'a> {
    client: &'a LibraryClient,
}

impl Writer<'_> {
    pub async fn add(&self, found: &Found, opts: &AddOptions) -> Result<LibraryItem, Error> {
        let core = &self.client.core;
        match self.client.service {
            Service::Radarr => radarr::add(core, found, opts).await,
            Service::Sonarr => sonarr::add(core, found, opts).await,
            Service::Lidarr => lidarr::add(core, found, opts).await,
            Service::Readarr => readarr::add(core, found, opts).await,
        }
    }

    pub async fn search(&self, target: &SearchTarget) -> Result<Command, Error> {
        let body = match self.client.service {
            Service::Radarr => radarr::search_command(target)?,
            Service::Sonarr => sonarr::search_command(target)?,
            Service::Lidarr => lidarr::search_command(target)?,
            Service::Readarr => readarr::search_command(target)?,
        };
        common::start_command(&self.client.core, body).await
    }

    /// Grabs a release found by [`LibraryClient::releases`].
    pub async fn grab(&self, release: &Release) -> Result<(), Error> {
        releases::grab(&self.client.core, release).await
    }

    /// Removes a queue item as `how` says.
    pub async fn remove_queue_item(&self, id: i64, how: Removal) -> Result<(), Error> {
        repair::remove(&self.client.core, id, how).await
    }

    /// Imports candidates with explicit mappings (`mode`: move or copy); answers the command.
    pub async fn manual_import(
        &self,
        files: &[(Candidate, ImportMapping)],
        mode: &str,
    ) -> Result<Command, Error> {
        manual_import::import(&self.client.core, self.client.service, files, mode).await
    }

    /// Rescans a movie, series, artist or author folder.
    pub async fn rescan(&self, item_id: i64) -> Result<Command, Error> {
        let body = match self.client.service {
            Service::Radarr => radarr::rescan_command(item_id),
            Service::Sonarr => sonarr::rescan_command(item_id),
            Service::Lidarr => lidarr::rescan_command(item_id),
            Service::Readarr => readarr::rescan_command(item_id),
        };
        common::start_command(&self.client.core, body).await
    }
}
