//! The pure parsers of outside bytes: .torrent files (bencode), magnet links, tracker URLs,
//! tracker messages, and the torrent clients' answers fed into a live catalogue.

use adapters_downloads::{
    TorrentCatalogue, TorrentQuery, classify_tracker_message, info_hash_of_magnet,
    info_hash_of_torrent, qbittorrent::ApiVersion, redact_url, transmission::delta_from_body,
};
use domain::InstanceKind;
use harness::{Gen, run};
use serde_json::{Value, json};

/// Bencode tokens a mutation may put in.
const BENCODE: &[&[u8]] = &[
    b"d",
    b"e",
    b"l",
    b"i",
    b"0:",
    b"1:",
    b"4:info",
    b"i-0e",
    b"i-e",
    b"ie",
    b"i9223372036854775808e",
    b"99999999999999999999:",
    b"d4:infode",
    b"lllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll",
    b"6:pieces20:",
    b"4:name",
    b"12:piece length",
];

fn torrent(name: &str) -> Vec<u8> {
    let mut v = b"d8:announce31:http://tracker.example/announce4:infod6:lengthi3e4:name".to_vec();
    v.extend_from_slice(format!("{}:{name}", name.len()).as_bytes());
    v.extend_from_slice(b"12:piece lengthi16384e6:pieces20:");
    v.extend_from_slice(&[7u8; 20]);
    v.extend_from_slice(b"ee");
    v
}

#[test]
fn bencode_torrent_files() {
    let seeds = [
        torrent("a"),
        torrent("Alien.1979.1080p.mkv"),
        b"d4:infodee".to_vec(),
    ];
    let valid = info_hash_of_torrent(&seeds[0]).unwrap();
    assert_eq!(
        info_hash_of_torrent(&seeds[0]).unwrap(),
        valid,
        "deterministic"
    );
    run("bencode", 3000, |g| {
        let seed = g.pick(&seeds).clone();
        let bytes = g.mutate_bytes(&seed, BENCODE);
        match info_hash_of_torrent(&bytes) {
            Ok(h) if h.to_hex().len() != 40 => Err(format!("hash {h:?}")),
            Ok(_) => Ok(()),
            Err(e) if e.to_string().is_empty() => Err("an empty refusal".into()),
            Err(_) => Ok(()),
        }
    })
    .assert_clean();
}

#[test]
fn magnet_links_and_tracker_urls() {
    let seeds = [
        "magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn=Alien&tr=udp%3A%2F%2Ft.example%3A80",
        "magnet:?xt=urn:btih:YEX6DQDLXISUVHOJ6UM3GNNKPQJWPKEK&dn=x",
        "magnet:?dn=a&xt=urn%3Abtih%3Ac12fe1c06bba254a9dc9f519b335aa7c1367a88a",
        "http://user:Zq9canaryPw@tracker.example:8080/announce?passkey=0123456789abcdef&x=1",
        "udp://tracker.example:1337/abcdef0123456789/announce",
    ];
    let dict: &[&[u8]] = &[
        b"magnet:?",
        b"xt=",
        b"urn:btih:",
        b"&",
        b"%",
        b"%3A",
        b"@",
        b"://",
        b"?",
        b"=",
        b"passkey=",
        "é".as_bytes(),
        b"\xff",
    ];
    run("magnet", 3000, |g| {
        let seed = g.pick(&seeds).as_bytes().to_vec();
        let bytes = g.mutate_bytes(&seed, dict);
        let text = String::from_utf8_lossy(&bytes);
        if let Some(h) = info_hash_of_magnet(&text)
            && !text.starts_with("magnet:?")
        {
            return Err(format!("a hash {h:?} from a non-magnet"));
        }
        // What redaction promises: no password, no query (long enough to be told apart).
        let redacted = redact_url(&text);
        if let Ok(u) = url::Url::parse(text.trim()) {
            // (A path may carry the same text; a path is not userinfo.)
            if u.password() == Some("Zq9canaryPw")
                && !u.path().contains("Zq9canaryPw")
                && redacted.contains("Zq9canaryPw")
            {
                return Err(format!("password kept: {redacted}"));
            }
            // A query is shown as `?***` and nothing else (a path may hold the same text).
            if u.query().is_some()
                && (redacted.matches('?').count() != 1 || !redacted.ends_with("?***"))
            {
                return Err(format!("query kept: {redacted}"));
            }
        }
        let _ = classify_tracker_message(&text);
        let _ = ApiVersion::parse(&text);
        Ok(())
    })
    .assert_clean();
}

