//! What the index records of one file: its kind by extension, whether it is a sample, and
//! what its name (release-name rules; a subtitle's language suffix) or, for music, its tags or
//! its place (`Artist/Album (Year)/01 - Title.flac`) say. Blocking: music tags are read from
//! the file, opened beneath its root.

use adapters_folder::{Root, WalkEntry, tags::MusicTags};
use recognize::{Kind, Recognition};
use serde_json::{Value, json};
use store::LocalFile;

use super::recognize_media::facts;

/// What a file is, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileKind {
    Video,
    Audio,
    Subtitle,
}

impl FileKind {
    pub(crate) fn of(path: &str) -> Option<FileKind> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let (_, ext) = name.rsplit_once('.')?;
        let ext = ext.to_ascii_lowercase();
        Some(match ext.as_str() {
            "mkv" | "mp4" | "m4v" | "avi" | "mov" | "wmv" | "ts" | "m2ts" | "mts" | "mpg"
            | "mpeg" | "webm" | "flv" | "vob" | "ogv" | "divx" | "3gp" | "iso" => FileKind::Video,
            "mp3" | "flac" | "m4a" | "aac" | "ogg" | "oga" | "opus" | "wav" | "wma" | "ape"
            | "wv" | "aiff" | "aif" | "alac" | "dsf" | "mka" => FileKind::Audio,
            "srt" | "ass" | "ssa" | "sub" | "idx" | "vtt" | "sup" | "smi" => FileKind::Subtitle,
            _ => return None,
        })
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            FileKind::Video => "video",
            FileKind::Audio => "audio",
            FileKind::Subtitle => "subtitle",
        }
    }
}

/// Lower-case letters and digits only: the index's title key, and how a query is compared.
pub(crate) fn title_key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A sample clip: a folder named `sample`, or a name that says `sample`.
pub(crate) fn is_sample(path: &str, r: Option<&Recognition>) -> bool {
    let mut parts = path.split('/').rev();
    let file = parts.next().unwrap_or_default().to_ascii_lowercase();
    let stem = file.rsplit_once('.').map_or(file.as_str(), |(s, _)| s);
    parts.any(|p| p.eq_ignore_ascii_case("sample") || p.eq_ignore_ascii_case("samples"))
        || stem == "sample"
        || stem.ends_with("-sample")
        || stem.ends_with(".sample")
        || stem.starts_with("sample-")
        || r.is_some_and(|r| r.other.contains(&"Sample"))
}

/// A file to read in this scan: new or changed.
pub(crate) struct Pending {
    pub entry: WalkEntry,
    pub kind: FileKind,
    pub new: bool,
}

/// What a file's name or tags say, before identity.
pub(crate) struct Read {
    pub row: LocalFile,
    /// The recognition (videos and subtitles), for matching.
    pub recognition: Option<Recognition>,
}

/// Reads a batch's names and tags (blocking: tags are read from the files).
pub(crate) fn read_batch(root: &Root, instance_id: &str, batch: Vec<Pending>) -> Vec<(Read, bool)> {
    batch
        .into_iter()
        .map(|p| {
            let new = p.new;
            (read_one(root, instance_id, p), new)
        })
        .collect()
}

fn read_one(root: &Root, instance_id: &str, p: Pending) -> Read {
    let WalkEntry { path, facts: f } = p.entry;
    let mut row = LocalFile {
        instance_id: instance_id.to_owned(),
        size: i64::try_from(f.size).unwrap_or(i64::MAX),
        mtime_ns: f.mtime_ns,
        file_kind: p.kind.as_str().to_owned(),
        media_type: None,
        title: None,
        title_key: None,
        year: None,
        season: None,
        episode: None,
        media_source: None,
        media_id: None,
        confidence: None,
        facts: "{}".to_owned(),
        path,
    };
    if p.kind == FileKind::Audio {
        let tags = root
            .open_file(&row.path)
            .ok()
            .and_then(|(file, _)| adapters_folder::tags::music_tags(file));
        let (music, from) = match tags {
            Some(t) => (t, "tags"),
            None => (music_from_name(&row.path), "name"),
        };
        let album = music.album.clone().or_else(|| music.title.clone());
        if let Some(album) = album.filter(|_| !music.is_empty()) {
            let artist = music
                .album_artist
                .clone()
                .or_else(|| music.artist.clone())
                .unwrap_or_default();
            row.media_type = Some("music".into());
            row.title_key = Some(title_key(&format!("{artist} {album}")));
            row.title = Some(album);
            row.year = music.year.map(i64::from);
            row.episode = music.track.map(i64::from);
            row.season = music.disc.map(i64::from);
        }
        row.facts = json!({
            "artist": music.artist,
            "album_artist": music.album_artist,
            "album": music.album,
            "track": music.track,
            "disc": music.disc,
            "title": music.title,
            "year": music.year,
            "duration_seconds": music.duration_seconds,
            "read_from": from,
        })
        .to_string();
        return Read {
            row,
            recognition: None,
        };
    }
    let (name, sub_langs) = if p.kind == FileKind::Subtitle {
        subtitle_name(&row.path)
    } else {
        (row.path.clone(), Vec::new())
    };
    let r = recognize::recognize(&name);
    let mut facts = facts(&r, Value::Null);
    if let Some(m) = facts.as_object_mut() {
        m.remove("match");
        if !sub_langs.is_empty() {
            let mut all: Vec<Value> = sub_langs.into_iter().map(Value::String).collect();
            all.extend(
                m.get("subtitle_language")
                    .map(|v| match v {
                        Value::Array(a) => a.clone(),
                        Value::Null => Vec::new(),
                        one => vec![one.clone()],
                    })
                    .unwrap_or_default(),
            );
            all.dedup();
            m.insert("subtitle_language".into(), Value::Array(all));
        }
        if let Some(ep) = m.get("episode").filter(|e| e.is_number()).cloned() {
            m.insert("episode".into(), json!([ep]));
        }
    }
    row.facts = facts.to_string();
    if let (Some(title), false) = (r.title.clone(), r.kind == Kind::Unknown) {
        row.media_type = Some(
            if r.kind == Kind::Episode {
                "tv"
            } else {
                "movie"
            }
            .into(),
        );
        row.title_key = Some(title_key(&title));
        row.title = Some(title);
        row.year = r.year.map(i64::from);
        row.season = r.season.first().map(|&s| i64::from(s));
        row.episode = r.episode.first().map(|&e| i64::from(e));
    }
    Read {
        row,
        recognition: Some(r),
    }
}

