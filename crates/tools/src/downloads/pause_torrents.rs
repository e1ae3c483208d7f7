//! `pause_torrents`: stops torrents, named by info hash, on their download instances.

use domain::Capability;
use policy::Effect;

use super::write::{self, HashesInput, Op};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct PauseTorrents;

impl Tool for PauseTorrents {
    type Input = HashesInput;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::outcome::Outcomes>);
    const META: Meta = Meta {
        name: "pause_torrents",
        title: "Pause torrents",
        description: "Pauses (stops) torrents named by info hash. Without instance_id each torrent is found on whichever download instance has it. The whole list is validated first (one malformed hash refuses the call); an unknown hash is a per-torrent failure. Answers {ok, failed, results} per torrent.",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: HashesInput) -> Result<Output, ToolError> {
        write::simple(ctx, &input, Op::Pause).await
    }
}
