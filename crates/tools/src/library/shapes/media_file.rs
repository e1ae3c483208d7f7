//! A media file the library services hold and what their analysis of it found (its audio and
//! subtitle streams), built from the adapter's records field by field as the other shapes are.

use adapters_library as lib;
use schemars::JsonSchema;
use serde::Serialize;

/// A media file the service holds, with what its analysis found.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MediaFile {
    pub id: i64,
    pub item_id: Option<i64>,
    pub relative_path: Option<String>,
    pub size: i64,
    pub date_added: Option<String>,
    pub quality: Option<String>,
    /// `null`: the service has not analysed the file.
    pub media_info: Option<MediaInfo>,
}

impl MediaFile {
    pub fn of(x: &lib::MediaFile) -> Self {
        let lib::MediaFile {
            id,
            item_id,
            relative_path,
            size,
            date_added,
            quality,
            media_info,
        } = x;
        MediaFile {
            id: *id,
            item_id: *item_id,
            relative_path: relative_path.clone(),
            size: *size,
            date_added: date_added.clone(),
            quality: quality.clone(),
            media_info: media_info.as_ref().map(MediaInfo::of),
        }
    }
}

/// What the service's analysis of a file found.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct MediaInfo {
    pub resolution: Option<String>,
    pub video_codec: Option<String>,
    pub audio_codec: Option<String>,
    pub audio_channels: Option<f64>,
    pub audio_languages: Option<String>,
    pub subtitles: Option<String>,
    pub run_time: Option<String>,
    pub dynamic_range: Option<String>,
    /// Every audio stream.
    pub audio_streams: Vec<AudioStream>,
    /// Every subtitle stream.
    pub subtitle_streams: Vec<SubtitleStream>,
}

impl MediaInfo {
    pub fn of(x: &lib::MediaInfo) -> Self {
        let lib::MediaInfo {
            resolution,
            video_codec,
            audio_codec,
            audio_channels,
            audio_languages,
            subtitles,
            run_time,
            dynamic_range,
            audio_streams,
            subtitle_streams,
        } = x;
        MediaInfo {
            resolution: resolution.clone(),
            video_codec: video_codec.clone(),
            audio_codec: audio_codec.clone(),
            audio_channels: *audio_channels,
            audio_languages: audio_languages.clone(),
            subtitles: subtitles.clone(),
            run_time: run_time.clone(),
            dynamic_range: dynamic_range.clone(),
            audio_streams: audio_streams.iter().map(AudioStream::of).collect(),
            subtitle_streams: subtitle_streams.iter().map(SubtitleStream::of).collect(),
        }
    }
}

/// One audio stream of a file; what the service did not say is `null`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct AudioStream {
    pub language: Option<String>,
    pub codec: Option<String>,
    pub channels: Option<f64>,
    pub bitrate: Option<i64>,
    pub title: Option<String>,
}

impl AudioStream {
    pub fn of(x: &lib::AudioStream) -> Self {
        let lib::AudioStream {
            language,
            codec,
            channels,
            bitrate,
            title,
        } = x;
        AudioStream {
            language: language.clone(),
            codec: codec.clone(),
            channels: *channels,
            bitrate: *bitrate,
            title: title.clone(),
        }
    }
}

/// One subtitle stream of a file; what the service did not say is `null`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SubtitleStream {
    pub language: Option<String>,
    pub format: Option<String>,
    pub title: Option<String>,
    pub forced: Option<bool>,
    pub hearing_impaired: Option<bool>,
}

impl SubtitleStream {
    pub fn of(x: &lib::SubtitleStream) -> Self {
        let lib::SubtitleStream {
            language,
            format,
            title,
            forced,
            hearing_impaired,
        } = x;
        SubtitleStream {
            language: language.clone(),
            format: format.clone(),
            title: title.clone(),
            forced: *forced,
            hearing_impaired: *hearing_impaired,
        }
    }
}
