//! Release and file names to structured media facts, by rules: a name is cut into words, known
//! words (screen sizes, sources, codecs, channels, editions, languages, containers) are claimed
//! from tables, season and episode markers, dates and years by patterns, and the title,
//! episode title and release group are what remains where they stand. Folder names help
//! (`Movies/Heat (1995)/heat.1080p.mkv`). Properties use guessit's names and value spellings;
//! languages are ISO 639-1 codes with a region tag where one is meant.
//!
//! Pure: no I/O and nothing read at run time; the tables are built once per process.

mod episode;
mod language;
mod segment;
mod tables;
mod tokens;

pub use language::normalize as normalize_language;
pub use tables::Prop;

use segment::Segment;

/// What a name is: guessit's `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Movie,
    Episode,
    Unknown,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Movie => "movie",
            Kind::Episode => "episode",
            Kind::Unknown => "unknown",
        }
    }
}

/// The facts read from one name.
#[derive(Clone, Debug, PartialEq)]
pub struct Recognition {
    pub kind: Kind,
    pub title: Option<String>,
    pub year: Option<u32>,
    /// Seasons (several for `S01-S03`), in order found.
    pub season: Vec<u32>,
    /// Episodes (several for multi-episode files), in order found.
    pub episode: Vec<u32>,
    pub episode_title: Option<String>,
    /// `YYYY-MM-DD`.
    pub date: Option<String>,
    pub screen_size: Option<String>,
    pub source: Option<&'static str>,
    pub video_codec: Option<&'static str>,
    pub audio_codec: Vec<&'static str>,
    pub audio_channels: Option<&'static str>,
    pub audio_profile: Option<&'static str>,
    pub video_profile: Option<&'static str>,
    pub color_depth: Option<&'static str>,
    pub streaming_service: Option<&'static str>,
    pub release_group: Option<String>,
    pub edition: Vec<&'static str>,
    pub language: Vec<&'static str>,
    pub subtitle_language: Vec<&'static str>,
    /// The file's extension, lowercase (or as written inside the name).
    pub container: Option<String>,
    pub other: Vec<&'static str>,
    pub proper_count: u32,
    /// The release's version (`v2`).
    pub version: Option<u32>,
    pub cd: Option<u32>,
    pub cd_count: Option<u32>,
    pub part: Option<u32>,
    pub episode_count: Option<u32>,
    pub season_count: Option<u32>,
    pub size: Option<String>,
    pub uuid: Option<String>,
    pub website: Option<String>,
    /// ISO 3166 code of a country written in the name (`US`, `GB`).
    pub country: Option<&'static str>,
    /// Absolute episode numbers written beside the season's (`s16e03 313`).
    pub absolute_episode: Vec<u32>,
    /// `Pilot`, `Unaired`, `Final`.
    pub episode_details: Vec<&'static str>,
    /// Other names written after the title (`Show - Other Name - 02`).
    pub alternative_title: Vec<String>,
    /// The CRC-32 checksum written in the name (`[1C98686A]`).
    pub crc32: Option<String>,
    /// Discs of a season (`S07D1`).
    pub disc: Vec<u32>,
}

/// Folder names that say nothing about a title.
const GENERIC: &[&str] = &[
    "series",
    "serie",
    "tv",
    "tv shows",
    "tvshows",
    "tv series",
    "shows",
    "movies",
    "movie",
    "films",
    "film",
    "videos",
    "video",
    "media",
    "downloads",
    "download",
    "completed",
    "incoming",
    "sample",
    "samples",
    "mnt",
    "volumes",
    "home",
    "data",
    "library",
    "unsorted",
    "extras",
    "subs",
    "subtitles",
    "temp",
    "tmp",
];

