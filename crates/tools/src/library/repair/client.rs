//! The Import Doctor's second witness: when a download instance the caller may read holds a queue
//! item's info hash, that client's own state of the torrent, read from the instance's cached
//! catalogue (the rows `find_torrents` reads), never a backend call per item.

use std::time::SystemTime;

use adapters_downloads::{Torrent, TorrentState};
use adapters_library::QueueItem;
use chrono::{DateTime, SecondsFormat, Utc};
use domain::InfoHash;
use schemars::JsonSchema;
use serde::Serialize;

use super::verdict::ClientSays;
use crate::downloads;
use governance::Ctx;

/// The download instances one diagnosis may consult, decided and loaded once.
pub(super) struct Clients<'c> {
    readable: Vec<&'c downloads::Source>,
    /// Configured download instances the caller may not read.
    withheld: usize,
}

/// The download client's own state of a queue item's torrent, as `diagnose_queue` shows it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(super) enum ClientState<'a> {
    Held {
        /// Always true here.
        available: bool,
        instance_id: &'a str,
        #[schemars(with = "String")]
        kind: domain::InstanceKind,
        name: &'a str,
        #[schemars(with = "String")]
        state: TorrentState,
        progress: f64,
        size: u64,
        seeds: u32,
        peers: u32,
        dl_speed: u64,
        eta_seconds: Option<u32>,
        save_path: &'a str,
        tracker_message: Option<&'a str>,
        /// When the row was read (`null`: never refreshed).
        observed_at: Option<String>,
        /// Why the instance's latest refresh failed (the row is then as last seen).
        unreachable: Option<&'a str>,
    },
    Missing {
        /// Always false here.
        available: bool,
        reason: String,
    },
}

/// What the download clients say about one queue item.
pub(super) enum Seen<'c> {
    /// The item's download id is no torrent info hash (usenet, or not known yet).
    NoHash,
    /// Marquee has no download instance at all.
    NoInstance,
    /// There are download instances, but the caller may read none of them.
    NotAllowed,
    /// This instance holds it; `unreachable` says why its latest refresh failed, and the row is
    /// then as it was last seen.
    Held {
        instance: &'c downloads::Source,
        torrent: Box<Torrent>,
        observed_at: Option<SystemTime>,
        unreachable: Option<String>,
    },
    /// None of the instances that could be read holds it.
    NotHeld {
        searched: Vec<&'c str>,
        /// Instances that could not be read, each with why.
        unreadable: Vec<(&'c str, String)>,
        withheld: bool,
    },
}

impl<'c> Clients<'c> {
    pub(super) async fn gather(ctx: &'c Ctx) -> Clients<'c> {
        let (readable, withheld) = downloads::readable(ctx).await;
        Clients { readable, withheld }
    }

    /// The download clients' account of `q`.
    pub(super) fn seen(&self, q: &QueueItem) -> Seen<'c> {
        let Some(hash) = q
            .download_id
            .as_deref()
            .and_then(|d| d.parse::<InfoHash>().ok())
        else {
            return Seen::NoHash;
        };
        if self.readable.is_empty() {
            return if self.withheld == 0 {
                Seen::NoInstance
            } else {
                Seen::NotAllowed
            };
        }
        let mut unreadable = Vec::new();
        for source in &self.readable {
            let backend = match source.state() {
                Ok(b) => b,
                Err(why) => {
                    unreadable.push((source.id.as_str(), why.to_owned()));
                    continue;
                }
            };
            let status = backend.catalogue.status();
            let failing = status
                .last_error
                .map(|e| format!("{}: {}", e.class, e.message));
            if let Some(torrent) = backend.catalogue.get(&hash) {
                return Seen::Held {
                    instance: source,
                    torrent: Box::new(torrent),
                    observed_at: status.observed_at,
                    unreachable: failing,
                };
            }
            match (status.observed_at, failing) {
                (None, Some(why)) => unreadable.push((source.id.as_str(), why)),
                (None, None) => unreadable.push((
                    source.id.as_str(),
                    "it has not answered yet; try again in a few seconds".to_owned(),
                )),
                _ => {}
            }
        }
        Seen::NotHeld {
            searched: self.readable.iter().map(|s| s.id.as_str()).collect(),
            unreadable,
            withheld: self.withheld > 0,
        }
    }
}

impl Seen<'_> {
    /// What the verdict may use.
    pub(super) fn says(&self) -> ClientSays {
        match self {
            Seen::Held {
                unreachable: Some(_),
                ..
            } => ClientSays::Unreachable,
            Seen::Held { torrent, .. } => ClientSays::State(torrent.state),
            Seen::NotHeld { unreadable, .. } if !unreadable.is_empty() => {
                ClientSays::MaybeUnreachable
            }
            _ => ClientSays::Nothing,
        }
    }

    /// The Marquee download instance that holds the item (or may) and cannot be read now.
    pub(super) fn unreachable_instance(&self) -> Option<(&str, &str)> {
        match self {
            Seen::Held {
                instance,
                unreachable: Some(why),
                ..
            } => Some((instance.id.as_str(), why.as_str())),
            Seen::NotHeld { unreadable, .. } => {
                unreadable.first().map(|(id, why)| (*id, why.as_str()))
            }
            _ => None,
        }
    }

    /// The evidence as data: the client's state, or why it is not shown.
    pub(super) fn evidence(&self) -> ClientState<'_> {
        let missing = |reason: String| ClientState::Missing {
            available: false,
            reason,
        };
        match self {
            Seen::NoHash => missing(
                "the download id is not a torrent info hash, so no download client was looked up".into(),
            ),
            Seen::NoInstance => missing("Marquee has no download instance configured".into()),
            Seen::NotAllowed => missing(
                "your grant does not let you read the download instances, so the download client's own state is not available to you".into(),
            ),
            Seen::Held {
                instance,
                torrent: t,
                observed_at,
                unreachable,
            } => ClientState::Held {
                available: true,
                instance_id: &instance.id,
                kind: instance.kind,
                name: &t.name,
                state: t.state,
                progress: (t.progress * 1000.0).round() / 1000.0,
                size: t.size,
                seeds: t.num_seeds,
                peers: t.num_peers,
                dl_speed: t.dl_speed,
                eta_seconds: t.eta,
                save_path: &t.save_path,
                tracker_message: t.tracker_message.as_deref(),
                observed_at: observed_at.map(rfc3339),
                unreachable: unreachable.as_deref(),
            },
            Seen::NotHeld {
                searched,
                unreadable,
                withheld,
            } => {
                let mut reason = format!(
                    "no download instance that could be read holds this download (searched {})",
                    searched.join(", ")
                );
                if !unreadable.is_empty() {
                    let names: Vec<String> = unreadable
                        .iter()
                        .map(|(id, why)| format!("{id} ({why})"))
                        .collect();
                    reason.push_str(&format!("; could not be read: {}", names.join(", ")));
                }
                if *withheld {
                    reason.push_str(
                        "; download instances your grant does not cover were not searched",
                    );
                }
                missing(reason)
            }
        }
    }

    /// Whether the client itself shows the item not progressing, though the service does not
    /// flag it (yet).
    pub(super) fn stuck(&self) -> bool {
        matches!(
            self.says(),
            ClientSays::State(TorrentState::Stalled | TorrentState::Error)
        )
    }
}

fn rfc3339(t: SystemTime) -> String {
    DateTime::<Utc>::from(t).to_rfc3339_opts(SecondsFormat::Secs, true)
}
