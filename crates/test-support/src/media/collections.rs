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
}

/// What a request for collections answers: a status and, for 200, a body.
pub(super) enum Answer {
    Json(Value),
    /// 200 with no JSON (Plex's collection delete answers an empty page).
    Empty,
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
fn indices(state: &State, kind: MediaKind, ids: &str) -> Option<Vec<usize>> {
    ids.split(',')
        .map(|id| title_index(state, kind, id.trim()))
        .collect()
}

/// The ids at the end of a Plex `server://…/library/metadata/{ids}` URI.
fn uri_ids(uri: &str) -> Option<&str> {
    uri.strip_prefix("server://f00dfeed/com.plexapp.plugins.library/library/metadata/")
}

fn position(state: &State, id: &str) -> Option<usize> {
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
                "Id": c.id, "Name": c.name, "Type": "BoxSet", "IsFolder": true,
                "ChildCount": c.items.len()
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
            state.collections.push(Collection {
                id: id.clone(),
                name: r.param("name").unwrap_or("").to_owned(),
                section: String::new(),
                items,
            });
            Answer::Json(json!({ "Id": id }))
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
            state.collections.push(Collection {
                id: id.clone(),
                name: name.clone(),
                section: section.to_owned(),
                items,
            });
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
