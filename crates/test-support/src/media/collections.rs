//! The fakes' libraries and collections: Jellyfin and Emby virtual folders and box sets
//! (`/Library/VirtualFolders`, `/Collections`, `/Items?parentId=`, `DELETE /Items/{id}`), Plex
//! sections and collections (`/library/collections`, its `items`, and
//! `DELETE /library/sections/{id}/collection/{id}`), in the shapes and statuses their documents
//! give. Items are named by the ids the fake's library reads hand out.

use serde_json::{Value, json};

use super::{MediaKind, State, container, jf_item, plex_item, uuid};
use crate::server::RecordedRequest;

/// A collection the fake keeps.
#[derive(Clone, Debug)]
pub(super) struct Collection {
    /// Jellyfin/Emby: a UUID; Plex: a ratingKey.
    pub(super) id: String,
    pub(super) name: String,
    /// Plex: the section it was made in.
    pub(super) section: String,
    /// Indices into the fake's titles.
    pub(super) items: Vec<usize>,
    /// A playlist's owner (Jellyfin/Emby user name, or Plex managed user); `None`: a collection.
    pub(super) user: Option<String>,
    /// Jellyfin/Emby `DisplayOrder`, or Plex `collectionSort`, once set.
    pub(super) order: Option<String>,
    /// The poster uploaded, as the text after the image's signature.
    pub(super) poster: Option<String>,
}

impl Collection {
    pub(super) fn new(id: String, name: String, section: String, items: Vec<usize>) -> Collection {
        Collection {
            id,
            name,
            section,
            items,
            user: None,
            order: None,
            poster: None,
        }
    }
}

/// The fake poster of title `i`: a PNG signature, then text naming it.
pub(super) fn poster_of(state: &State, i: usize) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend(format!("poster of {}", state.titles[i].name).as_bytes());
    bytes
}

/// The text of an uploaded poster (its signature dropped), or `None` when it is no image.
fn uploaded(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let at = text.find("poster of ")?;
    Some(text[at..].to_owned())
}

/// What a request for collections answers: a status and, for 200, a body.
pub(super) enum Answer {
    Json(Value),
    /// 200 with no JSON (Plex's collection delete answers an empty page).
    Empty,
    /// 200 with an image.
    Image(Vec<u8>),
    /// 400: what was sent is not what the document asks for.
    BadRequest,
    NoContent,
    NotFound,
}

fn title_index(state: &State, kind: MediaKind, id: &str) -> Option<usize> {
    state.titles.iter().position(|t| match kind {
        MediaKind::Plex => t.key.to_string() == id,
        _ => t.id == id,
    })
}

/// Item ids of a comma-separated parameter; `None` when one is no item of the library.
pub(super) fn indices(state: &State, kind: MediaKind, ids: &str) -> Option<Vec<usize>> {
    ids.split(',')
        .map(|id| title_index(state, kind, id.trim()))
        .collect()
}

/// The ids at the end of a Plex `server://…/library/metadata/{ids}` URI.
pub(super) fn uri_ids(uri: &str) -> Option<&str> {
    uri.strip_prefix("server://f00dfeed/com.plexapp.plugins.library/library/metadata/")
}

pub(super) fn position(state: &State, id: &str) -> Option<usize> {
    state.collections.iter().position(|c| c.id == id)
}

/// Answers a request about libraries or collections, or `None` when it is about something else.
pub(super) fn answer(
    kind: MediaKind,
    state: &mut State,
    path: &str,
    r: &RecordedRequest,
) -> Option<Answer> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let method = r.method.as_str();
    if let Some(answer) = super::playlists::answer(kind, state, method, &segments, r) {
        return Some(answer);
    }
    if kind == MediaKind::Plex {
        return plex(state, method, &segments, r);
    }
    let found = |state: &State, id: &str| position(state, id).map(|i| state.collections[i].clone());
    Some(match (method, segments.as_slice()) {
        ("GET", ["Library", "VirtualFolders"]) => Answer::Json(json!([
            { "Name": "Movies", "ItemId": "f1100000000040008000000000000001", "CollectionType": "movies", "Locations": ["/media/movies"] },
            { "Name": "Shows", "ItemId": "f1100000000040008000000000000002", "CollectionType": "tvshows", "Locations": ["/media/shows"] }
        ])),
        ("GET", ["Items"]) => {
            let parent = r.param("parentId")?;
            let items: Vec<Value> = found(state, parent).map_or_else(Vec::new, |c| {
                c.items
                    .iter()
                    .map(|&i| jf_item(&state.titles, &state.titles[i], None))
                    .collect()
            });
            let n = items.len();
            Answer::Json(json!({ "Items": items, "TotalRecordCount": n, "StartIndex": 0 }))
        }
        ("GET", ["Items", id]) => match (found(state, id), title_index(state, kind, id)) {
            (Some(c), _) => Answer::Json(json!({
                "Id": c.id, "Name": c.name,
                "Type": if c.user.is_some() { "Playlist" } else { "BoxSet" }, "IsFolder": true,
                "ChildCount": c.items.len(), "DisplayOrder": c.order
            })),
            (None, Some(i)) => Answer::Json(jf_item(&state.titles, &state.titles[i], None)),
            (None, None) => Answer::NotFound,
        },
        ("POST", ["Collections"]) => {
            let Some(items) = indices(state, kind, r.param("ids").unwrap_or("")) else {
                return Some(Answer::NotFound);
            };
            state.next_collection += 1;
            let id = uuid("c0", state.next_collection);
            let name = r.param("name").unwrap_or("").to_owned();
            state
                .collections
                .push(Collection::new(id.clone(), name, String::new(), items));
            Answer::Json(json!({ "Id": id }))
        }
        // An item written back whole (Jellyfin's ItemUpdateController): the name must come
        // back, or the server would blank it.
        ("POST", ["Items", id]) => {
            let Some(at) = position(state, id) else {
                return Some(Answer::NotFound);
            };
            let body = r.json_body().unwrap_or(Value::Null);
            if body["Name"] != state.collections[at].name.as_str() {
                return Some(Answer::BadRequest);
            }
            state.collections[at].order = body["DisplayOrder"].as_str().map(str::to_owned);
            Answer::NoContent
        }
        ("GET", ["Items", id, "Images", "Primary"]) => match title_index(state, kind, id) {
            Some(i) => Answer::Image(poster_of(state, i)),
            None => Answer::NotFound,
        },
        // Jellyfin and Emby take the image as base64 text.
        ("POST", ["Items", id, "Images", "Primary"]) => {
            let Some(at) = position(state, id) else {
                return Some(Answer::NotFound);
            };
            let decoded =
                base64::Engine::decode(&base64::engine::general_purpose::STANDARD, r.body.trim());
            match decoded.ok().as_deref().and_then(uploaded) {
                Some(poster) => {
                    state.collections[at].poster = Some(poster);
                    Answer::NoContent
                }
                None => Answer::BadRequest,
            }
        }
        ("POST" | "DELETE", ["Collections", id, "Items"]) => {
            let (Some(at), Some(items)) = (
                position(state, id),
                indices(state, kind, r.param("ids").unwrap_or("")),
            ) else {
                return Some(Answer::NotFound);
            };
            let held = &mut state.collections[at].items;
            if method == "POST" {
                let new: Vec<usize> = items.into_iter().filter(|i| !held.contains(i)).collect();
                held.extend(new);
            } else {
                held.retain(|i| !items.contains(i));
            }
            Answer::NoContent
        }
        ("DELETE", ["Items", id]) => match position(state, id) {
            Some(at) => {
                state.collections.remove(at);
                Answer::NoContent
            }
            None => Answer::NotFound,
        },
        _ => return None,
    })
}

