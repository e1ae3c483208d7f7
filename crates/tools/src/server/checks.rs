//! One instance's health as `diagnose` and `marquee doctor` report it: its family's own check
//! (asked of its adapter: the *arr `system/status`, the torrent client's version, a
//! catalogue's key check or cheapest question), a folder looked at on disk, or a kind no
//! family checks, reported as unchecked (`ok: null`), never as healthy unasked.

use std::time::Instant;

use domain::InstanceKind;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::{discover::Catalogues, downloads::Downloads, library::Libraries};
use governance::{App, InstanceSpec};

/// One instance's check as `diagnose` answers it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct InstanceCheck {
    pub id: String,
    /// radarr, qbittorrent, folder, ... as the config names it.
    #[schemars(with = "String")]
    pub kind: InstanceKind,
    /// Whether this version has an adapter for the kind.
    pub supported: bool,
    /// Whether it answered: `null` when it was not checked.
    pub ok: Option<bool>,
    /// What the check found, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Why no check was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How long the family's check took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
}

/// What a check found, as both reports show it: `{id, kind, supported, ok, detail | note,
/// latency_ms}`; `own` is the instance's family check (`None`: no family checks it).
pub(crate) async fn report(
    spec: &InstanceSpec,
    supported: bool,
    own: Option<Result<String, String>>,
    started: Instant,
) -> InstanceCheck {
    let mut v = InstanceCheck {
        id: spec.id.clone(),
        kind: spec.kind,
        supported,
        ok: None,
        detail: None,
        note: None,
        latency_ms: None,
    };
    match own {
        Some(found) => {
            v.latency_ms = Some(started.elapsed().as_millis() as u64);
            let (ok, detail) = match found {
                Ok(found) => (true, found),
                Err(why) => (false, why),
            };
            v.ok = Some(ok);
            v.detail = Some(detail);
        }
        None => unchecked(spec, supported, &mut v).await,
    }
    v
}

/// An instance no family checks: a kind this version has no adapter for is unchecked; a
/// folder of a supported kind is looked at on disk; any other is unchecked.
async fn unchecked(spec: &InstanceSpec, supported: bool, v: &mut InstanceCheck) {
    if supported && let Some(path) = &spec.path {
        let exists = tokio::fs::metadata(path)
            .await
            .map(|m| m.is_dir())
            .unwrap_or(false);
        v.ok = Some(exists);
        v.detail = Some(if exists {
            format!("folder {path} exists")
        } else {
            format!("folder {path} does not exist or is not a folder")
        });
        return;
    }
    v.ok = None;
    v.note = Some(if supported {
        format!(
            "no check is made of {} instances; the instance is not reported healthy or failing",
            spec.kind
        )
    } else {
        format!(
            "this version has no {} adapter yet; the instance is declared but no tool uses it, and it is not checked",
            spec.kind
        )
    });
}

/// Every configured instance checked, as `marquee doctor` reports them: the same checks
/// `diagnose` asks each family for, asked of the families' installed state.
pub async fn check_instances(app: &App) -> Vec<Value> {
    let checks = app.instances().all().iter().map(|spec| async move {
        let started = Instant::now();
        let mut own = None;
        if let Some(l) = app.family::<Libraries>() {
            own = l.check(spec).await;
        }
        if own.is_none()
            && let Some(c) = app.family::<Catalogues>()
        {
            own = c.check(&spec.id).await;
        }
        if own.is_none()
            && let Some(d) = app.family::<Downloads>()
        {
            own = d.check(&spec.id).await;
        }
        let found = report(spec, app.supports(spec.kind), own, started).await;
        serde_json::to_value(found).unwrap_or_default()
    });
    futures::future::join_all(checks).await
}
