//! The reads of one library instance: what every library tool gets from
//! [`Source::client`](super::source::Source::client). No write is reachable from here; the
//! write-capable client comes only from `Source::writer` with the `policy::Allowed` proof.

use adapters_library::{
    BookHit, CalendarEntry, Candidate, Command, CustomFormat, Disk, Episode, Error, FormatSpec,
    Found, Health, HistoryEvent, LibraryClient, LibraryItem, MediaFile, MediaRef, Profile,
    ProfileEdit, QueueItem, Release, ReleaseScope, RootFolder, Service, ServiceConfig,
    SettingsDraft, SettingsRef,
};
use serde_json::Value;

/// One library instance, read-only. Copy, so a merged read's closure can hand it to a future.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a>(&'a LibraryClient);

impl<'a> Reader<'a> {
    /// Only `source.rs` makes one, from the client it keeps private.
    pub(super) fn new(client: &'a LibraryClient) -> Reader<'a> {
        Reader(client)
    }

    pub fn service(self) -> Service {
        self.0.service()
    }

    pub async fn queue(self) -> Result<Vec<QueueItem>, Error> {
        self.0.queue().await
    }

    pub async fn history(self, size: u32) -> Result<Vec<HistoryEvent>, Error> {
        self.0.history(size).await
    }

    pub async fn item_history(self, item: &LibraryItem) -> Result<Vec<HistoryEvent>, Error> {
        self.0.item_history(item).await
    }

    pub async fn episode_history(
        self,
        series_id: i64,
        season: u32,
        episode_id: Option<i64>,
    ) -> Result<Vec<HistoryEvent>, Error> {
        self.0.episode_history(series_id, season, episode_id).await
    }

    pub async fn health(self) -> Result<Vec<Health>, Error> {
        self.0.health().await
    }

    pub async fn disk_space(self) -> Result<Vec<Disk>, Error> {
        self.0.disk_space().await
    }

    pub async fn quality_profiles(self) -> Result<Vec<Profile>, Error> {
        self.0.quality_profiles().await
    }

    pub async fn metadata_profiles(self) -> Result<Vec<Profile>, Error> {
        self.0.metadata_profiles().await
    }

    pub async fn custom_formats(self) -> Result<Vec<CustomFormat>, Error> {
        self.0.custom_formats().await
    }

    pub async fn root_folders(self) -> Result<Vec<RootFolder>, Error> {
        self.0.root_folders().await
    }

    pub async fn command(self, id: i64) -> Result<Command, Error> {
        self.0.command(id).await
    }

    pub async fn service_config(self) -> Result<ServiceConfig, Error> {
        self.0.service_config().await
    }

    pub async fn library(self) -> Result<Vec<LibraryItem>, Error> {
        self.0.library().await
    }

    pub async fn children(self, parent_id: i64) -> Result<Vec<LibraryItem>, Error> {
        self.0.children(parent_id).await
    }

    pub async fn item(self, id: i64) -> Result<LibraryItem, Error> {
        self.0.item(id).await
    }

    pub async fn find(self, media: &MediaRef) -> Result<Found, Error> {
        self.0.find(media).await
    }

    pub async fn episodes(
        self,
        series_id: i64,
        season: Option<u32>,
    ) -> Result<Vec<Episode>, Error> {
        self.0.episodes(series_id, season).await
    }

    pub async fn files(self, item_id: i64) -> Result<Vec<MediaFile>, Error> {
        self.0.files(item_id).await
    }

    pub async fn calendar(self, start: &str, end: &str) -> Result<Vec<CalendarEntry>, Error> {
        self.0.calendar(start, end).await
    }

    pub async fn lookup_books(self, term: &str) -> Result<Vec<BookHit>, Error> {
        self.0.lookup_books(term).await
    }

    pub async fn releases(self, scope: &ReleaseScope) -> Result<Vec<Release>, Error> {
        self.0.releases(scope).await
    }

    pub fn release_ref(self, instance: &str, scope: &ReleaseScope, release: &Release) -> String {
        self.0.release_ref(instance, scope, release)
    }

    pub async fn manual_import_candidates(
        self,
        download_id: Option<&str>,
        folder: Option<&str>,
    ) -> Result<Vec<Candidate>, Error> {
        self.0.manual_import_candidates(download_id, folder).await
    }

    pub async fn held_book(self, id: &str) -> Result<Option<LibraryItem>, Error> {
        self.0.held_book(id).await
    }

    pub async fn settings_now(self, target: &SettingsRef) -> Result<Option<Value>, Error> {
        self.0.settings_now(target).await
    }

    pub async fn draft_profile_edit(
        self,
        profile: &str,
        edit: &ProfileEdit,
    ) -> Result<SettingsDraft, Error> {
        self.0.draft_profile_edit(profile, edit).await
    }

    pub async fn draft_custom_format(self, spec: &FormatSpec) -> Result<SettingsDraft, Error> {
        self.0.draft_custom_format(spec).await
    }
}
