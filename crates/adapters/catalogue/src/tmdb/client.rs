//! TMDB's HTTP side: authenticated GETs, status and decode errors, and the cached lists that names
//! resolve against (genres, certifications, watch providers per region).

use std::{collections::HashMap, sync::Arc, time::Duration};

use serde::de::DeserializeOwned;

use super::{Tmdb, TmdbAuth, wire};
use crate::{Error, Result};

/// How long a genre list is kept: genre names resolve every search row and every genre
/// completion, so they are not asked for each time, yet a list TMDB changes is seen within a day.
pub const GENRE_LIST_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// Lists that change rarely, read once per client (genres once per [`GENRE_LIST_LIFETIME`]).
#[derive(Default)]
pub(crate) struct Cache {
    /// Keyed by "movie" / "tv", with when it was read (tokio's clock, so tests can move it).
    genres: HashMap<&'static str, (tokio::time::Instant, Arc<Vec<wire::WGenre>>)>,
    certifications: HashMap<&'static str, Arc<HashMap<String, Vec<wire::WCertification>>>>,
    /// Keyed by ("movie" | "tv", region).
    providers: HashMap<(&'static str, String), Arc<Vec<wire::WProvider>>>,
}

pub(crate) fn backend(error: httpx::Error) -> Error {
    Error::Backend {
        service: "tmdb",
        error,
    }
}

impl Tmdb {
    /// GETs `path` with `query`, authenticated; never logs the key or token.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<T> {
        let url = httpx::join(&self.base_url, path);
        let mut request = self.http.get(url).query(query);
        if let Some(language) = &self.language {
            request = request.query(&[("language", language)]);
        }
        request = match &self.auth {
            TmdbAuth::ApiKey(key) => request.query(&[("api_key", key.expose())]),
            TmdbAuth::ReadToken(token) => request.bearer_auth(token.expose()),
        };
        tracing::debug!(path, "tmdb request");
        crate::http::read_json("tmdb", path, &[429], request.send().await).await
    }

    /// TMDB's genres for "movie" or "tv", kept for [`GENRE_LIST_LIFETIME`]. A failed read is
    /// not kept: the next asker tries again.
    pub(crate) async fn genre_list(&self, kind: &'static str) -> Result<Arc<Vec<wire::WGenre>>> {
        if let Some((at, g)) = self.cache.lock().genres.get(kind)
            && at.elapsed() < GENRE_LIST_LIFETIME
        {
            return Ok(g.clone());
        }
        let list: wire::WGenres = self.get(&format!("genre/{kind}/list"), &[]).await?;
        let list = Arc::new(list.genres);
        let now = tokio::time::Instant::now();
        self.cache.lock().genres.insert(kind, (now, list.clone()));
        Ok(list)
    }

    /// Genre names for ids, by the list of `kind`; an id TMDB does not list is left out.
    pub(crate) async fn genre_names(&self, kind: &'static str, ids: &[u32]) -> Result<Vec<String>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list = self.genre_list(kind).await?;
        Ok(ids
            .iter()
            .filter_map(|id| list.iter().find(|g| g.id == *id).map(|g| g.name.clone()))
            .collect())
    }

    /// TMDB's certifications for "movie" or "tv", by region.
    pub(crate) async fn certification_lists(
        &self,
        kind: &'static str,
    ) -> Result<Arc<HashMap<String, Vec<wire::WCertification>>>> {
        if let Some(c) = self.cache.lock().certifications.get(kind) {
            return Ok(c.clone());
        }
        let list: wire::WCertifications =
            self.get(&format!("certification/{kind}/list"), &[]).await?;
        let list = Arc::new(list.certifications);
        self.cache.lock().certifications.insert(kind, list.clone());
        Ok(list)
    }

    /// Watch providers TMDB lists for "movie" or "tv" in a region.
    pub(crate) async fn provider_list(
        &self,
        kind: &'static str,
        region: &str,
    ) -> Result<Arc<Vec<wire::WProvider>>> {
        let key = (kind, region.to_string());
        if let Some(p) = self.cache.lock().providers.get(&key) {
            return Ok(p.clone());
        }
        let list: wire::WProviders = self
            .get(
                &format!("watch/providers/{kind}"),
                &[("watch_region", region.to_string())],
            )
            .await?;
        let list = Arc::new(list.results);
        self.cache.lock().providers.insert(key, list.clone());
        Ok(list)
    }
}
