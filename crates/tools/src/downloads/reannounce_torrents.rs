//! `reannounce_torrents`: asks the download client to contact the trackers of torrents named by info hash now.

use domain::Capability;
use policy::Effect;

use super::write::{self, HashesInput, Op};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ReannounceTorrents;

impl Tool for ReannounceTorrents {
    type Input = HashesInput;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::outcome::Outcomes>);
    const META: Meta = Meta {
        name: "reannounce_torrents",
        title: "Reannounce torrents",
        description: "Makes the download client announce torrents named by info hash to their trackers now, e.g. after a tracker outage or an account fix. Do not use it for rate_limited tracker errors. An unknown hash is a per-torrent failure. Answers {ok, failed, results} per torrent.",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: HashesInput) -> Result<Output, ToolError> {
        write::simple(ctx, &input, Op::Reannounce).await
    }
}
