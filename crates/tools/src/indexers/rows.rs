//! Release rows as `search_indexers` shows them: recognised with the `recognize` crate
//! (resolution, source, codecs, group), checked against the identity asked, merged by info
//! hash (the best-seeded copy stays, the others' indexers are named), filtered (AND) and
//! sorted. No row carries a download link, magnet, GUID or key.

use std::collections::HashMap;

use adapters_indexers::{Protocol, Release};
use chrono::{DateTime, Utc};
use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

use super::{filters::Sort, identity::Wanted};

/// One row of an answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Row {
    /// Pass to grab_release with a download_instance_id (torrent rows only; absent when the
    /// row cannot be grabbed here).
    pub release_ref: Option<String>,
    pub title: String,
    /// The indexer, as list_indexers and the `indexers` filter name it.
    pub indexer: String,
    pub indexer_name: String,
    /// Other indexers that answered the same torrent (same info hash).
    pub also_on: Vec<String>,
    /// torrent, usenet or unknown.
    pub protocol: &'static str,
    /// Whether grab_release can add it to a download client (a torrent with a link or magnet).
    pub grabbable: bool,
    pub size_bytes: Option<u64>,
    pub seeders: Option<u32>,
    pub leechers: Option<u32>,
    pub grabs: Option<u32>,
    /// When the indexer says it was published (RFC 3339).
    pub published: Option<String>,
    pub age_days: Option<i64>,
    pub info_hash: Option<String>,
    /// Recognised from the title: "1080p", "2160p", ...
    pub resolution: Option<String>,
    pub source: Option<&'static str>,
    pub video_codec: Option<&'static str>,
    pub audio_codec: Vec<&'static str>,
    pub release_group: Option<String>,
    /// Whether the row is the title asked for (absent for a free-text search).
    pub matches_identity: Option<bool>,
    /// Why it seems to be another title.
    pub mismatch: Option<String>,
    pub categories: Vec<u32>,
    pub tags: Vec<String>,
}

/// A row with what stays inside: the release (links and all) and what filters read.
pub(crate) struct Found {
    pub row: Row,
    pub release: Release,
    published: Option<DateTime<Utc>>,
    /// Title, description and tags, for `content_pattern`.
    content: String,
}

/// Recognises `release` from the indexer `key` (`name`) against `wanted`.
pub(crate) fn found(release: Release, key: &str, name: &str, wanted: Option<&Wanted>) -> Found {
    let r = recognize::recognize(&release.title);
    let mismatch = wanted
        .and_then(|w| super::identity::mismatch(w, &r, release.imdb.as_deref(), release.tvdb));
    let grabbable = release.protocol == Protocol::Torrent
        && (release.magnet.is_some() || release.download.is_some());
    let now = Utc::now();
    let content = format!(
        "{}\n{}\n{}",
        release.title,
        release.description.as_deref().unwrap_or(""),
        release.tags.join("\n")
    );
    Found {
        row: Row {
            release_ref: None,
            title: release.title.clone(),
            indexer: key.to_string(),
            indexer_name: if release.indexer.is_empty() {
                name.to_string()
            } else {
                release.indexer.clone()
            },
            also_on: Vec::new(),
            protocol: release.protocol.as_str(),
            grabbable,
            size_bytes: release.size,
            seeders: release.seeders,
            leechers: release.leechers,
            grabs: release.grabs,
            published: release.published.map(|p| p.to_rfc3339()),
            age_days: release.published.map(|p| (now - p).num_days().max(0)),
            info_hash: release.info_hash.map(|h| h.to_hex()),
            resolution: r.screen_size.clone(),
            source: r.source,
            video_codec: r.video_codec,
            audio_codec: r.audio_codec.clone(),
            release_group: r.release_group.clone(),
            matches_identity: wanted.map(|_| mismatch.is_none()),
            mismatch,
            categories: release.categories.clone(),
            tags: release.tags.clone(),
        },
        published: release.published,
        release,
        content,
    }
}

