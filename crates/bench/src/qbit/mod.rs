//! Synthetic qBittorrent torrents for `fake-qbittorrent`: deterministic from a seed, shaped like a
//! real client's (release names, sizes by category, states, tags, trackers, dates) and rendered
//! as WebAPI v2 JSON: `sync/maindata`, `torrents/info`, `torrents/trackers`, `properties`, `files`.
//!
//! Nothing is kept per torrent but its hash: a torrent is regenerated from `(seed, index)` when
//! asked for, so 50,000 of them cost a few megabytes besides the prebuilt maindata answer.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

mod names;

use names::*;

/// The "now" of the synthetic data, 2025-01-01T00:00:00Z: torrents were added in the 3 years before.
pub const EPOCH: i64 = 1_735_689_600;
/// qBittorrent's "infinite" ETA.
const ETA_INFINITE: i64 = 8_640_000;
const GB: f64 = 1e9;
const MB: f64 = 1e6;

/// One synthetic torrent, regenerated from `(seed, index)` whenever it is asked for.
#[derive(Debug, Clone)]
pub struct Torrent {
    pub hash: String,
    pub name: String,
    pub state: &'static str,
    pub category: &'static str,
    pub tags: String,
    pub size: u64,
    pub progress: f64,
    pub downloaded: u64,
    pub uploaded: u64,
    pub dlspeed: u64,
    pub upspeed: u64,
    pub eta: i64,
    pub added_on: i64,
    pub completion_on: i64,
    pub last_activity: i64,
    pub private: bool,
    /// Every announce URL; the first one is the one qBittorrent shows as `tracker` when it works.
    pub trackers: Vec<String>,
    /// `Some(message)` when no tracker works (`tracker` is then "").
    pub tracker_failure: Option<&'static str>,
    pub num_seeds: u64,
    pub num_leechs: u64,
    pub num_complete: u64,
    pub num_incomplete: u64,
    /// File names (relative to the save path) and sizes.
    pub files: Vec<(String, u64)>,
}

impl Torrent {
    pub fn save_path(&self) -> String {
        if self.category.is_empty() {
            "/data/torrents/".to_string()
        } else {
            format!("/data/torrents/{}/", self.category)
        }
    }

    fn ratio(&self) -> f64 {
        if self.downloaded == 0 {
            if self.uploaded == 0 { 0.0 } else { 9999.0 }
        } else {
            ((self.uploaded as f64 / self.downloaded as f64) * 1000.0).round() / 1000.0
        }
    }

    /// The entry `sync/maindata` keys by hash, with the fields qBittorrent 4.6 sends.
    pub fn maindata_entry(&self) -> Value {
        let save_path = self.save_path();
        let complete = self.progress >= 1.0;
        let tracker = if self.tracker_failure.is_some() {
            ""
        } else {
            self.trackers.first().map_or("", String::as_str)
        };
        // Two halves: one json! of 48 fields exceeds the macro recursion limit.
        let mut v = json!({
            "added_on": self.added_on,
            "amount_left": self.size - (self.size as f64 * self.progress) as u64,
            "auto_tmm": true,
            "availability": if complete { -1.0 } else { (self.num_seeds as f64 * 0.9 * 1000.0).round() / 1000.0 },
            "category": self.category,
            "completed": (self.size as f64 * self.progress) as u64,
            "completion_on": self.completion_on,
            "content_path": format!("{save_path}{}", self.name),
            "dl_limit": 0,
            "dlspeed": self.dlspeed,
            "download_path": "",
            "downloaded": self.downloaded,
            "downloaded_session": self.downloaded / 7,
            "eta": self.eta,
            "f_l_piece_prio": false,
            "force_start": self.state.starts_with("forced"),
            "inactive_seeding_time_limit": -2,
            "infohash_v1": self.hash,
            "infohash_v2": "",
            "last_activity": self.last_activity,
            "magnet_uri": self.magnet(),
            "max_inactive_seeding_time": -1,
            "max_ratio": -1,
            "max_seeding_time": -1,
        });
        let rest = json!({
            "name": self.name,
            "num_complete": self.num_complete,
            "num_incomplete": self.num_incomplete,
            "num_leechs": self.num_leechs,
            "num_seeds": self.num_seeds,
            "priority": if complete { 0 } else { 1 },
            "progress": self.progress,
            "ratio": self.ratio(),
            "ratio_limit": -2,
            "save_path": save_path,
            "seeding_time": if complete { (EPOCH - self.completion_on).max(0) } else { 0 },
            "seeding_time_limit": -2,
            "seen_complete": if complete { self.completion_on } else { -3600 },
            "seq_dl": false,
            "size": self.size,
            "state": self.state,
            "super_seeding": false,
            "tags": self.tags,
            "time_active": (EPOCH - self.added_on).max(0),
            "total_size": self.size,
            "tracker": tracker,
            "trackers_count": self.trackers.len(),
            "up_limit": 0,
            "uploaded": self.uploaded,
            "uploaded_session": self.uploaded / 9,
            "upspeed": self.upspeed,
        });
        if let (Value::Object(m), Value::Object(r)) = (&mut v, rest) {
            m.extend(r);
        }
        v
    }

