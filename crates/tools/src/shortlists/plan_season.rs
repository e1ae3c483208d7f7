//! `plan_season`: plans requesting a show's missing seasons (as list_seasons shows them). A
//! season the catalogue does not know, or that a media server has, is refused by name. Nothing
//! is requested on this call: the owner approves the plan, and `apply_change` files the request
//! with request_media, for whoever applies it, with their quota and authority then.

use domain::{Capability, KindFamily, MediaSource, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use store::Change;

use super::show::read;
use crate::saving::{self, Saves, Saving, on_behalf};
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView},
};

pub struct PlanSeason;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The show's media_source, as search_titles gave it.
    pub media_source: MediaSource,
    /// The show's media_id, as search_titles gave it.
    #[schemars(length(min = 1, max = 64))]
    pub media_id: String,
    /// The season numbers to request, 1 to 50 of them.
    #[schemars(length(min = 1, max = 50))]
    pub seasons: Vec<u32>,
}

/// What an approved plan requests.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SeasonPlan {
    media_source: MediaSource,
    media_id: String,
    title: String,
    seasons: Vec<u32>,
}

/// What an applied plan answers.
#[derive(Serialize, JsonSchema)]
pub(crate) struct SeasonRequested {
    /// `requested` or `refused`.
    pub outcome: String,
    /// request_media's answer.
    pub message: String,
    pub seasons: Vec<u32>,
}

pub(crate) const SEASON: Saving<SeasonSaves> = Saving::new();

#[derive(Debug)]
pub(crate) struct SeasonSaves;

impl Saves for SeasonSaves {
    type Plan = SeasonPlan;
    const WHAT: &'static str = "season request";

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a SeasonPlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move {
            let show = read(ctx, plan.media_source, &plan.media_id).await?;
            let mut deps = Dependencies::new();
            for n in &plan.seasons {
                let on = show
                    .seasons
                    .iter()
                    .find(|s| s.season == *n)
                    .map_or(0, |s| s.on.len());
                let state = if on == 0 { "missing" } else { "on a server" };
                deps.insert(format!("season:{n}"), state.into());
            }
            Ok(deps)
        })
    }

    fn save<'a>(
        ctx: &'a Ctx,
        _change: &'a Change,
        plan: SeasonPlan,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let authority = &ctx.caller.authority;
            let mut args = Map::new();
            args.insert("media_source".into(), json!(plan.media_source));
            args.insert("media_id".into(), Value::String(plan.media_id.clone()));
            args.insert("media_type".into(), json!(MediaType::Tv));
            args.insert("seasons".into(), json!(plan.seasons));
            let (ok, message) = on_behalf(
                ctx,
                &authority.key_id,
                authority.person.id,
                "request_media",
                args,
            )
            .await?;
            let outcome = if ok { "requested" } else { "refused" };
            let summary = format!("{} seasons {:?}: {message}", plan.title, plan.seasons);
            Output::typed(
                summary,
                &SeasonRequested {
                    outcome: outcome.into(),
                    message,
                    seasons: plan.seasons,
                },
            )
        })
    }

    fn describe(plan: &SeasonPlan) -> PlanView {
        let column = |header, look, wide| PlanColumn { header, look, wide };
        PlanView {
            effect: format!(
                "Requests {} of {} with request_media, for whoever applies it (their quota and authority then).",
                if plan.seasons.len() == 1 {
                    "one season"
                } else {
                    "seasons"
                },
                plan.title
            ),
            tables: vec![PlanTable {
                id: "seasons",
                title: "Seasons requested",
                columns: vec![
                    column("Show", Look::Text, false),
                    column("Season", Look::New, false),
                ],
                rows: plan
                    .seasons
                    .iter()
                    .map(|n| vec![plan.title.clone(), n.to_string()])
                    .collect(),
            }],
        }
    }
}

impl Tool for PlanSeason {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<SeasonRequested>);
    const META: Meta = Meta {
        name: "plan_season",
        title: "Plan requesting a show's missing seasons",
        description: "Plans requesting seasons of a show (media_source + media_id from search_titles) that no media server your grant reaches has: list_seasons shows which are missing. A season the catalogue does not know, one a server has, or one named twice is refused by number. Nothing is requested on this call: the answer is a change_id for the owner to review, then apply_change files it with request_media, for you, with your quota then.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: Some(&SEASON),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let show = read(ctx, input.media_source, &input.media_id).await?;
        let mut seasons = Vec::with_capacity(input.seasons.len());
        for &n in &input.seasons {
            if seasons.contains(&n) {
                return Err(ToolError::invalid(format!("season {n} is named twice")));
            }
            let Some(known) = show.seasons.iter().find(|s| s.season == n) else {
                return Err(ToolError::invalid(format!(
                    "{} has no season {n}{}",
                    show.title,
                    show.catalogue_seasons
                        .map(|c| format!(" (its catalogue knows {c})"))
                        .unwrap_or_default()
                )));
            };
            if let Some(on) = known.on.first() {
                return Err(ToolError::invalid(format!(
                    "season {n} of {} is on {} already; list_seasons shows the missing ones",
                    show.title, on.instance_id
                )));
            }
            seasons.push(n);
        }
        let summary = format!("request {} seasons {:?}", show.title, seasons);
        let plan = SeasonPlan {
            media_source: show.media_source,
            media_id: show.media_id,
            title: show.title,
            seasons,
        };
        saving::propose::<SeasonSaves>(ctx, Self::META, summary, &plan).await
    }
}
