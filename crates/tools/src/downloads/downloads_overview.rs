//! `downloads_overview`: per download instance, torrents by state, speeds, free space and
//! tracker trouble, from the cached catalogues.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Source, chosen, freshness, refresher};
use crate::{Ctx, Meta, Output, Tool, ToolError};

pub struct DownloadsOverview;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only this download instance (default: every download instance your grant covers).
    #[serde(default)]
    pub instance_id: Option<String>,
}

impl Tool for DownloadsOverview {
    type Input = Input;
    const META: Meta = Meta {
        name: "downloads_overview",
        title: "Downloads overview",
        description: "Per download instance (qBittorrent, Transmission): how many torrents are in each state, total download and upload speed, free space, total size and tracker errors by class, with how fresh the figures are. Start here when checking on downloads.",
        effect: Effect::Read,
        capability: Capability::DownloadsRead,
        needs_plan: false,
        allowance: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let sources = chosen(ctx, input.instance_id.as_deref())?;
        refresher::ensure_loaded(&sources).await;
        let memo = ctx.downloads().count_memo();
        memo.answer(&sources, (Self::META.name, input.instance_id), || {
            overview(&sources)
        })
    }
}

/// The overview of `sources`, counted over every torrent.
fn overview(sources: &[&Source]) -> Result<Output, ToolError> {
    let mut sections = Vec::new();
    let mut lines = Vec::new();
    for s in sources {
        let status = freshness::status(s);
        let Some(b) = s.working() else {
            sections.push(json!({ "instance_id": s.id, "kind": s.kind, "status": status }));
            lines.push(format!("{} could not be set up", s.id));
            continue;
        };
        let o = b.catalogue.overview();
        let total: usize = o.by_state.values().sum();
        let errors: usize = o.tracker_errors.values().sum();
        if freshness::loaded(s) {
            lines.push(format!(
                "{} has {total} torrent{} ({}){}",
                s.id,
                if total == 1 { "" } else { "s" },
                states(&o.by_state),
                if errors > 0 {
                    format!(", {errors} with tracker errors")
                } else {
                    String::new()
                }
            ));
        } else {
            lines.push(format!("{} could not be read", s.id));
        }
        sections.push(json!({
            "instance_id": s.id,
            "kind": s.kind,
            "status": status,
            "torrents": total,
            "by_state": o.by_state,
            "tracker_errors": o.tracker_errors,
            "dl_speed": o.dl_speed,
            "ul_speed": o.ul_speed,
            "free_space": o.free_space,
            "size": o.size,
        }));
    }
    let summary = format!("{}.", lines.join("; "));
    let out = Output::new(summary, json!({ "instances": sections }));
    Ok(freshness::stamp(out, sources).next("find_torrents"))
}

fn states(
    by_state: &std::collections::BTreeMap<adapters_downloads::TorrentState, usize>,
) -> String {
    if by_state.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> = by_state
        .iter()
        .map(|(k, n)| format!("{n} {}", k.as_str()))
        .collect();
    parts.join(", ")
}
