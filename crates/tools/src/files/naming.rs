//! Where a media file goes in a library laid out the way Jellyfin, Plex and Kodi read it: the
//! facts the `recognize` crate reads from a relative path, put through a template
//! (`Title (Year)/Title (Year) - 1080p`, `Show (Year)/Season 01/Show - S01E02 - Episode
//! Title`), each value made safe as one file name; and the sidecars (subtitles, NFO files)
//! that travel with a video, renamed after it.

use recognize::{Kind, Recognition};

/// Video containers: the files organised.
pub(crate) const VIDEO: &[&str] = &[
    "mkv", "mp4", "m4v", "avi", "mov", "wmv", "mpg", "mpeg", "ts", "m2ts", "webm", "flv", "ogv",
];
/// Subtitle files, which travel with their video.
pub(crate) const SUBTITLE: &[&str] = &["srt", "ass", "ssa", "sub", "idx", "vtt", "sup"];

/// The default film layout.
pub(crate) const MOVIE_TEMPLATE: &str = "{title}[ ({year})]/{title}[ ({year})][ - {screen_size}]";
/// The default episode layout.
pub(crate) const EPISODE_TEMPLATE: &str =
    "{title}[ ({year})]/Season {season}/{title} - S{season}E{episode}[ - {episode_title}]";
/// The longest template accepted.
pub(crate) const MAX_TEMPLATE: usize = 256;

/// What a file is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    Video,
    Subtitle,
    Nfo,
    Other,
}

/// The lowercase extension of a path's last component, if any.
pub(crate) fn extension(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty()).then(|| ext.to_ascii_lowercase())
}

pub(crate) fn kind_of(path: &str) -> FileKind {
    match extension(path).as_deref() {
        Some(e) if VIDEO.contains(&e) => FileKind::Video,
        Some(e) if SUBTITLE.contains(&e) => FileKind::Subtitle,
        Some("nfo") => FileKind::Nfo,
        _ => FileKind::Other,
    }
}

/// A sample clip rather than the film: "sample" as a word of its name or a folder's.
pub(crate) fn is_sample(path: &str) -> bool {
    path.split('/').any(|part| {
        part.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w.eq_ignore_ascii_case("sample"))
    })
}

/// The facts a template reads, from a recognition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Facts {
    pub movie: bool,
    pub title: String,
    pub year: Option<u32>,
    pub season: Option<u32>,
    pub episodes: Vec<u32>,
    pub episode_title: Option<String>,
    pub screen_size: Option<String>,
}

impl Facts {
    /// The facts of `r`, or why a file cannot be placed (no title; an episode without its
    /// season and episode numbers).
    pub fn of(r: &Recognition) -> Result<Facts, &'static str> {
        let title = r
            .title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or("no title could be read from its name")?;
        let movie = match r.kind {
            Kind::Movie => true,
            Kind::Episode => false,
            Kind::Unknown => return Err("it was recognised as neither a film nor an episode"),
        };
        if !movie && (r.season.is_empty() || r.episode.is_empty()) {
            return Err(
                "it reads as an episode but its season and episode numbers are not both in its name",
            );
        }
        Ok(Facts {
            movie,
            title: title.to_owned(),
            year: r.year,
            season: r.season.first().copied(),
            episodes: r.episode.clone(),
            episode_title: r.episode_title.clone().filter(|t| !t.trim().is_empty()),
            screen_size: r.screen_size.clone(),
        })
    }

    /// The facts of the relative path `path`, its title written as a folder of the path
    /// writes it when the file name has it in lower case (`the.matrix.720p.mp4` in `The Matrix
    /// (1999)`), else with each word's first letter capitalised.
    pub fn of_path(path: &str) -> Result<Facts, &'static str> {
        let mut facts = Facts::of(&recognize::recognize(path))?;
        if facts.title.chars().any(char::is_uppercase) {
            return Ok(facts);
        }
        let cased = path.split('/').rev().skip(1).find_map(|folder| {
            recognize::recognize(folder)
                .title
                .filter(|t| t.to_lowercase() == facts.title.to_lowercase())
                .filter(|t| t.chars().any(char::is_uppercase))
        });
        facts.title = cased.unwrap_or_else(|| capitalised(&facts.title));
        Ok(facts)
    }

    fn field(&self, f: Field) -> Option<String> {
        match f {
            Field::Title => Some(self.title.clone()),
            Field::Year => self.year.map(|y| y.to_string()),
            Field::Season => self.season.map(|s| format!("{s:02}")),
            Field::Episode => match self.episodes.as_slice() {
                [] => None,
                [one] => Some(format!("{one:02}")),
                [first, .., last] => Some(format!("{first:02}-E{last:02}")),
            },
            Field::EpisodeTitle => self.episode_title.clone(),
            Field::ScreenSize => self.screen_size.clone(),
        }
    }
}

