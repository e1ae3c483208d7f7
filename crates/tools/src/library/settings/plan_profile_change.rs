//! `plan_profile_change`: a narrow, checked edit of one quality profile (upgrades, cutoff,
//! allowed qualities, format-score thresholds, scores of custom formats it lists), always stored
//! as a change with its diff; `apply_change` writes it.

use std::collections::BTreeMap;

use adapters_library::ProfileEdit;
use domain::{Capability, MediaType};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{SettingsPlan, propose};
use crate::library::source::one;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct PlanProfileChange;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The library instance, as list_instances shows it (default: the instance of media_type's kind).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// movie, tv, music or book: picks the default instance of that kind.
    #[serde(default)]
    pub media_type: Option<MediaType>,
    /// The quality profile's name or id, as get_quality_profiles shows it.
    pub profile: String,
    /// Whether upgrades are allowed.
    #[serde(default)]
    pub upgrade_allowed: Option<bool>,
    /// The new cutoff: a quality or group the profile allows (after allow/disallow).
    #[serde(default)]
    pub cutoff: Option<String>,
    /// Qualities or groups of the profile to allow, by name.
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub allow: Vec<String>,
    /// Qualities or groups of the profile to stop allowing, by name.
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub disallow: Vec<String>,
    #[serde(default)]
    pub min_format_score: Option<i64>,
    #[serde(default)]
    pub cutoff_format_score: Option<i64>,
    /// Radarr and Sonarr only; at least 1.
    #[serde(default)]
    pub min_upgrade_format_score: Option<i64>,
    /// New scores for custom formats the profile already lists, by format name (-100000 to 100000).
    #[serde(default)]
    pub format_scores: BTreeMap<String, i64>,
}

/// The largest score magnitude accepted (the services take any int32; beyond this is a typo).
const MAX_SCORE: i64 = 100_000;

impl Tool for PlanProfileChange {
    type Input = Input;
    /// It only stores plans: its answer is always the planned answer.
    const DATA: Option<governance::contract::DataSchema> = Some(governance::contract::planned_only);
    const META: Meta = Meta {
        name: "plan_profile_change",
        title: "Plan a quality profile change",
        description: "Plans a narrow edit of one existing quality profile: upgrade_allowed, cutoff (an allowed quality or group), allow/disallow existing qualities or groups, min_format_score, cutoff_format_score, min_upgrade_format_score, and scores of custom formats the profile already lists. Nothing is written: the answer is a change with the diff (field: from → to) that apply_change writes once approved (the owner may apply at once). Profiles are not created, renamed, reordered or deleted.",
        effect: Effect::Write,
        capability: Capability::SettingsWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: Some(&crate::library::settings::SETTINGS_PLAN),
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let scores = [
            ("min_format_score", input.min_format_score),
            ("cutoff_format_score", input.cutoff_format_score),
            ("min_upgrade_format_score", input.min_upgrade_format_score),
        ]
        .into_iter()
        .chain(
            input
                .format_scores
                .values()
                .map(|s| ("format_scores", Some(*s))),
        );
        for (field, score) in scores {
            if score.is_some_and(|s| s.abs() > MAX_SCORE) {
                return Err(ToolError::invalid(format!(
                    "invalid argument \"{field}\": scores lie between -{MAX_SCORE} and {MAX_SCORE}"
                )));
            }
        }
        let source = one(ctx, input.instance_id.as_deref(), input.media_type)?;
        let edit = ProfileEdit {
            upgrade_allowed: input.upgrade_allowed,
            cutoff: input.cutoff,
            allow: input.allow,
            disallow: input.disallow,
            min_format_score: input.min_format_score,
            cutoff_format_score: input.cutoff_format_score,
            min_upgrade_format_score: input.min_upgrade_format_score,
            format_scores: input.format_scores.into_iter().collect(),
        };
        let draft = source
            .client()?
            .draft_profile_edit(&input.profile, &edit)
            .await
            .map_err(|e| source.error(e))?;
        propose(ctx, Self::META, SettingsPlan::new(&source.id, draft)).await
    }
}