fn plex(state: &mut State, method: &str, segments: &[&str], r: &RecordedRequest) -> Option<Answer> {
    let kind = MediaKind::Plex;
    let listing = |state: &State, at: usize| {
        let c = &state.collections[at];
        let items: Vec<Value> = c
            .items
            .iter()
            .map(|&i| plex_item(&state.titles, &state.titles[i], None))
            .collect();
        Answer::Json(container(json!({ "size": items.len(), "Metadata": items })))
    };
    Some(match (method, segments) {
        ("POST", ["library", "collections"]) => {
            let ids = r.param("uri").and_then(uri_ids);
            let (Some(section), Some(items)) = (
                r.param("sectionId"),
                ids.and_then(|ids| indices(state, kind, ids)),
            ) else {
                return Some(Answer::NotFound);
            };
            state.next_collection += 1;
            let id = (90_000 + state.next_collection).to_string();
            let name = r.param("title").unwrap_or("").to_owned();
            state.collections.push(Collection::new(
                id.clone(),
                name.clone(),
                section.to_owned(),
                items,
            ));
            Answer::Json(container(json!({ "size": 1, "Metadata": [{
                "ratingKey": id, "key": format!("/library/collections/{id}/children"),
                "type": "collection", "title": name, "subtype": "movie", "childCount": 0
            }] })))
        }
        ("GET", ["library", "collections", id, "items"]) => listing(state, position(state, id)?),
        ("PUT", ["library", "collections", id, "items"]) => {
            let (Some(at), Some(items)) = (
                position(state, id),
                r.param("uri")
                    .and_then(uri_ids)
                    .and_then(|ids| indices(state, kind, ids)),
            ) else {
                return Some(Answer::NotFound);
            };
            let held = &mut state.collections[at].items;
            let new: Vec<usize> = items.into_iter().filter(|i| !held.contains(i)).collect();
            held.extend(new);
            listing(state, at)
        }
        ("PUT", ["library", "collections", id, "items", item]) => {
            let (Some(at), Some(i)) = (position(state, id), title_index(state, kind, item)) else {
                return Some(Answer::NotFound);
            };
            state.collections[at].items.retain(|&held| held != i);
            listing(state, at)
        }
        ("PUT", ["library", "metadata", id, "prefs"]) => {
            let (Some(at), Some(sort)) = (position(state, id), r.param("collectionSort")) else {
                return Some(Answer::NotFound);
            };
            state.collections[at].order = Some(sort.to_owned());
            Answer::Empty
        }
        ("GET", ["library", "metadata", id, "thumb", _]) => match title_index(state, kind, id) {
            Some(i) => Answer::Image(poster_of(state, i)),
            None => Answer::NotFound,
        },
        ("POST", ["library", "metadata", id, "posters"]) => {
            let Some(at) = position(state, id) else {
                return Some(Answer::NotFound);
            };
            match uploaded(r.body.as_bytes()) {
                Some(poster) => {
                    state.collections[at].poster = Some(poster);
                    Answer::Empty
                }
                None => Answer::BadRequest,
            }
        }
        ("DELETE", ["library", "sections", section, "collection", id]) => {
            match position(state, id).filter(|&at| state.collections[at].section == *section) {
                Some(at) => {
                    state.collections.remove(at);
                    Answer::Empty
                }
                None => Answer::NotFound,
            }
        }
        _ => return None,
    })
}
