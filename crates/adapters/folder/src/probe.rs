//! What is inside a media file, read by `ffprobe` (Debian package `ffmpeg`) run as a
//! subprocess with a time limit: the container, duration and bitrate, the video stream
//! (codec, resolution, HDR), every audio and subtitle stream. The file is handed over already
//! opened (confined beneath its root): the child reads it as its standard input through
//! `/proc/self/fd/0`, so no path string that could be renamed under it is ever given, and it
//! may open no other protocol than `file` and no container format but the media ones (a
//! playlist or concat file could otherwise make it read beyond the root).

use std::{ffi::OsStr, process::Stdio, time::Duration};

use serde::Deserialize;

use crate::confine::{Root, relative};

/// The demuxers ffprobe may use: media containers and raw audio, no playlist (hls, dash),
/// concat or image-sequence format that opens other files.
const FORMATS: &str = "matroska,webm,mov,mp4,m4a,3gp,avi,mpegts,mpeg,mpegvideo,flv,asf,ogg,mp3,\
flac,wav,w64,aac,ac3,eac3,dts,truehd,mlp,wv,ape,tta,caf,aiff,dsf,m4v,rm,nut,dv,ivf,h264,hevc";

/// How the child reaches the opened file: its own standard input, seekable.
const INPUT: &str = "file:/proc/self/fd/0";

/// Why a file could not be probed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// No `ffprobe` to run.
    #[error(
        "ffprobe is not installed (or not on the PATH); install the Debian package ffmpeg (apt-get install ffmpeg)"
    )]
    Missing,
    /// It ran past the time limit and was stopped.
    #[error("ffprobe did not finish within {} s and was stopped", .0.as_secs())]
    TimedOut(Duration),
    /// It ran and could not read the file as media (its own last line of complaint).
    #[error("ffprobe could not read it as media: {0}")]
    Unreadable(String),
    /// It could not be started or waited for.
    #[error("ffprobe could not be run: {0}")]
    Run(#[source] std::io::Error),
    /// Its JSON did not read as expected.
    #[error("ffprobe's answer could not be read: {0}")]
    Decode(String),
}

/// What ffprobe found in one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// ffprobe's name of the container format, e.g. `matroska,webm` or `mov,mp4,m4a,3gp,3g2,mj2`.
    pub format_name: String,
    /// Its long name, e.g. `Matroska / WebM`.
    pub format_long_name: Option<String>,
    /// The container's own title tag.
    pub title: Option<String>,
    pub duration_seconds: Option<f64>,
    /// The overall bitrate, bits per second.
    pub bit_rate: Option<u64>,
    /// The main video stream (the first that is not a cover picture).
    pub video: Option<Video>,
    pub audio: Vec<Audio>,
    pub subtitles: Vec<Subtitle>,
}

