//! `delete_torrents`: removes torrents, named by info hash, with or without their data.
//! Destructive: listed and callable only with `[mcp] allow_destructive = true`.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    hashes,
    write::{self, Op},
};
use crate::{Ctx, Meta, Output, Tool, ToolError};

pub struct DeleteTorrents;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The torrents, by info hash: 40 hexadecimal characters, any case, at most 50; repeats are ignored. One malformed entry refuses the whole call.
    pub info_hashes: Vec<String>,
    /// True also deletes the downloaded files (cannot be undone); false removes the torrents from the client and keeps the files.
    pub delete_data: bool,
    /// The download instance holding the torrents (default: each torrent is looked up on every download instance your grant covers; a torrent on several is refused).
    #[serde(default)]
    pub instance_id: Option<String>,
}

impl Tool for DeleteTorrents {
    type Input = Input;
    const META: Meta = Meta {
        name: "delete_torrents",
        title: "Delete torrents",
        description: "Removes torrents named by info hash from their download instance; with delete_data true their downloaded files are deleted too, which cannot be undone. The whole list is validated first; an unknown hash is a per-torrent failure. Answers {ok, failed, results} per torrent.",
        effect: Effect::Destructive,
        capability: Capability::DownloadsWrite,
        needs_plan: true,
        allowance: Some(domain::AllowanceKind::Destructive),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let plan = write::plan(
            ctx,
            &input.info_hashes,
            hashes::MAX_DELETE,
            input.instance_id.as_deref(),
        )
        .await?;
        let op = Op::Delete {
            with_data: input.delete_data,
        };
        Ok(write::finish(plan, op).await)
    }
}
