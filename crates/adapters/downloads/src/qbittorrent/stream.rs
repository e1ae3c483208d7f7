//! Reading a `sync/maindata` answer one torrent at a time. A full update of 50,000 torrents is
//! about 70 MB of JSON: instead of holding that text and a map of every parsed torrent, the
//! body is fed in chunks to a parser on a blocking thread, and each torrent of a full update
//! goes straight into a staged catalogue (compact rows, interned strings) that replaces the
//! old rows in one step when the answer is complete. The torrents read so far are counted as
//! they are parsed, so a full refresh can tell how far it is. An answer without its `rid` is
//! not a maindata answer, and is refused rather than read as an empty one.

use std::{
    collections::HashMap,
    fmt,
    io::Read,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

use bytes::Bytes;
use domain::InfoHash;
use httpx::reqwest;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};

use super::sync::{MainData, QbTorrent};
use crate::{
    catalogue::state::CatalogueState,
    error::{Error, Result},
};

/// The rows of a full update, built while its answer was read.
#[derive(Debug, Default)]
pub(crate) struct Staged {
    pub(crate) state: CatalogueState,
    /// Torrents whose `tracker` was empty (none of their trackers works).
    pub(crate) no_working_tracker: Vec<InfoHash>,
    /// Keys that are not info hashes, skipped.
    pub(crate) skipped: usize,
}

/// Chunks of the body in flight between the reader and the parser.
const CHUNKS_IN_FLIGHT: usize = 4;

/// Parses `body` (a whole answer in memory: tests, benchmarks).
pub(crate) fn parse_slice(body: &[u8]) -> Result<MainData> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let md = MainDataSeed::default()
        .deserialize(&mut de)
        .and_then(|md| de.end().map(|()| md))
        .map_err(|e| Error::decode("sync/maindata", e))?;
    Ok(md)
}

/// Reads and parses a successful answer chunk by chunk; `on_read`, when given, hears the
/// number of torrents parsed so far whenever it grew while a chunk was handed over.
pub(crate) async fn parse_response(
    mut resp: reqwest::Response,
    on_read: Option<&(dyn Fn(usize) + Send + Sync)>,
) -> Result<MainData> {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(CHUNKS_IN_FLIGHT);
    let seed = MainDataSeed::default();
    let read = seed.read.clone();
    let parser = tokio::task::spawn_blocking(move || {
        let reader = std::io::BufReader::with_capacity(64 * 1024, ChannelReader::new(rx));
        let mut de = serde_json::Deserializer::from_reader(reader);
        seed.deserialize(&mut de)
            .and_then(|md| de.end().map(|()| md))
    });
    let mut told = 0;
    let mut tell = |on_read: Option<&(dyn Fn(usize) + Send + Sync)>| {
        let now = read.load(Ordering::Relaxed);
        if let Some(f) = on_read.filter(|_| now > told) {
            told = now;
            f(now);
        }
    };
    let feed = async {
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    if tx.send(chunk).await.is_err() {
                        return Ok(()); // the parser stopped early: its error says why
                    }
                    tell(on_read);
                }
                Ok(None) => return Ok(()),
                Err(e) => return Err(Error::transport(&e)),
            }
        }
    };
    let fed = feed.await;
    drop(tx);
    let parsed = parser
        .await
        .map_err(|e| Error::decode("sync/maindata", e))?;
    fed?;
    if parsed.is_ok() {
        tell(on_read);
    }
    parsed.map_err(|e| Error::decode("sync/maindata", e))
}

/// A blocking `Read` over the chunks the async side sends.
struct ChannelReader {
    rx: tokio::sync::mpsc::Receiver<Bytes>,
    current: Bytes,
    at: usize,
}

impl ChannelReader {
    fn new(rx: tokio::sync::mpsc::Receiver<Bytes>) -> ChannelReader {
        ChannelReader {
            rx,
            current: Default::default(),
            at: 0,
        }
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.current.len() {
            match self.rx.blocking_recv() {
                Some(chunk) => {
                    self.current = chunk;
                    self.at = 0;
                }
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The whole answer, field by field; `torrents` through [`TorrentsSeed`].
#[derive(Default)]
struct MainDataSeed {
    /// Torrents parsed so far, read by the async side while the answer arrives.
    read: Arc<AtomicUsize>,
}

impl<'de> DeserializeSeed<'de> for MainDataSeed {
    type Value = MainData;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<MainData, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MainDataSeed {
    type Value = MainData;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sync/maindata object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<MainData, A::Error> {
        let mut md = MainData::default();
        let mut rid = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "rid" => rid = Some(map.next_value()?),
                "full_update" => md.full_update = map.next_value()?,
                "torrents" => {
                    // qBittorrent writes its keys sorted, so `full_update` comes first and a
                    // full update's torrents go straight into staged rows; otherwise they are
                    // kept as patches, as a partial update's are.
                    let staged = md.full_update.then(Staged::default);
                    let read = self.read.clone();
                    let (patches, staged) = map.next_value_seed(TorrentsSeed { staged, read })?;
                    md.torrents = patches;
                    md.staged = staged;
                }
                "torrents_removed" => md.torrents_removed = map.next_value()?,
                "categories" => md.categories = map.next_value()?,
                "categories_removed" => md.categories_removed = map.next_value()?,
                "tags" => md.tags = map.next_value()?,
                "tags_removed" => md.tags_removed = map.next_value()?,
                "server_state" => md.server_state = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // Every maindata answer carries its `rid`: an object without one (`{}`, an error
        // object, another endpoint's answer) is not a torrent list, and reading it as an
        // empty one would show the instance as holding nothing.
        md.rid = rid.ok_or_else(|| de::Error::missing_field("rid"))?;
        Ok(md)
    }
}

/// The `torrents` map, one entry at a time: into staged rows, or kept as patches.
struct TorrentsSeed {
    staged: Option<Staged>,
    read: Arc<AtomicUsize>,
}

type Torrents = (HashMap<String, QbTorrent>, Option<Staged>);

impl<'de> DeserializeSeed<'de> for TorrentsSeed {
    type Value = Torrents;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Torrents, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TorrentsSeed {
    type Value = Torrents;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of torrents by info hash")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Torrents, A::Error> {
        let mut patches = HashMap::new();
        let Some(mut staged) = self.staged else {
            while let Some((key, patch)) = map.next_entry::<String, QbTorrent>()? {
                patches.insert(key, patch);
                self.read.fetch_add(1, Ordering::Relaxed);
            }
            return Ok((patches, None));
        };
        while let Some((key, patch)) = map.next_entry::<String, QbTorrent>()? {
            self.read.fetch_add(1, Ordering::Relaxed);
            let Ok(hash) = key.parse::<InfoHash>() else {
                staged.skipped += 1;
                continue;
            };
            staged.state.upsert(hash, |t, i| patch.apply(t, i));
            if patch.tracker.as_deref() == Some("") {
                staged.no_working_tracker.push(hash);
            }
        }
        Ok((patches, Some(staged)))
    }
}
