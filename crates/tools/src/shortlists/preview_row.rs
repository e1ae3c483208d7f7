//! `preview_row`: a dry run of a shortlist row: which titles it shows from the server's library,
//! which of the theme's titles the server lacks, which it leaves out and why (rules, an
//! audience member's limits), and what a run would change in the collection. Changes nothing.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::row::{Preview, preview};
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct PreviewRow;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The row (list_rows gives the ids).
    #[schemars(range(min = 1))]
    pub row_id: i64,
}

impl Tool for PreviewRow {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Preview>);
    const META: Meta = Meta {
        name: "preview_row",
        title: "Preview a shortlist row",
        description: "A dry run of one shortlist row, changing nothing: the theme's titles (its picks, and for similar_to up to 20 titles like it) found in the media server's library; shown (what the collection holds), missing (the server lacks them), left_out (the server has them, but a rule or an audience member's content limits keep them out, with why), whether a run creates the collection, and the items a run adds to it and takes out of it.",
        effect: Effect::Read,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let row = super::row_or_not_found(ctx, input.row_id).await?;
        let Some(theme) = ctx.store().theme(row.theme_id).await? else {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!("row {}'s theme {} is gone", row.id, row.theme_id),
            ));
        };
        let p = preview(ctx, &row, &theme).await?;
        let summary = format!(
            "Row \"{}\" would show {} title{} on {}; {} missing, {} left out; a run would add {} and take out {}{}.",
            row.name,
            p.shown.len(),
            if p.shown.len() == 1 { "" } else { "s" },
            row.instance_id,
            p.missing.len(),
            p.left_out.len(),
            p.to_add.len(),
            p.to_remove.len(),
            if p.creates_collection {
                ", creating the collection"
            } else {
                ""
            }
        );
        Output::typed(summary, &p)
    }
}
