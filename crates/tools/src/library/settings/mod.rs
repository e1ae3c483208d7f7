//! Settings changes as plans: a quality-profile edit or a custom format, worked out by the
//! library adapter against the live resource (the diff, the object as read and as it would be
//! written), stored as a change with a hash of what was read, written by `apply_change` once
//! approved (checkpoint, write, read back), and offered one guarded revert (`revert_change`).

pub(crate) mod plan_profile_change;
pub(crate) mod revert_change;
pub(crate) mod upsert_custom_format;

use std::collections::BTreeMap;

use adapters_library::{FieldChange, SettingsDraft, SettingsRef};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use governance::{
    contract::BoxFuture,
    plan::{self, Dependencies, Look, PlanColumn, PlanTable, PlanView, Planned, Proposal, Run},
};
use store::Change;

use super::source::{granted, one};
use governance::{Ctx, Meta, Output, ToolError, error::ErrorCode};

/// The plan hooks of `plan_profile_change` and `upsert_custom_format`: their changes offer
/// one guarded revert.
pub(crate) const SETTINGS_PLAN: SettingsPlanned = SettingsPlanned { revertible: true };
/// The plan hooks of `revert_change`: a revert is a settings plan that is not reverted again.
pub(crate) const REVERT_PLAN: SettingsPlanned = SettingsPlanned { revertible: false };

/// Settings changes as [`Planned`]: always plans, for everyone, the owner included.
#[derive(Debug)]
pub(crate) struct SettingsPlanned {
    revertible: bool,
}

impl Planned for SettingsPlanned {
    fn always(&self) -> bool {
        true
    }

    fn dependencies<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<Dependencies, ToolError>> {
        Box::pin(async move { dependencies(ctx, &plan::parse_plan(change)?).await })
    }

    fn apply<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        run: &'a Run<'a>,
    ) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move { apply(ctx, plan::parse_plan(change)?, run).await })
    }

    fn describe(&self, change: &Change) -> PlanView {
        let Ok(plan) = serde_json::from_str::<SettingsPlan>(&change.plan) else {
            return PlanView::unknown(&change.tool);
        };
        let what = match plan.target {
            SettingsRef::QualityProfile(_) => "quality profile",
            _ => "custom format",
        };
        let verb = match (&plan.reverts, &plan.target) {
            (Some(reverted), _) => format!("Reverts change {reverted} by writing"),
            (None, SettingsRef::NewCustomFormat(_)) => "Creates".to_string(),
            (None, _) => "Writes".to_string(),
        };
        let count = plan.changes.len();
        let column = |header, look| PlanColumn {
            header,
            look,
            wide: false,
        };
        let rows: Vec<Vec<String>> = plan
            .changes
            .iter()
            .map(|c| vec![c.field.clone(), c.from.clone(), c.to.clone()])
            .collect();
        PlanView {
            effect: format!(
                "{verb} {what} \"{}\" on {} ({count} field{} below); it is written only while the service still holds what was read.",
                plan.name,
                plan.instance_id,
                if count == 1 { "" } else { "s" },
            ),
            tables: vec![PlanTable {
                id: "settings-diff",
                title: "Settings",
                columns: vec![
                    column("Field", Look::Text),
                    column("Now", Look::Old),
                    column("After", Look::New),
                ],
                rows,
            }],
        }
    }

    fn revertible(&self) -> bool {
        self.revertible
    }

    fn revert<'a>(
        &'a self,
        ctx: &'a Ctx,
        change: &'a Change,
        result: &'a Value,
    ) -> BoxFuture<'a, Result<Proposal, ToolError>> {
        Box::pin(async move {
            let original: SettingsPlan = plan::parse_plan(change)?;
            let plan = revert_plan(ctx, &change.id, original, result).await?;
            Ok(proposal(&plan))
        })
    }
}

/// A settings change as stored: what the owner reviews and what apply writes.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SettingsPlan {
    pub instance_id: String,
    pub target: SettingsRef,
    /// The profile's or format's name.
    pub name: String,
    /// Field by field: from → to.
    pub changes: Vec<FieldChange>,
    /// The resource as read (`None` for a create).
    pub before: Option<Value>,
    /// The whole object apply sends.
    pub desired: Value,
    /// For a revert: the change it undoes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverts: Option<String>,
}

impl SettingsPlan {
    pub fn new(instance_id: &str, draft: SettingsDraft) -> SettingsPlan {
        SettingsPlan {
            instance_id: instance_id.to_string(),
            target: draft.target,
            name: draft.name,
            changes: draft.changes,
            before: draft.before,
            desired: draft.desired,
            reverts: None,
        }
    }

    /// "quality profile \"HD-1080p\"" / "custom format \"x265\"".
    pub fn what(&self) -> String {
        match self.target {
            SettingsRef::QualityProfile(_) => format!("quality profile \"{}\"", self.name),
            _ => format!("custom format \"{}\"", self.name),
        }
    }

    fn dependency_key(&self) -> String {
        match &self.target {
            SettingsRef::QualityProfile(id) => format!("{}/qualityprofile/{id}", self.instance_id),
            SettingsRef::CustomFormat(id) => format!("{}/customformat/{id}", self.instance_id),
            SettingsRef::NewCustomFormat(name) => {
                format!("{}/customformat/named/{name}", self.instance_id)
            }
        }
    }
}

/// A hash of a settings resource as read; `absent` when there is none.
pub(crate) fn fingerprint(v: Option<&Value>) -> String {
    match v {
        None => "absent".into(),
        Some(v) => format!(
            "sha256:{}",
            hex::encode(Sha256::digest(v.to_string().as_bytes()))
        ),
    }
}

