//! Interactive release search, typed: the flat row of Radarr, Sonarr up to v4, Lidarr and
//! Readarr, and Sonarr v5's, whose release, parse and decision are nested objects and whose
//! rejections carry a reason code beside their message. Both become one [`Release`], so a v5
//! instance's search reads like a v3 one's. Each row is decoded before redaction (grabbing needs
//! the GUID verbatim), its GUID taken out into a field that never serializes, and only then is the
//! row redacted; no URL field (download, magnet, info, comment) is decoded at all.

use serde::{Deserialize, de::DeserializeOwned};
use serde_json::json;

use crate::{
    Error, Service,
    common::{Named, QualityWrap, quality_name},
    core::Core,
    redact::{Redact, redacted},
    repair::{Release, ReleaseScope},
};

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FlatRow {
    #[serde(default)]
    guid: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    indexer: Option<String>,
    #[serde(default)]
    indexer_id: Option<i64>,
    #[serde(default)]
    size: Option<i64>,
    #[serde(default)]
    age: Option<i64>,
    #[serde(default)]
    seeders: Option<i64>,
    #[serde(default)]
    leechers: Option<i64>,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    quality: Option<QualityWrap>,
    #[serde(default)]
    custom_format_score: Option<i64>,
    #[serde(default)]
    languages: Option<Vec<Named>>,
    #[serde(default)]
    approved: Option<bool>,
    #[serde(default)]
    rejections: Option<Vec<String>>,
}
}

redacted! {
/// Sonarr v5's `ReleaseResource`: what the indexer said, how Sonarr parsed it, what it decided.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct V5Row {
    #[serde(default)]
    release: Option<V5Info>,
    #[serde(default)]
    parsed_info: Option<V5Parsed>,
    #[serde(default)]
    decision: Option<V5Decision>,
    #[serde(default)]
    custom_format_score: Option<i64>,
    #[serde(default)]
    languages: Option<Vec<Named>>,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct V5Info {
    #[serde(default)]
    guid: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    indexer: Option<String>,
    #[serde(default)]
    indexer_id: Option<i64>,
    #[serde(default)]
    size: Option<i64>,
    #[serde(default)]
    age: Option<i64>,
    #[serde(default)]
    seeders: Option<i64>,
    #[serde(default)]
    leechers: Option<i64>,
    #[serde(default)]
    protocol: Option<String>,
}
}

redacted! {
#[derive(Deserialize)]
struct V5Parsed {
    #[serde(default)]
    quality: Option<QualityWrap>,
}
}

redacted! {
#[derive(Deserialize)]
struct V5Decision {
    #[serde(default)]
    approved: Option<bool>,
    #[serde(default)]
    rejections: Option<Vec<V5Rejection>>,
}
}

redacted! {
/// One reason a v5 release is refused: a code (`blocklisted`, `qualityNotWanted`, …) and the
/// sentence v3 gave alone.
#[derive(Deserialize)]
struct V5Rejection {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}
}

fn names(languages: Option<Vec<Named>>) -> Vec<String> {
    languages
        .unwrap_or_default()
        .into_iter()
        .filter_map(|l| l.name)
        .collect()
}

impl FlatRow {
    fn release(mut self, scope: &ReleaseScope) -> Release {
        let guid = self.guid.take().unwrap_or_default();
        self.redact();
        Release {
            title: self.title.unwrap_or_default(),
            indexer: self.indexer.unwrap_or_default(),
            indexer_id: self.indexer_id.unwrap_or_default(),
            size: self.size.unwrap_or_default(),
            age_days: self.age.unwrap_or_default(),
            seeders: self.seeders,
            leechers: self.leechers,
            protocol: self.protocol,
            quality: quality_name(self.quality),
            custom_format_score: self.custom_format_score.unwrap_or_default(),
            languages: names(self.languages),
            approved: self.approved.unwrap_or(false),
            rejections: self.rejections.unwrap_or_default(),
            guid,
            scope: scope.clone(),
        }
    }
}

impl V5Row {
    fn release(mut self, scope: &ReleaseScope) -> Release {
        let guid = self
            .release
            .as_mut()
            .and_then(|r| r.guid.take())
            .unwrap_or_default();
        self.redact();
        let info = self.release.unwrap_or(V5Info {
            guid: None,
            title: None,
            indexer: None,
            indexer_id: None,
            size: None,
            age: None,
            seeders: None,
            leechers: None,
            protocol: None,
        });
        let decision = self.decision.unwrap_or(V5Decision {
            approved: None,
            rejections: None,
        });
        Release {
            title: info.title.unwrap_or_default(),
            indexer: info.indexer.unwrap_or_default(),
            indexer_id: info.indexer_id.unwrap_or_default(),
            size: info.size.unwrap_or_default(),
            age_days: info.age.unwrap_or_default(),
            seeders: info.seeders,
            leechers: info.leechers,
            protocol: info.protocol,
            quality: quality_name(self.parsed_info.and_then(|p| p.quality)),
            custom_format_score: self.custom_format_score.unwrap_or_default(),
            languages: names(self.languages),
            approved: decision.approved.unwrap_or(false),
            rejections: decision
                .rejections
                .unwrap_or_default()
                .into_iter()
                .filter_map(|r| r.message.filter(|m| !m.is_empty()).or(r.reason))
                .collect(),
            guid,
            scope: scope.clone(),
        }
    }
}

