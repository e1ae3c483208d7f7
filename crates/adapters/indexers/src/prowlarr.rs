//! Prowlarr's API v1: `GET /api/v1/indexer` with `GET /api/v1/indexerstatus` (the indexers,
//! their categories, search parameters and health) and `GET /api/v1/search` of one indexer
//! (`indexerIds`), by free text or by identity in Prowlarr's query tokens (`{ImdbId:tt…}`,
//! `{TvdbId:…}{Season:…}{Episode:…}`). The vendor JSON stays here.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::{
    Category, Error, Indexer, IndexerClient, Link, Protocol, Query, Release, SearchKind,
    clean_text, looks_like_html,
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IndexerResource {
    id: i64,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    enable: bool,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    privacy: Option<String>,
    #[serde(default)]
    capabilities: Option<Capabilities>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Capabilities {
    #[serde(default)]
    categories: Option<Vec<CategoryResource>>,
    #[serde(default)]
    movie_search_params: Option<Vec<String>>,
    #[serde(default)]
    tv_search_params: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CategoryResource {
    id: u32,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    sub_categories: Option<Vec<CategoryResource>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusResource {
    indexer_id: i64,
    #[serde(default)]
    disabled_till: Option<DateTime<Utc>>,
    #[serde(default)]
    most_recent_failure: Option<DateTime<Utc>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReleaseResource {
    #[serde(default)]
    guid: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    size: Option<i64>,
    #[serde(default)]
    indexer_id: Option<i64>,
    #[serde(default)]
    indexer: Option<String>,
    #[serde(default)]
    publish_date: Option<DateTime<Utc>>,
    #[serde(default)]
    download_url: Option<String>,
    #[serde(default)]
    magnet_url: Option<String>,
    #[serde(default)]
    info_hash: Option<String>,
    #[serde(default)]
    seeders: Option<i64>,
    #[serde(default)]
    leechers: Option<i64>,
    #[serde(default)]
    grabs: Option<i64>,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    imdb_id: Option<i64>,
    #[serde(default)]
    tvdb_id: Option<i64>,
    #[serde(default)]
    categories: Option<Vec<CategoryResource>>,
    #[serde(default)]
    indexer_flags: Option<Vec<String>>,
}

fn decode<T: serde::de::DeserializeOwned>(what: &str, body: &[u8]) -> Result<T, Error> {
    if looks_like_html(body) {
        return Err(Error::decode(format!(
            "an HTML page, not Prowlarr's {what}"
        )));
    }
    serde_json::from_slice(body).map_err(|e| {
        Error::decode(format!(
            "Prowlarr's {what} is not the JSON it documents (line {}, column {})",
            e.line(),
            e.column()
        ))
    })
}

fn protocol(p: Option<&str>) -> Protocol {
    match p {
        Some("torrent") => Protocol::Torrent,
        Some("usenet") => Protocol::Usenet,
        _ => Protocol::Unknown,
    }
}

fn flatten(list: Vec<CategoryResource>, out: &mut Vec<Category>) {
    for c in list {
        out.push(Category {
            id: c.id,
            name: c.name.unwrap_or_default(),
        });
        if let Some(sub) = c.sub_categories {
            flatten(sub, out);
        }
    }
}

pub(crate) async fn indexers(client: &IndexerClient) -> Result<Vec<Indexer>, Error> {
    let list: Vec<IndexerResource> =
        decode("indexer list", &client.prowlarr_get("indexer", &[]).await?)?;
    let status: Vec<StatusResource> = decode(
        "indexer status",
        &client.prowlarr_get("indexerstatus", &[]).await?,
    )?;
    Ok(list
        .into_iter()
        .map(|i| {
            let st = status.iter().find(|s| s.indexer_id == i.id);
            let caps = i.capabilities;
            let mut categories = Vec::new();
            let (mut movie, mut tv) = (Vec::new(), Vec::new());
            if let Some(c) = caps {
                flatten(c.categories.unwrap_or_default(), &mut categories);
                movie = c.movie_search_params.unwrap_or_default();
                tv = c.tv_search_params.unwrap_or_default();
            }
            Indexer {
                id: Some(i.id),
                name: i.name.unwrap_or_else(|| format!("indexer {}", i.id)),
                protocol: protocol(i.protocol.as_deref()),
                enabled: i.enable,
                privacy: i.privacy,
                categories,
                movie_params: movie,
                tv_params: tv,
                disabled_till: st.and_then(|s| s.disabled_till),
                most_recent_failure: st.and_then(|s| s.most_recent_failure),
            }
        })
        .collect())
}

/// Prowlarr's query: free text and identity tokens.
fn query_text(q: &Query) -> (String, &'static str) {
    let mut text = String::new();
    let kind = match q.kind {
        SearchKind::Movie => {
            if let Some(imdb) = &q.imdb {
                text.push_str(&format!("{{ImdbId:{imdb}}}"));
            }
            "movie"
        }
        SearchKind::Tv => {
            if let Some(tvdb) = q.tvdb {
                text.push_str(&format!("{{TvdbId:{tvdb}}}"));
            }
            if let Some(s) = q.season {
                text.push_str(&format!("{{Season:{s:02}}}"));
            }
            if let Some(e) = q.episode {
                text.push_str(&format!("{{Episode:{e:02}}}"));
            }
            "tvsearch"
        }
        SearchKind::Any => "search",
    };
    let by_id = q.imdb.is_some() && q.kind == SearchKind::Movie
        || q.tvdb.is_some() && q.kind == SearchKind::Tv;
    if let Some(t) = q.text.as_deref().filter(|t| !t.trim().is_empty())
        && !by_id
    {
        if !text.is_empty() {
            text.insert(0, ' ');
        }
        text.insert_str(0, t.trim());
    }
    (text, kind)
}

pub(crate) async fn search(
    client: &IndexerClient,
    q: &Query,
    indexer: Option<i64>,
) -> Result<Vec<Release>, Error> {
    let (text, kind) = query_text(q);
    let mut params = vec![("query", text), ("type", kind.to_string())];
    if let Some(id) = indexer {
        params.push(("indexerIds", id.to_string()));
    }
    if q.limit > 0 {
        params.push(("limit", q.limit.to_string()));
    }
    let rows: Vec<ReleaseResource> = decode(
        "search answer",
        &client.prowlarr_get("search", &params).await?,
    )?;
    Ok(rows.into_iter().filter_map(release).collect())
}

fn release(r: ReleaseResource) -> Option<Release> {
    let title = r.title.filter(|t| !t.trim().is_empty())?;
    let mut categories = Vec::new();
    flatten(r.categories.unwrap_or_default(), &mut categories);
    let download = r.download_url.filter(|d| !d.is_empty());
    let magnet = r
        .magnet_url
        .filter(|m| m.starts_with("magnet:"))
        .or_else(|| download.clone().filter(|d| d.starts_with("magnet:")));
    let count = |n: Option<i64>| n.and_then(|n| u32::try_from(n).ok());
    Some(Release {
        guid: Link::new(
            r.guid
                .or_else(|| download.clone())
                .unwrap_or_else(|| title.clone()),
        ),
        title,
        indexer: r.indexer.unwrap_or_default(),
        indexer_id: r.indexer_id,
        size: r.size.and_then(|s| u64::try_from(s).ok()),
        seeders: count(r.seeders),
        leechers: count(r.leechers),
        grabs: count(r.grabs),
        published: r.publish_date,
        info_hash: r.info_hash.and_then(|h| h.trim().parse().ok()),
        protocol: protocol(r.protocol.as_deref()),
        download: download
            .filter(|d| !d.starts_with("magnet:"))
            .map(Link::new),
        magnet: magnet.map(Link::new),
        description: None,
        categories: categories.into_iter().map(|c| c.id).collect(),
        tags: r
            .indexer_flags
            .unwrap_or_default()
            .into_iter()
            .map(|f| clean_text(&f))
            .collect(),
        imdb: r.imdb_id.filter(|i| *i > 0).map(|i| format!("tt{i:07}")),
        tvdb: r
            .tvdb_id
            .and_then(|i| u64::try_from(i).ok())
            .filter(|i| *i > 0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_tokens() {
        let q = Query {
            kind: SearchKind::Movie,
            imdb: Some("tt0133093".into()),
            ..Query::default()
        };
        assert_eq!(query_text(&q), ("{ImdbId:tt0133093}".to_string(), "movie"));
        let q = Query {
            kind: SearchKind::Tv,
            tvdb: Some(81189),
            season: Some(1),
            episode: Some(2),
            ..Query::default()
        };
        assert_eq!(
            query_text(&q),
            (
                "{TvdbId:81189}{Season:01}{Episode:02}".to_string(),
                "tvsearch"
            )
        );
        let q = Query {
            text: Some("alien".into()),
            ..Query::default()
        };
        assert_eq!(query_text(&q), ("alien".to_string(), "search"));
    }
}