/// An HDR format a video stream carries (several when one has a fallback layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hdr {
    DolbyVision,
    Hdr10Plus,
    Hdr10,
    Hlg,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Video {
    /// The stream's index in the file.
    pub index: u32,
    /// ffprobe's codec name: `h264`, `hevc`, `av1`...
    pub codec: String,
    pub profile: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Frames per second (the average rate, else the stream's base rate).
    pub frame_rate: Option<f64>,
    /// ffprobe's name of the transfer characteristic (`smpte2084` for PQ, `arib-std-b67` for HLG).
    pub color_transfer: Option<String>,
    /// HDR formats, Dolby Vision first; empty for SDR.
    pub hdr: Vec<Hdr>,
    /// The Dolby Vision profile, when the stream has a configuration record.
    pub dolby_vision_profile: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Audio {
    pub index: u32,
    /// ffprobe's codec name: `aac`, `ac3`, `eac3`, `dts`, `truehd`, `flac`...
    pub codec: String,
    /// The codec profile (`DTS-HD MA`, `LC`...).
    pub profile: Option<String>,
    pub channels: Option<u32>,
    /// `5.1`, `stereo`...
    pub channel_layout: Option<String>,
    /// The stream's language tag as written (ISO 639-2 mostly: `eng`, `fre`).
    pub language: Option<String>,
    pub title: Option<String>,
    pub default: bool,
    pub forced: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Subtitle {
    pub index: u32,
    /// ffprobe's codec name: `subrip`, `ass`, `hdmv_pgs_subtitle`, `dvd_subtitle`...
    pub codec: String,
    /// The stream's language tag as written.
    pub language: Option<String>,
    pub title: Option<String>,
    pub default: bool,
    pub forced: bool,
    pub hearing_impaired: bool,
}

/// A subtitle file beside a video: the same stem and a subtitle extension
/// (`Heat (1995).en.forced.srt` beside `Heat (1995).mkv`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubtitleFile {
    /// Relative to the root, as the video's path is.
    pub path: String,
    /// Its extension, lowercase: `srt`, `ass`, `sub`, `vtt`.
    pub format: String,
    /// The dot-separated words between the stem and the extension (`["en", "forced"]`).
    pub words: Vec<String>,
}

/// The subtitle extensions looked for beside a video.
const SUBTITLE_EXTENSIONS: &[&str] = &["srt", "ass", "sub", "vtt"];

/// The subtitle files beside the video `rel` (regular files beneath the root, in name order);
/// none when `rel` is refused or its folder cannot be read.
pub fn subtitles_beside(root: &Root, rel: &str) -> Vec<SubtitleFile> {
    let Ok(rel_path) = relative(rel) else {
        return Vec::new();
    };
    let Some(stem) = rel_path.file_stem().and_then(OsStr::to_str) else {
        return Vec::new();
    };
    let parent = rel_path.parent().filter(|p| !p.as_os_str().is_empty());
    let entries = match parent {
        Some(p) => root.dir().read_dir(p),
        None => root.dir().entries(),
    };
    let Ok(entries) = entries else {
        return Vec::new();
    };
    let mut found: Vec<SubtitleFile> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let (front, ext) = name.rsplit_once('.')?;
            let format = ext.to_ascii_lowercase();
            if !SUBTITLE_EXTENSIONS.contains(&format.as_str()) {
                return None;
            }
            let words = match front.strip_prefix(stem)? {
                "" => Vec::new(),
                rest => rest
                    .strip_prefix('.')?
                    .split('.')
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect(),
            };
            let path = match parent {
                Some(p) => format!("{}/{name}", p.display()),
                None => name.clone(),
            };
            // A regular file (a symlink only where it stays beneath the root).
            root.file_facts(&path).ok()?;
            Some(SubtitleFile {
                path,
                format,
                words,
            })
        })
        .collect();
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

/// Probes the opened `file` with `program` (`ffprobe`), stopping it after `limit`.
pub async fn probe(
    program: &OsStr,
    file: std::fs::File,
    limit: Duration,
) -> Result<Probe, ProbeError> {
    let child = tokio::process::Command::new(program)
        .args(["-v", "error", "-hide_banner"])
        .args(["-protocol_whitelist", "file", "-format_whitelist", FORMATS])
        .args([
            "-print_format",
            "json",
            "-show_format",
            "-show_streams",
            INPUT,
        ])
        .stdin(Stdio::from(file))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ProbeError::Missing,
            _ => ProbeError::Run(e),
        })?;
    // On the time limit the wait is dropped, and with it the child, which kills it.
    let out = tokio::time::timeout(limit, child.wait_with_output())
        .await
        .map_err(|_| ProbeError::TimedOut(limit))?
        .map_err(ProbeError::Run)?;
    if !out.status.success() {
        return Err(ProbeError::Unreadable(complaint(&out.stderr)));
    }
    parse(&out.stdout)
}

/// ffprobe's last line on stderr, without the input's name (which says nothing here).
fn complaint(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("it gave no reason");
    let line = line.strip_prefix(INPUT).unwrap_or(line);
    line.trim_start_matches([':', ' '])
        .chars()
        .take(300)
        .collect()
}

// ffprobe's JSON (`-print_format json -show_format -show_streams`): numbers of the format are
// strings, numbers of a stream mostly integers.
#[derive(Deserialize)]
struct Wire {
    #[serde(default)]
    streams: Vec<WireStream>,
    format: Option<WireFormat>,
}

#[derive(Deserialize)]
struct WireFormat {
    format_name: Option<String>,
    format_long_name: Option<String>,
    duration: Option<String>,
    bit_rate: Option<String>,
    #[serde(default)]
    tags: Tags,
}

#[derive(Deserialize, Default)]
struct Tags {
    #[serde(alias = "TITLE")]
    title: Option<String>,
    #[serde(alias = "LANGUAGE")]
    language: Option<String>,
}

