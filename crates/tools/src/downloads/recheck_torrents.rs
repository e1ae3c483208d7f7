//! `recheck_torrents`: asks the download client to verify the data of torrents named by info hash.

use domain::Capability;
use policy::Effect;

use super::write::{self, HashesInput, Op};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct RecheckTorrents;

impl Tool for RecheckTorrents {
    type Input = HashesInput;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::outcome::Outcomes>);
    const META: Meta = Meta {
        name: "recheck_torrents",
        title: "Recheck torrents",
        description: "Starts a data check (hash verification) of torrents named by info hash, e.g. after files were moved or restored. Without instance_id each torrent is found on whichever download instance has it. An unknown hash is a per-torrent failure. Answers {ok, failed, results} per torrent.",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: HashesInput) -> Result<Output, ToolError> {
        write::simple(ctx, &input, Op::Recheck).await
    }
}