/// A subtitle file's name without the language and flags that end it
/// (`Heat.1995.1080p.en.forced.srt` → `Heat.1995.1080p.srt`, `en`), which the release-name
/// rules would read as part of the release group.
fn subtitle_name(path: &str) -> (String, Vec<String>) {
    let (stem, ext) = path.rsplit_once('.').unwrap_or((path, ""));
    let mut stem = stem;
    let mut langs = Vec::new();
    for _ in 0..3 {
        let Some((rest, last)) = stem.rsplit_once('.') else {
            break;
        };
        if last.contains('/') {
            break;
        }
        let flag = matches!(
            last.to_ascii_lowercase().as_str(),
            "forced" | "sdh" | "cc" | "hi" | "default"
        );
        let lang = (!flag && last.len() <= 8)
            .then(|| recognize::normalize_language(last))
            .flatten();
        match lang {
            Some(l) => langs.insert(0, l),
            None if flag => {}
            None => break,
        }
        stem = rest;
    }
    (format!("{stem}.{ext}"), langs)
}

/// Music told by its place when it has no tags: `Artist/Album (Year)/01 - Title.flac`.
fn music_from_name(path: &str) -> MusicTags {
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or_default();
    let album_folder = parts.next();
    let artist_folder = parts.next();
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let digits: String = stem.chars().take_while(char::is_ascii_digit).collect();
    let track = (!digits.is_empty() && digits.len() <= 3)
        .then(|| digits.parse().ok())
        .flatten();
    let title = stem[digits.len()..]
        .trim_start_matches([' ', '-', '.', '_'])
        .trim();
    let (album, year) = match album_folder {
        Some(a) => {
            let r = recognize::recognize(a);
            let year = r.year;
            let name = a.split(" (").next().unwrap_or(a).trim().to_owned();
            (Some(name).filter(|n| !n.is_empty()), year)
        }
        None => (None, None),
    };
    MusicTags {
        artist: artist_folder.map(str::to_owned),
        album,
        album_artist: None,
        track,
        disc: None,
        title: Some(title.to_owned()).filter(|t| !t.is_empty()),
        year,
        duration_seconds: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_extensions() {
        assert_eq!(FileKind::of("a/b/Heat.1995.MKV"), Some(FileKind::Video));
        assert_eq!(FileKind::of("x.flac"), Some(FileKind::Audio));
        assert_eq!(FileKind::of("x.en.srt"), Some(FileKind::Subtitle));
        assert_eq!(FileKind::of("movie.nfo"), None);
        assert_eq!(FileKind::of("README"), None);
    }

    #[test]
    fn samples_are_told_by_folder_or_name() {
        assert!(is_sample("Heat (1995)/Sample/heat-sample.mkv", None));
        assert!(is_sample("Heat (1995)/heat.sample.mkv", None));
        assert!(is_sample("Heat (1995)/sample.mkv", None));
        assert!(!is_sample(
            "Samples Of Life (2001)/samples.of.life.mkv",
            None
        ));
    }

    #[test]
    fn a_subtitle_name_gives_up_its_language_and_flags() {
        assert_eq!(
            subtitle_name("Heat (1995)/Heat.1995.1080p.x264-GRP.en.forced.srt"),
            (
                "Heat (1995)/Heat.1995.1080p.x264-GRP.srt".to_string(),
                vec!["en".to_string()]
            )
        );
        assert_eq!(
            subtitle_name("Show/Show.S01E01.pt-BR.srt"),
            (
                "Show/Show.S01E01.srt".to_string(),
                vec!["pt-BR".to_string()]
            )
        );
        assert_eq!(
            subtitle_name("Up.2009.srt"),
            ("Up.2009.srt".to_string(), vec![])
        );
    }

    #[test]
    fn music_is_told_by_its_place_without_tags() {
        let m = music_from_name("Pink Floyd/The Dark Side of the Moon (1973)/03 - Time.flac");
        assert_eq!(m.artist.as_deref(), Some("Pink Floyd"));
        assert_eq!(m.album.as_deref(), Some("The Dark Side of the Moon"));
        assert_eq!(m.year, Some(1973));
        assert_eq!(m.track, Some(3));
        assert_eq!(m.title.as_deref(), Some("Time"));
    }
}
