//! The plan hooks of `plan_row`: what a stored row plan depends on (its theme, the row it
//! replaces, the people, the name being free on the server), how `apply_change` carries it out
//! (a replaced row's old collection removed from the server first, when the row moves, is
//! renamed or shows another way; then the save), and how the owner sees it.

use domain::PersonId;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use store::{Change, NewRow, ShortlistRow};

use super::{plan_row::Placement, row::DisplayView, shelf};
use crate::media::servers;
use crate::saving::{Stepping, Steps};
use governance::{
    Ctx, ErrorCode, Output, ToolError,
    contract::BoxFuture,
    plan::{Dependencies, Look, PlanColumn, PlanTable, PlanView, Run},
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
    #[serde(default)]
    pub display: DisplayView,
    /// The collection (or playlist) the replaced row had, removed from the server on apply
    /// because the row no longer shows there or that way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<Replaced>,
}

/// What Marquee made for a row that a replacement removes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Replaced {
    pub instance_id: String,
    pub library_id: String,
    pub name: String,
    pub collection_id: String,
    /// The playlist's owner on the server; `None` for a collection.
    pub user: Option<String>,
}

impl Replaced {
    /// What replacing `row` with `place` and `display` removes: its collection, when it has one
    /// and the row moves, is renamed, or shows another way (or, a playlist, for someone else).
    pub(crate) async fn of(
        ctx: &Ctx,
        row: &ShortlistRow,
        place: &Placement,
        display: &DisplayView,
    ) -> Result<Option<Replaced>, ToolError> {
        let Some(collection_id) = row.collection_id.clone() else {
            return Ok(None);
        };
        let user = shelf::owner(ctx, row).await.map_err(|e| {
            ToolError::invalid(format!(
                "row {}'s playlist cannot be removed: {}",
                row.id, e.message
            ))
        })?;
        let audience: Vec<PersonId> = place.audience.iter().map(|(id, _)| PersonId(*id)).collect();
        let same = row.instance_id == place.instance_id
            && row.library_id == place.library_id
            && row.name == place.name
            && DisplayView::of(&row.display) == *display
            && (user.is_none() || row.audience == audience);
        Ok((!same).then(|| Replaced {
            instance_id: row.instance_id.clone(),
            library_id: row.library_id.clone(),
            name: row.name.clone(),
            collection_id,
            user,
        }))
    }
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
pub(crate) const ROW: Stepping<RowSteps> = Stepping::new();

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
pub(crate) struct RowSteps;

/// Removes what a replaced row had on the server (already gone counts as removed).
async fn remove_replaced(ctx: &Ctx, old: &Replaced) -> Result<(), ToolError> {
    let fail = |why: String| {
        ToolError::new(
            ErrorCode::BackendUnavailable,
            format!(
                "the row's old collection \"{}\" on {} could not be removed: {why}; the row was left as it was",
                old.name, old.instance_id
            ),
        )
    };
    let server = servers(ctx)
        .by_id(&old.instance_id)
        .ok_or_else(|| fail(format!("{} is no longer a media server", old.instance_id)))?;
    let client = server.client().map_err(fail)?;
    let user = old.user.as_deref();
    match shelf::delete(client, user, &old.library_id, &old.collection_id).await {
        Ok(()) => Ok(()),
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(fail(server.failure(&e))),
    }
}

impl Steps for RowSteps {
    type Plan = RowPlan;

    fn dependencies<'a>(
        ctx: &'a Ctx,
        plan: &'a RowPlan,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(dependencies_of(ctx, plan))
    }

    fn apply<'a>(
        ctx: &'a Ctx,
        change: &'a Change,
        plan: RowPlan,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            if let (Some(old), Some(id)) = (&plan.replaces, plan.row_id) {
                run.checkpoint(json!({"call": "remove old collection", "row": id}))
                    .await?;
                remove_replaced(ctx, old).await?;
                ctx.store().set_row_collection(id, None).await?;
            }
            run.checkpoint(json!({"save": "row"})).await?;
            let row = NewRow {
                id: plan.row_id,
                theme_id: plan.theme_id,
                instance_id: plan.instance_id.clone(),
                library_id: plan.library_id.clone(),
                name: plan.name.clone(),
                audience: plan.audience.iter().map(|(id, _)| PersonId(*id)).collect(),
                enabled: plan.enabled,
                display: plan.display.stored(),
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
    let mut rows = vec![
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
        vec!["Shown as".into(), plan.display.text()],
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
    let removes = match &plan.replaces {
        Some(old) => {
            rows.push(vec![
                "Removes from the server".into(),
                format!(
                    "the old {} \"{}\" ({}) on {}, which Marquee made (its titles stay); the next run makes the new one",
                    if old.user.is_some() { "playlist" } else { "collection" },
                    old.name,
                    old.collection_id,
                    old.instance_id
                ),
            ]);
            format!(
                " Applying it first removes the old \"{}\" Marquee made on {}.",
                old.name, old.instance_id
            )
        }
        None => String::new(),
    };
    PlanView {
        effect: format!(
            "{what} the shortlist row \"{}\" on {}.{removes} Nothing else on the server changes until a run; a run changes only the collection Marquee made.",
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