fn qb_seed() -> Value {
    json!({
        "rid": 3, "full_update": true,
        "torrents": {
            "c12fe1c06bba254a9dc9f519b335aa7c1367a88a": {
                "hash": "c12fe1c06bba254a9dc9f519b335aa7c1367a88a", "name": "Alien.1979", "state": "uploading",
                "progress": 1.0, "size": 1000, "downloaded": 1000, "uploaded": 50, "ratio": 0.05,
                "dlspeed": 0, "upspeed": 3, "eta": 8640000, "category": "movies", "tags": "a, b",
                "save_path": "/data/movies", "added_on": 1700000000, "completion_on": 1700000100,
                "tracker": "http://t.example/announce?passkey=abc", "trackers_count": 1,
                "num_seeds": 3, "num_leechs": 1
            },
            "0000000000000000000000000000000000000001": {"name": "b", "state": "stalledDL", "progress": 0.5}
        },
        "torrents_removed": ["0000000000000000000000000000000000000002"],
        "categories": {"movies": {"name": "movies", "savePath": "/data/movies"}},
        "categories_removed": ["tv"], "tags": ["a", "b"], "tags_removed": [],
        "server_state": {"free_space_on_disk": 100, "dl_info_speed": 1, "up_info_speed": 2}
    })
}

fn tr_seed() -> Value {
    json!({"result": "success", "arguments": {"torrents": [
        {"id": 1, "hashString": "c12fe1c06bba254a9dc9f519b335aa7c1367a88a", "name": "Alien.1979", "status": 6,
         "error": 0, "errorString": "", "percentDone": 1.0, "sizeWhenDone": 1000, "downloadedEver": 1000,
         "uploadedEver": 10, "uploadRatio": 0.01, "rateDownload": 0, "rateUpload": 0, "eta": -1,
         "labels": ["movies"], "downloadDir": "/data/movies", "addedDate": 1700000000, "doneDate": 0,
         "trackers": [{"announce": "http://t.example/announce?passkey=abc", "id": 0, "tier": 0}],
         "peersSendingToUs": 0, "peersGettingFromUs": 0, "isStalled": false, "metadataPercentComplete": 1.0},
        {"id": 2, "hashString": "0000000000000000000000000000000000000001", "status": 4, "error": 2,
         "errorString": "Tracker gave HTTP response code 404 (Not Found)"}
    ], "removed": [3]}})
}

const TORRENT_KEYS: &[&str] = &[
    "hash",
    "name",
    "state",
    "progress",
    "size",
    "category",
    "tags",
    "save_path",
    "tracker",
    "ratio",
    "hashString",
    "status",
    "error",
    "errorString",
    "percentDone",
    "labels",
    "downloadDir",
    "trackers",
    "announce",
    "torrents",
    "removed",
    "full_update",
    "rid",
    "categories",
    "savePath",
    "arguments",
];

/// Asks every view of a catalogue something, as the tools do after a refresh.
fn read_views(cat: &TorrentCatalogue, g: &mut Gen) {
    let _ = cat.overview();
    let _ = cat.tracker_error_groups();
    let _ = cat.categories();
    let _ = cat.tags();
    let q = TorrentQuery {
        name_contains: g.one_in(2).then(|| g.string()),
        min_ratio: g.one_in(3).then(|| g.next_u64() as f64 / 1e15),
        limit: g.below(300),
        offset: g.below(5),
        descending: g.one_in(2),
        ..TorrentQuery::default()
    };
    let page = cat.query(&q);
    let _ = page;
}

#[test]
fn qbittorrent_maindata_into_a_catalogue() {
    let seed = qb_seed();
    let cat = TorrentCatalogue::offline("qb", InstanceKind::Qbittorrent).unwrap();
    run("qbittorrent-maindata", 1500, |g| {
        let body = if g.one_in(4) {
            g.mutate_bytes(
                seed.to_string().as_bytes(),
                &[b"{", b"}", b"\"", b"null", b"-1e999"],
            )
        } else {
            g.mutate_json(&seed, TORRENT_KEYS).to_string().into_bytes()
        };
        let _ = cat.apply_maindata_bytes(&body);
        read_views(&cat, g);
        Ok(())
    })
    .assert_clean();
}

#[test]
fn transmission_torrent_get_into_a_catalogue() {
    let seed = tr_seed();
    let cat = TorrentCatalogue::offline("tr", InstanceKind::Transmission).unwrap();
    run("transmission-torrent-get", 1500, |g| {
        let body = if g.one_in(4) {
            g.mutate_bytes(
                seed.to_string().as_bytes(),
                &[b"{", b"}", b"\"", b"null", b"-1e999"],
            )
        } else {
            g.mutate_json(&seed, TORRENT_KEYS).to_string().into_bytes()
        };
        let dir = if g.one_in(3) {
            g.string()
        } else {
            "/data".into()
        };
        if let Ok(delta) = delta_from_body(&body, g.one_in(2), &dir) {
            let _ = cat.apply_transmission_delta(delta);
        }
        read_views(&cat, g);
        Ok(())
    })
    .assert_clean();
}