/// Reads `name`: a release name, a file name or a relative path.
pub fn recognize(name: &str) -> Recognition {
    let parts = split_path(name);
    let Some((&file, folders)) = parts.split_last() else {
        return empty();
    };
    let (stem, container) = split_extension(file);
    let mut main = segment::read(stem);
    let mut folder_segs: Vec<Segment> = folders
        .iter()
        .rev()
        .take(3)
        .map(|f| segment::read(f))
        .collect();
    // An obfuscated or abbreviated file name inside a release folder: the folder is the
    // release (its episode markers kept when the file has its own).
    if let Some(parent) = folder_segs.first()
        && parent.strength >= 2
        && parent.title.is_some()
        && (looks_obfuscated(stem)
            || !main
                .title
                .as_deref()
                .zip(parent.title.as_deref())
                .is_some_and(|(a, b)| same_title(a, b)))
        && (parent.episode.len() >= main.episode.len()
            || main.title.is_none()
            || looks_obfuscated(stem))
    {
        let parent = folder_segs.remove(0);
        main = parent;
    }
    let after_marker = main.title_after_marker;
    let subtitle_file = container
        .as_deref()
        .is_some_and(|c| matches!(c, "srt" | "sub" | "ass" | "ssa" | "idx" | "vtt"));
    let mut r = from_segment(main, container);
    // A subtitle file's language tag is its subtitles' language.
    if subtitle_file && r.subtitle_language.is_empty() {
        r.subtitle_language = std::mem::take(&mut r.language);
    }
    if r.uuid.is_none() {
        r.uuid = std::iter::once(stem)
            .chain(folders.iter().copied())
            .find(|p| looks_like_uuid(p))
            .map(str::to_owned);
    }
    // A file titled after its marker (`S02E06 - Name.mp4`), or with no marker at all in a
    // season folder: its words are the episode's title, the show's is the folder's.
    let season_folder = folder_segs.iter().any(|f| !f.season.is_empty());
    let show = folder_segs.iter().find_map(|f| {
        f.title
            .as_deref()
            .filter(|t| !GENERIC.contains(&t.to_lowercase().as_str()))
            .map(|t| (t.to_owned(), f.year))
    });
    if let Some((show, year)) = show
        && (after_marker || (season_folder && r.season.is_empty() && r.episode.is_empty()))
        && !r.title.as_deref().is_some_and(|t| same_title(t, &show))
    {
        if r.episode_title.is_none() {
            r.episode_title = r.title.take();
        }
        r.title = Some(show);
        if r.year.is_none() {
            r.year = year;
        }
    }
    for f in &folder_segs {
        fill_from_folder(&mut r, f);
    }
    if r.kind == Kind::Unknown && r.title.is_some() {
        r.kind = Kind::Movie;
    }
    r
}

fn empty() -> Recognition {
    from_segment(Segment::default(), None)
}