/// Merges rows of one torrent (same info hash): the best-seeded stays and names the others'
/// indexers. Answers how many were merged.
pub(crate) fn dedupe(rows: &mut Vec<Found>) -> usize {
    let before = rows.len();
    let mut best: HashMap<String, usize> = HashMap::new();
    let mut keep: Vec<Found> = Vec::with_capacity(rows.len());
    for f in rows.drain(..) {
        let Some(hash) = f.row.info_hash.clone() else {
            keep.push(f);
            continue;
        };
        match best.get(&hash) {
            None => {
                best.insert(hash, keep.len());
                keep.push(f);
            }
            Some(&i) => {
                let kept = &mut keep[i];
                let other = f.row.indexer.clone();
                if f.row.seeders.unwrap_or(0) > kept.row.seeders.unwrap_or(0) {
                    let mut also = std::mem::take(&mut kept.row.also_on);
                    also.push(kept.row.indexer.clone());
                    *kept = f;
                    kept.row.also_on = also;
                } else if !kept.row.also_on.contains(&other) && kept.row.indexer != other {
                    kept.row.also_on.push(other);
                }
            }
        }
    }
    *rows = keep;
    before - rows.len()
}

/// The filters of one search, all of which a row must pass.
#[derive(Default)]
pub(crate) struct Filter {
    pub resolution: Option<&'static str>,
    pub min_size: Option<u64>,
    pub max_size: Option<u64>,
    pub min_seeders: Option<u32>,
    pub title: Option<Regex>,
    pub content: Option<Regex>,
}

impl Filter {
    pub(crate) fn keeps(&self, f: &Found) -> bool {
        let r = &f.row;
        self.resolution
            .is_none_or(|want| r.resolution.as_deref() == Some(want))
            && self
                .min_size
                .is_none_or(|min| r.size_bytes.is_some_and(|s| s >= min))
            && self
                .max_size
                .is_none_or(|max| r.size_bytes.is_some_and(|s| s <= max))
            && self
                .min_seeders
                .is_none_or(|min| r.seeders.is_some_and(|s| s >= min))
            && self.title.as_ref().is_none_or(|re| re.is_match(&r.title))
            && self
                .content
                .as_ref()
                .is_none_or(|re| re.is_match(&f.content))
    }
}

/// Orders rows: the identity's own first, then by `sort` (unknowns last), then title.
pub(crate) fn sort(rows: &mut [Found], by: Sort) {
    rows.sort_by(|a, b| {
        let (x, y) = (&a.row, &b.row);
        let matched = |r: &Row| r.matches_identity == Some(false);
        matched(x)
            .cmp(&matched(y))
            .then_with(|| match by {
                Sort::Seeders => y.seeders.cmp(&x.seeders),
                Sort::Size => y.size_bytes.cmp(&x.size_bytes),
                Sort::Age => b.published.cmp(&a.published),
            })
            .then_with(|| x.title.cmp(&y.title))
    });
}

#[cfg(test)]
mod tests {
    use adapters_indexers::Link;

    use super::*;

    fn release(title: &str, hash: Option<&str>, seeders: u32) -> Release {
        Release {
            title: title.into(),
            guid: Link::new("g"),
            indexer: String::new(),
            indexer_id: None,
            size: Some(1_000),
            seeders: Some(seeders),
            leechers: None,
            grabs: None,
            published: None,
            info_hash: hash.map(|h| h.parse().unwrap()),
            protocol: Protocol::Torrent,
            download: Some(Link::new("http://x/1")),
            magnet: None,
            description: None,
            categories: vec![],
            tags: vec![],
            imdb: None,
            tvdb: None,
        }
    }

    #[test]
    fn one_torrent_on_two_indexers_is_one_row() {
        let h = "0123456789abcdef0123456789abcdef01234567";
        let mut rows = vec![
            found(release("A.2000.1080p-G", Some(h), 5), "a", "A", None),
            found(release("A.2000.1080p-G", Some(h), 9), "b", "B", None),
            found(release("A.2000.720p-G", None, 1), "a", "A", None),
        ];
        assert_eq!(dedupe(&mut rows), 1);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].row.indexer, "b");
        assert_eq!(rows[0].row.also_on, vec!["a".to_string()]);
        assert_eq!(rows[0].row.resolution.as_deref(), Some("1080p"));
    }
}
