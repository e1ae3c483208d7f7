//! `get_recently_added`: the movies and episodes most recently added to the household's media
//! servers, newest first, from each server's kept index; within the caller's content limits.

use adapters_media::ItemKind;
use domain::{Capability, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    index::Found,
    limits::Gate,
    rows::ItemRow,
    servers::{Unreadable, all_failed},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetRecentlyAdded;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One media server (default: every one your grant covers).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// movie or tv (episodes); default both.
    #[serde(default, rename = "type")]
    pub media_type: Option<MediaType>,
    /// Items at most, 1 to 100 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

/// The answer's data.
#[derive(Debug, Serialize, JsonSchema)]
struct Added {
    items: Vec<ItemRow>,
    /// Items left out because the caller's content limits forbid them.
    hidden: u32,
    /// Servers whose library could not be read, and why.
    unreadable: Vec<Unreadable>,
}

impl Tool for GetRecentlyAdded {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Added>);
    const META: Meta = Meta {
        name: "get_recently_added",
        title: "Recently added",
        description: "The movies and episodes most recently added to the household's media servers (Jellyfin, Emby, Plex), newest first, each with its server, item id and provider ids. Optional instance_id (one server), type (movie or tv) and limit. Kids see only titles within their limits.",
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
        let kinds: &[ItemKind] = match input.media_type {
            None => &[ItemKind::Movie, ItemKind::Episode],
            Some(MediaType::Movie) => &[ItemKind::Movie],
            Some(MediaType::Tv) => &[ItemKind::Episode],
            Some(other) => {
                return Err(ToolError::invalid(format!(
                    "media servers are asked for movies and tv here, not {other}; give type movie or tv, or leave it out"
                )));
            }
        };
        let limit = input.limit.unwrap_or(20) as usize;
        let all = super::servers(ctx);
        let servers: Vec<_> = match input.instance_id.as_deref() {
            Some(id) => {
                let (spec, _) = ctx.instance(domain::KindFamily::MediaServers, Some(id))?;
                all.by_id(&spec.id).into_iter().collect()
            }
            None => all.readable(ctx).collect(),
        };
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
        let mut items: Vec<ItemRow> = Vec::new();
        let mut hidden = 0u32;
        let mut unreadable = Vec::new();
        let mut read = 0;
        for (
            server,
            Found {
                snapshot, failure, ..
            },
        ) in indexes
        {
            if let Some(reason) = failure {
                unreadable.push(Unreadable {
                    instance_id: server.id.clone(),
                    reason,
                });
            }
            let Some(snapshot) = snapshot else { continue };
            read += 1;
            let mut taken = 0;
            for item in snapshot.recent().filter(|i| kinds.contains(&i.kind)) {
                if taken == limit {
                    break;
                }
                if let Some(g) = &gate {
                    let show = item.series_id.as_deref().and_then(|id| snapshot.item(id));
                    if !g.allows(item, show) {
                        hidden += 1;
                        continue;
                    }
                }
                items.push(ItemRow::of(&server.id, item));
                taken += 1;
            }
        }
        if let Some(e) = all_failed(read, &unreadable) {
            return Err(e);
        }
        items.sort_by(|a, b| b.added_at.cmp(&a.added_at));
        items.truncate(limit);
        let shown: Vec<String> = items.iter().take(3).map(ItemRow::label).collect();
        let summary = match items.len() {
            0 => "Nothing was added recently.".to_string(),
            n => format!(
                "{n} recently added: {}{}.",
                shown.join(", "),
                if n > 3 { ", …" } else { "" }
            ),
        };
        let warnings: Vec<String> = unreadable.iter().map(|u| u.reason.clone()).collect();
        let mut out = Output::typed(
            summary,
            &Added {
                items,
                hidden,
                unreadable,
            },
        )?;
        for w in warnings {
            out = out.warn(w);
        }
        Ok(out)
    }
}
