//! `probe_media_file`: what is inside one video or audio file beneath a folder instance, read
//! by `ffprobe` on the file opened beneath the root (container, duration, bitrate, video with
//! HDR, every audio and subtitle stream), with the subtitle files beside it. What ffprobe
//! found is kept per file while its size and modification time are unchanged.

use std::{ffi::OsStr, sync::Arc, time::Duration};

use adapters_catalogue::Error as CatalogueError;
use adapters_folder::{
    FileFacts, FolderError, Root,
    probe::{self, Hdr, Probe, ProbeError, SubtitleFile},
};
use domain::{Capability, InstanceKind, KindFamily, MediaId, MediaSource, MediaType};
use kept::{Keep, Kept};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::discover::{limits, pick, render};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct ProbeMediaFile;

/// How long ffprobe may take over one file before it is stopped.
const PROBE_LIMIT: Duration = Duration::from_secs(30);
/// How many files' probes are kept.
const KEPT_PROBES: usize = 4096;
/// The longest path taken (Linux's PATH_MAX).
const MAX_PATH: u32 = 4096;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The folder instance the file is in (list_instances names them).
    #[schemars(length(min = 1, max = 64))]
    pub instance_id: String,
    /// The file, relative to the folder's root: "Movies/Heat (1995)/Heat (1995).mkv".
    #[schemars(length(min = 1, max = MAX_PATH))]
    pub path: String,
}

/// The family's kept probes: by instance and path, valid while size and mtime hold.
pub struct Probes {
    kept: Kept<(String, String), FileFacts, Arc<Streams>, ToolError>,
}

impl Default for Probes {
    fn default() -> Self {
        Probes {
            kept: Kept::new(KEPT_PROBES),
        }
    }
}

/// The answer's data.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Probed<'a> {
    pub instance_id: String,
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// The file's modification time (RFC 3339).
    pub modified: Option<String>,
    #[serde(flatten)]
    pub streams: &'a Streams,
    /// Subtitle files beside it: the same stem and a subtitle extension.
    pub external_subtitles: Vec<ExternalSubtitle>,
}