/// A value a template names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Year,
    Season,
    Episode,
    EpisodeTitle,
    ScreenSize,
}

const FIELDS: &[(&str, Field)] = &[
    ("title", Field::Title),
    ("year", Field::Year),
    ("season", Field::Season),
    ("episode", Field::Episode),
    ("episode_title", Field::EpisodeTitle),
    ("screen_size", Field::ScreenSize),
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Field(Field),
    /// Shown only when every field inside has a value.
    Optional(Vec<Part>),
}

/// A parsed layout: `/` separates folders, `{field}` is a value, `[...]` is shown only when
/// every field inside it has a value. The file's own extension is added after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Template(Vec<Part>);

impl Template {
    pub fn parse(text: &str) -> Result<Template, String> {
        let names = || {
            FIELDS
                .iter()
                .map(|(n, _)| format!("{{{n}}}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if text.len() > MAX_TEMPLATE || text.contains(['\0', '\\']) {
            return Err(format!(
                "a template is at most {MAX_TEMPLATE} bytes, with no NUL or backslash"
            ));
        }
        if text.starts_with('/') || text.split('/').any(|p| p.trim() == "..") {
            return Err("a template is a relative path: no leading '/' and no '..'".into());
        }
        let mut stack: Vec<Vec<Part>> = vec![Vec::new()];
        let mut chars = text.chars().peekable();
        let mut literal = String::new();
        let flush = |literal: &mut String, stack: &mut Vec<Vec<Part>>| {
            if !literal.is_empty()
                && let Some(top) = stack.last_mut()
            {
                top.push(Part::Text(std::mem::take(literal)));
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '{' => {
                    flush(&mut literal, &mut stack);
                    let name: String = chars.by_ref().take_while(|&c| c != '}').collect();
                    let field = FIELDS
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, f)| *f)
                        .ok_or_else(|| {
                            format!("unknown template field {{{name}}}; fields: {}", names())
                        })?;
                    if let Some(top) = stack.last_mut() {
                        top.push(Part::Field(field));
                    }
                }
                '}' => return Err("a '}' without its '{' in the template".into()),
                '[' => {
                    flush(&mut literal, &mut stack);
                    stack.push(Vec::new());
                }
                ']' => {
                    flush(&mut literal, &mut stack);
                    let inner = stack.pop().filter(|_| !stack.is_empty());
                    match (inner, stack.last_mut()) {
                        (Some(inner), Some(top)) => top.push(Part::Optional(inner)),
                        _ => return Err("a ']' without its '[' in the template".into()),
                    }
                }
                c => literal.push(c),
            }
        }
        flush(&mut literal, &mut stack);
        match stack.pop() {
            Some(parts) if stack.is_empty() => {
                if !parts.iter().any(has_field) {
                    return Err(format!(
                        "a template names at least one field, such as {{title}}; fields: {}",
                        names()
                    ));
                }
                Ok(Template(parts))
            }
            _ => Err("a '[' without its ']' in the template".into()),
        }
    }

    /// The relative path (without extension) for `facts`, each value made safe as a name;
    /// `Err` names a field outside `[...]` that this file has no value for.
    pub fn render(&self, facts: &Facts) -> Result<String, String> {
        let mut out = String::new();
        render_parts(&self.0, facts, &mut out)?;
        let parts: Vec<String> = out
            .split('/')
            .map(tidy_component)
            .filter(|p| !p.is_empty())
            .collect();
        if parts.is_empty() {
            return Err("the template gives an empty path for this file".into());
        }
        Ok(parts.join("/"))
    }
}

