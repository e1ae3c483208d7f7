//! `diagnose`: Marquee's own database and configuration, and every configured instance:
//! does it answer, and if not, why.

use std::time::{Duration, Instant};

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::{Ctx, InstanceSpec, Meta, Output, Tool, ToolError, discover::Catalogues};

pub struct Diagnose;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Check only this instance (default: all).
    #[serde(default)]
    pub instance_id: Option<String>,
}

impl Tool for Diagnose {
    type Input = Input;
    const META: Meta = Meta {
        name: "diagnose",
        title: "Diagnose the stack",
        description: "Checks Marquee's own database and configuration, then asks every configured instance (or one, with instance_id) whether it answers, saying why when it does not and which kinds this version has no adapter for yet.",
        effect: Effect::Read,
        capability: Capability::SettingsRead,
        needs_plan: false,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let all = ctx.instances().all();
        let chosen: Vec<&InstanceSpec> = match input.instance_id.as_deref() {
            None => all.iter().collect(),
            Some(id) => match all.iter().find(|s| s.id == id) {
                Some(s) => vec![s],
                None => {
                    let valid: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
                    return Err(ToolError::new(
                        "unknown_instance",
                        format!(
                            "unknown instance_id \"{id}\"; valid ids: {}",
                            valid.join(", ")
                        ),
                    ));
                }
            },
        };
        let store = match ctx.store().ping().await {
            Ok(()) => {
                json!({ "ok": true, "path": ctx.store().path().map(|p| p.display().to_string()) })
            }
            Err(e) => {
                tracing::error!(error = %e, "store ping failed");
                json!({ "ok": false, "problem": "the database does not answer; see the server log" })
            }
        };
        let settings = ctx.settings();
        let config = json!({
            "file": settings.config_file.as_ref().map(|p| p.display().to_string()),
            "embedded_default": settings.config_file.is_none(),
            "allow_destructive": settings.allow_destructive(),
            "warnings": settings.warnings(),
        });
        let catalogues = ctx.catalogues();
        let checks = futures::future::join_all(chosen.iter().map(|s| check(catalogues, s))).await;
        let mut notes = crate::discover::notes();
        notes.extend(crate::requests::notes(ctx).await?);
        let bad: Vec<&str> = checks
            .iter()
            .filter(|c| c["ok"] == json!(false))
            .filter_map(|c| c["id"].as_str())
            .collect();
        let mut out = Output::new(
            format!(
                "Database {}; {} instance{} checked, {} with problems{}.",
                if store["ok"] == json!(true) {
                    "ok"
                } else {
                    "NOT ok"
                },
                checks.len(),
                if checks.len() == 1 { "" } else { "s" },
                bad.len(),
                if bad.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", bad.join(", "))
                }
            ),
            json!({ "store": store, "config": config, "instances": checks, "notes": notes }),
        );
        for w in settings.warnings() {
            out = out.warn(w);
        }
        Ok(out)
    }
}

/// One instance's health: a catalogue adapter's own check (its config, its key) when it has one,
/// else whether the instance answers at all.
async fn check(catalogues: &Catalogues, spec: &InstanceSpec) -> Value {
    let started = Instant::now();
    let Some(own) = catalogues.check(&spec.id).await else {
        return probe(spec).await;
    };
    let mut v = json!({ "id": spec.id, "kind": spec.kind, "supported": spec.supported() });
    v["latency_ms"] = json!(started.elapsed().as_millis() as u64);
    let (ok, detail) = match own {
        Ok(found) => (true, found),
        Err(why) => (false, why),
    };
    v["ok"] = json!(ok);
    v["detail"] = json!(detail);
    v
}

/// Whether an instance answers. Kinds without an adapter are reported as such, after a reachability check.
async fn probe(spec: &InstanceSpec) -> Value {
    let mut v = json!({ "id": spec.id, "kind": spec.kind, "supported": spec.supported() });
    if !spec.supported() {
        v["note"] = json!(format!(
            "this version has no {} adapter yet; the instance is declared but no tool uses it",
            spec.kind
        ));
    }
    if let Some(path) = &spec.path {
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
        return v;
    }
    let Some(url) = &spec.url else {
        v["ok"] = json!(true);
        v["detail"] = json!("built in; nothing to reach");
        return v;
    };
    let client = match httpx::client(httpx::Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(4),
    }) {
        Ok(c) => c,
        Err(e) => {
            v["ok"] = json!(false);
            v["detail"] = json!(e.to_string());
            return v;
        }
    };
    let started = Instant::now();
    match client.get(url.clone()).send().await {
        Ok(resp) => {
            v["ok"] = json!(true);
            v["http_status"] = json!(resp.status().as_u16());
            v["latency_ms"] = json!(started.elapsed().as_millis() as u64);
            v["detail"] = json!(format!(
                "reachable at {}",
                spec.display_url().unwrap_or_default()
            ));
        }
        Err(e) => {
            let class = httpx::Error::from_reqwest(&e);
            v["ok"] = json!(false);
            v["detail"] = json!(format!(
                "{} at {}: {class}; check that the service runs and the url in marquee.toml",
                spec.id,
                spec.display_url().unwrap_or_default()
            ));
        }
    }
    v
}