/// What ffprobe found in the file.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Streams {
    /// The container, as a file extension names it: `mkv`, `mp4`, `avi`, `ts`...
    pub container: String,
    /// ffprobe's own name of the format (`matroska,webm`).
    pub format_name: String,
    /// The container's title tag.
    pub title: Option<String>,
    pub duration_seconds: Option<f64>,
    /// The overall bitrate, bits per second.
    pub bit_rate: Option<u64>,
    /// The main video stream; null for an audio file.
    pub video: Option<VideoStream>,
    pub audio: Vec<AudioStream>,
    pub subtitles: Vec<SubtitleStream>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct VideoStream {
    pub index: u32,
    /// ffprobe's codec name: `h264`, `hevc`, `av1`...
    pub codec: String,
    pub profile: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// guessit's spelling of the resolution class: `2160p`, `1080p`, `720p`, `576p`, `480p`...
    pub screen_size: Option<String>,
    pub frame_rate: Option<f64>,
    /// HDR formats, Dolby Vision first (`Dolby Vision`, `HDR10+`, `HDR10`, `HLG`); empty for SDR.
    pub hdr: Vec<&'static str>,
    pub dolby_vision_profile: Option<u32>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AudioStream {
    pub index: u32,
    /// ffprobe's codec name: `aac`, `ac3`, `eac3`, `dts`, `truehd`...
    pub codec: String,
    /// The codec profile (`DTS-HD MA`, `LC`).
    pub profile: Option<String>,
    pub channels: Option<u32>,
    /// `5.1`, `stereo`...
    pub channel_layout: Option<String>,
    /// ISO 639-1 where the tag maps (`en`, `fr`, `pt-BR`), else the tag as written; null when
    /// untagged or undetermined.
    pub language: Option<String>,
    pub title: Option<String>,
    pub default: bool,
    pub forced: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SubtitleStream {
    pub index: u32,
    /// ffprobe's codec name: `subrip`, `ass`, `hdmv_pgs_subtitle`...
    pub codec: String,
    /// As for audio.
    pub language: Option<String>,
    pub title: Option<String>,
    pub default: bool,
    pub forced: bool,
    pub hearing_impaired: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ExternalSubtitle {
    /// Relative to the folder's root.
    pub path: String,
    /// `srt`, `ass`, `sub`, `vtt`.
    pub format: String,
    /// From the name (`Movie.en.srt`, `Movie.French.forced.srt`), ISO 639-1 where it maps.
    pub language: Option<String>,
    /// Named `forced` or `foreign`.
    pub forced: bool,
    /// Named `sdh`, `cc`, or `hi` beside a language.
    pub hearing_impaired: bool,
    /// Named `default`.
    pub default: bool,
}

impl Tool for ProbeMediaFile {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Probed<'static>>);
    const META: Meta = Meta {
        name: "probe_media_file",
        title: "Probe a media file",
        description: "Looks inside one video or audio file of a folder instance with ffprobe: container, duration, bitrate; the video (codec, resolution, screen_size, HDR: Dolby Vision, HDR10, HDR10+, HLG); every audio stream (codec, channels, language as ISO 639-1, default/forced) and subtitle stream (codec, language, default/forced); and the subtitle files beside it (.srt/.ass/.sub/.vtt with the same stem; language, forced and hearing-impaired from their names). path is relative to the folder's root; a path outside it is answered as not found.",
        effect: Effect::Read,
        capability: Capability::FilesRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Files),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let (spec, _allowed) = ctx.instance(KindFamily::Files, Some(&input.instance_id))?;
        if limits::Gate::for_caller_would_filter(ctx) {
            within_limits(ctx, &spec.id, &input.path).await?;
        }
        let Some(root_path) = spec.path.clone() else {
            return Err(ToolError::new(
                ErrorCode::BackendMisconfigured,
                format!("the folder instance \"{}\" has no path", spec.id),
            ));
        };
        let rel = input.path.clone();
        let opened = tokio::task::spawn_blocking(move || open(&root_path, &rel))
            .await
            .map_err(|_| ToolError::new(ErrorCode::Internal, "the file could not be opened"))?;
        let (file, facts, beside) = opened.map_err(|e| folder_error(&spec.id, &input.path, e))?;
        let probes = ctx.family::<Probes>()?;
        let key = (spec.id.clone(), input.path.clone());
        let name = input.path.clone();
        let streams = probes
            .kept
            .get_or_compute(key, facts, || async move {
                let found = probe::probe(OsStr::new("ffprobe"), file, PROBE_LIMIT)
                    .await
                    .map_err(|e| probe_error(&name, e))?;
                Ok((Arc::new(streams(&name, found)), Keep::Yes))
            })
            .await?;
        let probed = Probed {
            instance_id: spec.id.clone(),
            path: input.path,
            size: facts.size,
            modified: modified(facts.mtime_ns),
            streams: &streams,
            external_subtitles: beside.iter().map(external).collect(),
        };
        Output::typed(summary(&probed), &probed)
    }
}

/// A content-limited caller probes only a file the index knows as a title its limits allow,
/// judged as `find_local_media` judges it (the catalogue that named it rates it, as discovery
/// does): a movie or show over the limits, one without an identity to rate and a file the index
/// does not hold (so a missing path too) all get discovery's answer for a title the limits
/// forbid, before anything is opened; music passes unless the limits hide unrated titles.
async fn within_limits(ctx: &Ctx, instance: &str, path: &str) -> Result<(), ToolError> {
    let Some(file) = ctx.store().local_media_file(instance, path).await? else {
        return Err(limits::not_available());
    };
    if file.media_type.as_deref() == Some("music") {
        return match ctx.caller.authority.person.limits.block_unrated {
            true => Err(limits::not_available()),
            false => Ok(()),
        };
    }
    let (Some(source), Some(id)) = (
        file.media_source
            .as_deref()
            .and_then(|s| s.parse::<MediaSource>().ok()),
        file.media_id.clone(),
    ) else {
        return Err(limits::not_available());
    };
    let (kind, media_type) = match (source, file.media_type.as_deref()) {
        (MediaSource::Builtin, Some("movie")) => (InstanceKind::Builtin, MediaType::Movie),
        (MediaSource::Tmdb, Some("movie")) => (InstanceKind::Tmdb, MediaType::Movie),
        (MediaSource::Tmdb, Some("tv")) => (InstanceKind::Tmdb, MediaType::Tv),
        _ => return Err(limits::not_available()),
    };
    let entry = pick(ctx, None, &[kind], "checking content limits")?;
    let catalogue = entry.catalogue().await?;
    let Some(mut gate) = limits::Gate::for_caller(ctx, entry, catalogue.clone()) else {
        return Ok(());
    };
    let details = match catalogue
        .title_details(&MediaId::new(source, id), media_type, &gate.region)
        .await
    {
        Ok(d) => d,
        Err(CatalogueError::NotFound { .. }) => return Err(limits::not_available()),
        Err(e) => return Err(render::catalogue_error(e, &entry.id)),
    };
    if gate.allows(&details).await? {
        Ok(())
    } else {
        Err(limits::not_available())
    }
}

/// Opens the root and the file beneath it, and finds the subtitle files beside it.
fn open(
    root: &str,
    rel: &str,
) -> Result<(std::fs::File, FileFacts, Vec<SubtitleFile>), FolderError> {
    let root = Root::open(root)?;
    let (file, facts) = root.open_file(rel)?;
    Ok((file, facts, probe::subtitles_beside(&root, rel)))
}

fn folder_error(instance: &str, path: &str, e: FolderError) -> ToolError {
    match e {
        FolderError::NotFound => ToolError::new(
            ErrorCode::NotFound,
            format!(
                "no file \"{path}\" in the folder instance \"{instance}\"; paths are relative to its root"
            ),
        ),
        FolderError::RootUnavailable { .. } => ToolError::new(
            ErrorCode::BackendUnavailable,
            format!(
                "the folder of the instance \"{instance}\" cannot be opened; diagnose says why"
            ),
        ),
        FolderError::Unreadable { .. } => ToolError::new(
            ErrorCode::BackendError,
            format!(
                "\"{path}\" in the folder instance \"{instance}\" cannot be read: permission denied"
            ),
        ),
        FolderError::Io { reason, .. } => ToolError::new(
            ErrorCode::BackendError,
            format!("reading \"{path}\" in the folder instance \"{instance}\" failed: {reason}"),
        ),
    }
}

fn probe_error(path: &str, e: ProbeError) -> ToolError {
    let code = match e {
        ProbeError::Missing => ErrorCode::BackendUnavailable,
        ProbeError::TimedOut(_) => ErrorCode::BackendUnreachable,
        ProbeError::Unreadable(_) => ErrorCode::Unsupported,
        ProbeError::Run(_) | ProbeError::Decode(_) => ErrorCode::BackendError,
    };
    ToolError::new(code, format!("probing \"{path}\": {e}"))
}

/// The view of what ffprobe found.
fn streams(path: &str, p: Probe) -> Streams {
    Streams {
        container: container(&p.format_name, path),
        format_name: p.format_name,
        title: p.title,
        duration_seconds: p.duration_seconds,
        bit_rate: p.bit_rate,
        video: p.video.map(|v| VideoStream {
            index: v.index,
            codec: v.codec,
            profile: v.profile,
            width: v.width,
            height: v.height,
            screen_size: v.width.zip(v.height).map(|(w, h)| screen_size(w, h).into()),
            frame_rate: v.frame_rate,
            hdr: v.hdr.iter().map(|h| hdr_name(*h)).collect(),
            dolby_vision_profile: v.dolby_vision_profile,
        }),
        audio: p
            .audio
            .into_iter()
            .map(|a| AudioStream {
                index: a.index,
                codec: a.codec,
                profile: a.profile,
                channels: a.channels,
                channel_layout: a.channel_layout,
                language: language(a.language.as_deref()),
                title: a.title,
                default: a.default,
                forced: a.forced,
            })
            .collect(),
        subtitles: p
            .subtitles
            .into_iter()
            .map(|s| SubtitleStream {
                index: s.index,
                codec: s.codec,
                language: language(s.language.as_deref()),
                title: s.title,
                default: s.default,
                forced: s.forced,
                hearing_impaired: s.hearing_impaired,
            })
            .collect(),
    }
}

fn hdr_name(h: Hdr) -> &'static str {
    match h {
        Hdr::DolbyVision => "Dolby Vision",
        Hdr::Hdr10Plus => "HDR10+",
        Hdr::Hdr10 => "HDR10",
        Hdr::Hlg => "HLG",
    }
}

/// A stream's language tag as ISO 639-1 where it maps; `und` (undetermined) is none.
fn language(tag: Option<&str>) -> Option<String> {
    let tag = tag?.trim();
    if tag.is_empty() || tag.eq_ignore_ascii_case("und") {
        return None;
    }
    Some(recognize::normalize_language(tag).unwrap_or_else(|| tag.to_owned()))
}

/// The container as an extension names it: the file's own extension when ffprobe's format
/// has it among its names, else the usual extension of the format.
fn container(format_name: &str, path: &str) -> String {
    let names: Vec<&str> = format_name.split(',').collect();
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .filter(|e| !e.contains('/'));
    if let Some(ext) = ext.filter(|e| names.contains(&e.as_str())) {
        return ext;
    }
    match names.first().copied().unwrap_or_default() {
        "matroska" => "mkv",
        "mov" => "mp4",
        "mpegts" => "ts",
        "mpeg" => "mpg",
        "asf" => "wmv",
        "" => "unknown",
        other => other,
    }
    .to_owned()
}

/// guessit's resolution class from the frame size: by width first, as a wide film is
/// cropped in height (1920x800 is 1080p).
fn screen_size(width: u32, height: u32) -> &'static str {
    match (width, height) {
        (w, h) if w >= 3200 || h >= 1800 => "2160p",
        (w, h) if w >= 1800 || h >= 1000 => "1080p",
        (w, h) if w >= 1200 || h >= 700 => "720p",
        (_, h) if h >= 540 => "576p",
        (_, h) if h >= 400 => "480p",
        (_, h) if h >= 300 => "360p",
        _ => "240p",
    }
}

