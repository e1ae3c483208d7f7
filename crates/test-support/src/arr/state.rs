//! The fake's memory: resources by kind and id, lookup metadata, seeded releases, grabs, the
//! running downloads and the clock.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, TimeZone, Utc};
use serde_json::{Value, json};

use super::{ArrKind, defaults};

/// A kind of resource the fake stores, named as the vendor's API names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resource {
    Movie,
    MovieFile,
    Series,
    Episode,
    EpisodeFile,
    Artist,
    Album,
    TrackFile,
    Author,
    Book,
    BookFile,
    Queue,
    History,
    Command,
    QualityProfile,
    MetadataProfile,
    CustomFormat,
    RootFolder,
    Tag,
    Health,
    DiskSpace,
    Indexer,
    DownloadClient,
    DelayProfile,
    ReleaseProfile,
    RemotePathMapping,
    Blocklist,
    /// Manual import candidates, found by their `downloadId` or under their `path`.
    ManualImport,
}

impl Resource {
    /// The path segment the API serves the resource under.
    pub fn path(self) -> &'static str {
        use Resource::*;
        match self {
            Movie => "movie",
            MovieFile => "moviefile",
            Series => "series",
            Episode => "episode",
            EpisodeFile => "episodefile",
            Artist => "artist",
            Album => "album",
            TrackFile => "trackfile",
            Author => "author",
            Book => "book",
            BookFile => "bookfile",
            Queue => "queue",
            History => "history",
            Command => "command",
            QualityProfile => "qualityprofile",
            MetadataProfile => "metadataprofile",
            CustomFormat => "customformat",
            RootFolder => "rootfolder",
            Tag => "tag",
            Health => "health",
            DiskSpace => "diskspace",
            Indexer => "indexer",
            DownloadClient => "downloadclient",
            DelayProfile => "delayprofile",
            ReleaseProfile => "releaseprofile",
            RemotePathMapping => "remotepathmapping",
            Blocklist => "blocklist",
            ManualImport => "manualimport",
        }
    }
}

/// A download in the queue: how fast it moves, and whether it moves at all.
#[derive(Clone, Debug)]
pub(crate) struct Download {
    /// Bytes per second on the fake clock.
    pub rate: f64,
    /// A stuck item never progresses (the Import Doctor's seeds).
    pub stuck: bool,
    /// When the last byte arrived.
    pub done_at: Option<DateTime<Utc>>,
}

pub(crate) struct State {
    pub kind: ArrKind,
    pub now: DateTime<Utc>,
    tables: HashMap<Resource, BTreeMap<i64, Value>>,
    next_ids: HashMap<Resource, i64>,
    /// (resource, metadata, children) as seeded by `seed_lookup`.
    pub lookups: Vec<(Resource, Value, Vec<Value>)>,
    /// (unit id, release) as seeded by `seed_release`.
    pub releases: Vec<(i64, Value)>,
    pub grabs: Vec<Value>,
    /// Releases the last searches returned, as the services cache them for `POST release`.
    pub release_cache: Vec<(i64, Value)>,
    /// Every queue removal with the options it was asked with.
    pub removals: Vec<Value>,
    pub downloads: HashMap<i64, Download>,
    pub queue_total_extra: i64,
    pub search_finds: bool,
    /// Sonarr v5's dialect (`v5.rs`): answered at `/api/v5`.
    pub v5: bool,
}

impl State {
    pub fn new(kind: ArrKind) -> State {
        let mut state = State {
            kind,
            now: Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap(),
            tables: HashMap::new(),
            next_ids: HashMap::new(),
            lookups: Vec::new(),
            releases: Vec::new(),
            grabs: Vec::new(),
            release_cache: Vec::new(),
            removals: Vec::new(),
            downloads: HashMap::new(),
            queue_total_extra: 0,
            search_finds: true,
            v5: false,
        };
        defaults::install(&mut state);
        state
    }

    /// The fake clock as the services write dates.
    pub fn stamp(&self) -> String {
        stamp(self.now)
    }

    pub fn insert(&mut self, resource: Resource, fields: Value) -> i64 {
        let next = self.next_ids.entry(resource).or_insert(1);
        let id = fields.get("id").and_then(Value::as_i64).unwrap_or(*next);
        *next = (*next).max(id + 1);
        let mut value = defaults::template(self.kind, resource, id, &self.stamp());
        merge(&mut value, fields);
        value["id"] = json!(id);
        self.tables.entry(resource).or_default().insert(id, value);
        id
    }

    pub fn update(&mut self, resource: Resource, id: i64, fields: Value) {
        let value = self
            .tables
            .get_mut(&resource)
            .and_then(|t| t.get_mut(&id))
            .unwrap_or_else(|| panic!("no {} {id} in the fake", resource.path()));
        merge(value, fields);
    }

    pub fn remove(&mut self, resource: Resource, id: i64) -> Option<Value> {
        self.tables.get_mut(&resource).and_then(|t| t.remove(&id))
    }

    pub fn clear(&mut self, resource: Resource) {
        self.tables.remove(&resource);
    }

    pub fn get(&self, resource: Resource, id: i64) -> Option<Value> {
        self.tables.get(&resource).and_then(|t| t.get(&id)).cloned()
    }

    pub fn all(&self, resource: Resource) -> Vec<Value> {
        self.tables
            .get(&resource)
            .map(|t| t.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Stored resources whose field `key` equals `value`.
    pub fn find(&self, resource: Resource, key: &str, value: &Value) -> Vec<Value> {
        self.tables
            .get(&resource)
            .map(|t| t.values().filter(|v| &v[key] == value).cloned().collect())
            .unwrap_or_default()
    }

    pub fn seed_lookup(&mut self, resource: Resource, fields: Value, children: Vec<Value>) {
        self.lookups.push((resource, fields, children));
    }

    pub fn seed_release(&mut self, unit_id: i64, fields: Value) {
        let n = self.releases.len() + 1;
        let mut release = defaults::release(self.kind, n, &self.stamp());
        merge(&mut release, fields);
        self.releases.push((unit_id, release));
    }
}

/// A date as the services write it: `2026-12-01T12:00:00Z`.
pub(crate) fn stamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Shallow merge: every field of `fields` replaces the same field of `value`.
pub(crate) fn merge(value: &mut Value, fields: Value) {
    if let (Some(value), Value::Object(fields)) = (value.as_object_mut(), fields) {
        for (k, v) in fields {
            value.insert(k, v);
        }
    }
}
