//! `query_library_exists`: whether the household's media servers have a title, by its id at a
//! source (tmdb, imdb, tvdb): which server and item, and for a show which seasons and episodes.
//! A lookup in each server's kept index (`index.rs`), no round trip per call.

use adapters_media::ItemKind;
use domain::{Capability, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    index::Found,
    limits::Gate,
    rows::{ItemRow, Season},
    servers::{Unreadable, all_failed},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct QueryLibraryExists;

/// The sources media servers know titles by.
const SOURCES: [MediaSource; 3] = [MediaSource::Tmdb, MediaSource::Imdb, MediaSource::Tvdb];

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The source the id is from: tmdb, imdb or tvdb.
    pub media_source: MediaSource,
    /// The title's id at that source (`348`, `tt0078748`).
    #[schemars(length(min = 1, max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: String,
    /// movie or tv.
    pub media_type: MediaType,
}

/// One server's item for the title.
#[derive(Debug, Serialize, JsonSchema)]
struct Held {
    #[serde(flatten)]
    item: ItemRow,
    /// Shows: the seasons and episodes the server has.
    #[serde(skip_serializing_if = "Option::is_none")]
    seasons: Option<Vec<Season>>,
}

/// The answer's data.
#[derive(Debug, Serialize, JsonSchema)]
struct Exists {
    #[schemars(with = "String")]
    media_source: MediaSource,
    media_id: String,
    #[schemars(with = "String")]
    media_type: MediaType,
    /// Whether any media server the caller may read has it.
    exists: bool,
    found: Vec<Held>,
    /// Servers whose library could not be read, and why.
    unreadable: Vec<Unreadable>,
}

impl Tool for QueryLibraryExists {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Exists>);
    const META: Meta = Meta {
        name: "query_library_exists",
        title: "Is it in the library?",
        description: "Whether the household's media servers (Jellyfin, Emby, Plex) have a title, by media_source (tmdb, imdb or tvdb) + media_id + media_type (movie or tv): each server and item that has it, and for a show which seasons and episodes. Answers from each server's library index, kept in the background; a server that cannot be read is named in a warning.",
        effect: Effect::Read,
        capability: Capability::MediaRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::MediaServers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if !SOURCES.contains(&input.media_source) {
            return Err(ToolError::invalid(format!(
                "media servers know titles by tmdb, imdb or tvdb ids, not {}; give one of those",
                input.media_source
            )));
        }
        let kind = match input.media_type {
            MediaType::Movie => ItemKind::Movie,
            MediaType::Tv => ItemKind::Series,
            other => {
                return Err(ToolError::invalid(format!(
                    "media servers are asked for movies and tv here, not {other}; give media_type movie or tv"
                )));
            }
        };
        let media_id = input.media_id.trim().to_string();
        if media_id.is_empty() {
            return Err(ToolError::invalid(
                "media_id is empty; give the title's id at its source",
            ));
        }
        crate::ids::check_media_id(input.media_source, &media_id)?;
        let servers: Vec<_> = super::servers(ctx).readable(ctx).collect();
        if servers.is_empty() {
            return Err(ToolError::new(
                governance::ErrorCode::NoInstance,
                "no media server (jellyfin, emby or plex) is configured, or your grant covers none",
            ));
        }
        let indexes = futures::future::join_all(
            servers
                .iter()
                .map(|s| async move { (*s, s.index.get(&s.id).await) }),
        )
        .await;
        let gate = Gate::for_caller(ctx);
        let mut found = Vec::new();
        let mut unreadable = Vec::new();
        let mut read = 0;
        let mut forbidden = false;
        for (
            server,
            Found {
                snapshot, failure, ..
            },
        ) in indexes
        {
            if let Some(reason) = failure.clone() {
                unreadable.push(Unreadable {
                    instance_id: server.id.clone(),
                    reason,
                });
            }
            let Some(snapshot) = snapshot else {
                if failure.is_none() {
                    unreadable.push(Unreadable {
                        instance_id: server.id.clone(),
                        reason: server.client().err().unwrap_or_else(|| {
                            format!("media server {} has no library read yet", server.id)
                        }),
                    });
                }
                continue;
            };
            read += 1;
            for item in snapshot
                .lookup(input.media_source, &media_id)
                .filter(|i| i.kind == kind)
            {
                if gate.as_ref().is_some_and(|g| !g.allows(item, None)) {
                    forbidden = true;
                    continue;
                }
                let seasons = (kind == ItemKind::Series).then(|| {
                    snapshot
                        .seasons(&item.id)
                        .into_iter()
                        .map(|(season, episodes)| Season { season, episodes })
                        .collect()
                });
                found.push(Held {
                    item: ItemRow::of(&server.id, item),
                    seasons,
                });
            }
        }
        if forbidden && found.is_empty() {
            return Err(crate::discover::limits::not_available());
        }
        if let Some(e) = all_failed(read, &unreadable) {
            return Err(e);
        }
        let summary = match found.first() {
            None => format!("No media server has {} {}.", input.media_source, media_id),
            Some(first) => {
                let label = first.item.label();
                let places: Vec<String> = found
                    .iter()
                    .map(|h| match &h.seasons {
                        Some(s) => format!(
                            "{} (season{} {})",
                            h.item.instance_id,
                            if s.len() == 1 { "" } else { "s" },
                            s.iter()
                                .map(|s| s.season.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        None => h.item.instance_id.clone(),
                    })
                    .collect();
                format!("{label} is in the library on {}.", places.join(", "))
            }
        };
        let warnings: Vec<String> = unreadable.iter().map(|u| u.reason.clone()).collect();
        let mut out = Output::typed(
            summary,
            &Exists {
                media_source: input.media_source,
                media_id,
                media_type: input.media_type,
                exists: !found.is_empty(),
                found,
                unreadable,
            },
        )?;
        for w in warnings {
            out = out.warn(w);
        }
        Ok(out)
    }
}