fn has_field(p: &Part) -> bool {
    match p {
        Part::Text(_) => false,
        Part::Field(_) => true,
        Part::Optional(inner) => inner.iter().any(has_field),
    }
}

fn render_parts(parts: &[Part], facts: &Facts, out: &mut String) -> Result<(), String> {
    for p in parts {
        match p {
            Part::Text(t) => out.push_str(t),
            Part::Field(f) => {
                let value = facts.field(*f).ok_or_else(|| {
                    let name = FIELDS.iter().find(|(_, g)| g == f).map_or("", |(n, _)| *n);
                    format!("it has no {name}, which the template needs outside [...]")
                })?;
                out.push_str(&safe_name(&value));
            }
            Part::Optional(inner) => {
                let mut buf = String::new();
                if render_parts(inner, facts, &mut buf).is_ok() {
                    out.push_str(&buf);
                }
            }
        }
    }
    Ok(())
}

/// Each word's first letter in upper case.
fn capitalised(title: &str) -> String {
    title
        .split(' ')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first.to_uppercase().chain(c).collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A value made safe inside one file name on every system a media server runs on: no path
/// separators, no characters Windows shares refuse, no control characters; `:` becomes ` -`.
pub(crate) fn safe_name(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ':' if chars.peek() == Some(&' ') => out.push_str(" -"),
            ':' => out.push('-'),
            '/' | '\\' => out.push('-'),
            '*' | '?' | '"' | '<' | '>' | '|' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One folder or file name: spaces collapsed, no leading dot (hidden) and no trailing dots or
/// spaces (Windows), never `.` or `..`.
fn tidy_component(part: &str) -> String {
    let collapsed = part.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed
        .trim_start_matches('.')
        .trim_end_matches(['.', ' '])
        .trim()
        .to_string()
}

/// The default template for a file with `facts`.
pub(crate) fn default_template(facts: &Facts) -> &'static str {
    if facts.movie {
        MOVIE_TEMPLATE
    } else {
        EPISODE_TEMPLATE
    }
}

/// The last component of a relative path.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The folder part of a relative path ("" at the top).
pub(crate) fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(f, _)| f)
}

/// A file name without its last extension.
pub(crate) fn stem(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => name,
    }
}

