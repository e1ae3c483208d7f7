//! `plan_row`: plans saving a shortlist row: a theme shown as a collection in one library of one
//! media server, for an audience of the household's people, enabled or not. The library is
//! read from the server now; the people must exist. Nothing is saved on this call: the owner
//! approves the plan, and `apply_change` saves it (a run then makes the collection).

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    row::{DisplayKind, DisplayView},
    row_plan::{ROW, Replaced, RowPlan, RowSteps},
};
use crate::media::servers;
use crate::saving;
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct PlanRow;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The row to replace (list_rows gives the ids); omit it for a new row.
    #[schemars(range(min = 1))]
    pub row_id: Option<i64>,
    /// The theme it shows (list_themes gives the ids).
    #[schemars(range(min = 1))]
    pub theme_id: i64,
    /// The media server (list_instances names them).
    #[schemars(length(min = 1, max = 128))]
    pub instance_id: String,
    /// The library the collection goes in (list_libraries gives the ids).
    #[schemars(length(min = 1, max = 64))]
    pub library_id: String,
    /// The collection's name on the server, unique on it (e.g. "Heist films for Friday").
    #[schemars(length(min = 1, max = 80))]
    pub name: String,
    /// The people it is for, by name; their content limits bound what it shows. Omit for the whole household.
    #[serde(default)]
    #[schemars(length(max = 50))]
    pub audience: Vec<String>,
    /// Whether runs may make and change its collection (default false: a new row starts disabled).
    #[serde(default)]
    pub enabled: bool,
    /// How it shows: kind collection (default) or playlist (for exactly one person, owned by their user on the server, linked by plan_people), sort release (default, oldest first) or title, poster (default true: its first title's artwork).
    #[serde(default)]
    pub display: DisplayView,
}

impl Tool for PlanRow {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::row_plan::RowSaved>);
    const META: Meta = Meta {
        name: "plan_row",
        title: "Plan a shortlist row",
        description: "Plans saving a shortlist row: theme_id shown as a collection named name in library_id of the media server instance_id, for audience (people by name; their content limits bound what it shows; empty: the whole household), enabled or not (a new row starts disabled; enabling is a plan of its own), with display {kind: collection | playlist (one person's, owned by their linked user), sort: release | title, poster}. The library is read from the server now. With row_id the plan replaces that row, keeping the collection a run made; a row moved, renamed or shown another way has its old collection removed from the server when the plan is applied, and the next run makes the new one. Nothing is saved on this call: the answer is a change_id for the owner to review, then apply_change saves it; preview_row then shows what a run would do.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: Some(&ROW),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let plan = resolve(ctx, input).await?;
        let summary = format!(
            "{} the shortlist row \"{}\" on {} ({}){}",
            if plan.row_id.is_some() {
                "replace"
            } else {
                "save"
            },
            plan.name,
            plan.instance_id,
            if plan.enabled { "enabled" } else { "disabled" },
            match &plan.replaces {
                Some(old) => format!(
                    ", removing the old \"{}\" Marquee made on {} first",
                    old.name, old.instance_id
                ),
                None => String::new(),
            }
        );
        saving::propose_steps::<RowSteps>(ctx, Self::META, summary, &plan).await
    }
}

/// Checks the whole input against the store and the server: the theme, the row replaced, the
/// server (within the grant), its library, and each person.
async fn resolve(ctx: &Ctx, input: Input) -> Result<RowPlan, ToolError> {
    let store = ctx.store();
    let Some(theme) = store.theme(input.theme_id).await? else {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!("no theme {}; list_themes lists them", input.theme_id),
        ));
    };
    let old = match input.row_id {
        None => None,
        Some(id) => Some(store.shortlist_row(id).await?.ok_or_else(|| {
            ToolError::new(
                ErrorCode::NotFound,
                format!("no row {id} to replace; list_rows lists them"),
            )
        })?),
    };
    let place = placement(
        ctx,
        &input.instance_id,
        &input.library_id,
        &input.name,
        &input.audience,
        &input.display,
    )
    .await?;
    let replaces = match &old {
        Some(row) => Replaced::of(ctx, row, &place, &input.display).await?,
        None => None,
    };
    Ok(RowPlan {
        row_id: input.row_id,
        theme_id: theme.id,
        theme: theme.name,
        instance_id: place.instance_id,
        library_id: place.library_id,
        library: place.library,
        name: place.name,
        audience: place.audience,
        enabled: input.enabled,
        display: input.display,
        replaces,
    })
}

/// Where a row shows, checked: the server within the grant, its library (read now), the name,
/// and each person of the audience.
pub(crate) struct Placement {
    pub instance_id: String,
    pub library_id: String,
    pub library: String,
    pub name: String,
    pub audience: Vec<(i64, String)>,
}

pub(crate) async fn placement(
    ctx: &Ctx,
    instance_id: &str,
    library_id: &str,
    name: &str,
    audience_names: &[String],
    display: &DisplayView,
) -> Result<Placement, ToolError> {
    let name = name.trim().to_owned();
    if name.is_empty() {
        return Err(ToolError::invalid("name must not be blank"));
    }
    let store = ctx.store();
    let (spec, _) = ctx.instance(KindFamily::MediaServers, Some(instance_id))?;
    let server = servers(ctx)
        .by_id(&spec.id)
        .ok_or_else(|| ToolError::invalid(format!("{} is not a media server", spec.id)))?;
    let client = server
        .client()
        .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, e))?;
    let libraries = client
        .libraries()
        .await
        .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, server.failure(&e)))?;
    let Some(library) = libraries.iter().find(|l| l.id == library_id) else {
        let known: Vec<String> = libraries
            .iter()
            .map(|l| format!("{} ({})", l.id, l.name))
            .collect();
        return Err(ToolError::invalid(format!(
            "{} has no library {}; its libraries: {}",
            spec.id,
            library_id,
            known.join(", ")
        )));
    };
    let mut audience = Vec::with_capacity(audience_names.len());
    for who in audience_names {
        let Some(person) = store.person_by_name(who.trim()).await? else {
            return Err(ToolError::invalid(format!(
                "no person named \"{who}\" in the household"
            )));
        };
        if !audience.iter().any(|(id, _)| *id == person.id.0) {
            audience.push((person.id.0, person.name));
        }
    }
    if display.kind == DisplayKind::Playlist {
        let [(person, who)] = audience.as_slice() else {
            return Err(ToolError::invalid(
                "a playlist is one person's: give exactly one person as its audience (a collection shows to several)",
            ));
        };
        let user = super::shelf::user_of(ctx, domain::PersonId(*person), &spec.id).await?;
        let users = client
            .users()
            .await
            .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, server.failure(&e)))?;
        if !users.iter().any(|u| u.eq_ignore_ascii_case(&user)) {
            return Err(ToolError::invalid(format!(
                "{who}'s user \"{user}\" is not one {} can make a playlist for; its users: {}",
                spec.id,
                users.join(", ")
            )));
        }
    }
    Ok(Placement {
        instance_id: spec.id.clone(),
        library_id: library.id.clone(),
        library: library.name.clone(),
        name,
        audience,
    })
}
