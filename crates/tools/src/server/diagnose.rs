//! `diagnose`: Marquee's own database and configuration, and every configured instance:
//! does it answer, and if not, why.

use std::time::Instant;

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::checks::InstanceCheck;
use governance::{Ctx, ErrorCode, InstanceSpec, Meta, Output, Tool, ToolError, stored::Keep};

/// How long a healthy answer is handed out again (its `observed_at` says when it was checked).
const HEALTHY_FOR_MS: i64 = 2_000;
/// How long an answer with a problem is handed out again: long enough that a burst of calls
/// does not knock on a failing backend once per call, short enough that a fixed backend shows
/// as fixed within a second.
const PROBLEM_FOR_MS: i64 = 1_000;
/// What a healthy answer's summary adds, so the reader knows it may be that old.
const HEALTHY_NOTE: &str =
    " A healthy answer is reused for up to 2 s: observed_at says when these checks ran.";
/// Likewise for an answer with a problem.
const PROBLEM_NOTE: &str =
    " An answer with a problem is reused for up to 1 s: observed_at says when these checks ran.";

/// The tables its answer reads: a kept answer holds while none of them changed.
const READS: &[store::Group] = &[store::Group::Authority, store::Group::Requests];
pub struct Diagnose;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Check only this instance (default: all).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

/// The answer's data: the database, the configuration, each instance checked, and what the
/// families noted.
#[derive(Serialize, JsonSchema)]
struct Diagnosis {
    store: StoreCheck,
    config: ConfigSeen,
    instances: Vec<InstanceCheck>,
    /// What the families noted of their own state (requests waiting, jobs, ...).
    notes: Vec<String>,
}

/// Whether Marquee's own database answers.
#[derive(Serialize, JsonSchema)]
struct StoreCheck {
    ok: bool,
    /// The database file (`null` in memory); present when it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<Option<String>>,
    /// Why it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
}

/// The configuration the server runs with.
#[derive(Serialize, JsonSchema)]
struct ConfigSeen {
    /// The config file read (`null`: the embedded default).
    file: Option<String>,
    embedded_default: bool,
    allow_destructive: bool,
    warnings: Vec<String>,
}

impl Tool for Diagnose {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Diagnosis>);
    const META: Meta = Meta {
        name: "diagnose",
        title: "Diagnose the stack",
        description: "Checks Marquee's own database and configuration, then asks every configured instance (or one, with instance_id) whether it answers, saying why when it does not and which kinds this version has no adapter for yet.",
        effect: Effect::Read,
        capability: Capability::SettingsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        // Kept per caller (fail closed: no answer crosses authorities); the settings it shows
        // are part of the key, since a changed config file changes them without a commit.
        let settings = ctx.settings();
        let view = governance::stored::view(
            ctx,
            (&input, settings.allow_destructive(), settings.warnings()),
        );
        ctx.stored()
            .answer(ctx.state_of(READS), Self::META.name, view, || {
                diagnose(ctx, input)
            })
            .await
    }
}

/// Every check, now. A healthy answer is kept for [`HEALTHY_FOR_MS`] and one with a problem
/// for [`PROBLEM_FOR_MS`] (while the database is unchanged), so an assistant asking again and
/// again does not knock on every backend each time, and callers asking at once share one run
/// (see `stored`); a fixed backend shows as fixed within a second.
async fn diagnose(ctx: &Ctx, input: Input) -> Result<(Output, Keep), ToolError> {
    let all = ctx.instances().all();
    let chosen: Vec<&InstanceSpec> = match input.instance_id.as_deref() {
        None => all.iter().collect(),
        Some(id) => match all.iter().find(|s| s.id == id) {
            Some(s) => vec![s],
            None => {
                let valid: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
                return Err(ToolError::new(
                    ErrorCode::UnknownInstance,
                    format!(
                        "unknown instance_id \"{id}\"; valid ids: {}",
                        valid.join(", ")
                    ),
                ));
            }
        },
    };
    let store = match ctx.store().ping().await {
        Ok(()) => StoreCheck {
            ok: true,
            path: Some(ctx.store().path().map(|p| p.display().to_string())),
            problem: None,
        },
        Err(e) => {
            tracing::error!(error = %e, "store ping failed");
            StoreCheck {
                ok: false,
                path: None,
                problem: Some("the database does not answer; see the server log".into()),
            }
        }
    };
    let settings = ctx.settings();
    let config = ConfigSeen {
        file: settings
            .config_file
            .as_ref()
            .map(|p| p.display().to_string()),
        embedded_default: settings.config_file.is_none(),
        allow_destructive: settings.allow_destructive(),
        warnings: settings.warnings(),
    };
    let checks = futures::future::join_all(chosen.iter().map(|s| check(ctx, s))).await;
    let notes = ctx.family_health().await?;
    let bad: Vec<&str> = checks
        .iter()
        .filter(|c| c.ok == Some(false))
        .map(|c| c.id.as_str())
        .collect();
    let healthy = store.ok && bad.is_empty();
    let summary = format!(
        "Database {}; {} instance{} checked, {} with problems{}.{}",
        if store.ok { "ok" } else { "NOT ok" },
        checks.len(),
        if checks.len() == 1 { "" } else { "s" },
        bad.len(),
        if bad.is_empty() {
            String::new()
        } else {
            format!(" ({})", bad.join(", "))
        },
        if healthy { HEALTHY_NOTE } else { PROBLEM_NOTE }
    );
    let data = Diagnosis {
        store,
        config,
        instances: checks,
        notes,
    };
    let mut out = Output::typed(summary, &data)?;
    for w in settings.warnings() {
        out = out.warn(w);
    }
    let kept_for = if healthy {
        HEALTHY_FOR_MS
    } else {
        PROBLEM_FOR_MS
    };
    let keep = Keep::Before(out.observed_at.timestamp_millis() + kept_for);
    Ok((out, keep))
}

/// One instance's health, from its family's own check (its config, its credentials), asked of
/// its adapter. Tools speak no HTTP themselves.
async fn check(ctx: &Ctx, spec: &InstanceSpec) -> InstanceCheck {
    let started = Instant::now();
    let own = ctx.check_instance(spec).await;
    super::checks::report(spec, ctx.supports(spec.kind), own, started).await
}