    /// The row `torrents/info` lists: the maindata entry plus its `hash`.
    pub fn info_entry(&self) -> Value {
        let mut v = self.maindata_entry();
        if let Value::Object(m) = &mut v {
            m.insert("hash".into(), Value::String(self.hash.clone()));
        }
        v
    }

    /// `torrents/trackers`: the DHT/PeX/LSD pseudo-trackers, then the real ones.
    pub fn trackers_json(&self) -> Value {
        let pseudo = if self.private { 0 } else { 2 };
        let mut rows: Vec<Value> = ["** [DHT] **", "** [PeX] **", "** [LSD] **"]
            .iter()
            .map(|url| {
                json!({"url": url, "status": pseudo, "tier": -1, "num_peers": 0, "num_seeds": 0,
                       "num_leeches": 0, "num_downloaded": 0,
                       "msg": if self.private { "This torrent is private" } else { "" }})
            })
            .collect();
        for (tier, url) in self.trackers.iter().enumerate() {
            let (status, msg) = match self.tracker_failure {
                Some(m) => (4, m),
                None => (2, ""),
            };
            rows.push(
                json!({"url": url, "status": status, "tier": tier, "num_peers": self.num_leechs,
                "num_seeds": self.num_complete, "num_leeches": self.num_incomplete,
                "num_downloaded": self.num_complete * 3, "msg": msg}),
            );
        }
        Value::Array(rows)
    }

    /// `torrents/properties`.
    pub fn properties_json(&self) -> Value {
        let piece_size: u64 = if self.size > 8_000_000_000 {
            16 << 20
        } else if self.size > 1_000_000_000 {
            4 << 20
        } else {
            1 << 20
        };
        json!({
            "save_path": self.save_path(), "creation_date": self.added_on - 3600,
            "piece_size": piece_size, "comment": if self.private { "Uploaded by the tracker's staff" } else { "" },
            "total_wasted": 0, "total_uploaded": self.uploaded, "total_downloaded": self.downloaded,
            "up_limit": -1, "dl_limit": -1, "time_elapsed": (EPOCH - self.added_on).max(0),
            "seeding_time": if self.progress >= 1.0 { (EPOCH - self.completion_on).max(0) } else { 0 },
            "nb_connections": self.num_seeds + self.num_leechs, "nb_connections_limit": 100,
            "share_ratio": self.ratio(), "addition_date": self.added_on,
            "completion_date": if self.completion_on > 0 { self.completion_on } else { -1 },
            "created_by": "mktorrent 1.1", "dl_speed": self.dlspeed, "up_speed": self.upspeed,
            "eta": self.eta, "last_seen": self.last_activity, "peers": self.num_leechs,
            "seeds": self.num_seeds, "pieces_num": self.size.div_ceil(piece_size),
            "pieces_have": (self.size.div_ceil(piece_size) as f64 * self.progress) as u64,
            "is_private": self.private, "total_size": self.size,
        })
    }

    /// `torrents/files`.
    pub fn files_json(&self) -> Value {
        let rows: Vec<Value> = self
            .files
            .iter()
            .enumerate()
            .map(|(index, (name, size))| {
                json!({"index": index, "name": name, "size": size, "progress": self.progress,
                       "priority": if name.ends_with(".nfo") { 0 } else { 1 }, "is_seed": self.progress >= 1.0,
                       "piece_range": [0, 0], "availability": if self.progress >= 1.0 { -1.0 } else { 1.0 }})
            })
            .collect();
        Value::Array(rows)
    }

    fn magnet(&self) -> String {
        let mut m = format!(
            "magnet:?xt=urn:btih:{}&dn={}",
            self.hash,
            percent(&self.name)
        );
        for t in &self.trackers {
            m.push_str("&tr=");
            m.push_str(&percent(t));
        }
        m
    }
}

