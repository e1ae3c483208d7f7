//! Tests of maindata merging: full updates, partial updates, removals, categories, tags.

use std::sync::Arc;

use super::*;

const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const C: &str = "cccccccccccccccccccccccccccccccccccccccc";

fn apply(state: &mut CatalogueState, cursor: &mut QbCursor, json: &str) -> (usize, usize) {
    apply_maindata(state, cursor, MainData::parse(json.as_bytes()).unwrap())
}

fn row<'a>(s: &'a CatalogueState, h: &str) -> &'a Torrent {
    s.get(&h.parse().unwrap()).unwrap()
}

#[test]
fn full_then_partial_updates() {
    let mut s = CatalogueState::default();
    let mut cur = QbCursor::default();
    let full = format!(
        r#"{{"rid":1,"full_update":true,
        "torrents":{{
          "{A}":{{"name":"Alpha","state":"pausedDL","progress":0.25,"size":1000,"category":"movies","tags":"x, y",
                  "save_path":"/dl","added_on":100,"completion_on":0,"eta":8640000,"tracker":"","trackers_count":2,
                  "ratio":0.5,"num_seeds":1,"num_leechs":2}},
          "{B}":{{"name":"Beta","state":"uploading","progress":1,"size":2000,"category":"","tags":"",
                  "save_path":"/dl","added_on":200,"completion_on":250,"eta":0,
                  "tracker":"https://t.example:443/announce?passkey=k","trackers_count":1}}}},
        "categories":{{"movies":{{"name":"movies","savePath":"/dl/movies"}},"tv":{{"name":"tv","savePath":""}}}},
        "tags":["x","y"],
        "server_state":{{"free_space_on_disk":5000,"dl_info_speed":10,"up_info_speed":20}}}}"#
    );
    assert_eq!(apply(&mut s, &mut cur, &full), (2, 0));
    assert_eq!(cur.rid, 1);
    let a = row(&s, A);
    assert_eq!(
        (&*a.name, a.state, a.progress, a.size),
        ("Alpha", TorrentState::Paused, 0.25, 1000)
    );
    assert_eq!(a.category.as_deref(), Some("movies"));
    assert_eq!(a.tags.iter().map(|t| &**t).collect::<Vec<_>>(), ["x", "y"]);
    assert_eq!(
        (a.eta, a.completed_at, a.num_seeds, a.num_peers, a.trackers),
        (None, None, 1, 2, 2)
    );
    let b = row(&s, B);
    assert_eq!(
        (b.state, b.category.clone(), b.completed_at, b.eta),
        (TorrentState::Seeding, None, Some(250), Some(0))
    );
    assert_eq!(b.tracker.as_deref(), Some("t.example"));
    assert!(
        Arc::ptr_eq(&a.save_path, &b.save_path),
        "save paths are interned"
    );
    assert!(cur.no_working_tracker.contains_key(&A.parse().unwrap()));
    assert_eq!(s.categories.len(), 2);
    assert_eq!(
        s.server,
        crate::catalogue::state::ServerStats {
            dl_speed: Some(10),
            ul_speed: Some(20),
            free_space: Some(5000)
        }
    );

    let partial = format!(
        r#"{{"rid":2,
        "torrents":{{"{A}":{{"state":"downloading","dlspeed":77,"tags":"z"}},
                     "{C}":{{"name":"Gamma","state":"metaDL","save_path":"/dl","added_on":300}}}},
        "torrents_removed":["{B}"],
        "categories_removed":["tv"],
        "tags_removed":["x"],
        "server_state":{{"dl_info_speed":99}}}}"#
    );
    assert_eq!(apply(&mut s, &mut cur, &partial), (2, 1));
    assert_eq!(cur.rid, 2);
    let a = row(&s, A);
    assert_eq!(
        (a.state, a.dl_speed, &*a.name, a.progress),
        (TorrentState::Downloading, 77, "Alpha", 0.25)
    );
    assert_eq!(a.tags.iter().map(|t| &**t).collect::<Vec<_>>(), ["z"]);
    assert_eq!(row(&s, C).state, TorrentState::Metadata);
    assert!(s.get(&B.parse().unwrap()).is_none());
    assert_eq!(
        s.categories.keys().map(|k| &**k).collect::<Vec<_>>(),
        ["movies"]
    );
    assert_eq!(s.tags.iter().map(|k| &**k).collect::<Vec<_>>(), ["y"]);
    assert_eq!((s.server.dl_speed, s.server.ul_speed), (Some(99), Some(20)));

    // A tracker that works again clears the probe's message.
    let hash: InfoHash = A.parse().unwrap();
    apply_tracker_probe(
        &mut s,
        hash,
        Some("t.example".into()),
        Some("Unregistered torrent".into()),
    );
    assert_eq!(
        row(&s, A).tracker_error,
        Some(tracker_class::TrackerErrorClass::Unregistered)
    );
    apply(
        &mut s,
        &mut cur,
        &format!(r#"{{"rid":3,"torrents":{{"{A}":{{"tracker":"http://t.example/a"}}}}}}"#),
    );
    assert_eq!(
        (row(&s, A).tracker_error, row(&s, A).tracker_message.clone()),
        (None, None)
    );
    assert!(!cur.no_working_tracker.contains_key(&hash));

    // A new full update replaces everything.
    apply(
        &mut s,
        &mut cur,
        &format!(r#"{{"rid":9,"full_update":true,"torrents":{{"{B}":{{"name":"Beta"}}}}}}"#),
    );
    assert_eq!(s.rows().len(), 1);
    assert!(s.categories.is_empty());
}

#[test]
fn skips_keys_that_are_not_hashes_and_refuses_garbage() {
    let mut s = CatalogueState::default();
    let mut cur = QbCursor::default();
    apply(
        &mut s,
        &mut cur,
        r#"{"rid":1,"full_update":true,"torrents":{"nope":{"name":"x"}}}"#,
    );
    assert!(s.rows().is_empty());
    assert!(matches!(
        MainData::parse(b"<html>"),
        Err(Error::Decode { .. })
    ));
    assert!(matches!(
        MainData::parse(br#"{"rid":"x"}"#),
        Err(Error::Decode { .. })
    ));
}

/// An answer that is JSON but no maindata (no `rid`) is refused, never read as an empty list;
/// the smallest real answer, `{"rid":N}`, is a partial update that changes nothing.
#[test]
fn an_answer_without_its_rid_is_refused_not_read_as_empty() {
    for body in [
        "{}",
        r#"{"server_state":{"free_space_on_disk":1}}"#,
        r#"{"full_update":true,"torrents":{}}"#,
        r#"{"error":"Forbidden"}"#,
    ] {
        match MainData::parse(body.as_bytes()) {
            Err(Error::Decode { detail }) => {
                assert!(detail.contains("rid"), "{body}: {detail}")
            }
            other => panic!("{body}: {other:?}"),
        }
    }
    let mut s = CatalogueState::default();
    let mut cur = QbCursor::default();
    apply(
        &mut s,
        &mut cur,
        &format!(r#"{{"rid":1,"full_update":true,"torrents":{{"{A}":{{"name":"Alpha"}}}}}}"#),
    );
    assert_eq!(apply(&mut s, &mut cur, r#"{"rid":2}"#), (0, 0));
    assert_eq!((s.rows().len(), cur.rid), (1, 2));
}

#[test]
fn maps_every_state_string() {
    use TorrentState::*;
    for (s, want) in [
        ("downloading", Downloading),
        ("forcedDL", Downloading),
        ("allocating", Downloading),
        ("uploading", Seeding),
        ("stalledUP", Seeding),
        ("forcedUP", Seeding),
        ("pausedDL", Paused),
        ("pausedUP", Paused),
        ("stoppedDL", Paused),
        ("stoppedUP", Paused),
        ("queuedDL", Queued),
        ("queuedUP", Queued),
        ("checkingDL", Checking),
        ("checkingUP", Checking),
        ("checkingResumeData", Checking),
        ("stalledDL", Stalled),
        ("error", Error),
        ("missingFiles", Error),
        ("metaDL", Metadata),
        ("forcedMetaDL", Metadata),
        ("moving", Moving),
        ("unknown", Unknown),
        ("new", Unknown),
    ] {
        let state: QbState = serde_json::from_value(s.into()).unwrap();
        assert_eq!(TorrentState::from(state), want, "{s}");
    }
}

/// The rows of a state, by hash, as text.
fn rows_text(s: &CatalogueState) -> Vec<String> {
    let mut rows: Vec<String> = s.rows().iter().map(|t| format!("{t:?}")).collect();
    rows.sort();
    rows
}

#[test]
fn a_full_update_reads_the_same_whether_torrents_come_before_full_update_or_after() {
    let torrents = format!(
        r#""torrents":{{"{A}":{{"name":"Alpha","state":"pausedDL","size":1000,"category":"movies","tags":"x","tracker":"","trackers_count":1}},
        "{B}":{{"name":"Beta","state":"uploading","size":2000,"tracker":"https://t.example/announce"}},
        "not-a-hash":{{"name":"skipped"}}}}"#
    );
    let first = format!(r#"{{"rid":3,"full_update":true,{torrents},"tags":["x"]}}"#);
    let last = format!(r#"{{"rid":3,{torrents},"tags":["x"],"full_update":true}}"#);
    let staged = MainData::parse(first.as_bytes()).unwrap();
    assert!(staged.staged.is_some() && staged.torrents.is_empty());
    let patches = MainData::parse(last.as_bytes()).unwrap();
    assert!(patches.staged.is_none() && patches.torrents.len() == 3);
    let (mut s1, mut c1) = (CatalogueState::default(), QbCursor::default());
    let (mut s2, mut c2) = (CatalogueState::default(), QbCursor::default());
    // Something left from before, which a full update forgets.
    apply(
        &mut s1,
        &mut c1,
        &format!(r#"{{"rid":1,"torrents":{{"{C}":{{"name":"Gone"}}}}}}"#),
    );
    assert_eq!(apply_maindata(&mut s1, &mut c1, staged), (2, 0));
    assert_eq!(apply_maindata(&mut s2, &mut c2, patches), (2, 0));
    assert_eq!(rows_text(&s1), rows_text(&s2));
    assert_eq!(s1.rows().len(), 2);
    assert_eq!(
        c1.no_working_tracker.keys().collect::<Vec<_>>(),
        [&A.parse::<InfoHash>().unwrap()]
    );
    assert_eq!(c1.rid, 3);
}
