//! The MusicBrainz fake's fixed data set and its JSON renderings (`fmt=json` shapes).

use serde_json::{Value, json};

pub(crate) struct Artist {
    pub id: &'static str,
    pub name: &'static str,
    pub kind: &'static str,
    pub country: &'static str,
    pub begin: &'static str,
    pub disambiguation: &'static str,
    pub genres: &'static [&'static str],
}

/// (id, title, primary type, first release date, artist index, genres).
pub(crate) type ReleaseGroup = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    usize,
    &'static [&'static str],
);
/// (id, title, length in ms, first release date, artist index).
pub(crate) type Recording = (&'static str, &'static str, u64, &'static str, usize);

pub(crate) const ARTISTS: [Artist; 2] = [
    Artist {
        id: "d87e52c5-bb8d-4da8-b941-9f4928627dc8",
        name: "ABBA",
        kind: "Group",
        country: "SE",
        begin: "1972",
        disambiguation: "Swedish pop group",
        genres: &["pop", "europop"],
    },
    Artist {
        id: "a74b1b7f-71a5-4011-9441-d0b5e4122711",
        name: "Radiohead",
        kind: "Group",
        country: "GB",
        begin: "1985",
        disambiguation: "",
        genres: &["alternative rock", "art rock"],
    },
];

pub(crate) const RELEASE_GROUPS: [ReleaseGroup; 4] = [
    (
        "4f1f2b6b-3c7e-3c7a-8a6e-1c1d5e0a3b01",
        "Arrival",
        "Album",
        "1976-10-11",
        0,
        &["pop"],
    ),
    (
        "9b7d3a5e-0f2c-3e55-a8f5-2d3c4b5a6f02",
        "Waterloo",
        "Single",
        "1974-03-04",
        0,
        &["pop"],
    ),
    (
        "b1392450-e666-3926-a536-22c65f834433",
        "OK Computer",
        "Album",
        "1997-05-21",
        1,
        &["alternative rock"],
    ),
    (
        "6c8e9f0a-1b2c-3d4e-9f5a-7b8c9d0e1f04",
        "Airbag / How Am I Driving?",
        "EP",
        "1998-04-21",
        1,
        &[],
    ),
];

pub(crate) const RECORDINGS: [Recording; 2] = [
    (
        "7f3c1a2b-4d5e-4f60-8a71-9b8c7d6e5f05",
        "Dancing Queen",
        230_400,
        "1976-08-16",
        0,
    ),
    (
        "2a4b6c8d-0e1f-4a3b-8c5d-7e9f1a3b5c06",
        "Paranoid Android",
        387_000,
        "1997-05-21",
        1,
    ),
];

fn tags(names: &[&str]) -> Value {
    names
        .iter()
        .map(|n| json!({ "count": 3, "name": n }))
        .collect()
}

fn genre_list(names: &[&str]) -> Value {
    names.iter().map(|n| json!({ "count": 3, "disambiguation": "", "id": "00000000-0000-0000-0000-000000000000", "name": n })).collect()
}

fn credit(a: &Artist) -> Value {
    json!([{ "name": a.name, "joinphrase": "", "artist": { "id": a.id, "name": a.name, "sort-name": a.name } }])
}

pub(crate) fn artist(a: &Artist, searched: bool, genres: bool) -> Value {
    let mut v = json!({
        "id": a.id, "type": a.kind, "name": a.name, "sort-name": a.name, "country": a.country,
        "disambiguation": a.disambiguation, "life-span": { "begin": a.begin, "end": null, "ended": false },
    });
    if searched {
        v["score"] = json!(100);
        v["tags"] = tags(a.genres);
    }
    if genres {
        v["genres"] = genre_list(a.genres);
    }
    v
}

pub(crate) fn release_group(g: &ReleaseGroup, searched: bool, genres: bool) -> Value {
    let mut v = json!({
        "id": g.0, "title": g.1, "primary-type": g.2, "first-release-date": g.3, "secondary-types": [],
        "disambiguation": "", "artist-credit": credit(&ARTISTS[g.4]),
    });
    if searched {
        v["score"] = json!(100);
        v["count"] = json!(1);
        v["tags"] = tags(g.5);
    }
    if genres {
        v["genres"] = genre_list(g.5);
    }
    v
}

pub(crate) fn recording(x: &Recording, searched: bool, genres: bool) -> Value {
    let mut v = json!({
        "id": x.0, "title": x.1, "length": x.2, "first-release-date": x.3, "video": false,
        "disambiguation": "", "artist-credit": credit(&ARTISTS[x.4]),
    });
    if searched {
        v["score"] = json!(100);
    }
    if genres {
        v["genres"] = genre_list(ARTISTS[x.4].genres);
    }
    v
}
