//! Stateful contract fakes of Radarr v3, Sonarr v3 (and v5: [`FakeArr::start_sonarr_v5`]), Lidarr
//! v1 and Readarr v1.
//!
//! One fake per service kind, each an axum server on `127.0.0.1:0` that keeps its library, queue,
//! history and commands in memory and answers in the vendor's documented JSON shapes (checked by
//! `tests/arr_spec.rs` against `../shared/specs/*.openapi.json`). What a test controls:
//!
//! - seeding and inspecting state: [`FakeArr::insert`], [`FakeArr::all`], [`FakeArr::get`], lookup
//!   results with [`FakeArr::seed_lookup`], releases with [`FakeArr::seed_release`];
//! - the clock: [`FakeArr::advance`] runs queued commands (a search grabs a release into the queue),
//!   moves downloads on (`sizeleft`, `timeleft`, then `completed`/`importing`) and imports finished
//!   ones (a `downloadFolderImported` history event, a file with `mediaInfo`, `hasFile` set);
//! - failure: [`FakeArr::set_mode`] answers 503 or refuses connections;
//!   [`FakeArr::misreport_queue_total`] makes the queue's `totalRecords` disagree with its records;
//! - the log: [`FakeArr::requests`] lists every request with its body and the fake's answer.
//!
//! Every request must carry [`FakeArr::api_key`] as `X-Api-Key` or `?apikey=`, else 401.

mod adds;
mod clock;
mod commands;
mod defaults;
mod doctor;
mod history;
mod library;
mod releases;
mod routes;
mod server;
mod settings;
mod shapes;
pub mod spec;
mod state;
mod v5;

use std::time::Duration;

use serde_json::Value;

pub use doctor::Verdict;
pub use server::{ArrRequest, Mode};
pub use state::Resource;

/// Which service a fake plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrKind {
    Radarr,
    Sonarr,
    Lidarr,
    Readarr,
}

impl ArrKind {
    /// The API base path, e.g. `/api/v3`.
    pub fn api_prefix(self) -> &'static str {
        match self {
            ArrKind::Radarr | ArrKind::Sonarr => "/api/v3",
            ArrKind::Lidarr | ArrKind::Readarr => "/api/v1",
        }
    }

    /// The vendor document this fake answers by, in `../shared/specs/`.
    pub fn spec_file(self) -> &'static str {
        match self {
            ArrKind::Radarr => "radarr-v3.openapi.json",
            ArrKind::Sonarr => "sonarr-v3.openapi.json",
            ArrKind::Lidarr => "lidarr-v1.openapi.json",
            ArrKind::Readarr => "readarr-v1.openapi.json",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ArrKind::Radarr => "Radarr",
            ArrKind::Sonarr => "Sonarr",
            ArrKind::Lidarr => "Lidarr",
            ArrKind::Readarr => "Readarr",
        }
    }

    /// The top-level library item: movie, series, artist or author.
    pub fn item(self) -> Resource {
        match self {
            ArrKind::Radarr => Resource::Movie,
            ArrKind::Sonarr => Resource::Series,
            ArrKind::Lidarr => Resource::Artist,
            ArrKind::Readarr => Resource::Author,
        }
    }

    /// What a queue item and a file belong to: movie, episode, album or book.
    pub fn unit(self) -> Resource {
        match self {
            ArrKind::Radarr => Resource::Movie,
            ArrKind::Sonarr => Resource::Episode,
            ArrKind::Lidarr => Resource::Album,
            ArrKind::Readarr => Resource::Book,
        }
    }

    /// The file resource of a unit.
    pub fn file(self) -> Resource {
        match self {
            ArrKind::Radarr => Resource::MovieFile,
            ArrKind::Sonarr => Resource::EpisodeFile,
            ArrKind::Lidarr => Resource::TrackFile,
            ArrKind::Readarr => Resource::BookFile,
        }
    }
}

/// A running fake. Dropping it stops the server.
pub struct FakeArr {
    server: server::Server,
}

impl FakeArr {
    /// Starts a fake of `kind` with the default profiles, root folder, tag, indexer, download
    /// client and disk space of a fresh install (see `defaults.rs`) and an empty library.
    pub async fn start(kind: ArrKind) -> FakeArr {
        FakeArr {
            server: server::Server::start(kind, false).await,
        }
    }

    /// Starts a Sonarr fake that speaks API v5 (Sonarr v5, `sonarr-v5-prerelease.openapi.json`):
    /// the same memory and controls, answered at `/api/v5` in v5's shapes; `/api/v3` is not
    /// served.
    pub async fn start_sonarr_v5() -> FakeArr {
        FakeArr {
            server: server::Server::start(ArrKind::Sonarr, true).await,
        }
    }

