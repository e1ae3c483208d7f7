//! What `get_continue_watching` and `get_watch_history` share: whose state, the linked user on
//! each server the caller may read, the servers asked at once (a failure is a warning naming
//! the server), the caller's limits applied, and the typed answer.

use adapters_media::{MediaClient, Progress};
use futures::future::join_all;
use governance::{Ctx, Output, ToolError};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    limits::Gate,
    rows::ProgressRow,
    servers::{MediaServer, Unreadable, all_failed},
    whose::{how_to_link, whose},
};

/// Which state is read.
#[derive(Clone, Copy)]
pub(crate) enum Which {
    ContinueWatching,
    History,
}

impl Which {
    fn words(self) -> &'static str {
        match self {
            Which::ContinueWatching => "continue watching",
            Which::History => "watch history",
        }
    }

    async fn read(
        self,
        client: &MediaClient,
        user: &str,
        limit: u32,
    ) -> Result<Vec<Progress>, adapters_media::Error> {
        match self {
            Which::ContinueWatching => client.continue_watching(user, limit).await,
            Which::History => client.history(user, limit).await,
        }
    }
}

/// The answer's data.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Watched {
    /// Whose state this is.
    pub person: String,
    /// Whether the person is linked to a user on any media server the caller may read.
    pub linked: bool,
    pub items: Vec<ProgressRow>,
    /// Items left out because the caller's content limits forbid them.
    pub hidden: u32,
    /// Servers that could not be read, and why.
    pub unreadable: Vec<Unreadable>,
}

pub(crate) async fn answer(
    ctx: &Ctx,
    person: Option<&str>,
    limit: u32,
    which: Which,
) -> Result<Output, ToolError> {
    let who = whose(ctx, person, which.words()).await?;
    let servers = super::servers(ctx);
    let linked: Vec<(&MediaServer, &str)> = who
        .links
        .iter()
        .filter_map(|l| {
            let s = servers.by_id(&l.instance_id)?;
            ctx.covers(&s.id).then_some((s, l.user_name.as_str()))
        })
        .collect();
    if linked.is_empty() {
        let names: Vec<String> = servers.readable(ctx).map(|s| s.id.clone()).collect();
        let sentence = how_to_link(&who.name, &names);
        return Output::typed(
            sentence,
            &Watched {
                person: who.name,
                linked: false,
                items: Vec::new(),
                hidden: 0,
                unreadable: Vec::new(),
            },
        );
    }
    let reads = linked.iter().map(|(server, user)| async move {
        let read = match server.client() {
            Ok(c) => which
                .read(c, user, limit)
                .await
                .map_err(|e| server.failure(&e)),
            Err(why) => Err(why),
        };
        (*server, read)
    });
    let gate = Gate::for_caller(ctx);
    let mut items = Vec::new();
    let mut hidden = 0u32;
    let mut unreadable = Vec::new();
    let mut read = 0;
    for (server, result) in join_all(reads).await {
        match result {
            Ok(list) => {
                read += 1;
                let index = match &gate {
                    Some(_) => server.index.get(&server.id).await.snapshot,
                    None => None,
                };
                for p in list {
                    if let Some(gate) = &gate {
                        let show = p
                            .item
                            .series_id
                            .as_deref()
                            .and_then(|id| index.as_ref()?.item(id).cloned());
                        if !gate.allows(&p.item, show.as_ref()) {
                            hidden += 1;
                            continue;
                        }
                    }
                    items.push(ProgressRow::of(&server.id, &p));
                }
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
    items.truncate(limit as usize);
    let shown: Vec<String> = items.iter().take(3).map(|r| r.item.label()).collect();
    let summary = match items.len() {
        0 => format!("Nothing in {}'s {}.", who.name, which.words()),
        n => format!(
            "{n} item{} in {}'s {}: {}{}.",
            if n == 1 { "" } else { "s" },
            who.name,
            which.words(),
            shown.join(", "),
            if n > 3 { ", …" } else { "" }
        ),
    };
    let warnings: Vec<String> = unreadable.iter().map(|u| u.reason.clone()).collect();
    let mut out = Output::typed(
        summary,
        &Watched {
            person: who.name,
            linked: true,
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