/// Where a sidecar of a video goes: beside the video's destination, named after it. A sidecar
/// named after the video (`Heat.1995.en.srt` beside `Heat.1995.mkv`) keeps what follows the
/// video's name (`.en.srt`); any other keeps its language tags as read from its name, or none.
pub(crate) fn sidecar_destination(video_source: &str, video_dest: &str, sidecar: &str) -> String {
    let video_stem = stem(file_name(video_source));
    let dest_stem = stem(video_dest);
    let name = file_name(sidecar);
    if let Some(rest) = name.strip_prefix(video_stem)
        && rest.starts_with('.')
    {
        return format!("{dest_stem}{}", rest.to_ascii_lowercase());
    }
    let ext = extension(sidecar).unwrap_or_default();
    if ext == "nfo" {
        return format!("{dest_stem}.nfo");
    }
    let r = recognize::recognize(name);
    let mut tags: Vec<String> = r
        .subtitle_language
        .iter()
        .chain(&r.language)
        .take(1)
        .map(|l| l.to_string())
        .collect();
    let lower = name.to_ascii_lowercase();
    if lower.contains(".forced.") || lower.contains(" forced") {
        tags.push("forced".into());
    }
    let mut out = dest_stem.to_string();
    for t in tags {
        out.push('.');
        out.push_str(&t);
    }
    out.push('.');
    out.push_str(&ext);
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The default destination of `path`, extension included.
    fn place(path: &str) -> String {
        let facts = Facts::of_path(path).unwrap();
        let t = Template::parse(default_template(&facts)).unwrap();
        format!("{}.{}", t.render(&facts).unwrap(), extension(path).unwrap())
    }

    #[test]
    fn films_and_episodes_follow_the_media_server_layout() {
        for (path, want) in [
            (
                "Heat.1995.1080p.BluRay.x264-GRP/Heat.1995.1080p.BluRay.x264-GRP.mkv",
                "Heat (1995)/Heat (1995) - 1080p.mkv",
            ),
            (
                "Movies/The Matrix (1999)/the.matrix.720p.mp4",
                "The Matrix (1999)/The Matrix (1999) - 720p.mp4",
            ),
            ("Alien.1979.avi", "Alien (1979)/Alien (1979).avi"),
            (
                "The.Wire.S01E02.The.Detail.720p.HDTV.x264.mkv",
                "The Wire/Season 01/The Wire - S01E02 - The Detail.mkv",
            ),
            (
                "Doctor.Who.2005.S02E03.720p.mkv",
                "Doctor Who (2005)/Season 02/Doctor Who - S02E03.mkv",
            ),
            ("Show.S01E01E02.mkv", "Show/Season 01/Show - S01E01-E02.mkv"),
            ("dl/heat.1995.mkv", "Heat (1995)/Heat (1995).mkv"),
        ] {
            assert_eq!(place(path), want, "{path}");
        }
    }

    #[test]
    fn values_are_made_safe_as_names() {
        assert_eq!(
            safe_name("Mission: Impossible / Fallout?"),
            "Mission - Impossible - Fallout"
        );
        assert_eq!(safe_name("Face/Off"), "Face-Off");
        assert_eq!(safe_name("a\u{7}b  \"c\""), "ab c");
        let facts = Facts {
            movie: true,
            title: "..".into(),
            year: None,
            season: None,
            episodes: Vec::new(),
            episode_title: None,
            screen_size: None,
        };
        let t = Template::parse("{title}/{title} x").unwrap();
        assert_eq!(t.render(&facts).unwrap(), "x", "never a '..' component");
    }

    #[test]
    fn templates_are_checked_before_use() {
        for (bad, says) in [
            ("{nope}", "unknown template field {nope}"),
            ("../{title}", "relative path"),
            ("/{title}", "relative path"),
            ("[{title}", "without its ']'"),
            ("{title}]", "without its '['"),
            ("plain", "at least one field"),
        ] {
            let e = Template::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let t = Template::parse("Films/{title} [{year}]").unwrap();
        let facts = Facts::of(&recognize::recognize("Heat.1995.mkv")).unwrap();
        assert_eq!(t.render(&facts).unwrap(), "Films/Heat 1995");
        let e = Template::parse("{title} S{season}")
            .unwrap()
            .render(&facts)
            .unwrap_err();
        assert!(e.contains("no season"), "{e}");
    }

    #[test]
    fn sidecars_are_named_after_their_video() {
        let video = "dl/Heat.1995.1080p.BluRay.x264-GRP.mkv";
        let dest = "Heat (1995)/Heat (1995) - 1080p.mkv";
        assert_eq!(
            sidecar_destination(video, dest, "dl/Heat.1995.1080p.BluRay.x264-GRP.en.srt"),
            "Heat (1995)/Heat (1995) - 1080p.en.srt"
        );
        assert_eq!(
            sidecar_destination(video, dest, "dl/release.nfo"),
            "Heat (1995)/Heat (1995) - 1080p.nfo"
        );
        assert_eq!(
            sidecar_destination(video, dest, "dl/Subs/English.srt"),
            "Heat (1995)/Heat (1995) - 1080p.en.srt"
        );
    }

    #[test]
    fn kinds_and_samples() {
        assert_eq!(kind_of("a/b.MKV"), FileKind::Video);
        assert_eq!(kind_of("a/b.en.srt"), FileKind::Subtitle);
        assert_eq!(kind_of("a/b.nfo"), FileKind::Nfo);
        assert_eq!(kind_of("a/b.txt"), FileKind::Other);
        assert_eq!(kind_of("a/.mkv"), FileKind::Other);
        assert!(is_sample("Heat.1995/Sample/heat-sample.mkv"));
        assert!(is_sample("Heat.1995/heat.sample.mkv"));
        assert!(!is_sample("Samples.Of.Life.2001.mkv"));
    }
}
