//! Playlists: one person's ordered list on a media server, owned by their user there (Jellyfin
//! and Emby: created for the user's id with the admin token; Plex: created with the managed
//! user's own token). Created with their items, read as entries, filled and emptied, deleted.
//! Its callers change only playlists Marquee created.

use httpx::reqwest::Method;
use serde::Deserialize;

use crate::{
    Error, MediaClient, Server,
    collections::{joined, one_id},
    core::decode,
};

/// One entry of a playlist: the item, and the entry's own id (what a removal names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub item_id: String,
    pub entry_id: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct JfEntries {
    items: Vec<JfEntry>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct JfEntry {
    id: Option<String>,
    playlist_item_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct JfCreated {
    id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PlexAnswer {
    media_container: PlexItems,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PlexItems {
    #[serde(rename = "Metadata")]
    metadata: Vec<PlexEntry>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct PlexEntry {
    rating_key: Option<String>,
    /// A number in Plex's answers.
    #[serde(rename = "playlistItemID")]
    playlist_item_id: Option<serde_json::Value>,
}

fn text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl MediaClient {
    /// Creates a playlist named `name` for the server's user `user` (by name), holding `items`
    /// in that order: its id.
    pub async fn create_playlist(
        &self,
        user: &str,
        name: &str,
        items: &[String],
    ) -> Result<String, Error> {
        let ids = joined(items)?;
        let created = if self.server() == Server::Plex {
            let token = self.plex_token(user)?.clone();
            let query = [
                ("type", "video".to_owned()),
                ("title", name.to_owned()),
                ("smart", "0".to_owned()),
                ("uri", self.plex_uri(&ids).await?),
            ];
            let bytes = self
                .core
                .write_as(Method::POST, "/playlists", &query, &token)
                .await?;
            let answer: PlexAnswer = decode("POST", "/playlists", &bytes)?;
            answer
                .media_container
                .metadata
                .into_iter()
                .next()
                .and_then(|m| m.rating_key)
        } else {
            let query = [
                ("name", name.to_owned()),
                ("ids", ids),
                ("userId", self.user_id(user).await?),
                ("mediaType", "Video".to_owned()),
            ];
            let bytes = self.core.write(Method::POST, "/Playlists", &query).await?;
            decode::<JfCreated>("POST", "/Playlists", &bytes)?.id
        };
        created.ok_or(Error::Invalid(
            "the server created the playlist but did not name its id".into(),
        ))
    }

    /// The entries of `user`'s playlist, in order. A playlist that is gone is not found.
    pub async fn playlist_entries(&self, user: &str, playlist: &str) -> Result<Vec<Entry>, Error> {
        let playlist = one_id(playlist)?;
        if self.server() == Server::Plex {
            let token = self.plex_token(user)?.clone();
            let path = format!("/playlists/{playlist}/items");
            let answer: PlexAnswer = self.core.get_as(&path, &[], &token).await?;
            return Ok(answer
                .media_container
                .metadata
                .into_iter()
                .filter_map(|m| {
                    Some(Entry {
                        item_id: m.rating_key?,
                        entry_id: text(m.playlist_item_id.as_ref()?)?,
                    })
                })
                .collect());
        }
        let path = format!("/Playlists/{playlist}/Items");
        let query = [("userId", self.user_id(user).await?)];
        let answer: JfEntries = self.core.get(&path, &query).await?;
        Ok(answer
            .items
            .into_iter()
            .filter_map(|e| {
                Some(Entry {
                    item_id: e.id?,
                    entry_id: e.playlist_item_id?,
                })
            })
            .collect())
    }

    /// Adds `items` at the end of `user`'s playlist.
    pub async fn add_to_playlist(
        &self,
        user: &str,
        playlist: &str,
        items: &[String],
    ) -> Result<(), Error> {
        let playlist = one_id(playlist)?;
        let ids = joined(items)?;
        if self.server() == Server::Plex {
            let token = self.plex_token(user)?.clone();
            let path = format!("/playlists/{playlist}/items");
            let query = [("uri", self.plex_uri(&ids).await?)];
            self.core
                .write_as(Method::PUT, &path, &query, &token)
                .await?;
        } else {
            let path = format!("/Playlists/{playlist}/Items");
            let query = [("ids", ids), ("userId", self.user_id(user).await?)];
            self.core.write(Method::POST, &path, &query).await?;
        }
        Ok(())
    }

    /// Takes entries (by their entry ids) out of `user`'s playlist; the items stay.
    pub async fn remove_from_playlist(
        &self,
        user: &str,
        playlist: &str,
        entries: &[String],
    ) -> Result<(), Error> {
        let playlist = one_id(playlist)?;
        let ids = joined(entries)?;
        if self.server() == Server::Plex {
            let token = self.plex_token(user)?.clone();
            for entry in entries {
                let path = format!("/playlists/{playlist}/items/{entry}");
                self.core
                    .write_as(Method::DELETE, &path, &[], &token)
                    .await?;
            }
        } else {
            let path = format!("/Playlists/{playlist}/Items");
            self.core
                .write(Method::DELETE, &path, &[("entryIds", ids)])
                .await?;
        }
        Ok(())
    }

    /// Deletes `user`'s playlist (not its items).
    pub async fn delete_playlist(&self, user: &str, playlist: &str) -> Result<(), Error> {
        let playlist = one_id(playlist)?;
        if self.server() == Server::Plex {
            let token = self.plex_token(user)?.clone();
            let path = format!("/playlists/{playlist}");
            self.core
                .write_as(Method::DELETE, &path, &[], &token)
                .await?;
        } else {
            self.core
                .write(Method::DELETE, &format!("/Items/{playlist}"), &[])
                .await?;
        }
        Ok(())
    }
}
