//! `get_media_file_details`: the files a movie or episode has in the library, with the
//! service's analysis of each (resolution, codecs, languages, subtitles, runtime, size).

use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
use super::{
    count,
    source::one,
    title::{held, media_ref},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetMediaFileDetails;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The radarr or sonarr instance (default: the instance of media_type's kind).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// As a discovery row gave it.
    pub media_source: MediaSource,
    /// The title's id within media_source.
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: String,
    /// movie or tv.
    pub media_type: MediaType,
    /// TV: only this season's files.
    #[serde(default)]
    pub season: Option<u32>,
    /// TV: only this episode's file (with season).
    #[serde(default)]
    pub episode: Option<u32>,
}

/// The answer's data: the title's files, each with what the service's analysis found.
#[derive(Serialize, JsonSchema)]
struct Files<'a> {
    instance_id: &'a str,
    item_id: i64,
    title: &'a str,
    files: Vec<FileRow>,
}

/// One file, and whether the service has analysed it.
#[derive(Serialize, JsonSchema)]
struct FileRow {
    file: shapes::MediaFile,
    analysed: bool,
}

impl Tool for GetMediaFileDetails {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Files<'static>>);
    const META: Meta = Meta {
        name: "get_media_file_details",
        title: "Media file details",
        description: "The files a movie (radarr) or series, season or episode (sonarr) has: path within the library, size, import date, quality, and the service's analysis (resolution, video and audio codecs, audio languages, subtitles, runtime, dynamic range) with one row per audio and subtitle stream (Sonarr v5 also gives each stream's codec, channels, format and forced or hearing-impaired flags; other versions give each stream's language). A file the service has not analysed says so.",
        effect: Effect::Read,
        capability: Capability::LibraryRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if !matches!(input.media_type, MediaType::Movie | MediaType::Tv) {
            return Err(ToolError::invalid(
                "invalid argument \"media_type\": file details are read for movie and tv titles",
            ));
        }
        if input.episode.is_some() && input.season.is_none() {
            return Err(ToolError::invalid("give season with episode"));
        }
        if input.media_type == MediaType::Movie && input.season.is_some() {
            return Err(ToolError::invalid("season and episode are for tv titles"));
        }
        let media = media_ref(input.media_source, &input.media_id, input.media_type)?;
        let source = one(ctx, input.instance_id.as_deref(), Some(input.media_type))?;
        let item = held(source, &media).await?;
        let client = source.client()?;
        let mut files = client.files(item.id).await.map_err(|e| source.error(e))?;
        if let Some(season) = input.season {
            let episodes = client
                .episodes(item.id, Some(season))
                .await
                .map_err(|e| source.error(e))?;
            let wanted: Vec<i64> = episodes
                .iter()
                .filter(|e| input.episode.is_none_or(|n| e.episode == i64::from(n)))
                .filter_map(|e| e.episode_file_id)
                .collect();
            files.retain(|f| wanted.contains(&f.id));
        }
        let unanalysed = files.iter().filter(|f| f.media_info.is_none()).count();
        let mut summary = format!(
            "{} has {} in {}.",
            item.title,
            count(files.len(), "file", "files"),
            source.id
        );
        if unanalysed > 0 {
            summary.push_str(&format!(
                " {} not been analysed by the service yet (no codec or language details).",
                if unanalysed == 1 {
                    "1 has".to_string()
                } else {
                    format!("{unanalysed} have")
                }
            ));
        }
        let rows: Vec<_> = files
            .iter()
            .map(|f| FileRow {
                file: shapes::MediaFile::of(f),
                analysed: f.media_info.is_some(),
            })
            .collect();
        crate::typed::output(
            summary,
            &Files {
                instance_id: &source.id,
                item_id: item.id,
                title: &item.title,
                files: rows,
            },
        )
    }
}