    /// The API base path this fake serves, e.g. `/api/v3` (`/api/v5` for a v5 Sonarr).
    pub fn api_prefix(&self) -> &'static str {
        self.server.shared.prefix()
    }

    /// The vendor document this fake answers by, in `../shared/specs/`.
    pub fn spec_file(&self) -> &'static str {
        self.server.shared.spec_file()
    }

    pub fn kind(&self) -> ArrKind {
        self.server.shared.kind
    }

    /// The base URL to configure an adapter with, e.g. `http://127.0.0.1:41234` (no API prefix).
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The API key the fake accepts.
    pub fn api_key(&self) -> &str {
        &self.server.shared.api_key
    }

    /// Every request received so far (refused ones too), in arrival order.
    pub fn requests(&self) -> Vec<ArrRequest> {
        self.server.shared.log.lock().clone()
    }

    /// Requests with this method to this path below the API prefix, e.g. ("POST", "/command").
    pub fn requests_to(&self, method: &str, path: &str) -> Vec<ArrRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == method && r.path == path)
            .collect()
    }

    pub fn clear_requests(&self) {
        self.server.shared.log.lock().clear();
    }

    /// Up, answering 503, or refusing connections.
    pub async fn set_mode(&self, mode: Mode) {
        self.server.set_mode(mode).await;
    }

    /// Adds a resource, filling the fields the service always sends; returns its id.
    /// `fields` is a JSON object in the vendor's shape; what it names wins over the defaults.
    pub fn insert(&self, resource: Resource, fields: Value) -> i64 {
        self.server.shared.state.lock().insert(resource, fields)
    }

    /// Replaces fields of a stored resource (a shallow merge). Panics if it does not exist.
    pub fn update(&self, resource: Resource, id: i64, fields: Value) {
        self.server.shared.state.lock().update(resource, id, fields);
    }

    /// Removes every stored resource of one kind (e.g. the default health or indexers).
    pub fn clear(&self, resource: Resource) {
        self.server.shared.state.lock().clear(resource);
    }

    /// Every stored resource of one kind, by id.
    pub fn all(&self, resource: Resource) -> Vec<Value> {
        self.server.shared.state.lock().all(resource)
    }

    pub fn get(&self, resource: Resource, id: i64) -> Option<Value> {
        self.server.shared.state.lock().get(resource, id)
    }

    /// A lookup result: what `movie/lookup`, `series/lookup`, `artist/lookup`, `author/lookup`
    /// (`resource` = the kind's item) or `album/lookup`, `book/lookup` (`resource` = its unit)
    /// answer, and the metadata an add fills in. `children` are the episodes (Sonarr), albums
    /// (Lidarr) or books (Readarr) an added item brings with it.
    pub fn seed_lookup(&self, resource: Resource, fields: Value, children: Vec<Value>) {
        self.server
            .shared
            .state
            .lock()
            .seed_lookup(resource, fields, children);
    }

    /// A release that interactive search (`GET release`) finds for a unit (movie, episode,
    /// album, book id), and that searches grab first when it is not rejected.
    pub fn seed_release(&self, unit_id: i64, fields: Value) {
        self.server
            .shared
            .state
            .lock()
            .seed_release(unit_id, fields);
    }

    /// Removes every seeded release (a release that "disappeared" from the indexers).
    pub fn clear_releases(&self) {
        self.server.shared.state.lock().releases.clear();
    }

    /// The releases grabbed so far (`POST release` and searches), with their guid and indexer.
    pub fn grabs(&self) -> Vec<Value> {
        self.server.shared.state.lock().grabs.clone()
    }

    /// Whether a search that finds no seeded release grabs a made-up one (default true), so a
    /// search always leads to a download unless a test says otherwise.
    pub fn set_search_finds_releases(&self, finds: bool) {
        self.server.shared.state.lock().search_finds = finds;
    }

    /// Puts a queue item that is not progressing into the queue, shaped as the service reports the
    /// given Import Doctor verdict; returns its queue id.
    pub fn seed_stuck(&self, unit_id: i64, verdict: Verdict) -> i64 {
        doctor::seed(&mut self.server.shared.state.lock(), unit_id, verdict)
    }

    /// Starts a download of a unit as a grab would (a queue item and a `grabbed` history event);
    /// returns the queue id.
    pub fn start_download(&self, unit_id: i64, title: &str, size: i64) -> i64 {
        self.server
            .shared
            .state
            .lock()
            .start_download(unit_id, title, size, None)
    }

    /// A manual import candidate of a unit (a file at `path` of `download_id`), with the
    /// service's rejections of it; returns its id.
    pub fn seed_manual_import(
        &self,
        unit_id: i64,
        path: &str,
        size: i64,
        download_id: &str,
        rejections: &[&str],
    ) -> i64 {
        doctor::candidate(
            &mut self.server.shared.state.lock(),
            unit_id,
            path,
            size,
            &serde_json::json!(download_id),
            rejections,
        )
    }

    /// Every queue removal so far with its options (`removeFromClient`, `blocklist`,
    /// `skipRedownload`, `changeCategory`).
    pub fn removals(&self) -> Vec<Value> {
        self.server.shared.state.lock().removals.clone()
    }

    /// Adds `extra` to the queue's `totalRecords` (a queue that cannot be read completely).
    pub fn misreport_queue_total(&self, extra: i64) {
        self.server.shared.state.lock().queue_total_extra = extra;
    }

    /// Moves the fake's clock on: queued commands run, downloads progress, finished ones import.
    pub fn advance(&self, by: Duration) {
        self.server.shared.state.lock().advance(by);
    }

    /// The fake's current time (starts at 2026-12-01T12:00:00Z).
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.server.shared.state.lock().now
    }
}
