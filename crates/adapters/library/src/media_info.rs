//! A file's media info as the services analyse it, in both shapes: Radarr and Sonarr up to v4
//! give the main audio stream's codec and channels and every stream's language as one
//! `/`-separated text (`audioLanguages`, `subtitles`); Sonarr v5 gives a list of audio and subtitle
//! streams instead. Either reads as the same [`MediaInfo`]: the flat fields (from the first stream
//! in v5) and one row per stream.

use serde::Deserialize;

use crate::{
    model::{AudioStream, MediaInfo, SubtitleStream},
    redact::redacted,
};

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VMediaInfo {
    #[serde(default)]
    resolution: Option<String>,
    #[serde(default)]
    video_codec: Option<String>,
    #[serde(default)]
    audio_codec: Option<String>,
    #[serde(default)]
    audio_channels: Option<f64>,
    #[serde(default)]
    audio_languages: Option<String>,
    #[serde(default)]
    subtitles: Option<String>,
    #[serde(default)]
    run_time: Option<String>,
    #[serde(default)]
    video_dynamic_range_type: Option<String>,
    /// Sonarr v5.
    #[serde(default)]
    audio_streams: Option<Vec<VAudioStream>>,
    /// Sonarr v5.
    #[serde(default)]
    subtitle_streams: Option<Vec<VSubtitleStream>>,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VAudioStream {
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    codec: Option<String>,
    #[serde(default)]
    channels: Option<f64>,
    #[serde(default)]
    bitrate: Option<i64>,
    #[serde(default)]
    title: Option<String>,
}
}

redacted! {
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VSubtitleStream {
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    forced: Option<bool>,
    #[serde(default)]
    hearing_impaired: Option<bool>,
}
}

fn present(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.trim().is_empty())
}

/// `eng/ger` as one language per stream.
fn split(languages: &Option<String>) -> Vec<Option<String>> {
    languages
        .as_deref()
        .unwrap_or("")
        .split('/')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| Some(l.to_string()))
        .collect()
}

/// Stream languages joined as the flat shape writes them (`eng/ger`); `None` when none is known.
fn joined<'a>(languages: impl Iterator<Item = &'a Option<String>>) -> Option<String> {
    let known: Vec<&str> = languages.filter_map(|l| l.as_deref()).collect();
    (!known.is_empty()).then(|| known.join("/"))
}

impl VMediaInfo {
    pub(crate) fn info(self) -> MediaInfo {
        let audio_streams: Vec<AudioStream> = match self.audio_streams {
            Some(streams) => streams
                .into_iter()
                .map(|s| AudioStream {
                    language: present(s.language),
                    codec: present(s.codec),
                    channels: s.channels,
                    bitrate: s.bitrate,
                    title: present(s.title),
                })
                .collect(),
            None => split(&self.audio_languages)
                .into_iter()
                .map(|language| AudioStream {
                    language,
                    ..AudioStream::default()
                })
                .collect(),
        };
        let subtitle_streams: Vec<SubtitleStream> = match self.subtitle_streams {
            Some(streams) => streams
                .into_iter()
                .map(|s| SubtitleStream {
                    language: present(s.language),
                    format: present(s.format),
                    title: present(s.title),
                    forced: s.forced,
                    hearing_impaired: s.hearing_impaired,
                })
                .collect(),
            None => split(&self.subtitles)
                .into_iter()
                .map(|language| SubtitleStream {
                    language,
                    ..SubtitleStream::default()
                })
                .collect(),
        };
        let main = audio_streams.first();
        MediaInfo {
            resolution: self.resolution,
            video_codec: self.video_codec,
            audio_codec: present(self.audio_codec).or_else(|| main.and_then(|s| s.codec.clone())),
            audio_channels: self
                .audio_channels
                .or_else(|| main.and_then(|s| s.channels)),
            audio_languages: present(self.audio_languages)
                .or_else(|| joined(audio_streams.iter().map(|s| &s.language))),
            subtitles: present(self.subtitles)
                .or_else(|| joined(subtitle_streams.iter().map(|s| &s.language))),
            run_time: self.run_time,
            dynamic_range: self.video_dynamic_range_type.filter(|s| !s.is_empty()),
            audio_streams,
            subtitle_streams,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info(v: serde_json::Value) -> MediaInfo {
        serde_json::from_value::<VMediaInfo>(v).unwrap().info()
    }

    #[test]
    fn v5_streams_fill_the_flat_fields_as_v3_writes_them() {
        let v3 = info(json!({
            "audioCodec": "EAC3", "audioChannels": 5.1, "audioLanguages": "eng/ger",
            "subtitles": "eng/spa", "resolution": "1920x1080", "videoCodec": "x264", "runTime": "22:00"
        }));
        let v5 = info(json!({
            "resolution": "1920x1080", "videoCodec": "x264", "runTime": "22:00",
            "audioStreams": [
                {"language": "eng", "codec": "EAC3", "channels": 5.1, "bitrate": 640000, "title": "Main"},
                {"language": "ger", "codec": "AAC", "channels": 2.0, "bitrate": 128000}
            ],
            "subtitleStreams": [
                {"language": "eng", "format": "SubRip", "forced": false, "hearingImpaired": true},
                {"language": "spa", "format": "PGS", "forced": true}
            ]
        }));
        let flat = |m: &MediaInfo| {
            (
                m.audio_codec.clone(),
                m.audio_channels,
                m.audio_languages.clone(),
                m.subtitles.clone(),
                m.audio_streams.len(),
                m.subtitle_streams.len(),
            )
        };
        assert_eq!(flat(&v3), flat(&v5));
        assert_eq!(v5.audio_streams[1].codec.as_deref(), Some("AAC"));
        assert_eq!(v5.subtitle_streams[0].hearing_impaired, Some(true));
        assert_eq!(v3.audio_streams[1].language.as_deref(), Some("ger"));
        assert_eq!(v3.audio_streams[1].codec, None);
    }

    #[test]
    fn no_streams_and_no_languages_is_two_empty_lists() {
        let m = info(json!({ "audioCodec": "AAC", "audioLanguages": "", "subtitles": "" }));
        assert!(m.audio_streams.is_empty() && m.subtitle_streams.is_empty());
        assert_eq!(m.audio_languages, None);
    }
}
