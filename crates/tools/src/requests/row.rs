//! A request as the request tools show it, written straight from the stored row: a page of
//! them is serialized without building a JSON tree first.

use domain::MediaSource;
use serde::Serialize;
use store::{MediaRequest, RequestStatus};

use super::time;
use crate::discover::render::media_type_str;

/// A request as shown. Fields are in the order a JSON tree of it has its keys (sorted), so
/// the text is the same whichever way it is written; absent fields are left out, not null.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct RequestRow<'a> {
    created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    decided_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decided_by: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision_note: Option<&'a str>,
    instance_id: Option<&'a str>,
    media_id: &'a str,
    media_source: MediaSource,
    media_type: &'static str,
    request_id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_by: Option<&'a str>,
    #[serde(skip_serializing_if = "<[u32]>::is_empty")]
    seasons: &'a [u32],
    /// pending, approved, rejected, ... as the store names them.
    #[schemars(with = "String")]
    status: RequestStatus,
    title: &'a str,
    units: u32,
    updated_at: String,
    year: Option<i32>,
}

impl<'a> RequestRow<'a> {
    /// `show_person` is false for other people's requests seen by a non-admin: then neither
    /// who asked nor who decided is shown.
    pub(crate) fn of(r: &'a MediaRequest, show_person: bool) -> RequestRow<'a> {
        RequestRow {
            created_at: time(r.created_at),
            decided_at: r.decided_at.map(time),
            decided_by: r.decided_by.as_deref().filter(|_| show_person),
            decision_note: r.decision_note.as_deref(),
            instance_id: r.instance_id.as_deref(),
            media_id: &r.media.media_id,
            media_source: r.media.media_source,
            media_type: media_type_str(r.media_type),
            request_id: r.id,
            requested_by: show_person.then_some(r.person_name.as_str()),
            seasons: &r.seasons,
            status: r.status,
            title: &r.title,
            units: r.units,
            updated_at: time(r.updated_at),
            year: r.year,
        }
    }
}

impl RequestRow<'_> {
    /// The row with the status the store recorded after it was read.
    pub(crate) fn with_status(mut self, status: RequestStatus) -> Self {
        self.status = status;
        self
    }
}

#[cfg(test)]
mod tests {
    use domain::{MediaId, MediaType, PersonId};
    use serde_json::{Value, json};

    use super::*;

    /// The row as it was first written, key by key: the reference the typed row must equal.
    fn reference(r: &MediaRequest, show_person: bool) -> Value {
        let mut v = json!({
            "request_id": r.id,
            "media_source": r.media.media_source,
            "media_id": r.media.media_id,
            "media_type": media_type_str(r.media_type),
            "title": r.title,
            "year": r.year,
            "status": r.status,
            "instance_id": r.instance_id,
            "units": r.units,
            "created_at": time(r.created_at),
            "updated_at": time(r.updated_at),
        });
        if !r.seasons.is_empty() {
            v["seasons"] = json!(r.seasons);
        }
        if show_person {
            v["requested_by"] = json!(r.person_name);
            if let Some(d) = &r.decided_by {
                v["decided_by"] = json!(d);
            }
        }
        if let Some(n) = &r.decision_note {
            v["decision_note"] = json!(n);
        }
        if let Some(at) = r.decided_at {
            v["decided_at"] = json!(time(at));
        }
        v
    }

    fn request(n: i64) -> MediaRequest {
        let tv = n % 2 == 0;
        let decided = n % 3 == 0;
        MediaRequest {
            id: n,
            person: PersonId(n % 4),
            person_name: format!("person \"{n}\" \\ é"),
            media: MediaId::new(MediaSource::Builtin, format!("tt{n:07}")),
            media_type: if tv { MediaType::Tv } else { MediaType::Movie },
            title: format!("Title {n}\n\u{2028}東京"),
            year: (n % 5 != 0).then_some(1950 + n as i32),
            seasons: if tv { vec![1, 3] } else { Vec::new() },
            status: RequestStatus::ALL[n as usize % 5],
            instance_id: (n % 7 != 0).then(|| "builtin".to_owned()),
            units: n as u32 % 3,
            decided_by: decided.then(|| "owner".to_owned()),
            decision_note: (n % 6 == 0).then(|| "not \"tonight\"".to_owned()),
            created_at: 1_700_000_000_000 + n,
            updated_at: 1_700_000_000_500 + n,
            decided_at: decided.then_some(1_700_000_001_000 + n),
        }
    }

    #[test]
    fn a_typed_row_writes_the_text_the_tree_wrote() {
        for n in 0..60 {
            let r = request(n);
            for show in [true, false] {
                let typed = serde_json::to_string(&RequestRow::of(&r, show)).unwrap();
                let tree = serde_json::to_string(&reference(&r, show)).unwrap();
                assert_eq!(typed, tree, "request {n}, show_person {show}");
                let tree = serde_json::to_value(RequestRow::of(&r, show)).unwrap();
                assert_eq!(tree, reference(&r, show));
            }
        }
    }
}
