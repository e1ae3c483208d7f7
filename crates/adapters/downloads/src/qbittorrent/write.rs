//! qBittorrent writes. Hashes the client does not have are never sent (see [`BulkOutcome`]).

use std::collections::BTreeSet;

use domain::InfoHash;

use super::{
    api::join_hashes,
    client::{Effect, QbClient},
};
use crate::{
    error::{Error, Result},
    model::BulkOutcome,
};

/// Keeps the first of each hash, in order.
pub(crate) fn dedup(hashes: &[InfoHash]) -> Vec<InfoHash> {
    let mut seen = std::collections::HashSet::new();
    hashes.iter().copied().filter(|h| seen.insert(*h)).collect()
}

/// Tag names go comma-separated over the wire, so a comma cannot be part of one.
pub(crate) fn check_tags(tags: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for t in tags {
        let t = t.trim();
        if t.is_empty() || t.contains(',') {
            return Err(Error::invalid(format!(
                "tag \"{t}\" must be non-empty and contain no comma"
            )));
        }
        if !out.iter().any(|o: &String| o == t) {
            out.push(t.to_string());
        }
    }
    Ok(out)
}

impl QbClient {
    /// Which of `hashes` the client has, in the order given.
    pub async fn existing(&self, hashes: &[InfoHash]) -> Result<Vec<InfoHash>> {
        let have: BTreeSet<InfoHash> = self
            .torrents(hashes)
            .await?
            .into_iter()
            .map(|t| t.info_hash)
            .collect();
        Ok(dedup(hashes)
            .into_iter()
            .filter(|h| have.contains(h))
            .collect())
    }

    async fn split(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        let done = self.existing(hashes).await?;
        let not_found = dedup(hashes)
            .into_iter()
            .filter(|h| !done.contains(h))
            .collect();
        Ok(BulkOutcome { done, not_found })
    }

    async fn post(&self, effect: Effect, path: &str, form: &[(&str, String)]) -> Result<String> {
        let url = self.url(path);
        self.send(effect, |c| c.post(url.clone()).form(form)).await
    }

    /// Posts `hashes=` (the known ones) plus `extra` to `path`.
    async fn bulk(
        &self,
        hashes: &[InfoHash],
        effect: Effect,
        path: &str,
        extra: &[(&str, String)],
    ) -> Result<BulkOutcome> {
        let outcome = self.split(hashes).await?;
        if outcome.done.is_empty() {
            return Ok(outcome);
        }
        let mut form = vec![("hashes", join_hashes(&outcome.done))];
        form.extend(extra.iter().cloned());
        self.post(effect, path, &form).await?;
        Ok(outcome)
    }

    /// `torrents/pause` before WebAPI 2.11, `torrents/stop` from it.
    pub async fn pause(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        let path = if self.api_version().await?.uses_stop_start() {
            "torrents/stop"
        } else {
            "torrents/pause"
        };
        self.bulk(hashes, Effect::Write, path, &[]).await
    }

    pub async fn resume(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        let path = if self.api_version().await?.uses_stop_start() {
            "torrents/start"
        } else {
            "torrents/resume"
        };
        self.bulk(hashes, Effect::Write, path, &[]).await
    }

    pub async fn recheck(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        self.bulk(hashes, Effect::Write, "torrents/recheck", &[])
            .await
    }

    pub async fn reannounce(&self, hashes: &[InfoHash]) -> Result<BulkOutcome> {
        self.bulk(hashes, Effect::Write, "torrents/reannounce", &[])
            .await
    }

    /// Sets (or with `None` clears) the category. An unknown category is refused, naming the valid ones.
    pub async fn set_category(
        &self,
        hashes: &[InfoHash],
        category: Option<&str>,
    ) -> Result<BulkOutcome> {
        let name = category.unwrap_or("").to_string();
        match self
            .bulk(
                hashes,
                Effect::Write,
                "torrents/setCategory",
                &[("category", name.clone())],
            )
            .await
        {
            Err(Error::Refused { .. }) if !name.is_empty() => {
                Err(self.unknown_category(&name).await)
            }
            other => other,
        }
    }

    /// Files the torrents under `category` (which must exist) and then turns on Automatic Torrent
    /// Management for them (`torrents/setAutoManagement`), so qBittorrent itself moves their
    /// data into the category's save path (without an explicit one, `<default save
    /// path>/<category>`). The move happens in the background after this returns. Only the
    /// hashes the client has are sent, to both endpoints.
    pub async fn move_to_category(
        &self,
        hashes: &[InfoHash],
        category: &str,
    ) -> Result<BulkOutcome> {
        if category.is_empty() {
            return Err(Error::invalid(
                "moving needs a category; an empty one would only clear it",
            ));
        }
        let outcome = self.set_category(hashes, Some(category)).await?;
        if !outcome.done.is_empty() {
            let form = [
                ("hashes", join_hashes(&outcome.done)),
                ("enable", "true".to_string()),
            ];
            self.post(Effect::Write, "torrents/setAutoManagement", &form)
                .await?;
        }
        Ok(outcome)
    }

    async fn unknown_category(&self, name: &str) -> Error {
        let valid = match self.categories().await {
            Ok(c) if c.items.is_empty() => "none".to_string(),
            Ok(c) => c
                .items
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            Err(e) => return e,
        };
        Error::Refused {
            detail: format!("unknown category \"{name}\"; this instance has: {valid}"),
        }
    }

    pub async fn add_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        let tags = check_tags(tags)?;
        if tags.is_empty() {
            return self.split(hashes).await;
        }
        self.bulk(
            hashes,
            Effect::Write,
            "torrents/addTags",
            &[("tags", tags.join(","))],
        )
        .await
    }

    pub async fn remove_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        let tags = check_tags(tags)?;
        // An empty `tags` would remove every tag: never send one.
        if tags.is_empty() {
            return self.split(hashes).await;
        }
        self.bulk(
            hashes,
            Effect::Write,
            "torrents/removeTags",
            &[("tags", tags.join(","))],
        )
        .await
    }

    /// Replaces the tags: removes the ones not wanted, then adds the wanted ones.
    pub async fn set_tags(&self, hashes: &[InfoHash], tags: &[String]) -> Result<BulkOutcome> {
        let wanted = check_tags(tags)?;
        let current = self.torrents(&dedup(hashes)).await?;
        let unwanted: BTreeSet<String> = current
            .iter()
            .flat_map(|t| t.tags.iter().map(|s| s.to_string()))
            .filter(|t| !wanted.contains(t))
            .collect();
        let unwanted: Vec<String> = unwanted.into_iter().collect();
        let outcome = self.remove_tags(hashes, &unwanted).await?;
        if !wanted.is_empty() {
            self.add_tags(&outcome.done, &wanted).await?;
        }
        Ok(outcome)
    }

    /// Removes torrents, with their downloaded data when `delete_files`.
    pub async fn delete(&self, hashes: &[InfoHash], delete_files: bool) -> Result<BulkOutcome> {
        self.bulk(
            hashes,
            Effect::Write,
            "torrents/delete",
            &[("deleteFiles", delete_files.to_string())],
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_tags() {
        assert_eq!(
            check_tags(&["a".into(), " a ".into(), "b".into()]).unwrap(),
            vec!["a", "b"]
        );
        assert!(check_tags(&["a,b".into()]).is_err());
        assert!(check_tags(&["".into()]).is_err());
    }
}
