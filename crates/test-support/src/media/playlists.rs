//! The fakes' playlists: Jellyfin and Emby (`POST /Playlists?name&ids&userId`, its `Items` with
//! `PlaylistItemId`, entries removed by `entryIds`, deleted as an item) and Plex (`/playlists`
//! made, read, filled, emptied and deleted with the managed user's own token), in the shapes
//! their documents give. A playlist is kept beside the collections, with its owner.

use serde_json::{Value, json};

use super::{
    MEDIA_USERS, MediaKind, PLEX_USER_TOKENS, State,
    collections::{Answer, Collection, indices, position, uri_ids},
    container, jf_item, plex_item, uuid,
};
use crate::server::RecordedRequest;

/// A playlist entry's id: Jellyfin a hex string, Plex a number.
fn entry_id(kind: MediaKind, title: usize) -> Value {
    match kind {
        MediaKind::Plex => json!(5000 + title),
        _ => json!(format!("e{title:031x}")),
    }
}

/// The playlist `id` owned by `user`, if there is one.
fn owned(state: &State, id: &str, user: &str) -> Option<usize> {
    position(state, id).filter(|&at| state.collections[at].user.as_deref() == Some(user))
}

/// Answers a request about playlists, or `None` when it is about something else.
pub(super) fn answer(
    kind: MediaKind,
    state: &mut State,
    method: &str,
    segments: &[&str],
    r: &RecordedRequest,
) -> Option<Answer> {
    if kind == MediaKind::Plex {
        return plex(state, method, segments, r);
    }
    let user_of = |r: &RecordedRequest| {
        let id = r.param("userId")?;
        MEDIA_USERS
            .iter()
            .find(|(_, i)| *i == id)
            .map(|(n, _)| (*n).to_owned())
    };
    Some(match (method, segments) {
        ("POST", ["Playlists"]) => {
            let (Some(user), Some(items)) = (
                user_of(r),
                indices(state, kind, r.param("ids").unwrap_or("")),
            ) else {
                return Some(Answer::BadRequest);
            };
            state.next_collection += 1;
            let id = uuid("d0", state.next_collection);
            let name = r.param("name").unwrap_or("").to_owned();
            let mut playlist = Collection::new(id.clone(), name, String::new(), items);
            playlist.user = Some(user);
            state.collections.push(playlist);
            Answer::Json(json!({ "Id": id }))
        }
        ("GET", ["Playlists", id, "Items"]) => {
            let Some(at) = user_of(r).and_then(|u| owned(state, id, &u)) else {
                return Some(Answer::NotFound);
            };
            let items: Vec<Value> = state.collections[at]
                .items
                .iter()
                .map(|&i| {
                    let mut item = jf_item(&state.titles, &state.titles[i], None);
                    item["PlaylistItemId"] = entry_id(kind, i);
                    item
                })
                .collect();
            let n = items.len();
            Answer::Json(json!({ "Items": items, "TotalRecordCount": n, "StartIndex": 0 }))
        }
        ("POST", ["Playlists", id, "Items"]) => {
            let (Some(at), Some(items)) = (
                user_of(r).and_then(|u| owned(state, id, &u)),
                indices(state, kind, r.param("ids").unwrap_or("")),
            ) else {
                return Some(Answer::NotFound);
            };
            state.collections[at].items.extend(items);
            Answer::NoContent
        }
        ("DELETE", ["Playlists", id, "Items"]) => {
            let Some(at) = position(state, id) else {
                return Some(Answer::NotFound);
            };
            let gone: Vec<&str> = r.param("entryIds").unwrap_or("").split(',').collect();
            state.collections[at]
                .items
                .retain(|&i| !gone.contains(&entry_id(kind, i).as_str().unwrap_or("")));
            Answer::NoContent
        }
        _ => return None,
    })
}

fn plex(state: &mut State, method: &str, segments: &[&str], r: &RecordedRequest) -> Option<Answer> {
    let kind = MediaKind::Plex;
    // Playlists are the managed user's own: made and read with their token.
    let user = r.header("x-plex-token").and_then(|t| {
        PLEX_USER_TOKENS
            .iter()
            .find(|(_, token)| *token == t)
            .map(|(n, _)| (*n).to_owned())
    });
    let listing = |state: &State, at: usize| {
        let items: Vec<Value> = state.collections[at]
            .items
            .iter()
            .map(|&i| {
                let mut item = plex_item(&state.titles, &state.titles[i], None);
                item["playlistItemID"] = entry_id(kind, i);
                item
            })
            .collect();
        Answer::Json(container(json!({ "size": items.len(), "Metadata": items })))
    };
    if segments.first() != Some(&"playlists") {
        return None;
    }
    let Some(user) = user else {
        return Some(Answer::BadRequest);
    };
    Some(match (method, segments) {
        ("POST", ["playlists"]) => {
            let Some(items) = r
                .param("uri")
                .and_then(uri_ids)
                .and_then(|ids| indices(state, kind, ids))
            else {
                return Some(Answer::BadRequest);
            };
            state.next_collection += 1;
            let id = (95_000 + state.next_collection).to_string();
            let name = r.param("title").unwrap_or("").to_owned();
            let mut playlist = Collection::new(id.clone(), name.clone(), String::new(), items);
            playlist.user = Some(user);
            state.collections.push(playlist);
            Answer::Json(container(json!({ "size": 1, "Metadata": [{
                "ratingKey": id, "key": format!("/playlists/{id}/items"), "type": "playlist",
                "title": name, "playlistType": "video", "smart": false
            }] })))
        }
        ("GET", ["playlists", id, "items"]) => listing(state, owned(state, id, &user)?),
        ("PUT", ["playlists", id, "items"]) => {
            let (Some(at), Some(items)) = (
                owned(state, id, &user),
                r.param("uri")
                    .and_then(uri_ids)
                    .and_then(|ids| indices(state, kind, ids)),
            ) else {
                return Some(Answer::NotFound);
            };
            state.collections[at].items.extend(items);
            listing(state, at)
        }
        ("DELETE", ["playlists", id, "items", entry]) => {
            let Some(at) = owned(state, id, &user) else {
                return Some(Answer::NotFound);
            };
            state.collections[at]
                .items
                .retain(|&i| entry_id(kind, i) != json!(entry.parse::<u64>().unwrap_or(0)));
            listing(state, at)
        }
        ("DELETE", ["playlists", id]) => match owned(state, id, &user) {
            Some(at) => {
                state.collections.remove(at);
                Answer::Empty
            }
            None => Answer::NotFound,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_are_ids_the_adapter_accepts() {
        let id = entry_id(MediaKind::Jellyfin, 7);
        let id = id.as_str().unwrap();
        assert!(id.chars().all(|c| c.is_ascii_alphanumeric()) && id.len() == 32);
        assert_eq!(entry_id(MediaKind::Plex, 7), json!(5007));
    }
}