/// The parts of a path: `/` and `\\` outside brackets separate them.
fn split_path(name: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut from = 0;
    for (i, c) in name.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            '/' | '\\' if depth <= 0 => {
                parts.push(&name[from..i]);
                from = i + 1;
                depth = 0;
            }
            _ => {}
        }
    }
    parts.push(&name[from..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

fn split_extension(file: &str) -> (&str, Option<String>) {
    if let Some((stem, ext)) = file.rsplit_once('.') {
        let lower = ext.to_lowercase();
        if !stem.is_empty() && tables::EXTENSIONS.contains(&lower.as_str()) {
            return (stem, Some(lower));
        }
    }
    (file, None)
}

/// 32 hexadecimal digits, bare or as 8-4-4-4-12.
fn looks_like_uuid(text: &str) -> bool {
    let hex: String = text.chars().filter(|c| *c != '-').collect();
    let dashes = text.len() - hex.len();
    hex.len() == 32 && (dashes == 0 || dashes == 4) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A file name that is a hash or a number string rather than words.
fn looks_obfuscated(stem: &str) -> bool {
    let alnum = stem.chars().filter(|c| c.is_ascii_alphanumeric()).count();
    let digits = stem.chars().filter(|c| c.is_ascii_digit()).count();
    let spaces = stem
        .chars()
        .filter(|c| matches!(c, ' ' | '.' | '-'))
        .count();
    (alnum >= 16 && digits >= 3 && spaces <= 1) || (digits * 2 >= alnum && alnum > 0)
}

fn from_segment(s: Segment, container: Option<String>) -> Recognition {
    let first = |p: Prop| s.props.iter().find(|(q, _)| *q == p).map(|(_, v)| *v);
    let all = |p: Prop| -> Vec<&'static str> {
        s.props
            .iter()
            .filter(|(q, _)| *q == p)
            .map(|(_, v)| *v)
            .collect()
    };
    let complete = s.props.contains(&(Prop::Other, "Complete")) && s.year.is_none();
    let episodic =
        !s.season.is_empty() || !s.episode.is_empty() || s.date.is_some() || s.episodic || complete;
    let kind = if episodic {
        Kind::Episode
    } else if s.title.is_some() {
        Kind::Movie
    } else {
        Kind::Unknown
    };
    let mut source = first(Prop::Source);
    if source == Some("Blu-ray")
        && (s.screen_size.as_deref() == Some("2160p"))
        && all(Prop::Other).contains(&"Ultra HD")
    {
        source = Some("Ultra HD Blu-ray");
    }
    let mut other = all(Prop::Other);
    if source == Some("Ultra HD Blu-ray") {
        other.retain(|o| *o != "Ultra HD");
    }
    let year = s
        .year
        .or_else(|| s.season.iter().copied().find(|y| (1900..=2039).contains(y)));
    Recognition {
        kind,
        title: s.title.map(|t| article_first(&t)),
        year,
        season: s.season,
        episode: s.episode,
        episode_title: s.episode_title,
        date: s.date,
        screen_size: s.screen_size,
        source,
        video_codec: first(Prop::VideoCodec),
        audio_codec: all(Prop::AudioCodec),
        audio_channels: first(Prop::AudioChannels),
        audio_profile: first(Prop::AudioProfile),
        video_profile: first(Prop::VideoProfile),
        color_depth: first(Prop::ColorDepth),
        streaming_service: first(Prop::StreamingService),
        release_group: s.release_group,
        edition: all(Prop::Edition),
        language: s.language,
        subtitle_language: s.subtitle_language,
        container: container.or_else(|| first(Prop::Container).map(str::to_owned)),
        other,
        proper_count: s.proper_count,
        version: s.version,
        cd: s.cd,
        cd_count: s.cd_count,
        part: s.part,
        episode_count: s.episode_count,
        season_count: s.season_count,
        size: s.size,
        uuid: s.uuid,
        website: s.website,
        country: s.country,
        absolute_episode: s.absolute_episode,
        episode_details: all(Prop::EpisodeDetails),
        alternative_title: s.alternative_title,
        crc32: s.crc32,
        disc: s.disc,
    }
}

/// What a release folder says of quality and languages, where the file name is silent.
fn fill_qualities(r: &mut Recognition, f: &Segment) {
    if f.strength == 0 {
        return;
    }
    let q = from_segment(f.clone(), None);
    r.screen_size = r.screen_size.take().or(q.screen_size);
    r.source = r.source.or(q.source);
    r.video_codec = r.video_codec.or(q.video_codec);
    r.audio_channels = r.audio_channels.or(q.audio_channels);
    r.audio_profile = r.audio_profile.or(q.audio_profile);
    r.color_depth = r.color_depth.or(q.color_depth);
    r.streaming_service = r.streaming_service.or(q.streaming_service);
    r.release_group = r.release_group.take().or(q.release_group);
    r.website = r.website.take().or(q.website);
    r.country = r.country.or(q.country);
    if r.audio_codec.is_empty() {
        r.audio_codec = q.audio_codec;
    }
    if r.language.is_empty() {
        r.language = q.language;
    }
    if r.subtitle_language.is_empty() {
        r.subtitle_language = q.subtitle_language;
    }
    for o in q.other {
        if !r.other.contains(&o) {
            r.other.push(o);
        }
    }
}

fn fill_from_folder(r: &mut Recognition, f: &Segment) {
    fill_qualities(r, f);
    let folder_title = f
        .title
        .as_deref()
        .filter(|t| !GENERIC.contains(&t.to_lowercase().as_str()));
    let episodic_folder = !f.season.is_empty() || f.episodic;
    if r.title.is_none()
        && let Some(t) = folder_title
    {
        r.title = Some(t.to_owned());
        if r.year.is_none() {
            r.year = f.year;
        }
    }
    if r.season.is_empty()
        && !f.season.is_empty()
        && (!r.episode.is_empty() || r.kind != Kind::Movie || episodic_folder)
    {
        r.season = f.season.clone();
        r.kind = Kind::Episode;
    }
    if let Some(t) = folder_title
        && r.title.as_deref().is_some_and(|rt| same_title(rt, t))
    {
        if r.year.is_none() {
            r.year = f.year;
        }
        if r.title.as_deref().is_some_and(str::is_ascii) && !t.is_ascii() {
            r.title = Some(t.to_owned());
        }
    }
    if r.kind != Kind::Episode && episodic_folder && r.title.is_some() {
        r.kind = Kind::Episode;
    }
    if r.kind == Kind::Unknown && r.title.is_some() {
        r.kind = Kind::Movie;
    }
}

/// `Simpsons, The` → `The Simpsons`.
fn article_first(title: &str) -> String {
    for article in ["The", "A", "An", "Le", "La", "Les", "Der", "Die", "Das"] {
        if let Some(rest) = title
            .strip_suffix(article)
            .and_then(|r| r.trim_end().strip_suffix(','))
            .filter(|r| !r.is_empty())
        {
            return format!("{article} {}", rest.trim());
        }
    }
    title.to_owned()
}

/// Without accents, for comparing.
fn plain(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ä' | 'ã' | 'å' => 'a',
        'è' | 'é' | 'ê' | 'ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' => 'i',
        'ò' | 'ó' | 'ô' | 'ö' | 'õ' => 'o',
        'ù' | 'ú' | 'û' | 'ü' => 'u',
        'ç' => 'c',
        'ñ' => 'n',
        other => other,
    }
}

fn same_title(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .map(plain)
            .collect()
    };
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && (a == b || b.starts_with(&a) || a.starts_with(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_movie_in_its_folder() {
        let r = recognize("Movies/Heat (1995)/heat.1080p.mkv");
        assert_eq!(r.kind, Kind::Movie);
        assert_eq!(r.title.as_deref(), Some("heat"));
        assert_eq!(r.year, Some(1995));
        assert_eq!(r.screen_size.as_deref(), Some("1080p"));
        assert_eq!(r.container.as_deref(), Some("mkv"));
    }

    #[test]
    fn an_episode_release() {
        let r = recognize(
            "The.Simpsons.S24E03.Adventures.in.Baby-Getting.720p.WEB-DL.DD5.1.H.264-CtrlHD.mkv",
        );
        assert_eq!(r.kind, Kind::Episode);
        assert_eq!(r.title.as_deref(), Some("The Simpsons"));
        assert_eq!((r.season.clone(), r.episode.clone()), (vec![24], vec![3]));
        assert_eq!(
            r.episode_title.as_deref(),
            Some("Adventures in Baby-Getting")
        );
        assert_eq!(r.source, Some("Web"));
        assert_eq!(r.audio_codec, vec!["Dolby Digital"]);
        assert_eq!(r.audio_channels, Some("5.1"));
        assert_eq!(r.video_codec, Some("H.264"));
        assert_eq!(r.release_group.as_deref(), Some("CtrlHD"));
    }

    #[test]
    fn nothing_recognisable_is_unknown() {
        assert_eq!(recognize("").kind, Kind::Unknown);
        assert_eq!(recognize("...").kind, Kind::Unknown);
    }
}