/// `GET release?…` for one scope, in the instance's own dialect.
pub(crate) async fn search(
    core: &Core,
    service: Service,
    scope: &ReleaseScope,
) -> Result<Vec<Release>, Error> {
    let query = scope.query(service)?;
    if core.v5().await? {
        let rows: Vec<V5Row> = rows(core, &query).await?;
        return Ok(rows.into_iter().map(|r| r.release(scope)).collect());
    }
    let rows: Vec<FlatRow> = rows(core, &query).await?;
    Ok(rows.into_iter().map(|r| r.release(scope)).collect())
}

async fn rows<T: DeserializeOwned>(core: &Core, query: &[(&str, String)]) -> Result<T, Error> {
    core.get_slow_unredacted("release", query).await
}

/// `POST release {guid, indexerId}`; Sonarr v5 is also told what the search was for
/// (`searchInfo`), so it can find the release again once its search cache has expired.
pub(crate) async fn grab(core: &Core, release: &Release) -> Result<(), Error> {
    let mut body = json!({ "guid": release.guid, "indexerId": release.indexer_id });
    if core.v5().await? {
        body["searchInfo"] = match release.scope {
            ReleaseScope::Episode(id) => json!({ "episodeId": id }),
            ReleaseScope::Season { series_id, season } => {
                json!({ "seriesId": series_id, "seasonNumber": season })
            }
            _ => json!({}),
        };
    }
    let _: serde_json::Value = core.post("release", &body).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> ReleaseScope {
        ReleaseScope::Episode(7)
    }

    #[test]
    fn a_v5_row_reads_like_a_flat_one() {
        let flat: FlatRow = serde_json::from_value(json!({
            "guid": "g-1", "title": "Show.S01E01.1080p", "indexer": "Idx", "indexerId": 2,
            "size": 10, "age": 3, "seeders": 5, "leechers": 1, "protocol": "torrent",
            "quality": {"quality": {"name": "WEBDL-1080p"}}, "customFormatScore": 40,
            "languages": [{"id": 1, "name": "English"}], "approved": false,
            "rejections": ["Release is blocklisted"],
            "downloadUrl": "http://idx/dl?apikey=secret"
        }))
        .unwrap();
        let v5: V5Row = serde_json::from_value(json!({
            "release": {"guid": "g-1", "title": "Show.S01E01.1080p", "indexer": "Idx", "indexerId": 2,
                "size": 10, "age": 3, "seeders": 5, "leechers": 1, "protocol": "torrent",
                "downloadUrl": "http://idx/dl?apikey=secret"},
            "parsedInfo": {"quality": {"quality": {"name": "WEBDL-1080p"}}},
            "decision": {"approved": false, "rejected": true,
                "rejections": [{"reason": "blocklisted", "message": "Release is blocklisted", "type": "permanent"}]},
            "customFormatScore": 40, "languages": [{"id": 1, "name": "English"}]
        }))
        .unwrap();
        let (a, b) = (flat.release(&scope()), v5.release(&scope()));
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::to_value(&b).unwrap()
        );
        assert_eq!(b.rejections, ["Release is blocklisted"]);
        assert_eq!(
            a.reference(b"k", "sonarr", &scope()),
            b.reference(b"k", "sonarr", &scope())
        );
    }

    #[test]
    fn a_v5_rejection_without_a_message_shows_its_reason_code() {
        let v5: V5Row = serde_json::from_value(json!({
            "decision": {"approved": false, "rejections": [{"reason": "qualityNotWanted", "message": ""}]}
        }))
        .unwrap();
        assert_eq!(v5.release(&scope()).rejections, ["qualityNotWanted"]);
    }

    #[test]
    fn a_guid_with_a_key_survives_for_the_grab_and_never_serializes() {
        let v5: V5Row = serde_json::from_value(json!({
            "release": {"guid": "http://idx/g?apikey=abc123", "title": "T"}
        }))
        .unwrap();
        let r = v5.release(&scope());
        assert_eq!(r.guid, "http://idx/g?apikey=abc123");
        assert!(!serde_json::to_string(&r).unwrap().contains("abc123"));
        assert!(!format!("{r:?}").contains("abc123"));
    }
}
