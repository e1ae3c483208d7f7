//! `get_row`: one shortlist row.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::row::{RowView, view};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetRow;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The row (list_rows gives the ids).
    #[schemars(range(min = 1))]
    pub row_id: i64,
}

impl Tool for GetRow {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<RowView>);
    const META: Meta = Meta {
        name: "get_row",
        title: "Show a shortlist row",
        description: "Shows one shortlist row: its theme, media server, library, collection name, audience, whether it is enabled, and the collection a run made on the server.",
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

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let row = super::row_or_not_found(ctx, input.row_id).await?;
        let row = view(ctx, &row).await?;
        let summary = format!(
            "Row \"{}\" on {} (theme \"{}\"), {}.",
            row.name,
            row.instance_id,
            row.theme,
            if row.enabled { "enabled" } else { "disabled" }
        );
        Output::typed(summary, &row)
    }
}