/// What a subtitle file's name says: a language, `forced`/`foreign`, `sdh`/`cc` (and `hi`
/// beside a language: alone it is Hindi), `default`.
fn external(file: &SubtitleFile) -> ExternalSubtitle {
    let mut sub = ExternalSubtitle {
        path: file.path.clone(),
        format: file.format.clone(),
        language: None,
        forced: false,
        hearing_impaired: false,
        default: false,
    };
    let mut hi = false;
    for word in &file.words {
        match word.to_ascii_lowercase().as_str() {
            "forced" | "foreign" => sub.forced = true,
            "sdh" | "cc" => sub.hearing_impaired = true,
            "default" => sub.default = true,
            "hi" => hi = true,
            _ => {
                if sub.language.is_none() {
                    sub.language = recognize::normalize_language(word);
                }
            }
        }
    }
    if hi {
        match sub.language {
            Some(_) => sub.hearing_impaired = true,
            None => sub.language = Some("hi".into()),
        }
    }
    sub
}

fn modified(mtime_ns: i64) -> Option<String> {
    let at = chrono::DateTime::from_timestamp_nanos(mtime_ns);
    (mtime_ns != 0).then(|| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn summary(p: &Probed) -> String {
    let s = &p.streams;
    let mut parts = vec![s.container.clone()];
    if let Some(d) = s.duration_seconds {
        let d = d.round() as u64;
        parts.push(format!("{}:{:02}:{:02}", d / 3600, d / 60 % 60, d % 60));
    }
    if let Some(v) = &s.video {
        let mut video = v.codec.clone();
        if let (Some(w), Some(h)) = (v.width, v.height) {
            video.push_str(&format!(" {w}x{h}"));
        }
        if !v.hdr.is_empty() {
            video.push_str(&format!(" {}", v.hdr.join("/")));
        }
        parts.push(video);
    }
    let streams = |n: usize, what: &str| match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    };
    let langs = |l: Vec<String>| match l.is_empty() {
        true => String::new(),
        false => format!(" ({})", l.join(", ")),
    };
    let audio: Vec<String> = s
        .audio
        .iter()
        .map(|a| {
            let mut t = a.language.clone().unwrap_or_else(|| "?".into());
            if let Some(layout) = &a.channel_layout {
                t.push_str(&format!(" {layout}"));
            }
            t
        })
        .collect();
    parts.push(format!(
        "{}{}",
        streams(s.audio.len(), "audio stream"),
        langs(audio)
    ));
    let subs: Vec<String> = s
        .subtitles
        .iter()
        .map(|t| {
            let lang = t.language.clone().unwrap_or_else(|| "?".into());
            if t.forced {
                format!("{lang} forced")
            } else {
                lang
            }
        })
        .collect();
    parts.push(format!(
        "{}{}",
        streams(s.subtitles.len(), "subtitle stream"),
        langs(subs)
    ));
    if !p.external_subtitles.is_empty() {
        parts.push(streams(p.external_subtitles.len(), "subtitle file"));
    }
    format!("{}: {}", p.path, parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(name: &str) -> ExternalSubtitle {
        let (front, format) = name.rsplit_once('.').unwrap();
        let words = front.split('.').skip(1).map(str::to_owned).collect();
        external(&SubtitleFile {
            path: name.into(),
            format: format.into(),
            words,
        })
    }

    #[test]
    fn a_subtitle_file_name_says_language_forced_and_hearing_impaired() {
        let s = sub("Heat.en.srt");
        assert_eq!((s.language.as_deref(), s.forced), (Some("en"), false));
        let s = sub("Heat.French.forced.srt");
        assert_eq!((s.language.as_deref(), s.forced), (Some("fr"), true));
        let s = sub("Heat.pt-BR.sdh.ass");
        assert_eq!(s.language.as_deref(), Some("pt-BR"));
        assert!(s.hearing_impaired && !s.forced);
        let s = sub("Heat.eng.hi.srt");
        assert_eq!(s.language.as_deref(), Some("en"));
        assert!(s.hearing_impaired);
        let s = sub("Heat.hi.srt");
        assert_eq!(s.language.as_deref(), Some("hi"), "alone, hi is Hindi");
        assert!(!s.hearing_impaired);
        let s = sub("Heat.srt");
        assert_eq!(s.language, None);
    }

    #[test]
    fn the_container_and_screen_size_are_named_as_files_name_them() {
        assert_eq!(container("matroska,webm", "a/b.mkv"), "mkv");
        assert_eq!(container("matroska,webm", "b.webm"), "webm");
        assert_eq!(container("mov,mp4,m4a,3gp,3g2,mj2", "b.m4v"), "mp4");
        assert_eq!(container("mov,mp4,m4a,3gp,3g2,mj2", "b.mov"), "mov");
        assert_eq!(container("mpegts", "b.m2ts"), "ts");
        assert_eq!(container("avi", "b.avi"), "avi");
        assert_eq!(screen_size(1920, 800), "1080p");
        assert_eq!(screen_size(3840, 1600), "2160p");
        assert_eq!(screen_size(1280, 720), "720p");
        assert_eq!(screen_size(720, 576), "576p");
        assert_eq!(screen_size(720, 480), "480p");
        assert_eq!(screen_size(320, 240), "240p");
    }

    #[test]
    fn stream_languages_are_iso_639_1_where_they_map() {
        assert_eq!(language(Some("eng")).as_deref(), Some("en"));
        assert_eq!(language(Some("fre")).as_deref(), Some("fr"));
        assert_eq!(language(Some("ger")).as_deref(), Some("de"));
        assert_eq!(language(Some("und")), None);
        assert_eq!(
            language(Some("tlh")).as_deref(),
            Some("tlh"),
            "unmapped: as written"
        );
    }
}
