//! Completion of download categories and tags against the real daemons: read from the cached
//! catalogues of the instances the caller may read, narrowed to a chosen instance, and nothing
//! for a grant scoped elsewhere or one that cannot read downloads.

use std::collections::{BTreeMap, BTreeSet};

use domain::{Capability, Role};
use serde_json::{Value, json};
use store::GrantSpec;

use super::World;
use crate::{
    peers::poll,
    support::{Server, server_for},
};

async fn complete(
    s: &Server,
    key: &str,
    argument: &str,
    typed: &str,
    chosen: Value,
) -> Vec<String> {
    let (status, body) = s
        .rpc(
            key,
            json!({"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{
                "ref":{"type":"ref/prompt","name":"download-triage"},
                "argument":{"name":argument,"value":typed},
                "context":{"arguments":chosen}}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body["result"]["completion"]["values"].clone()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn categories_and_tags_complete_from_the_instances_a_caller_may_read() {
    let w = World::start().await;
    for (path, form) in [
        ("torrents/createCategory", [("category", "movies")]),
        ("torrents/createCategory", [("category", "tv")]),
        ("torrents/createTags", [("tags", "mcp,keep")]),
    ] {
        w.qraw.post(path, &form).await;
    }
    let s = server_for(w.specs.clone(), false).await;
    let owner = s.owner_key.clone();
    let categories = poll(30, "qb's categories in its catalogue", async || {
        let got = complete(&s, &owner, "category", "", json!({})).await;
        (!got.is_empty()).then_some(got)
    })
    .await;
    assert_eq!(categories, ["movies", "tv"]);
    assert_eq!(complete(&s, &owner, "tag", "k", json!({})).await, ["keep"]);
    assert!(
        complete(&s, &owner, "category", "", json!({"instance": "tr"}))
            .await
            .is_empty(),
        "narrowed to tr, which has none"
    );

    let spec = GrantSpec {
        capabilities: BTreeSet::from([Capability::DownloadsRead]),
        instances: Some(vec!["tr".into()]),
        allowances: BTreeMap::new(),
        ..GrantSpec::default()
    };
    s.host
        .app
        .store()
        .create_grant("tr-only", &spec)
        .await
        .unwrap();
    let tess = s.key_for("tess", Role::User, "tr-only").await;
    for argument in ["category", "tag"] {
        assert!(
            complete(&s, &tess, argument, "", json!({}))
                .await
                .is_empty()
        );
        let asked_for_qb = complete(&s, &tess, argument, "", json!({"instance": "qb"})).await;
        assert!(asked_for_qb.is_empty(), "{asked_for_qb:?}");
    }
    let kid = s.key_for("kid", Role::Kid, "requester").await;
    assert!(
        complete(&s, &kid, "category", "", json!({}))
            .await
            .is_empty()
    );
}
