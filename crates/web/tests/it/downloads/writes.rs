//! Every bulk write checked on the daemons, refusals that change nothing, and deletions with
//! the destructive switch off and on.

use serde_json::{Value, json};

use super::{UNKNOWN, World, ok, refused};
use crate::{
    peers::{Fixture, poll},
    support::{Server, server_for},
};

pub(crate) async fn writes(s: &Server, w: &World, [q1, q2, t1, t2, t3]: [&Fixture; 5]) {
    let out = ok(
        s,
        "resume_torrents",
        json!({"info_hashes": [q1.hash, t2.hash]}),
    )
    .await;
    let ids: Vec<&Value> = out["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["instance_id"])
        .collect();
    assert_eq!(
        (ids, &out["data"]["ok"]),
        (vec![&json!("qb"), &json!("tr")], &json!(2)),
        "{out}"
    );
    poll(10, "q1 running", async || {
        (!w.qraw.one(&q1.hash).await?["state"]
            .as_str()?
            .starts_with("paused"))
        .then_some(())
    })
    .await;

    let args = json!({"info_hashes": [q1.hash.to_uppercase(), t2.hash, UNKNOWN, q1.hash]});
    let out = ok(s, "pause_torrents", args).await;
    assert_eq!(
        (&out["data"]["ok"], &out["data"]["failed"]),
        (&json!(2), &json!(1)),
        "{out}"
    );
    let miss = &out["data"]["results"][2];
    assert_eq!(
        (&miss["info_hash"], &miss["status"], &miss["instance_id"]),
        (&json!(UNKNOWN), &json!("not_found"), &Value::Null)
    );
    assert!(
        miss["message"]
            .as_str()
            .unwrap()
            .contains("not found on any instance")
    );
    assert!(
        out["warnings"][0].as_str().unwrap().contains("repeated"),
        "{out}"
    );
    poll(10, "q1 and t2 paused", async || {
        let q = w.qraw.one(&q1.hash).await?["state"]
            .as_str()?
            .starts_with("paused");
        (q && w.traw.one(&t2.hash).await?["status"] == 0).then_some(())
    })
    .await;
    let out = ok(
        s,
        "pause_torrents",
        json!({"info_hashes": [q1.hash], "instance_id": "tr"}),
    )
    .await;
    assert_eq!(
        out["data"]["results"][0]["message"],
        "instance tr has no torrent with this info hash; nothing was changed"
    );

    let out = ok(
        s,
        "recheck_torrents",
        json!({"info_hashes": [q1.hash], "instance_id": "qb"}),
    )
    .await;
    assert_eq!(out["data"]["results"][0]["status"], "recheck_started");
    poll(10, "q1 checked and paused again", async || {
        let t = w.qraw.one(&q1.hash).await?;
        (t["state"].as_str()?.starts_with("paused") && t["progress"] == 1).then_some(())
    })
    .await;
    let out = ok(s, "reannounce_torrents", json!({"info_hashes": [t1.hash]})).await;
    assert_eq!(out["data"]["results"][0]["status"], "reannounced");

    // find_torrents keeps its answers until a catalogue changes: asked before and right after
    // a write, the second answer must already show the write (no polling).
    let in_tv = async || {
        let out = ok(s, "find_torrents", json!({"category": "tv", "limit": 200})).await;
        out["data"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["info_hash"] == q2.hash.as_str())
    };
    assert!(!in_tv().await && !in_tv().await, "q2 starts outside tv");
    ok(
        s,
        "set_category",
        json!({"info_hashes": [q2.hash], "category": "tv"}),
    )
    .await;
    assert_eq!(w.qraw.one(&q2.hash).await.unwrap()["category"], "tv");
    assert!(
        in_tv().await,
        "the kept answer from before the write is not served"
    );
    ok(
        s,
        "set_category",
        json!({"info_hashes": [q2.hash], "category": ""}),
    )
    .await;
    assert_eq!(w.qraw.one(&q2.hash).await.unwrap()["category"], "");
    ok(
        s,
        "set_tags",
        json!({"info_hashes": [q1.hash], "tags": ["keep", "mcp"]}),
    )
    .await;
    assert_eq!(w.qraw.one(&q1.hash).await.unwrap()["tags"], "keep, mcp");
    ok(
        s,
        "set_tags",
        json!({"info_hashes": [t3.hash], "tags": ["mcp"]}),
    )
    .await;
    assert_eq!(
        w.traw.one(&t3.hash).await.unwrap()["labels"],
        json!(["mcp"])
    );
    let out = ok(
        s,
        "move_to_category",
        json!({"info_hashes": [t2.hash], "category": "tv"}),
    )
    .await;
    assert_eq!(out["data"]["results"][0]["status"], "moved");
    let moved = w.tr_dir("tv").join(&t2.name);
    poll(10, "t2 moved into tv", async || {
        let dir = w.traw.one(&t2.hash).await?["downloadDir"]
            .as_str()?
            .to_string();
        (dir == w.tr_dir("tv").to_str()? && moved.exists()).then_some(())
    })
    .await;

    // qBittorrent: the category plus automatic management; qBittorrent then moves the data
    // (in the background) into the category's folder, <default save path>/<category>.
    w.qraw
        .post("torrents/createCategory", &[("category", "series")])
        .await;
    // Marquee's catalogue learns of it on its next background refresh.
    poll(10, "series listed", async || {
        let out = ok(s, "list_categories", json!({"instance_id": "qb"})).await;
        out["data"]["categories"]
            .as_array()?
            .iter()
            .any(|c| c["name"] == "series")
            .then_some(())
    })
    .await;
    let old = w.qb.downloads().join(&q1.name);
    assert!(old.is_file(), "q1's data starts in the default save path");
    let out = ok(
        s,
        "move_to_category",
        json!({"info_hashes": [q1.hash], "category": "series"}),
    )
    .await;
    let row = &out["data"]["results"][0];
    assert_eq!(
        (&row["status"], &row["instance_id"], &out["data"]["ok"]),
        (&json!("moved"), &json!("qb"), &json!(1)),
        "{out}"
    );
    let series = w.qb.downloads().join("series");
    poll(10, "q1 moved into series", async || {
        let t = w.qraw.one(&q1.hash).await?;
        let there = t["save_path"].as_str()?.trim_end_matches('/') == series.to_str()?;
        (there
            && t["category"] == "series"
            && t["auto_tmm"] == true
            && series.join(&q1.name).is_file()
            && !old.exists())
        .then_some(())
    })
    .await;

    // One bad entry, name or instance refuses the whole call, and nothing changes.
    let before = w.snapshot().await;
    let many: Vec<String> = (0..101).map(|i| format!("{i:040x}")).collect();
    for (tool, args, expected) in [
        (
            "pause_torrents",
            json!({"info_hashes": [q2.hash, "xyz"]}),
            "invalid argument \"info_hashes[1]\": \"xyz\"",
        ),
        (
            "resume_torrents",
            json!({"info_hashes": [q2.hash, "xyz"]}),
            "does not match ^[0-9A-Fa-f]{40}$",
        ),
        (
            "pause_torrents",
            json!({"info_hashes": []}),
            "0 items; give at least 1",
        ),
        (
            "resume_torrents",
            json!({"info_hashes": many}),
            "at most 100",
        ),
        (
            "set_category",
            json!({"info_hashes": [q2.hash], "category": "nope"}),
            "unknown category \"nope\" on instance qb; it has: movies, series, tv",
        ),
        (
            "set_tags",
            json!({"info_hashes": [t1.hash], "tags": ["zzz"]}),
            "unknown tag \"zzz\" on instance tr; it has: mcp",
        ),
        (
            "move_to_category",
            json!({"info_hashes": [q1.hash], "category": "nope"}),
            "unknown category \"nope\" on instance qb; it has: movies, series, tv",
        ),
        (
            "set_category",
            json!({"info_hashes": [q1.hash], "category": "tv", "force": true}),
            "force",
        ),
        (
            "resume_torrents",
            json!({"info_hashes": [q2.hash], "instance_id": "nope"}),
            "valid ids: qb, tr",
        ),
        (
            "delete_torrents",
            json!({"info_hashes": [q2.hash]}),
            "delete_data",
        ),
    ] {
        let e = refused(s, tool, args).await;
        assert!(e.contains(expected), "{tool}: {e}");
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(w.snapshot().await, before);
}

pub(crate) async fn deletes(s: &Server, w: &World, [q2, t2, t4]: [&Fixture; 3]) {
    let off = server_for(w.specs.clone(), false).await;
    let (_, list) = off
        .rpc(
            &off.owner_key,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"pause_torrents") && !names.contains(&"delete_torrents"),
        "{names:?}"
    );
    let e = refused(
        &off,
        "delete_torrents",
        json!({"info_hashes": [q2.hash], "delete_data": false}),
    )
    .await;
    assert!(e.contains("allow_destructive"), "{e}");
    assert!(w.qraw.one(&q2.hash).await.is_some());

    let out = ok(
        s,
        "delete_torrents",
        json!({"info_hashes": [q2.hash, UNKNOWN], "delete_data": false}),
    )
    .await;
    assert_eq!(
        (&out["data"]["ok"], &out["data"]["failed"]),
        (&json!(1), &json!(1)),
        "{out}"
    );
    let data = w.tr_dir("tv").join(&t2.name);
    assert!(data.exists());
    let out = ok(
        s,
        "delete_torrents",
        json!({"info_hashes": [t2.hash, t4.hash], "delete_data": true}),
    )
    .await;
    assert_eq!(out["data"]["ok"], 2, "{out}");
    poll(10, "deleted torrents gone, t2's data too", async || {
        let gone = w.qraw.one(&q2.hash).await.is_none() && w.traw.one(&t2.hash).await.is_none();
        (gone && w.traw.one(&t4.hash).await.is_none() && !data.exists()).then_some(())
    })
    .await;
    poll(
        15,
        "deleted torrents gone from the catalogues",
        async || {
            let left = ok(s, "find_torrents", json!({"name_contains": "two"})).await;
            (left["data"]["total"] == 0).then_some(())
        },
    )
    .await;
}