#[derive(Deserialize, Default)]
struct Disposition {
    #[serde(default)]
    default: u8,
    #[serde(default)]
    forced: u8,
    #[serde(default)]
    hearing_impaired: u8,
    #[serde(default)]
    attached_pic: u8,
}

#[derive(Deserialize)]
struct SideData {
    side_data_type: Option<String>,
    dv_profile: Option<u32>,
}

#[derive(Deserialize)]
struct WireStream {
    index: u32,
    codec_type: Option<String>,
    codec_name: Option<String>,
    codec_tag_string: Option<String>,
    profile: Option<String>,
    width: Option<u32>,
    height: Option<u32>,
    avg_frame_rate: Option<String>,
    r_frame_rate: Option<String>,
    color_transfer: Option<String>,
    channels: Option<u32>,
    channel_layout: Option<String>,
    #[serde(default)]
    side_data_list: Vec<SideData>,
    #[serde(default)]
    disposition: Disposition,
    #[serde(default)]
    tags: Tags,
}

/// Reads ffprobe's JSON answer.
pub fn parse(json: &[u8]) -> Result<Probe, ProbeError> {
    let wire: Wire = serde_json::from_slice(json).map_err(|e| ProbeError::Decode(e.to_string()))?;
    let format = wire
        .format
        .ok_or_else(|| ProbeError::Decode("it has no format section".into()))?;
    let mut probe = Probe {
        format_name: format.format_name.unwrap_or_default(),
        format_long_name: format.format_long_name,
        title: nonempty(format.tags.title),
        duration_seconds: format.duration.and_then(|d| d.parse().ok()),
        bit_rate: format.bit_rate.and_then(|b| b.parse().ok()),
        video: None,
        audio: Vec::new(),
        subtitles: Vec::new(),
    };
    for s in wire.streams {
        let codec = s.codec_name.clone().unwrap_or_else(|| "unknown".into());
        let language = nonempty(s.tags.language.clone());
        let title = nonempty(s.tags.title.clone());
        let (default, forced) = (s.disposition.default == 1, s.disposition.forced == 1);
        match s.codec_type.as_deref() {
            Some("video") if probe.video.is_none() && s.disposition.attached_pic == 0 => {
                probe.video = Some(video(s, codec));
            }
            Some("audio") => probe.audio.push(Audio {
                index: s.index,
                codec,
                profile: s.profile,
                channels: s.channels,
                channel_layout: s.channel_layout,
                language,
                title,
                default,
                forced,
            }),
            Some("subtitle") => probe.subtitles.push(Subtitle {
                index: s.index,
                codec,
                language,
                title,
                default,
                forced,
                hearing_impaired: s.disposition.hearing_impaired == 1,
            }),
            _ => {}
        }
    }
    Ok(probe)
}

fn video(s: WireStream, codec: String) -> Video {
    let dovi = s.side_data_list.iter().find(|d| {
        d.side_data_type
            .as_deref()
            .is_some_and(|t| t.starts_with("DOVI configuration"))
    });
    let side = |needle: &str| {
        s.side_data_list.iter().any(|d| {
            d.side_data_type
                .as_deref()
                .is_some_and(|t| t.contains(needle))
        })
    };
    let mut hdr = Vec::new();
    let dv_tag = matches!(
        s.codec_tag_string.as_deref(),
        Some("dvh1" | "dvhe" | "dav1")
    );
    if dovi.is_some() || dv_tag {
        hdr.push(Hdr::DolbyVision);
    }
    match s.color_transfer.as_deref() {
        Some("smpte2084") if side("HDR10+") || side("SMPTE2094-40") => {
            hdr.push(Hdr::Hdr10Plus);
        }
        Some("smpte2084") => hdr.push(Hdr::Hdr10),
        Some("arib-std-b67") => hdr.push(Hdr::Hlg),
        _ => {}
    }
    let frame_rate = [s.avg_frame_rate.as_deref(), s.r_frame_rate.as_deref()]
        .into_iter()
        .flatten()
        .find_map(rate);
    Video {
        index: s.index,
        codec,
        profile: s.profile,
        width: s.width,
        height: s.height,
        frame_rate,
        color_transfer: s.color_transfer,
        hdr,
        dolby_vision_profile: dovi.and_then(|d| d.dv_profile),
    }
}

