//! qBittorrent reads: version, maindata, torrent lists (paged), categories, tags, free space.

use domain::InfoHash;
use serde::Deserialize;

use super::{
    client::{Effect, QbClient},
    sync::{MainData, QbTorrent},
};
use crate::{
    error::{Error, Result},
    intern::Interner,
    model::{Categories, Category, CategoryModel, ClientVersion, Torrent},
};

/// Rows per `torrents/info` page when listing everything.
const PAGE: usize = 1000;
/// Hashes per `torrents/info?hashes=` request.
const HASHES_PER_GET: usize = 50;

pub(crate) fn join_hashes(hashes: &[InfoHash]) -> String {
    hashes
        .iter()
        .map(InfoHash::to_hex)
        .collect::<Vec<_>>()
        .join("|")
}

pub(crate) fn parse<'a, T: Deserialize<'a>>(what: &str, body: &'a str) -> Result<T> {
    serde_json::from_str(body).map_err(|e| Error::decode(what, e))
}

impl QbClient {
    pub async fn version(&self) -> Result<ClientVersion> {
        let api = self.api_version().await?;
        let app = self
            .send(Effect::Read, |c| c.get(self.url("app/version")))
            .await?;
        Ok(ClientVersion {
            app: app.trim().to_string(),
            api: api.to_string(),
        })
    }

    /// One `sync/maindata` answer after `rid` (0 = everything), parsed as it arrives.
    pub async fn maindata(&self, rid: u64) -> Result<MainData> {
        self.maindata_counted(rid, None).await
    }

    /// [`QbClient::maindata`], telling `on_read` how many torrents are parsed so far.
    pub(crate) async fn maindata_counted(
        &self,
        rid: u64,
        on_read: Option<&(dyn Fn(usize) + Send + Sync)>,
    ) -> Result<MainData> {
        let resp = self
            .send_streamed(|c| c.get(self.url("sync/maindata")).query(&[("rid", rid)]))
            .await?;
        super::stream::parse_response(resp, on_read).await
    }

    /// One page of `torrents/info`, sorted by hash. Beware: on some versions an offset past the
    /// end wraps around to the first rows; [`QbClient::list_torrents`] handles that.
    pub async fn torrents_page(&self, limit: usize, offset: usize) -> Result<Vec<QbTorrent>> {
        let q = [
            ("sort", "hash".to_string()),
            ("limit", limit.to_string()),
            ("offset", offset.to_string()),
        ];
        let body = self
            .send(Effect::Read, |c| c.get(self.url("torrents/info")).query(&q))
            .await?;
        parse("torrents/info", &body)
    }

    /// Every torrent, paged by `page` rows; stops at a short page or when a page wraps around.
    pub async fn list_torrents_paged(&self, page: usize) -> Result<Vec<Torrent>> {
        let page = page.max(1);
        let mut interner = Interner::default();
        let mut out: Vec<Torrent> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        loop {
            let rows = self.torrents_page(page, out.len()).await?;
            let full = rows.len() == page;
            let mut fresh = 0;
            for row in &rows {
                let t = row.to_torrent(&mut interner)?;
                if seen.insert(t.info_hash) {
                    out.push(t);
                    fresh += 1;
                }
            }
            // A wrapped page repeats rows already seen: the list is complete.
            if !full || fresh < rows.len() || rows.is_empty() {
                return Ok(out);
            }
        }
    }

    pub async fn list_torrents(&self) -> Result<Vec<Torrent>> {
        self.list_torrents_paged(PAGE).await
    }

    /// The rows of these torrents (the ones the client has).
    pub async fn torrents(&self, hashes: &[InfoHash]) -> Result<Vec<Torrent>> {
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        let mut interner = Interner::default();
        let mut out = Vec::with_capacity(hashes.len());
        // The hashes travel in the query string: keep each URL well under 4 KB.
        for chunk in hashes.chunks(HASHES_PER_GET) {
            let joined = join_hashes(chunk);
            let body = self
                .send(Effect::Read, |c| {
                    c.get(self.url("torrents/info"))
                        .query(&[("hashes", joined.as_str())])
                })
                .await?;
            let rows: Vec<QbTorrent> = parse("torrents/info", &body)?;
            for r in &rows {
                out.push(r.to_torrent(&mut interner)?);
            }
        }
        Ok(out)
    }

    pub(crate) async fn one(&self, hash: InfoHash) -> Result<Torrent> {
        self.torrents(&[hash])
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| not_found(hash))
    }

    pub async fn categories(&self) -> Result<Categories> {
        let body = self
            .send(Effect::Read, |c| c.get(self.url("torrents/categories")))
            .await?;
        let map: std::collections::BTreeMap<String, super::sync::QbCategory> =
            parse("torrents/categories", &body)?;
        let items = map
            .into_iter()
            .map(|(name, c)| Category {
                name,
                save_path: c.save_path.filter(|p| !p.is_empty()),
            })
            .collect();
        Ok(Categories {
            model: CategoryModel::Native,
            items,
        })
    }

    /// `app/defaultSavePath`: the folder torrents are saved in when nothing else is named.
    pub async fn default_save_path(&self) -> Result<String> {
        let body = self
            .send(Effect::Read, |c| c.get(self.url("app/defaultSavePath")))
            .await?;
        let path = body.trim();
        if path.is_empty() {
            return Err(Error::decode("app/defaultSavePath", "an empty path"));
        }
        Ok(path.to_string())
    }

    pub async fn tags(&self) -> Result<Vec<String>> {
        let body = self
            .send(Effect::Read, |c| c.get(self.url("torrents/tags")))
            .await?;
        parse("torrents/tags", &body)
    }

    pub async fn free_space(&self) -> Result<Option<u64>> {
        let md = self.maindata(0).await?;
        Ok(md
            .server_state
            .and_then(|s| s.free_space_on_disk)
            .map(|v| v.max(0) as u64))
    }
}

pub(crate) fn not_found(hash: InfoHash) -> Error {
    Error::NotFound {
        what: format!("torrent {hash}"),
    }
}
