//! Categories, adds (and refused adds), listings, single-torrent reads and tracker errors.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::{UNKNOWN, World, hashes, ok, refused, set};
use crate::{
    peers::{self, Fixture, poll},
    support::Server,
};

pub(crate) async fn categories(s: &Server) {
    let qb = ok(s, "list_categories", json!({})).await;
    assert_eq!(qb["data"]["instance_id"], "qb");
    let names: Vec<&Value> = qb["data"]["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["name"])
        .collect();
    assert_eq!(names, [&json!("movies"), &json!("tv")]);
    assert_eq!(qb["data"]["tags"], json!(["keep", "mcp"]));
    let tr = ok(s, "list_categories", json!({"instance_id": "tr"})).await;
    assert_eq!(tr["data"]["model"], "download_dir_subfolder");
    assert_eq!(tr["data"]["categories"][0]["torrents"], 1, "{tr}");
    assert_eq!(tr["data"]["tags"], json!(["mcp"]));
    let e = refused(s, "list_categories", json!({"instance_id": "nope"})).await;
    assert!(e.contains("valid ids: qb, tr"), "{e}");
}

pub(crate) async fn adds(s: &Server, w: &World, [q1, q2, q3, t2]: [&Fixture; 4]) {
    let path = |f: &Fixture| f.torrent.to_str().unwrap().to_string();
    let out = ok(
        s,
        "add_torrent",
        json!({"source": path(q1), "category": "movies", "tags": ["mcp"], "paused": true}),
    )
    .await;
    let row = &out["data"]["results"][0];
    assert_eq!(
        (&row["info_hash"], &row["instance_id"], &row["status"]),
        (&json!(q1.hash), &json!("qb"), &json!("added")),
        "{out}"
    );
    let q1_raw = poll(10, "q1 added paused", async || {
        let t = w.qraw.one(&q1.hash).await?;
        t["state"].as_str()?.starts_with("paused").then_some(t)
    })
    .await;
    assert_eq!(
        (&q1_raw["category"], &q1_raw["tags"]),
        (&json!("movies"), &json!("mcp"))
    );
    ok(
        s,
        "add_torrent",
        json!({"source": q2.magnet(), "instance_id": "qb", "paused": true}),
    )
    .await;
    let url = peers::serve_file(std::fs::read(&q3.torrent).unwrap()).await;
    ok(s, "add_torrent", json!({"source": url, "paused": true})).await;
    poll(10, "q2 and q3 on qbittorrent", async || {
        (w.qraw.one(&q2.hash).await.is_some() && w.qraw.one(&q3.hash).await.is_some()).then_some(())
    })
    .await;
    let out = ok(
        s,
        "add_torrent",
        json!({"source": path(t2), "instance_id": "tr", "category": "movies"}),
    )
    .await;
    assert_eq!(out["data"]["results"][0]["info_hash"], t2.hash);
    let dir = w.traw.one(&t2.hash).await.unwrap()["downloadDir"].clone();
    assert_eq!(dir, w.tr_dir("movies").to_str().unwrap());
    // Settled: t2 checked and seeding, every qBittorrent torrent paused.
    poll(
        15,
        "t2 seeding and the qbittorrent adds paused",
        async || {
            let seeding = w.traw.one(&t2.hash).await?["status"] == 6;
            let all = w.qraw.all().await;
            let paused = all
                .iter()
                .all(|t| t["state"].as_str().unwrap_or("").starts_with("paused"));
            (seeding && paused && all.len() == 3).then_some(())
        },
    )
    .await;

    // Refused adds change nothing on either daemon.
    let before = w.snapshot().await;
    let never = Fixture::new(&w.fix, "never-added.mkv", 10_000, None);
    let garbage = w.fix.join("garbage.torrent");
    std::fs::write(&garbage, b"<html>not a torrent").unwrap();
    for (args, expected) in [
        (
            json!({"source": path(&never), "category": "nope"}),
            "unknown category \"nope\" on instance qb; it has: movies, tv",
        ),
        (
            json!({"source": path(&never), "tags": ["zzz"]}),
            "unknown tag \"zzz\" on instance qb; it has: keep, mcp",
        ),
        (
            json!({"source": path(&never), "instance_id": "tr", "category": "films"}),
            "it has: movies, tv",
        ),
        (
            json!({"source": path(&never), "instance_id": "nope"}),
            "valid ids: qb, tr",
        ),
        (
            json!({"source": garbage.to_str().unwrap()}),
            "is not a valid .torrent file",
        ),
        (
            json!({"source": "ftp://example.org/x.torrent"}),
            "neither a magnet link",
        ),
        (
            json!({"source": "magnet:?dn=nohash"}),
            "names no btih info hash",
        ),
    ] {
        let e = refused(s, "add_torrent", args).await;
        assert!(e.contains(expected), "{e}");
    }
    // Outside the torrent folders, an existing and a missing file get the same sentence.
    let passwd = refused(s, "add_torrent", json!({"source": "/etc/passwd"})).await;
    let missing = refused(s, "add_torrent", json!({"source": "/etc/no-such.torrent"})).await;
    assert_eq!(passwd, missing);
    assert!(
        passwd.contains("not a .torrent file inside the torrent folders"),
        "{passwd}"
    );
    let again = ok(s, "add_torrent", json!({"source": path(q1)})).await;
    assert_eq!(again["data"]["results"][0]["status"], "already_present");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(w.snapshot().await, before);
}

pub(crate) async fn reads(s: &Server, [q1, q2, q3, t1, t2, t3]: [&Fixture; 6]) {
    let all = set(&[&q1.hash, &q2.hash, &q3.hash, &t1.hash, &t2.hash, &t3.hash]);
    let page = poll(15, "all six torrents listed", async || {
        let out = ok(s, "find_torrents", json!({})).await;
        (out["data"]["total"] == 6).then_some(out)
    })
    .await;
    assert_eq!(hashes(&page["data"]["rows"]), all);
    let on_tr = page["data"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["instance_id"] == "tr")
        .count();
    assert_eq!(on_tr, 3, "{page}");
    assert!(page["observed_at"].is_string());
    let first = ok(s, "find_torrents", json!({"limit": 4})).await;
    assert_eq!(first["data"]["next_offset"], 4);
    let second = ok(s, "find_torrents", json!({"limit": 4, "offset": 4})).await;
    assert_eq!(second["data"]["next_offset"], Value::Null);
    let mut paged = hashes(&first["data"]["rows"]);
    paged.extend(hashes(&second["data"]["rows"]));
    assert_eq!(paged, all);
    for (args, expected) in [
        (
            json!({"category": "movies"}),
            set(&[&q1.hash, &t1.hash, &t2.hash]),
        ),
        (json!({"tag": "mcp"}), set(&[&q1.hash, &t1.hash])),
        (
            json!({"instance_id": "tr", "name_contains": "SHOW"}),
            set(&[&t3.hash]),
        ),
        (
            json!({"sort": "size", "descending": true, "limit": 1}),
            set(&[&q1.hash]),
        ),
        (json!({"min_size": 250_000}), set(&[&q1.hash])),
        (
            json!({"states": ["paused"], "category": "movies"}),
            set(&[&q1.hash]),
        ),
        (json!({"added_before": "2000-01-01"}), BTreeSet::new()),
        (
            json!({"without_category": true, "instance_id": "qb"}),
            set(&[&q2.hash, &q3.hash]),
        ),
    ] {
        let out = ok(s, "find_torrents", args.clone()).await;
        assert_eq!(hashes(&out["data"]["rows"]), expected, "{args}: {out}");
    }
    let none = ok(s, "find_torrents", json!({"name_contains": "no such name"})).await;
    assert_eq!(none["summary"], "No torrent matched.");
    for (args, expected) in [
        (
            json!({"limit": 201}),
            "\"limit\": 201 is above the maximum 200",
        ),
        (json!({"category": "nope"}), "have: movies, tv"),
        (json!({"tag": "zzz"}), "have: keep, mcp"),
        (json!({"states": ["sleeping"]}), "states"),
        (json!({"added_after": "yesterday"}), "RFC 3339"),
        (json!({"instance_id": "nope"}), "valid ids: qb, tr"),
    ] {
        let e = refused(s, "find_torrents", args).await;
        assert!(e.contains(expected), "{e}");
    }

    // qBittorrent measures its free space on its own schedule: a sync right after its start
    // can say 0. Asked again (fresh, not kept) until each daemon has measured, for 10 s at most.
    let mut o = ok(s, "downloads_overview", json!({"refresh": true})).await;
    for _ in 0..20 {
        let measured = o["data"]["instances"].as_array().is_some_and(|all| {
            all.iter()
                .all(|sec| sec["free_space"].as_u64().is_some_and(|f| f > 0))
        });
        if measured {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        o = ok(s, "downloads_overview", json!({"refresh": true})).await;
    }
    let sections = o["data"]["instances"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    for sec in sections {
        assert_eq!(
            (&sec["torrents"], &sec["status"]["ok"]),
            (&json!(3), &json!(true)),
            "{sec}"
        );
        assert!(sec["free_space"].as_u64().unwrap() > 0, "{sec}");
    }

    let d = ok(
        s,
        "torrent_detail",
        json!({"info_hash": q1.hash.to_uppercase()}),
    )
    .await;
    assert_eq!(
        (
            &d["data"]["torrent"]["instance_id"],
            &d["data"]["torrent"]["name"]
        ),
        (&json!("qb"), &json!(q1.name))
    );
    assert_eq!(
        (&d["data"]["live"], &d["data"]["torrent"]["size"]),
        (&json!(true), &json!(300_000))
    );
    let files = ok(s, "torrent_files", json!({"info_hash": t1.hash})).await;
    assert_eq!(
        (
            &files["data"]["instance_id"],
            &files["data"]["files"][0]["size"]
        ),
        (&json!("tr"), &json!(200_000))
    );
    let e = refused(s, "torrent_detail", json!({"info_hash": UNKNOWN})).await;
    assert!(e.contains("on any instance (searched qb, tr)"), "{e}");
    let e = refused(s, "torrent_files", json!({"info_hash": "xyz"})).await;
    assert!(e.contains("\"info_hash\"") && e.contains("{40}"), "{e}");
}

/// A torrent whose (loopback) tracker says "unregistered torrent": grouped and filterable.
pub(crate) async fn tracker_errors(s: &Server, w: &World) -> Fixture {
    let none = ok(s, "tracker_errors", json!({})).await;
    assert_eq!(none["summary"], "No torrent has a tracker error.");
    let announce = peers::failing_tracker("unregistered torrent").await;
    let t4 = Fixture::new(&w.fix, "t-tracked-four.mkv", 40_000, Some(&announce));
    t4.place_data(&w.tr.downloads());
    let src = t4.torrent.to_str().unwrap();
    ok(
        s,
        "add_torrent",
        json!({"source": src, "instance_id": "tr"}),
    )
    .await;
    let group = poll(30, "the tracker error grouped", async || {
        let out = ok(s, "tracker_errors", json!({})).await;
        let g = out["data"]["groups"].as_array()?.first()?.clone();
        (g["class"] == "unregistered").then_some(g)
    })
    .await;
    assert_eq!(group["by_instance"], json!({"tr": 1}), "{group}");
    assert!(
        group["messages"][0]["message"]
            .as_str()
            .unwrap()
            .contains("unregistered")
    );
    let rows = ok(s, "find_torrents", json!({"tracker_error": "unregistered"})).await;
    assert_eq!(hashes(&rows["data"]["rows"]), set(&[&t4.hash]));
    t4
}
