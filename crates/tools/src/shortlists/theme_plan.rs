//! The plan hooks of `plan_theme`: what a stored theme plan depends on (the theme it replaces,
//! or the name being free), how `apply_change` saves it, and how the owner sees it.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use store::{Change, NewTheme};

use super::theme::{Pick, Rules};
use crate::saving::{Saves, Saving};
use governance::{
    Ctx, Output, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView},
};

/// What an applied theme plan answers.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ThemeSaved {
    pub theme_id: i64,
    pub name: String,
    /// How many titles it picks.
    pub picks: usize,
}

/// What an approved theme plan saves.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ThemePlan {
    pub theme_id: Option<i64>,
    pub name: String,
    pub description: String,
    pub picks: Vec<Pick>,
    pub rules: Rules,
}

/// The state a theme plan read: the theme it replaces as it is now, and who holds its name.
pub(crate) async fn dependencies_of(
    ctx: &Ctx,
    plan: &ThemePlan,
) -> Result<Dependencies, ToolError> {
    let store = ctx.store();
    let mut deps = Dependencies::new();
    if let Some(id) = plan.theme_id {
        let now = store.theme(id).await?;
        let seen = now.map_or_else(
            || "gone".to_owned(),
            |t| {
                hex::encode(Sha256::digest(format!(
                    "{}\n{}\n{}\n{}",
                    t.name, t.description, t.picks, t.rules
                )))
            },
        );
        deps.insert(format!("theme:{id}"), seen);
    }
    let holder = store.theme_named(&plan.name).await?;
    deps.insert(
        format!("theme-name:{}", plan.name.to_lowercase()),
        holder.map_or_else(|| "free".to_owned(), |t| t.id.to_string()),
    );
    Ok(deps)
}

/// The plan hooks of `plan_theme`.
pub(crate) const THEME: Saving<ThemeSaves> = Saving::new();

/// Saving a theme: always a plan, for everyone, the owner included.
#[derive(Debug)]
pub(crate) struct ThemeSaves;

impl Saves for ThemeSaves {
    type Plan = ThemePlan;
    const WHAT: &'static str = "theme";

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a ThemePlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(dependencies_of(ctx, plan))
    }

    fn save<'a>(
        ctx: &'a Ctx,
        change: &'a Change,
        plan: ThemePlan,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let theme = NewTheme {
                id: plan.theme_id,
                name: plan.name.clone(),
                description: plan.description.clone(),
                picks: serde_json::to_string(&plan.picks).unwrap_or_default(),
                rules: serde_json::to_string(&plan.rules).unwrap_or_default(),
            };
            let saved = ctx.store().save_theme(&theme, change.created_by).await?;
            let summary = format!(
                "Theme \"{}\" saved (theme {}), with {} pick{}.",
                saved.name,
                saved.id,
                plan.picks.len(),
                if plan.picks.len() == 1 { "" } else { "s" }
            );
            let data = ThemeSaved {
                theme_id: saved.id,
                name: saved.name,
                picks: plan.picks.len(),
            };
            Ok(Output::typed(summary, &data)?.next("get_theme"))
        })
    }

    fn describe(plan: &ThemePlan) -> PlanView {
        describe(plan)
    }
}

pub(crate) fn describe(plan: &ThemePlan) -> PlanView {
    let column = |header, look, wide| PlanColumn { header, look, wide };
    let picks = PlanTable {
        id: "theme-picks",
        title: "Picked titles",
        columns: vec![
            column("Title", Look::New, false),
            column("Year", Look::Text, false),
            column("Type", Look::Text, false),
            column("Id", Look::Code, true),
        ],
        rows: plan
            .picks
            .iter()
            .map(|p| {
                vec![
                    p.title.clone(),
                    p.year.map_or_else(String::new, |y| y.to_string()),
                    format!("{:?}", p.media_type).to_lowercase(),
                    format!("{} {}", p.media_source, p.media_id),
                ]
            })
            .collect(),
    };
    let r = &plan.rules;
    let mut rules: Vec<Vec<String>> = Vec::new();
    if !r.genres.is_empty() {
        rules.push(vec!["Genres (any of)".into(), r.genres.join(", ")]);
    }
    if r.year_from.is_some() || r.year_to.is_some() {
        let years = format!(
            "{} to {}",
            r.year_from.map_or_else(|| "any".into(), |y| y.to_string()),
            r.year_to.map_or_else(|| "any".into(), |y| y.to_string())
        );
        rules.push(vec!["Years".into(), years]);
    }
    if r.in_library_only {
        rules.push(vec!["Only".into(), "titles a media server has".into()]);
    }
    if r.missing_only {
        rules.push(vec!["Only".into(), "titles no media server has yet".into()]);
    }
    if let Some(s) = &r.similar_to {
        let like = format!(
            "{} ({})",
            s.title,
            s.year.map_or_else(String::new, |y| y.to_string())
        );
        rules.push(vec!["Because you watched".into(), like]);
    }
    let mut tables = vec![picks];
    if !rules.is_empty() {
        tables.push(PlanTable {
            id: "theme-rules",
            title: "Rules",
            columns: vec![
                column("Rule", Look::Text, false),
                column("Value", Look::New, false),
            ],
            rows: rules,
        });
    }
    let what = match plan.theme_id {
        Some(id) => format!("Replaces theme {id} with the theme \"{}\"", plan.name),
        None => format!("Saves a new theme \"{}\"", plan.name),
    };
    PlanView {
        effect: format!(
            "{what}: {} picked title{}, each resolved through discovery when planned. Nothing on the media servers changes until a row shows it.",
            plan.picks.len(),
            if plan.picks.len() == 1 { "" } else { "s" }
        ),
        tables,
    }
}
