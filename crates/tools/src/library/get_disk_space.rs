//! `get_disk_space`: free and total space of the disks each library service sees, over every
//! library instance (asked concurrently) or one.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::shapes;
use super::source::{chosen, merged};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetDiskSpace;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One library instance, as list_instances shows it (default: every library instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

impl Tool for GetDiskSpace {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Disks>);
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
                InstanceDisks {
                    instance_id: s.id.clone(),
                    kind: s.kind,
                    disks: shapes::all(disks, shapes::Disk::of),
                }
            })
            .collect();
        let summary = match fullest {
            Some((_, line)) => format!("Fullest disk: {line}."),
            None => "The library services report no disks.".to_string(),
        };
        let mut out = crate::typed::output(
            summary,
            &Disks {
                instances,
                unreadable: m.failed_data(),
            },
        )?;
        for w in m.warnings() {
            out = out.warn(w);
        }
        Ok(out)
    }
}

/// The answer's data: each instance's disks, and the instances that could not be read.
#[derive(Serialize, JsonSchema)]
struct Disks {
    instances: Vec<InstanceDisks>,
    unreadable: Vec<shapes::Unreadable>,
}

/// The disks one instance sees.
#[derive(Serialize, JsonSchema)]
struct InstanceDisks {
    instance_id: String,
    #[schemars(with = "String")]
    kind: domain::InstanceKind,
    disks: Vec<shapes::Disk>,
}
