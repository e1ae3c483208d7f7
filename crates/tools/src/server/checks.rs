//! One instance's health as `diagnose` and `marquee doctor` report it: its family's own check
//! (asked of its adapter: the *arr `system/status`, the torrent client's version, a
//! catalogue's key check or cheapest question), a folder looked at on disk, or a kind no
//! family checks, reported as unchecked (`ok: null`), never as healthy unasked.

use std::time::Instant;

use serde_json::{Value, json};

use crate::{discover::Catalogues, downloads::Downloads, library::Libraries};
use governance::{App, InstanceSpec};

/// What a check found, as both reports show it: `{id, kind, supported, ok, detail | note,
/// latency_ms}`; `own` is the instance's family check (`None`: no family checks it).
pub(crate) async fn report(
    spec: &InstanceSpec,
    supported: bool,
    own: Option<Result<String, String>>,
    started: Instant,
) -> Value {
    let mut v = json!({ "id": spec.id, "kind": spec.kind, "supported": supported });
    match own {
        Some(found) => {
            v["latency_ms"] = json!(started.elapsed().as_millis() as u64);
            let (ok, detail) = match found {
                Ok(found) => (true, found),
                Err(why) => (false, why),
            };
            v["ok"] = json!(ok);
            v["detail"] = json!(detail);
        }
        None => unchecked(spec, supported, &mut v).await,
    }
    v
}

/// An instance no family checks: a kind this version has no adapter for is unchecked; a
/// folder of a supported kind is looked at on disk; any other is unchecked.
async fn unchecked(spec: &InstanceSpec, supported: bool, v: &mut Value) {
    if supported && let Some(path) = &spec.path {
        let exists = tokio::fs::metadata(path)
            .await
            .map(|m| m.is_dir())
            .unwrap_or(false);
        v["ok"] = json!(exists);
        v["detail"] = json!(if exists {
            format!("folder {path} exists")
        } else {
            format!("folder {path} does not exist or is not a folder")
        });
        return;
    }
    v["ok"] = json!(null);
    v["note"] = json!(if supported {
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
            own = l.check(&spec.id).await;
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
        report(spec, app.supports(spec.kind), own, started).await
    });
    futures::future::join_all(checks).await
}
