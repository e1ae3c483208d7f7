//! `get_item_timeline`: one title's life in the library (an album, a movie, a series): its
//! grab and import history joined with the files on disk, oldest first.

use adapters_library::Service;
use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
use super::{
    source::one,
    title::{held, media_ref},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetItemTimeline;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance (default: the instance of media_type's kind).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// As a discovery row gave it.
    pub media_source: MediaSource,
    /// The title's id within media_source.
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: String,
    /// movie, tv or music (an album).
    pub media_type: MediaType,
}

/// The answer's data: the item and its history events and files on disk, oldest first.
#[derive(Serialize, JsonSchema)]
struct ItemTimeline<'a> {
    instance_id: &'a str,
    item: shapes::Item,
    timeline: Vec<Event>,
}

/// One moment of an item's life: a history event, or a file arriving on disk.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum Event {
    History {
        at: Option<String>,
        /// grabbed, downloadFolderImported, ... as the service names it.
        event: String,
        source_title: Option<String>,
        quality: Option<String>,
        download_id: Option<String>,
    },
    File {
        at: Option<String>,
        /// Always `file_on_disk`.
        event: &'static str,
        file: Option<String>,
        quality: Option<String>,
        size: i64,
    },
}

impl Tool for GetItemTimeline {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<ItemTimeline<'static>>);
    const META: Meta = Meta {
        name: "get_item_timeline",
        title: "Item timeline",
        description: "One title's life in the library, oldest first: every grab, import, failure and deletion from the service's own history of that item, joined with the files on disk (movie and tv files with their import dates). For albums the history is read from Lidarr's artist history of that album.",
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
        let media = media_ref(input.media_source, &input.media_id, input.media_type)?;
        let source = one(ctx, input.instance_id.as_deref(), Some(input.media_type))?;
        let item = held(source, &media).await?;
        let client = source.client()?;
        let history = client
            .item_history(&item)
            .await
            .map_err(|e| source.error(e))?;
        let files = match client.service() {
            Service::Radarr | Service::Sonarr => {
                client.files(item.id).await.map_err(|e| source.error(e))?
            }
            Service::Lidarr | Service::Readarr => Vec::new(),
        };
        let mut events: Vec<(String, Event)> = history
            .iter()
            .map(|h| {
                (
                    h.date.clone().unwrap_or_default(),
                    Event::History {
                        at: h.date.clone(),
                        event: h.event.clone(),
                        source_title: h.source_title.clone(),
                        quality: h.quality.clone(),
                        download_id: h.download_id.clone(),
                    },
                )
            })
            .collect();
        events.extend(files.iter().map(|f| {
            (
                f.date_added.clone().unwrap_or_default(),
                Event::File {
                    at: f.date_added.clone(),
                    event: "file_on_disk",
                    file: f.relative_path.clone(),
                    quality: f.quality.clone(),
                    size: f.size,
                },
            )
        }));
        events.sort_by(|a, b| a.0.cmp(&b.0));
        let rows: Vec<Event> = events.into_iter().map(|(_, v)| v).collect();
        let grabs = history.iter().filter(|h| h.event == "grabbed").count();
        let mut out = crate::typed::output(
            format!(
                "{} in {}: {} history events ({grabs} grabbed), {} file(s) on disk.",
                item.title,
                source.id,
                history.len(),
                files.len()
            ),
            &ItemTimeline {
                instance_id: &source.id,
                item: shapes::Item::of(&item),
                timeline: rows,
            },
        )?;
        if matches!(client.service(), Service::Lidarr | Service::Readarr) {
            out = out.warn("track and book files are not read by this version; the timeline shows the history only");
        }
        Ok(out)
    }
}
