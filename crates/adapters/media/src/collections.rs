//! The libraries a media server shows and the collections it keeps (Jellyfin and Emby box
//! sets, Plex collections): read, created with their items, filled and emptied, ordered, given
//! a poster, deleted. With `playlists.rs`, the only writes this adapter makes; its callers
//! change only collections and playlists Marquee created.

use httpx::reqwest::Method;
use serde::Deserialize;

use crate::{Error, MediaClient, Server, core::decode};

/// A library (Jellyfin and Emby: a virtual folder; Plex: a section).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Library {
    pub id: String,
    pub name: String,
    /// `movies`, `shows`, or what else the server calls it (`music`, `boxsets`, ...).
    pub kind: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct VirtualFolder {
    name: Option<String>,
    item_id: Option<String>,
    collection_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Created {
    id: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct Children {
    items: Vec<Child>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase", default)]
struct Child {
    id: Option<String>,
    #[serde(rename = "Type")]
    kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PlexAnswer {
    media_container: PlexContainer,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct PlexContainer {
    machine_identifier: Option<String>,
    #[serde(rename = "Directory")]
    directory: Vec<PlexDirectory>,
    #[serde(rename = "Metadata")]
    metadata: Vec<PlexMetadata>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct PlexDirectory {
    key: Option<String>,
    title: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct PlexMetadata {
    rating_key: Option<String>,
    thumb: Option<String>,
}

/// How a collection orders its titles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Oldest first.
    Release,
    Title,
}

/// The largest poster copied.
const MAX_IMAGE: usize = 10 * 1024 * 1024;

/// An image's type from its first bytes (servers answer JPEG or PNG posters).
fn image_type(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(b"\x89PNG") {
        "image/png"
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        "image/webp"
    } else {
        "image/jpeg"
    }
}

/// Ids as one comma-separated parameter, each checked to be an id and not a path or a list.
pub(crate) fn joined(ids: &[String]) -> Result<String, Error> {
    if let Some(bad) = ids.iter().find(|id| !is_id(id)) {
        return Err(Error::Invalid(format!(
            "\"{}\" is not a media server item id",
            bad.chars().take(64).collect::<String>()
        )));
    }
    Ok(ids.join(","))
}

fn is_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

pub(crate) fn one_id(id: &str) -> Result<&str, Error> {
    joined(&[id.to_owned()])?;
    Ok(id)
}

impl MediaClient {
    /// The server's libraries.
    pub async fn libraries(&self) -> Result<Vec<Library>, Error> {
        if self.server() == Server::Plex {
            let answer: PlexAnswer = self.core.get("/library/sections/all", &[]).await?;
            return Ok(answer
                .media_container
                .directory
                .into_iter()
                .filter_map(|d| {
                    let kind = match d.kind.as_deref() {
                        Some("movie") => "movies".to_owned(),
                        Some("show") => "shows".to_owned(),
                        other => other.unwrap_or("").to_owned(),
                    };
                    Some(Library {
                        id: d.key?,
                        name: d.title.unwrap_or_default(),
                        kind,
                    })
                })
                .collect());
        }
        let folders: Vec<VirtualFolder> = self.core.get("/Library/VirtualFolders", &[]).await?;
        Ok(folders
            .into_iter()
            .filter_map(|f| {
                let kind = match f.collection_type.as_deref() {
                    Some("tvshows") => "shows".to_owned(),
                    other => other.unwrap_or("").to_owned(),
                };
                Some(Library {
                    id: f.item_id?,
                    name: f.name.unwrap_or_default(),
                    kind,
                })
            })
            .collect())
    }

    /// The item ids in a collection.
    pub async fn collection_items(&self, collection: &str) -> Result<Vec<String>, Error> {
        let collection = one_id(collection)?;
        if self.server() == Server::Plex {
            let path = format!("/library/collections/{collection}/items");
            let answer: PlexAnswer = self.core.get(&path, &[]).await?;
            return Ok(answer
                .media_container
                .metadata
                .into_iter()
                .filter_map(|m| m.rating_key)
                .collect());
        }
        // The collection itself first: one that is gone is not found, never an empty list.
        let item: Child = self.core.get(&format!("/Items/{collection}"), &[]).await?;
        if item.kind.as_deref() != Some("BoxSet") {
            return Err(Error::Invalid(format!(
                "the item {collection} is not a collection"
            )));
        }
        let query = [("parentId", collection.to_owned())];
        let children: Children = self.core.get("/Items", &query).await?;
        Ok(children.items.into_iter().filter_map(|c| c.id).collect())
    }

    /// Creates a collection named `name` in `library` holding `items`: its id.
    pub async fn create_collection(
        &self,
        library: &Library,
        name: &str,
        items: &[String],
    ) -> Result<String, Error> {
        let ids = joined(items)?;
        let created = if self.server() == Server::Plex {
            let kind = if library.kind == "shows" { "2" } else { "1" };
            let query = [
                ("type", kind.to_owned()),
                ("title", name.to_owned()),
                ("smart", "0".to_owned()),
                ("sectionId", one_id(&library.id)?.to_owned()),
                ("uri", self.plex_uri(&ids).await?),
            ];
            let path = "/library/collections";
            let bytes = self.core.write(Method::POST, path, &query).await?;
            let answer: PlexAnswer = decode("POST", path, &bytes)?;
            answer
                .media_container
                .metadata
                .into_iter()
                .next()
                .and_then(|m| m.rating_key)
        } else {
            let query = [("name", name.to_owned()), ("ids", ids)];
            let bytes = self
                .core
                .write(Method::POST, "/Collections", &query)
                .await?;
            decode::<Created>("POST", "/Collections", &bytes)?.id
        };
        created.ok_or(Error::Invalid(
            "the server created the collection but did not name its id".into(),
        ))
    }

    /// Adds `items` to a collection.
    pub async fn add_to_collection(&self, collection: &str, items: &[String]) -> Result<(), Error> {
        let collection = one_id(collection)?;
        let ids = joined(items)?;
        if self.server() == Server::Plex {
            let path = format!("/library/collections/{collection}/items");
            let query = [("uri", self.plex_uri(&ids).await?)];
            self.core.write(Method::PUT, &path, &query).await?;
        } else {
            let path = format!("/Collections/{collection}/Items");
            self.core
                .write(Method::POST, &path, &[("ids", ids)])
                .await?;
        }
        Ok(())
    }

    /// Takes `items` out of a collection (the items themselves stay in the library).
    pub async fn remove_from_collection(
        &self,
        collection: &str,
        items: &[String],
    ) -> Result<(), Error> {
        let collection = one_id(collection)?;
        let ids = joined(items)?;
        if self.server() == Server::Plex {
            for item in items {
                let path = format!("/library/collections/{collection}/items/{item}");
                self.core.write(Method::PUT, &path, &[]).await?;
            }
        } else {
            let path = format!("/Collections/{collection}/Items");
            self.core
                .write(Method::DELETE, &path, &[("ids", ids)])
                .await?;
        }
        Ok(())
    }

    /// Deletes a collection (not its items) from `library`.
    pub async fn delete_collection(
        &self,
        library: &Library,
        collection: &str,
    ) -> Result<(), Error> {
        let collection = one_id(collection)?;
        let path = if self.server() == Server::Plex {
            let section = one_id(&library.id)?;
            format!("/library/sections/{section}/collection/{collection}")
        } else {
            format!("/Items/{collection}")
        };
        self.core.write(Method::DELETE, &path, &[]).await?;
        Ok(())
    }

    /// Sets how a collection orders its titles (Jellyfin and Emby: the box set's display
    /// order, set by writing the item back as the server gave it; Plex: its collection sort).
    pub async fn order_collection(&self, collection: &str, order: Order) -> Result<(), Error> {
        let collection = one_id(collection)?;
        if self.server() == Server::Plex {
            let sort = match order {
                Order::Release => "0",
                Order::Title => "1",
            };
            let path = format!("/library/metadata/{collection}/prefs");
            self.core
                .write(Method::PUT, &path, &[("collectionSort", sort.to_owned())])
                .await?;
            return Ok(());
        }
        let path = format!("/Items/{collection}");
        let mut item: serde_json::Value = self.core.get(&path, &[]).await?;
        if item["Type"] != "BoxSet" {
            return Err(Error::Invalid(format!(
                "the item {collection} is not a collection"
            )));
        }
        item["DisplayOrder"] = serde_json::Value::from(match order {
            Order::Release => "PremiereDate",
            Order::Title => "SortName",
        });
        let body = serde_json::to_vec(&item).map_err(|e| Error::Invalid(e.to_string()))?;
        self.core
            .write_body(Method::POST, &path, &[], ("application/json", body))
            .await?;
        Ok(())
    }

    /// Makes `target`'s poster a copy of `source`'s primary image (both on this server), so a
    /// collection or playlist shows one of its own titles' artwork.
    pub async fn copy_poster(&self, source: &str, target: &str) -> Result<(), Error> {
        let (source, target) = (one_id(source)?, one_id(target)?);
        if self.server() == Server::Plex {
            // The item names its current thumb (`/library/metadata/{id}/thumb/{stamp}`); only
            // a path of that shape on this server is read.
            let answer: PlexAnswer = self
                .core
                .get(&format!("/library/metadata/{source}"), &[])
                .await?;
            let prefix = format!("/library/metadata/{source}/thumb/");
            let thumb = answer
                .media_container
                .metadata
                .into_iter()
                .next()
                .and_then(|m| m.thumb)
                .filter(|t| {
                    t.strip_prefix(&prefix)
                        .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                })
                .ok_or_else(|| Error::Invalid(format!("the item {source} has no poster")))?;
            let image = self.core.get_bytes(&thumb, MAX_IMAGE).await?;
            let path = format!("/library/metadata/{target}/posters");
            self.core
                .write_body(Method::POST, &path, &[], (image_type(&image), image))
                .await?;
            return Ok(());
        }
        let image = self
            .core
            .get_bytes(&format!("/Items/{source}/Images/Primary"), MAX_IMAGE)
            .await?;
        // Jellyfin and Emby take an uploaded image as base64 text.
        let kind = image_type(&image);
        let body = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &image);
        let path = format!("/Items/{target}/Images/Primary");
        self.core
            .write_body(Method::POST, &path, &[], (kind, body.into_bytes()))
            .await?;
        Ok(())
    }

    /// Plex names items to put in a collection by a URI on its own machine identifier.
    pub(crate) async fn plex_uri(&self, ids: &str) -> Result<String, Error> {
        let answer: PlexAnswer = self.core.get("/identity", &[]).await?;
        let machine = answer
            .media_container
            .machine_identifier
            .ok_or(Error::Invalid(
                "the Plex server did not name its machine identifier".into(),
            ))?;
        Ok(format!(
            "server://{machine}/com.plexapp.plugins.library/library/metadata/{ids}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ids_become_parameters_or_path_segments() {
        assert_eq!(joined(&["a1".into(), "b-2".into()]).unwrap(), "a1,b-2");
        for bad in ["", "a,b", "../x", "a/b", "a?b=1"] {
            assert!(joined(&[bad.into()]).is_err(), "{bad}");
        }
    }
}
