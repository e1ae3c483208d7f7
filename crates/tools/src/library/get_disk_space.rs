//! `get_disk_space`: free and total space of the disks each library service sees, over every
//! library instance (asked concurrently) or one.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::source::{chosen, merged};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetDiskSpace;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One library instance, as list_instances shows it (default: every library instance).
    #[serde(default)]
    pub instance_id: Option<String>,
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

impl Tool for GetDiskSpace {
    type Input = Input;
    const META: Meta = Meta {
        name: "get_disk_space",
        title: "Library disk space",
        description: "Free and total space of every disk the library services see, per instance, with the fullest disk named first in the summary. Instances that could not be read are named.",
        effect: Effect::Read,
        capability: Capability::LibraryRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let sources = chosen(ctx, input.instance_id.as_deref())?;
        let m = merged(ctx, sources, |c| c.disk_space()).await;
        if let Some(e) = m.all_failed() {
            return Err(e);
        }
        let mut fullest: Option<(f64, String)> = None;
        let instances: Vec<_> = m
            .read
            .iter()
            .map(|(s, disks)| {
                for d in disks.iter().filter(|d| d.total_bytes > 0) {
                    let free = d.free_bytes as f64 / d.total_bytes as f64;
                    if fullest.as_ref().is_none_or(|(f, _)| free < *f) {
                        fullest = Some((
                            free,
                            format!(
                                "{} on {} has {:.1} GiB free of {:.1} GiB",
                                d.path,
                                s.id,
                                d.free_bytes as f64 / GIB,
                                d.total_bytes as f64 / GIB
                            ),
                        ));
                    }
                }
                json!({ "instance_id": s.id, "kind": s.kind, "disks": disks })
            })
            .collect();
        let summary = match fullest {
            Some((_, line)) => format!("Fullest disk: {line}."),
            None => "The library services report no disks.".to_string(),
        };
        let mut out = Output::new(
            summary,
            json!({ "instances": instances, "unreadable": m.failed_data() }),
        );
        for w in m.warnings() {
            out = out.warn(w);
        }
        Ok(out)
    }
}
