//! Helpers shared by the tools crate's integration tests.

use domain::{MediaId, MediaSource, MediaType, PersonId};
use store::{NewRequest, Store};

/// Makes request `n` (film `tt000000n`, "Title n") for `person`; its id.
pub async fn request(store: &Store, person: PersonId, n: usize) -> i64 {
    let new = NewRequest {
        person,
        media: MediaId::new(MediaSource::Builtin, format!("tt{n:07}")),
        media_type: MediaType::Movie,
        title: format!("Title {n}"),
        year: Some(1990),
        seasons: Vec::new(),
        instance_id: Some("builtin".into()),
        auto_approve: false,
    };
    match store.create_request(&new).await.unwrap() {
        store::RequestOutcome::Created { request, .. } => request.id,
        other => panic!("not created: {other:?}"),
    }
}
