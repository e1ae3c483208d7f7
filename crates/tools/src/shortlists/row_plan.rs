//! The plan hooks of `plan_row`: what a stored row plan depends on (its theme, the row it
//! replaces, the people, the name being free on the server), how `apply_change` saves it, and
//! how the owner sees it.

use domain::PersonId;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use store::{Change, NewRow};

use crate::saving::{Saves, Saving};
use governance::{
    Ctx, Output, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView},
};

/// What an applied row plan answers.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct RowSaved {
    pub row_id: i64,
    pub name: String,
    pub enabled: bool,
}

/// What an approved row plan saves.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RowPlan {
    pub row_id: Option<i64>,
    pub theme_id: i64,
    pub theme: String,
    pub instance_id: String,
    pub library_id: String,
    pub library: String,
    pub name: String,
    /// (person id, name), as they were when planned.
    pub audience: Vec<(i64, String)>,
    pub enabled: bool,
}

fn digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// The state a row plan read.
pub(crate) async fn dependencies_of(ctx: &Ctx, plan: &RowPlan) -> Result<Dependencies, ToolError> {
    let store = ctx.store();
    let mut deps = Dependencies::new();
    let theme = store.theme(plan.theme_id).await?;
    deps.insert(
        format!("theme:{}", plan.theme_id),
        theme.map_or_else(
            || "gone".into(),
            |t| digest(&format!("{}\n{}\n{}", t.name, t.picks, t.rules)),
        ),
    );
    if let Some(id) = plan.row_id {
        let row = store.shortlist_row(id).await?;
        deps.insert(
            format!("row:{id}"),
            row.map_or_else(|| "gone".into(), |r| r.updated_at.to_string()),
        );
    }
    placed(
        ctx,
        &plan.instance_id,
        &plan.name,
        &plan.audience,
        &mut deps,
    )
    .await?;
    Ok(deps)
}

/// The plan hooks of `plan_row`.
pub(crate) const ROW: Saving<RowSaves> = Saving::new();

/// What a row's placement depends on: each person of its audience as planned, and its name
/// being free on the server.
pub(crate) async fn placed(
    ctx: &Ctx,
    instance_id: &str,
    name: &str,
    audience: &[(i64, String)],
    deps: &mut Dependencies,
) -> Result<(), ToolError> {
    let store = ctx.store();
    for (id, planned) in audience {
        let now = store.person(PersonId(*id)).await?;
        let same = now.is_some_and(|p| &p.name == planned);
        deps.insert(
            format!("person:{id}"),
            if same { planned.clone() } else { "gone".into() },
        );
    }
    let holder = store
        .shortlist_rows()
        .await?
        .into_iter()
        .find(|r| r.instance_id == instance_id && r.name.eq_ignore_ascii_case(name));
    deps.insert(
        format!("row-name:{instance_id}:{}", name.to_lowercase()),
        holder.map_or_else(|| "free".into(), |r| r.id.to_string()),
    );
    Ok(())
}

/// Saving a row: always a plan, for everyone, the owner included.
#[derive(Debug)]
pub(crate) struct RowSaves;

impl Saves for RowSaves {
    type Plan = RowPlan;
    const WHAT: &'static str = "row";

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a RowPlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(dependencies_of(ctx, plan))
    }

    fn save<'a>(
        ctx: &'a Ctx,
        change: &'a Change,
        plan: RowPlan,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let row = NewRow {
                id: plan.row_id,
                theme_id: plan.theme_id,
                instance_id: plan.instance_id.clone(),
                library_id: plan.library_id.clone(),
                name: plan.name.clone(),
                audience: plan.audience.iter().map(|(id, _)| PersonId(*id)).collect(),
                enabled: plan.enabled,
            };
            let saved = ctx
                .store()
                .save_shortlist_row(&row, change.created_by)
                .await?;
            let summary = format!(
                "Row \"{}\" saved on {} (row {}), {}.",
                saved.name,
                saved.instance_id,
                saved.id,
                if saved.enabled { "enabled" } else { "disabled" }
            );
            let data = RowSaved {
                row_id: saved.id,
                name: saved.name,
                enabled: saved.enabled,
            };
            Ok(Output::typed(summary, &data)?.next("preview_row"))
        })
    }

    fn describe(plan: &RowPlan) -> PlanView {
        describe(plan)
    }
}

pub(crate) fn describe(plan: &RowPlan) -> PlanView {
    let column = |header, look, wide| PlanColumn { header, look, wide };
    let audience = if plan.audience.is_empty() {
        "the whole household".to_owned()
    } else {
        plan.audience
            .iter()
            .map(|(_, n)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rows = vec![
        vec![
            "Theme".into(),
            format!("{} (theme {})", plan.theme, plan.theme_id),
        ],
        vec!["Media server".into(), plan.instance_id.clone()],
        vec![
            "Library".into(),
            format!("{} ({})", plan.library, plan.library_id),
        ],
        vec!["Collection name".into(), plan.name.clone()],
        vec!["For".into(), audience],
        vec![
            "Enabled".into(),
            if plan.enabled {
                "yes: runs make and change its collection".into()
            } else {
                "no".into()
            },
        ],
    ];
    let what = match plan.row_id {
        Some(id) => format!("Replaces row {id} with"),
        None => "Saves".into(),
    };
    PlanView {
        effect: format!(
            "{what} the shortlist row \"{}\" on {}. Nothing on the server changes until a run; a run changes only the collection Marquee made.",
            plan.name, plan.instance_id
        ),
        tables: vec![PlanTable {
            id: "row",
            title: "Row",
            columns: vec![
                column("Field", Look::Text, false),
                column("Value", Look::New, false),
            ],
            rows,
        }],
    }
}
