//! `get_now_playing`: who is watching what on the household's media servers right now, on which
//! device, and whether the server transcodes the stream (admins).

use domain::Capability;
use futures::future::join_all;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    rows::ItemRow,
    servers::{Unreadable, all_failed},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetNowPlaying;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

/// One playback under way.
#[derive(Debug, Serialize, JsonSchema)]
struct Playing {
    #[serde(flatten)]
    item: ItemRow,
    /// The server's user name.
    user: String,
    device: String,
    client: String,
    position_seconds: Option<u64>,
    paused: bool,
    /// The server converts the stream for the device (costs its CPU).
    transcoding: bool,
}

/// The answer's data.
#[derive(Debug, Serialize, JsonSchema)]
struct NowPlaying {
    sessions: Vec<Playing>,
    /// Servers that could not be read, and why.
    unreadable: Vec<Unreadable>,
}

impl Tool for GetNowPlaying {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<NowPlaying>);
    const META: Meta = Meta {
        name: "get_now_playing",
        title: "Now playing",
        description: "Who is watching what on the household's media servers (Jellyfin, Emby, Plex) right now: user, title (show, season, episode), device and app, position, paused or not, and whether the server is transcoding the stream.",
        effect: Effect::Read,
        capability: Capability::MediaSessions,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::MediaServers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        let servers: Vec<_> = super::servers(ctx).readable(ctx).collect();
        if servers.is_empty() {
            return Err(ToolError::new(
                governance::ErrorCode::NoInstance,
                "no media server (jellyfin, emby or plex) is configured, or your grant covers none",
            ));
        }
        let reads = servers.iter().map(|s| async move {
            let read = match s.client() {
                Ok(c) => c.sessions().await.map_err(|e| s.failure(&e)),
                Err(why) => Err(why),
            };
            (*s, read)
        });
        let mut sessions = Vec::new();
        let mut unreadable = Vec::new();
        let mut read = 0;
        for (server, result) in join_all(reads).await {
            match result {
                Ok(list) => {
                    read += 1;
                    sessions.extend(list.into_iter().map(|s| Playing {
                        item: ItemRow::of(&server.id, &s.item),
                        user: s.user,
                        device: s.device,
                        client: s.client,
                        position_seconds: s.position_seconds,
                        paused: s.paused,
                        transcoding: s.transcoding,
                    }));
                }
                Err(reason) => unreadable.push(Unreadable {
                    instance_id: server.id.clone(),
                    reason,
                }),
            }
        }
        if let Some(e) = all_failed(read, &unreadable) {
            return Err(e);
        }
        let shown: Vec<String> = sessions
            .iter()
            .take(3)
            .map(|p| {
                format!(
                    "{} is watching {} on {}{}",
                    p.user,
                    p.item.label(),
                    p.device,
                    if p.transcoding { " (transcoding)" } else { "" }
                )
            })
            .collect();
        let summary = match sessions.len() {
            0 => "Nobody is watching anything right now.".to_string(),
            n => format!(
                "{n} playing: {}{}.",
                shown.join("; "),
                if n > 3 { "; …" } else { "" }
            ),
        };
        let warnings: Vec<String> = unreadable.iter().map(|u| u.reason.clone()).collect();
        let mut out = Output::typed(
            summary,
            &NowPlaying {
                sessions,
                unreadable,
            },
        )?;
        for w in warnings {
            out = out.warn(w);
        }
        Ok(out)
    }
}