/// `24000/1001` to 23.976; `0/0` to nothing.
fn rate(text: &str) -> Option<f64> {
    let (n, d) = text.split_once('/')?;
    let (n, d): (f64, f64) = (n.parse().ok()?, d.parse().ok()?);
    (n > 0.0 && d > 0.0).then(|| (n / d * 1000.0).round() / 1000.0)
}

fn nonempty(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hdr_is_read_from_the_transfer_and_the_dolby_vision_record() {
        let json = br#"{"format": {"format_name": "matroska,webm", "duration": "10.5", "bit_rate": "900"},
          "streams": [
            {"index": 0, "codec_type": "video", "codec_name": "mjpeg", "disposition": {"attached_pic": 1}},
            {"index": 1, "codec_type": "video", "codec_name": "hevc", "width": 3840, "height": 2160,
             "avg_frame_rate": "24000/1001", "color_transfer": "smpte2084",
             "side_data_list": [{"side_data_type": "DOVI configuration record", "dv_profile": 8}]},
            {"index": 2, "codec_type": "video", "codec_name": "hevc", "color_transfer": "arib-std-b67"}
          ]}"#;
        let p = parse(json).unwrap();
        assert_eq!(p.duration_seconds, Some(10.5));
        assert_eq!(p.bit_rate, Some(900));
        let v = p.video.unwrap();
        assert_eq!(v.index, 1, "the cover picture is not the video");
        assert_eq!(v.hdr, [Hdr::DolbyVision, Hdr::Hdr10]);
        assert_eq!(v.dolby_vision_profile, Some(8));
        assert_eq!(v.frame_rate, Some(23.976));
        assert_eq!((v.width, v.height), (Some(3840), Some(2160)));

        let hlg = br#"{"format": {}, "streams": [{"index": 0, "codec_type": "video",
            "codec_name": "hevc", "color_transfer": "arib-std-b67"}]}"#;
        assert_eq!(parse(hlg).unwrap().video.unwrap().hdr, [Hdr::Hlg]);
        let sdr = br#"{"format": {}, "streams": [{"index": 0, "codec_type": "video",
            "codec_name": "h264", "color_transfer": "bt709"}]}"#;
        assert!(parse(sdr).unwrap().video.unwrap().hdr.is_empty());
    }

    #[test]
    fn subtitles_beside_are_regular_files_beneath_the_root_with_the_same_stem() {
        let dir = tempfile::tempdir().unwrap();
        let root_path = dir.path().join("root");
        let shows = root_path.join("Shows");
        std::fs::create_dir_all(shows.join("a.de.srt")).unwrap();
        let outside = dir.path().join("secret.srt");
        std::fs::write(&outside, "x").unwrap();
        for name in [
            "a.mkv",
            "a.en.srt",
            "a.pt-BR.forced.ASS",
            "ab.srt",
            "a.txt",
            "b.srt",
        ] {
            std::fs::write(shows.join(name), "x").unwrap();
        }
        std::os::unix::fs::symlink(&outside, shows.join("a.fr.srt")).unwrap();
        // A relative link that stays beneath the root counts.
        std::os::unix::fs::symlink("a.en.srt", shows.join("a.it.srt")).unwrap();
        let root = Root::open(&root_path).unwrap();
        let found = subtitles_beside(&root, "Shows/a.mkv");
        let seen: Vec<(&str, &str, Vec<&str>)> = found
            .iter()
            .map(|s| {
                let words = s.words.iter().map(String::as_str).collect();
                (s.path.as_str(), s.format.as_str(), words)
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("Shows/a.en.srt", "srt", vec!["en"]),
                ("Shows/a.it.srt", "srt", vec!["it"]),
                ("Shows/a.pt-BR.forced.ASS", "ass", vec!["pt-BR", "forced"]),
            ],
            "not the folder a.de.srt, the link leading outside, another stem or extension"
        );
        std::fs::write(root_path.join("top.mkv"), "x").unwrap();
        std::fs::write(root_path.join("top.srt"), "x").unwrap();
        assert_eq!(subtitles_beside(&root, "top.mkv")[0].path, "top.srt");
        assert!(subtitles_beside(&root, "../root/top.mkv").is_empty());
    }

    /// A 0.2 s h264 MKV made by Debian's ffmpeg at `out`.
    fn make_video(out: &std::path::Path) {
        let status = std::process::Command::new("ffmpeg")
            .args(["-y", "-hide_banner", "-loglevel", "error", "-f", "lavfi"])
            .args(["-i", "testsrc=duration=0.2:size=160x120:rate=25"])
            .args(["-c:v", "libx264", "-preset", "ultrafast"])
            .arg(out)
            .status()
            .expect("ffmpeg (Debian package ffmpeg) runs");
        assert!(status.success());
    }

    #[tokio::test]
    async fn a_real_file_is_probed_through_its_opened_handle() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.mkv");
        make_video(&path);
        let file = std::fs::File::open(&path).unwrap();
        // Renamed after opening: the handle is what is read.
        std::fs::rename(&path, dir.path().join("moved.mkv")).unwrap();
        let p = probe(OsStr::new("ffprobe"), file, Duration::from_secs(30))
            .await
            .unwrap();
        assert_eq!(p.format_name, "matroska,webm");
        let v = p.video.unwrap();
        assert_eq!(
            (v.codec.as_str(), v.width, v.height),
            ("h264", Some(160), Some(120))
        );
        assert!(p.audio.is_empty() && p.subtitles.is_empty());
    }

    #[tokio::test]
    async fn a_playlist_naming_another_file_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere.mkv");
        make_video(&elsewhere);
        let playlist = dir.path().join("playlist.mkv");
        let text = format!(
            "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:{}\n#EXT-X-ENDLIST\n",
            elsewhere.display()
        );
        std::fs::write(&playlist, text).unwrap();
        let file = std::fs::File::open(&playlist).unwrap();
        let err = probe(OsStr::new("ffprobe"), file, Duration::from_secs(30))
            .await
            .unwrap_err();
        assert!(matches!(err, ProbeError::Unreadable(_)), "{err:?}");
    }

    #[test]
    fn an_answer_without_a_format_is_a_decode_error() {
        assert!(matches!(parse(b"{}"), Err(ProbeError::Decode(_))));
        assert!(matches!(parse(b"not json"), Err(ProbeError::Decode(_))));
    }

    #[test]
    fn the_complaint_is_the_last_line_without_the_input_name() {
        let stderr =
            b"something first\nfile:/proc/self/fd/0: Invalid data found when processing input\n";
        assert_eq!(
            complaint(stderr),
            "Invalid data found when processing input"
        );
        assert_eq!(complaint(b""), "it gave no reason");
    }

    #[tokio::test]
    async fn no_ffprobe_is_an_error_naming_the_package() {
        let file = std::fs::File::open("/dev/null").unwrap();
        let err = probe(
            OsStr::new("/nonexistent/ffprobe"),
            file,
            Duration::from_secs(5),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, ProbeError::Missing), "{err:?}");
        assert!(err.to_string().contains("Debian package ffmpeg"), "{err}");
    }

    #[tokio::test]
    async fn a_probe_past_its_limit_is_stopped_and_killed() {
        // A stand-in for ffprobe that notes its process id and never answers.
        let dir = tempfile::tempdir().unwrap();
        let (slow, pid_file) = (dir.path().join("slow-ffprobe"), dir.path().join("pid"));
        let script = format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 30\n",
            pid_file.display()
        );
        std::fs::write(&slow, script).unwrap();
        let mut perm = std::fs::metadata(&slow).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&slow, perm).unwrap();
        let err = loop {
            let file = std::fs::File::open("/dev/null").unwrap();
            match probe(slow.as_os_str(), file, Duration::from_millis(500)).await {
                // Another test's child may hold the new script open for a moment.
                Err(ProbeError::Run(e)) if e.raw_os_error() == Some(26) => continue,
                other => break other.unwrap_err(),
            }
        };
        assert!(matches!(err, ProbeError::TimedOut(_)), "{err:?}");
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let status = format!("/proc/{}/status", pid.trim());
        // Killed: gone, or a zombie until the runtime reaps it.
        let mut dead = false;
        for _ in 0..100 {
            match std::fs::read_to_string(&status) {
                Err(_) => dead = true,
                Ok(s) => {
                    dead = s
                        .lines()
                        .any(|l| l.starts_with("State:") && l.contains('Z'))
                }
            }
            if dead {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(dead, "the stand-in ffprobe still runs after the time limit");
    }
}
