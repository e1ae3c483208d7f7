//! `plan_setup`: plans one theme and its new row in one approval. The theme is checked and its
//! picks resolved as `plan_theme` does, the row's server, library and people as `plan_row`
//! does; the row starts disabled and unscheduled (enabling it is a plan of its own). Applied,
//! both are saved together or neither is.

use domain::PersonId;
use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use store::{Change, NewRow, NewTheme};

use super::{
    plan_row::{Placement, placement},
    plan_theme,
    row::DisplayView,
    row_plan::{self, RowPlan},
    theme_plan::{self, ThemePlan},
};
use crate::saving::{self, Saves, Saving};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, PlanView},
};

pub struct PlanSetup;

/// Where the new row shows.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RowInput {
    /// The media server (list_instances names them).
    #[schemars(length(min = 1, max = 128))]
    pub instance_id: String,
    /// The library the collection goes in (list_libraries gives the ids).
    #[schemars(length(min = 1, max = 64))]
    pub library_id: String,
    /// The collection's name on the server; the theme's name when omitted.
    #[schemars(length(min = 1, max = 80))]
    pub name: Option<String>,
    /// The people it is for, by name; omit for the whole household.
    #[serde(default)]
    #[schemars(length(max = 50))]
    pub audience: Vec<String>,
    /// How it shows, as plan_row takes it (default: a collection by release, with a poster).
    #[serde(default)]
    pub display: DisplayView,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The new theme, as plan_theme takes it (without theme_id).
    pub theme: plan_theme::Input,
    /// Its row.
    pub row: RowInput,
}

/// What an approved setup saves.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetupPlan {
    theme: ThemePlan,
    instance_id: String,
    library_id: String,
    library: String,
    name: String,
    audience: Vec<(i64, String)>,
    #[serde(default)]
    display: DisplayView,
}

/// What an applied setup answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct SetUp {
    pub theme_id: i64,
    pub row_id: i64,
}

impl Tool for PlanSetup {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<SetUp>);
    const META: Meta = Meta {
        name: "plan_setup",
        title: "Plan a shortlist theme and its row",
        description: "Plans a new shortlist theme and its row in one approval: theme as plan_theme takes it (name, description, picks exactly as search_titles answered them, rules), and row {instance_id, library_id, name (the theme's when omitted), audience, display (as plan_row takes it)}. Every pick is resolved through the catalogue now and the library read from the server; the row starts disabled and unscheduled (plan_row with enabled true enables it). Nothing is saved on this call: the answer is a change_id for the owner to review, then apply_change saves both together, or neither.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: Some(&SETUP),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if input.theme.theme_id.is_some() {
            return Err(ToolError::invalid(
                "plan_setup makes a new theme: leave theme_id out (plan_theme replaces one)",
            ));
        }
        let theme = plan_theme::resolve(ctx, input.theme).await?;
        let name = input.row.name.unwrap_or_else(|| theme.name.clone());
        let Placement {
            instance_id,
            library_id,
            library,
            name,
            audience,
        } = placement(
            ctx,
            &input.row.instance_id,
            &input.row.library_id,
            &name,
            &input.row.audience,
            &input.row.display,
        )
        .await?;
        let summary = format!(
            "set up the shortlist theme \"{}\" ({} picks) with its row \"{name}\" on {instance_id} (disabled)",
            theme.name,
            theme.picks.len()
        );
        let plan = SetupPlan {
            theme,
            instance_id,
            library_id,
            library,
            name,
            audience,
            display: input.row.display,
        };
        saving::propose::<SetupSaves>(ctx, Self::META, summary, &plan).await
    }
}

/// The plan hooks of `plan_setup`.
pub(crate) const SETUP: Saving<SetupSaves> = Saving::new();

/// Saving a theme and its row together: always a plan, for everyone, the owner included.
#[derive(Debug)]
pub(crate) struct SetupSaves;

impl Saves for SetupSaves {
    type Plan = SetupPlan;
    const WHAT: &'static str = "setup";

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a SetupPlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move {
            let mut deps = theme_plan::dependencies_of(ctx, &plan.theme).await?;
            row_plan::placed(
                ctx,
                &plan.instance_id,
                &plan.name,
                &plan.audience,
                &mut deps,
            )
            .await?;
            Ok(deps)
        })
    }

    fn save<'a>(
        ctx: &'a Ctx,
        change: &'a Change,
        plan: SetupPlan,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let theme = NewTheme {
                id: None,
                name: plan.theme.name.clone(),
                description: plan.theme.description.clone(),
                picks: serde_json::to_string(&plan.theme.picks).unwrap_or_default(),
                rules: serde_json::to_string(&plan.theme.rules).unwrap_or_default(),
            };
            let row = NewRow {
                id: None,
                theme_id: 0,
                instance_id: plan.instance_id.clone(),
                library_id: plan.library_id.clone(),
                name: plan.name.clone(),
                audience: plan.audience.iter().map(|(id, _)| PersonId(*id)).collect(),
                enabled: false,
                display: plan.display.stored(),
            };
            let (theme_id, row_id) = ctx
                .store()
                .save_setup(&theme, &row, change.created_by)
                .await?;
            let summary = format!(
                "Theme \"{}\" (theme {theme_id}) and its row \"{}\" (row {row_id}, disabled) saved.",
                plan.theme.name, plan.name
            );
            Ok(Output::typed(summary, &SetUp { theme_id, row_id })?.next("preview_row"))
        })
    }

    fn describe(plan: &SetupPlan) -> PlanView {
        let mut view = theme_plan::describe(&plan.theme);
        let row = RowPlan {
            row_id: None,
            theme_id: 0,
            theme: format!("{} (new)", plan.theme.name),
            instance_id: plan.instance_id.clone(),
            library_id: plan.library_id.clone(),
            library: plan.library.clone(),
            name: plan.name.clone(),
            audience: plan.audience.clone(),
            enabled: false,
            display: plan.display.clone(),
            replaces: None,
        };
        let row_view = row_plan::describe(&row);
        view.effect = format!("{} Its row: {}", view.effect, row_view.effect);
        view.tables.extend(row_view.tables);
        view
    }
}
