//! `list_rows`: the household's shortlist rows.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::row::{RowView, view};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct ListRows;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

#[derive(Serialize, JsonSchema)]
struct Rows {
    rows: Vec<RowView>,
}

impl Tool for ListRows {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Rows>);
    const META: Meta = Meta {
        name: "list_rows",
        title: "List shortlist rows",
        description: "Lists the household's shortlist rows on the media servers your grant reaches: each row's theme, media server, library, collection name, audience (people; empty: everyone), whether it is enabled, and the collection a run made on the server. preview_row shows what a run of one would do.",
        effect: Effect::Read,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        let mut rows = Vec::new();
        // Only rows on servers the grant reaches (the core's rule for instances).
        for row in ctx.store().shortlist_rows().await? {
            if ctx.authorize(&row.instance_id).is_ok() {
                rows.push(view(ctx, &row).await?);
            }
        }
        let summary = match rows.len() {
            0 => "No shortlist rows yet; plan_row makes one.".to_owned(),
            1 => "1 shortlist row.".to_owned(),
            n => format!("{n} shortlist rows."),
        };
        Output::typed(summary, &Rows { rows })
    }
}