/// Stores `plan` as a change for `meta`: the caller's missing authority (if any) decides who
/// may apply it; nothing is written to the instance.
pub(crate) async fn propose(
    ctx: &Ctx,
    meta: Meta,
    plan: SettingsPlan,
) -> Result<Output, ToolError> {
    plan::propose(ctx, meta, ctx.needs_plan(), proposal(&plan)).await
}

/// `plan` as a proposal: its one-line summary and the hash of the resource it read.
pub(crate) fn proposal(plan: &SettingsPlan) -> Proposal {
    let fields: Vec<&str> = plan.changes.iter().map(|c| c.field.as_str()).collect();
    let summary = format!(
        "{} {} on {}: {}",
        if plan.reverts.is_some() {
            "revert"
        } else {
            "change"
        },
        plan.what(),
        plan.instance_id,
        fields.join(", ")
    );
    let dependencies = BTreeMap::from([(plan.dependency_key(), fingerprint(plan.before.as_ref()))]);
    Proposal {
        summary,
        plan: serde_json::to_value(plan).unwrap_or_default(),
        dependencies,
    }
}

/// The state a stored settings plan depends on, read from its instance now.
pub(crate) async fn dependencies(
    ctx: &Ctx,
    plan: &SettingsPlan,
) -> Result<BTreeMap<String, String>, ToolError> {
    let source = one(ctx, Some(&plan.instance_id), None)?;
    let now = source
        .client()?
        .settings_now(&plan.target)
        .await
        .map_err(|e| source.error(e))?;
    Ok(BTreeMap::from([(
        plan.dependency_key(),
        fingerprint(now.as_ref()),
    )]))
}

/// Carries out an approved settings plan: one checkpoint, one write, then the stored result
/// read back and compared with what was sent.
pub(crate) async fn apply(
    ctx: &Ctx,
    plan: SettingsPlan,
    run: &Run<'_>,
) -> Result<Output, ToolError> {
    let (source, allowed) = granted(ctx, Some(&plan.instance_id), None)?;
    let writer = source.writer(governance::authority::write_proof(&allowed)?)?;
    run.checkpoint(json!({
        "call": "write_settings",
        "instance_id": plan.instance_id,
        "target": plan.target,
    }))
    .await?;
    let stored = writer
        .write_settings(&plan.target, &plan.desired)
        .await
        .map_err(|e| source.error(e))?;
    let id = stored["id"].as_i64().unwrap_or_default();
    let applied_target = match plan.target {
        SettingsRef::QualityProfile(_) => SettingsRef::QualityProfile(id),
        _ => SettingsRef::CustomFormat(id),
    };
    let mut sent = plan.desired.clone();
    sent["id"] = json!(id);
    let verified = matches_sent(&sent, &stored);
    let what = plan.what();
    let mut out = Output::new(
        if verified {
            format!("{what} on {} now reads as planned.", plan.instance_id)
        } else {
            format!(
                "{what} on {} was written, but reads back differently from what was sent; check it with get_quality_profiles or get_custom_formats.",
                plan.instance_id
            )
        },
        json!({
            "instance_id": plan.instance_id,
            "target": applied_target,
            "name": plan.name,
            "changes": plan.changes,
            "verified": verified,
            "failed": if verified { 0 } else { 1 },
            "applied_hash": fingerprint(Some(&stored)),
        }),
    );
    if plan.reverts.is_none() && plan.before.is_some() {
        out = out.next("revert_change {\"change_id\": \"…\"} offers one revert while the live state still equals this result");
    }
    Ok(out)
}

/// Whether every field that was sent reads back the same (the service may add fields).
fn matches_sent(sent: &Value, stored: &Value) -> bool {
    match (sent, stored) {
        (Value::Object(s), Value::Object(t)) => s
            .iter()
            .all(|(k, v)| t.get(k).is_some_and(|w| matches_sent(v, w))),
        (Value::Array(s), Value::Array(t)) => {
            s.len() == t.len() && s.iter().zip(t).all(|(a, b)| matches_sent(a, b))
        }
        (a, b) => a == b,
    }
}

/// The plan of a revert of `original` (an applied settings change whose operation answered
/// `result`): the live resource must still hash to what that change applied.
pub(crate) async fn revert_plan(
    ctx: &Ctx,
    change_id: &str,
    original: SettingsPlan,
    result: &Value,
) -> Result<SettingsPlan, ToolError> {
    let Some(before) = original.before else {
        return Err(ToolError::invalid(format!(
            "change {change_id} created {}; a created custom format is not reverted through Marquee (delete it in the service if it is unwanted)",
            original.name
        )));
    };
    let target: SettingsRef = serde_json::from_value(result["target"].clone()).map_err(|_| {
        unavailable(
            change_id,
            "its operation recorded no result to compare with",
        )
    })?;
    let applied = result["applied_hash"].as_str().unwrap_or_default();
    let source = one(ctx, Some(&original.instance_id), None)?;
    let live = source
        .client()?
        .settings_now(&target)
        .await
        .map_err(|e| source.error(e))?;
    if fingerprint(live.as_ref()) != applied {
        return Err(unavailable(
            change_id,
            "the live settings are no longer what it applied (changed since, in the service or by another change)",
        ));
    }
    let changes = original
        .changes
        .into_iter()
        .map(|c| FieldChange {
            field: c.field,
            from: c.to,
            to: c.from,
        })
        .collect();
    Ok(SettingsPlan {
        instance_id: original.instance_id,
        target,
        name: original.name,
        changes,
        before: live,
        desired: before,
        reverts: Some(change_id.to_string()),
    })
}

fn unavailable(change_id: &str, why: &str) -> ToolError {
    ToolError::new(
        ErrorCode::StalePlan,
        format!("change {change_id} can no longer be reverted: {why}; nothing was planned"),
    )
}
