//! `get_change`: a planned change as the owner sees it: its plan, status, the authority it
//! waits for and where it is reviewed.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use store::ChangeStatus;

use governance::plan::review_url;
use governance::{Ctx, Meta, Output, Tool, ToolError, error::ErrorCode};

pub struct GetChange;

/// A change as answered (fields in sorted order, as a JSON tree of it has its keys).
#[derive(Serialize, JsonSchema)]
struct ChangeData<'a> {
    change_id: &'a str,
    content_hash: &'a str,
    created_by: &'a str,
    decided_by: Option<&'a str>,
    grant_revision: i64,
    /// The plan as the planned tool stored it.
    plan: Value,
    review_url: String,
    /// pending, approved, rejected, applied, ... as the store names them.
    #[schemars(with = "String")]
    status: ChangeStatus,
    summary: &'a str,
    /// The planned tool.
    tool: &'a str,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The change (chg_…), as the planned tool answered it.
    #[schemars(regex(pattern = crate::ids::CHANGE_ID))]
    pub change_id: String,
}

impl Tool for GetChange {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<ChangeData<'static>>);
    const META: Meta = Meta {
        name: "get_change",
        title: "Show a planned change",
        description: "Shows a change a planned tool stored: its exact plan, its status (pending, approved, rejected, applying, applied, failed, outcome_unknown, cancelled), who decided it and its review_url. Only the owner approves, in the browser.",
        effect: Effect::Read,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[Capability::SettingsWrite],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let me = &ctx.caller.authority.person;
        let change = ctx
            .store()
            .change(&input.change_id)
            .await?
            .filter(|c| c.created_by == me.id || ctx.caller.scope.all_changes)
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::NotFound,
                    format!("no change with id \"{}\" that you can see", input.change_id),
                )
            })?;
        let plan: Value = serde_json::from_str(&change.plan).unwrap_or(Value::Null);
        let summary = format!(
            "Change {} ({}) by {} is {}.",
            change.id, change.summary, change.creator, change.status
        );
        let data = ChangeData {
            change_id: &change.id,
            tool: &change.tool,
            summary: &change.summary,
            status: change.status,
            created_by: &change.creator,
            decided_by: change.decided_by.as_deref(),
            review_url: review_url(ctx, &change.id),
            content_hash: &change.content_hash,
            grant_revision: change.grant_revision,
            plan,
        };
        Output::typed(summary, &data)
    }
}