fn percent(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// N synthetic torrents from one seed; only their hashes are kept.
#[derive(Debug)]
pub struct Synthetic {
    seed: u64,
    hashes: Vec<String>,
    by_hash: HashMap<String, u32>,
}

impl Synthetic {
    pub fn new(count: usize, seed: u64) -> Synthetic {
        let mut hashes = Vec::with_capacity(count);
        let mut by_hash = HashMap::with_capacity(count);
        let mut n = 0u64;
        while hashes.len() < count {
            let mut r = Rng::new(seed, n, 0x4A54_48A5);
            n += 1;
            let h = format!("{:016x}{:016x}{:08x}", r.next(), r.next(), r.next() as u32);
            // 160 random bits never collide in practice; skip one if it ever did.
            if by_hash.insert(h.clone(), hashes.len() as u32).is_none() {
                hashes.push(h);
            }
        }
        Synthetic {
            seed,
            hashes,
            by_hash,
        }
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The index of a torrent by its hash (either case).
    pub fn find(&self, hash: &str) -> Option<usize> {
        self.by_hash
            .get(&hash.to_ascii_lowercase())
            .map(|&i| i as usize)
    }

    /// Every index ordered by hash, as `torrents/info?sort=hash` lists them.
    pub fn by_hash_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.hashes.len()).collect();
        order.sort_unstable_by(|&a, &b| self.hashes[a].cmp(&self.hashes[b]));
        order
    }

    /// The categories every torrent's category comes from, as `torrents/categories` lists them.
    pub fn categories_json(&self) -> Value {
        let map: Map<String, Value> = KINDS
            .iter()
            .map(|(_, (_, c))| *c)
            .filter(|c| !c.is_empty())
            .map(|c| {
                (
                    c.to_string(),
                    json!({"name": c, "savePath": format!("/data/torrents/{c}")}),
                )
            })
            .collect();
        Value::Object(map)
    }

    pub fn tags_json(&self) -> Value {
        json!(TAGS)
    }

    /// The first `sync/maindata` answer (`full_update`, rid 1) with every torrent.
    pub fn full_maindata(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * 1500 + 4096);
        out.extend_from_slice(br#"{"rid":1,"full_update":true,"torrents":{"#);
        for i in 0..self.len() {
            if i > 0 {
                out.push(b',');
            }
            let t = self.torrent(i);
            out.push(b'"');
            out.extend_from_slice(t.hash.as_bytes());
            out.extend_from_slice(b"\":");
            // Writing a Value into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut out, &t.maindata_entry());
        }
        out.extend_from_slice(br#"},"categories":"#);
        let _ = serde_json::to_writer(&mut out, &self.categories_json());
        out.extend_from_slice(br#","tags":"#);
        let _ = serde_json::to_writer(&mut out, &self.tags_json());
        out.extend_from_slice(br#","server_state":"#);
        let _ = serde_json::to_writer(&mut out, &server_state());
        out.push(b'}');
        out
    }

    /// Torrent `i` (0 <= i < len).
    pub fn torrent(&self, i: usize) -> Torrent {
        let mut r = Rng::new(self.seed, i as u64, 0x7041_17E5);
        let (kind, category) = *r.weighted(&KINDS);
        let state = *r.weighted(&STATES);
        let (name, size, files) = release(&mut r, kind);
        let tags = tags(&mut r, kind);

        let complete = state.ends_with("UP")
            || (matches!(state, "error" | "missingFiles" | "moving") && r.unit() < 0.7);
        let progress = if complete {
            1.0
        } else if state == "metaDL" {
            0.0
        } else {
            (r.unit() * 1000.0).floor() / 1000.0
        };
        let have = (size as f64 * progress) as u64;
        let downloaded = if state == "metaDL" {
            0
        } else {
            have + (have as f64 * r.unit() * 0.02) as u64
        };
        let ratio = if complete {
            r.unit().powi(2) * 6.0
        } else {
            r.unit() * 0.3
        };
        let uploaded = (downloaded as f64 * ratio) as u64;

        let added_on = EPOCH - r.below(3 * 365 * 86_400) as i64;
        let completion_on = if complete {
            added_on + r.below(3 * 86_400) as i64 + 60
        } else {
            0
        };
        let dlspeed = match state {
            "downloading" | "forcedDL" => r.log_between(100e3, 30e6) as u64,
            "metaDL" => r.below(2_000),
            _ => 0,
        };
        let upspeed = match state {
            "uploading" | "forcedUP" => r.log_between(10e3, 10e6) as u64,
            "downloading" | "forcedDL" => r.log_between(1e3, 2e6) as u64,
            _ => 0,
        };
        let eta = if dlspeed > 0 && size > have {
            ((size - have) / dlspeed) as i64
        } else {
            ETA_INFINITE
        };
        let active = dlspeed > 0 || upspeed > 0;
        let last_activity = if active {
            EPOCH - r.below(60) as i64
        } else {
            completion_on.max(added_on) + r.below(30 * 86_400) as i64
        }
        .min(EPOCH);

        let (private, trackers) = trackers(&mut r, kind);
        // Only a torrent that announces can have all its trackers failing; ~3 % of them do.
        let announces = !matches!(
            state,
            "pausedUP" | "pausedDL" | "queuedUP" | "queuedDL" | "checkingUP" | "checkingDL"
        );
        let tracker_failure = (announces && r.below(100) < 3).then(|| *r.pick(&TRACKER_MESSAGES));
        let swarm = r.log_between(1.0, 2_000.0) as u64;
        let num_complete = swarm;
        let num_incomplete = r.below(swarm / 4 + 2);
        let num_seeds = if active {
            r.below(num_complete.min(40) + 1)
        } else {
            0
        };
        let num_leechs = if active {
            r.below(num_incomplete.min(20) + 1)
        } else {
            0
        };
        Torrent {
            hash: self.hashes[i].clone(),
            name,
            state,
            category,
            tags,
            size,
            progress,
            downloaded,
            uploaded,
            dlspeed,
            upspeed,
            eta,
            added_on,
            completion_on,
            last_activity,
            private,
            trackers,
            tracker_failure,
            num_seeds,
            num_leechs,
            num_complete,
            num_incomplete,
            files,
        }
    }
}

/// `server_state` of the first maindata answer.
fn server_state() -> Value {
    json!({
        "alltime_dl": 81_234_567_890_123u64, "alltime_ul": 234_567_890_123_456u64,
        "average_time_queue": 41, "connection_status": "connected", "dht_nodes": 412,
        "dl_info_data": 12_345_678_901u64, "dl_info_speed": 14_500_000, "dl_rate_limit": 0,
        "free_space_on_disk": 3_456_789_012_345u64, "global_ratio": "2.87", "queueing": true,
        "refresh_interval": 1500, "total_peer_connections": 322, "up_info_data": 45_678_901_234u64,
        "up_info_speed": 6_200_000, "up_rate_limit": 0, "use_alt_speed_limits": false,
        "use_subcategories": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_well_formed() {
        let a = Synthetic::new(2_000, 7);
        let b = Synthetic::new(2_000, 7);
        let c = Synthetic::new(2_000, 8);
        assert_eq!(a.torrent(1234).name, b.torrent(1234).name);
        assert_ne!(a.hashes[0], c.hashes[0]);
        let mut categories = std::collections::BTreeSet::new();
        let mut failing = 0;
        for i in 0..a.len() {
            let t = a.torrent(i);
            assert_eq!(t.hash.len(), 40);
            assert!(t.hash.bytes().all(|b| b.is_ascii_hexdigit()));
            assert_eq!(a.find(&t.hash.to_uppercase()), Some(i));
            assert!((0.0..=1.0).contains(&t.progress), "{t:?}");
            assert!(t.size > 0 && t.added_on <= EPOCH, "{t:?}");
            assert!(!t.trackers.is_empty());
            categories.insert(t.category);
            failing += usize::from(t.tracker_failure.is_some());
        }
        assert!(categories.contains("movies") && categories.contains(""));
        assert!(failing > 0 && failing < a.len() / 10, "{failing}");
    }

    #[test]
    fn maindata_parses_and_keys_by_hash() {
        let s = Synthetic::new(300, 1);
        let v: Value = serde_json::from_slice(&s.full_maindata()).unwrap();
        assert_eq!(v["rid"], 1);
        assert_eq!(v["full_update"], true);
        let torrents = v["torrents"].as_object().unwrap();
        assert_eq!(torrents.len(), 300);
        let t = &torrents[&s.hashes[5]];
        assert_eq!(t["name"], s.torrent(5).name);
        assert!(t.get("hash").is_none());
        assert_eq!(
            v["categories"]["movies"]["savePath"],
            "/data/torrents/movies"
        );
        assert_eq!(s.torrent(5).info_entry()["hash"], s.hashes[5]);
        let order = s.by_hash_order();
        assert!(order.windows(2).all(|w| s.hashes[w[0]] < s.hashes[w[1]]));
    }
}
