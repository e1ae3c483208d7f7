//! `plan_maintenance`: plans shortlist upkeep: `refresh_cache` reads a named cache again (the
//! media servers' library index that previews and runs read), `cleanup` removes the
//! collections Marquee made for chosen rows (exactly the items listed for review; a collection
//! changed on the server meanwhile makes the plan stale) and retires those rows.

use domain::{Capability, KindFamily};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::maintenance_plan::{
    Cleanup, MAINTENANCE, MaintenanceData, MaintenancePlan, collection_items, dependencies_of,
};
use crate::media::servers;
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    plan::{self, Proposal},
};

pub struct PlanMaintenance;

/// What to do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Read a named cache again.
    RefreshCache,
    /// Remove the collections Marquee made for row_ids, and retire those rows.
    Cleanup,
}

/// The caches that can be read again.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Cache {
    /// Each media server's library index (what previews, runs and discovery read).
    MediaIndex,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    pub action: Action,
    /// For refresh_cache: which cache.
    #[serde(default)]
    pub cache: Option<Cache>,
    /// For refresh_cache: the media servers (default: every one your grant reaches).
    #[serde(default)]
    #[schemars(length(max = 20))]
    pub instance_ids: Vec<String>,
    /// For cleanup: the rows whose collection goes (list_rows gives the ids), 1 to 20.
    #[serde(default)]
    #[schemars(length(max = 20))]
    pub row_ids: Vec<i64>,
}

impl Tool for PlanMaintenance {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<MaintenanceData>);
    const META: Meta = Meta {
        name: "plan_maintenance",
        title: "Plan shortlist maintenance",
        description: "Plans shortlist upkeep. action refresh_cache with cache media_index reads the media servers' library index again (instance_ids, default every one your grant reaches). action cleanup removes the collection Marquee made for each of row_ids (only Marquee's own collections; the titles stay) and disables and unschedules those rows; the plan lists exactly the items each collection holds now, and a collection changed on the server meanwhile makes it stale. Nothing is done on this call: the answer is a change_id for the owner to review, then apply_change carries it out, each step checkpointed.",
        effect: Effect::Write,
        capability: Capability::Shortlists,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::MediaServers),
        plan: Some(&MAINTENANCE),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let plan = match input.action {
            Action::RefreshCache => refresh(ctx, &input)?,
            Action::Cleanup => cleanup(ctx, &input).await?,
        };
        let summary = match input.action {
            Action::RefreshCache => format!(
                "read the library index of {} again",
                plan.refresh.join(", ")
            ),
            Action::Cleanup => format!(
                "remove {} shortlist collection{}",
                plan.cleanup.len(),
                if plan.cleanup.len() == 1 { "" } else { "s" }
            ),
        };
        let proposal = Proposal {
            summary,
            plan: json!(plan),
            dependencies: dependencies_of(ctx, &plan).await?,
        };
        plan::propose(ctx, Self::META, ctx.needs_plan(), proposal).await
    }
}

fn refresh(ctx: &Ctx, input: &Input) -> Result<MaintenancePlan, ToolError> {
    if input.cache.is_none() {
        return Err(ToolError::invalid(
            "refresh_cache needs cache; the one cache is media_index",
        ));
    }
    if !input.row_ids.is_empty() {
        return Err(ToolError::invalid("row_ids is for cleanup"));
    }
    let all = servers(ctx);
    let refresh: Vec<String> = if input.instance_ids.is_empty() {
        all.readable(ctx).map(|s| s.id.clone()).collect()
    } else {
        let mut ids = Vec::new();
        for id in &input.instance_ids {
            if all.by_id(id).is_none() {
                return Err(ToolError::invalid(format!(
                    "{id} is not a media server; list_instances names them"
                )));
            }
            ctx.authorize(id)?;
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids
    };
    if refresh.is_empty() {
        return Err(ToolError::invalid(
            "no media server your grant reaches is configured",
        ));
    }
    Ok(MaintenancePlan {
        refresh,
        cleanup: Vec::new(),
    })
}

async fn cleanup(ctx: &Ctx, input: &Input) -> Result<MaintenancePlan, ToolError> {
    if input.cache.is_some() || !input.instance_ids.is_empty() {
        return Err(ToolError::invalid(
            "cache and instance_ids are for refresh_cache; cleanup takes row_ids",
        ));
    }
    if input.row_ids.is_empty() {
        return Err(ToolError::invalid(
            "cleanup needs row_ids (list_rows gives them)",
        ));
    }
    let mut cleanup = Vec::with_capacity(input.row_ids.len());
    for (i, &id) in input.row_ids.iter().enumerate() {
        if input.row_ids[..i].contains(&id) {
            return Err(ToolError::invalid(format!("row {id} is named twice")));
        }
        let row = super::row_or_not_found(ctx, id).await?;
        let Some(collection) = row.collection_id.clone() else {
            return Err(ToolError::invalid(format!(
                "row {id} (\"{}\") has no collection Marquee made; there is nothing to clean up",
                row.name
            )));
        };
        let user = super::shelf::owner(ctx, &row).await?;
        let items = collection_items(ctx, &row.instance_id, user.as_deref(), &collection)
            .await
            .map_err(|why| ToolError::new(governance::ErrorCode::BackendUnavailable, why))?;
        cleanup.push(Cleanup {
            row_id: row.id,
            name: row.name,
            instance_id: row.instance_id,
            library_id: row.library_id,
            collection_id: collection,
            items,
            user,
        });
    }
    Ok(MaintenancePlan {
        refresh: Vec::new(),
        cleanup,
    })
}
