//! Prowlarr's API v1: `GET /api/v1/indexer` with `GET /api/v1/indexerstatus` (the indexers,
//! their categories, search parameters and health) and `GET /api/v1/search` of one indexer
//! (`indexerIds`), by free text or by identity in Prowlarr's query tokens (`{ImdbId:tt…}`,
//! `{TvdbId:…}{Season:…}{Episode:…}`). The vendor JSON stays here.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::{
    Category, Error, Indexer, IndexerClient, Link, Protocol, Query, Release, SearchCaps,
    SearchKind, clean_text, looks_like_html,
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

/// Prowlarr's query: free text and identity tokens, only those the indexer's caps list
/// (`movieSearchParams`, `tvSearchParams`; `None`: not known, every token sent). What the
/// indexer cannot take as a token goes into the free text (the title, "S01E02"), as the
/// Torznab search does.
fn query_text(q: &Query, caps: Option<&SearchCaps>) -> (String, &'static str) {
    let takes = |params: Option<&[String]>, p: &str| {
        params.is_none_or(|list| list.iter().any(|x| x.eq_ignore_ascii_case(p)))
    };
    let mut tokens = String::new();
    let mut tail = String::new();
    let mut by_id = false;
    let kind = match q.kind {
        SearchKind::Movie => {
            if let Some(imdb) = &q.imdb
                && takes(caps.map(|c| c.movie.as_slice()), "imdbid")
            {
                tokens.push_str(&format!("{{ImdbId:{imdb}}}"));
                by_id = true;
            }
            "movie"
        }
        SearchKind::Tv => {
            let params = caps.map(|c| c.tv.as_slice());
            if let Some(tvdb) = q.tvdb
                && takes(params, "tvdbid")
            {
                tokens.push_str(&format!("{{TvdbId:{tvdb}}}"));
                by_id = true;
            }
            let (season, ep) = (takes(params, "season"), takes(params, "ep"));
            match (q.season, q.episode) {
                (Some(s), Some(e)) if season && ep => {
                    tokens.push_str(&format!("{{Season:{s:02}}}{{Episode:{e:02}}}"));
                }
                (Some(s), None) if season => tokens.push_str(&format!("{{Season:{s:02}}}")),
                (Some(s), e) => {
                    tail = format!("S{s:02}");
                    if let Some(e) = e {
                        tail.push_str(&format!("E{e:02}"));
                    }
                }
                (None, _) => {}
            }
            "tvsearch"
        }
        SearchKind::Any => "search",
    };
    let mut words: Vec<&str> = Vec::new();
    if !by_id && let Some(t) = q.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        words.push(t);
    }
    if !tail.is_empty() {
        words.push(&tail);
    }
    if !tokens.is_empty() {
        words.push(&tokens);
    }
    (words.join(" "), kind)
}

pub(crate) async fn search(
    client: &IndexerClient,
    q: &Query,
    indexer: Option<i64>,
    caps: Option<&SearchCaps>,
) -> Result<Vec<Release>, Error> {
    let (text, kind) = query_text(q, caps);
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
        assert_eq!(
            query_text(&q, None),
            ("{ImdbId:tt0133093}".to_string(), "movie")
        );
        let q = Query {
            kind: SearchKind::Tv,
            tvdb: Some(81189),
            season: Some(1),
            episode: Some(2),
            ..Query::default()
        };
        assert_eq!(
            query_text(&q, None),
            (
                "{TvdbId:81189}{Season:01}{Episode:02}".to_string(),
                "tvsearch"
            )
        );
        let q = Query {
            text: Some("alien".into()),
            ..Query::default()
        };
        assert_eq!(query_text(&q, None), ("alien".to_string(), "search"));
    }

    #[test]
    fn an_identity_the_indexers_caps_do_not_list_is_asked_as_its_title() {
        let words = |list: &[&str]| list.iter().map(|s| s.to_string()).collect();
        let plain = SearchCaps {
            movie: words(&["q"]),
            tv: words(&["q", "season"]),
        };
        let q = Query {
            kind: SearchKind::Movie,
            text: Some("The Matrix 1999".into()),
            imdb: Some("tt0133093".into()),
            ..Query::default()
        };
        assert_eq!(
            query_text(&q, Some(&plain)),
            ("The Matrix 1999".to_string(), "movie")
        );
        let full = SearchCaps {
            movie: words(&["q", "imdbId"]),
            tv: words(&["q", "season", "ep", "tvdbId"]),
        };
        assert_eq!(
            query_text(&q, Some(&full)),
            ("{ImdbId:tt0133093}".to_string(), "movie")
        );
        let q = Query {
            kind: SearchKind::Tv,
            text: Some("The Wire".into()),
            tvdb: Some(79126),
            season: Some(1),
            episode: Some(2),
            ..Query::default()
        };
        // No TVDB id and no episode parameter: the title and S01E02 in words.
        assert_eq!(
            query_text(&q, Some(&plain)),
            ("The Wire S01E02".to_string(), "tvsearch")
        );
        assert_eq!(
            query_text(&q, Some(&full)),
            (
                "{TvdbId:79126}{Season:01}{Episode:02}".to_string(),
                "tvsearch"
            )
        );
    }
}
