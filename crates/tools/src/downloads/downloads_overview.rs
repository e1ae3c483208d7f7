//! `downloads_overview`: per download instance, torrents by state, speeds, free space and
//! tracker trouble, from the cached catalogues; with `refresh`, after reading each instance's
//! whole list again (progress as it goes, to a client that asked with a progress token).

use std::collections::BTreeMap;

use domain::{Capability, InstanceKind};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Source, chosen, freshness,
    refresher::{self, Full},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct DownloadsOverview;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only this download instance (default: every download instance your grant covers).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
    /// Read each instance's whole torrent list again first, instead of answering from the
    /// cache (slow on large instances; a full read under 10 seconds old stands). A client that
    /// sends a progress token hears how many torrents are read so far of the total.
    #[serde(default)]
    pub refresh: bool,
}

impl Tool for DownloadsOverview {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Overview>);
    const META: Meta = Meta {
        name: "downloads_overview",
        title: "Downloads overview",
        description: "Per download instance (qBittorrent, Transmission): how many torrents are in each state, total download and upload speed, free space, total size and tracker errors by class, with how fresh the figures are. Start here when checking on downloads. refresh: true reads every instance's whole list again first (with progress notifications when the request has a progress token).",
        effect: Effect::Read,
        capability: Capability::DownloadsRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Download),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let sources = chosen(ctx, input.instance_id.as_deref())?;
        if input.refresh {
            let fulls = refresher::full(ctx, &sources).await;
            return overview(&sources, Some(refreshed(&sources, &fulls)));
        }
        refresher::ensure_loaded(&sources).await;
        let memo = super::downloads(ctx).count_memo();
        memo.answer(&sources, (Self::META.name, input.instance_id), || {
            overview(&sources, None)
        })
    }
}

/// The overview of `sources`, counted over every torrent, after the full refresh's sentence
/// and rows when there was one.
/// The answer's data: each instance's figures and, after `refresh`, how each full read went.
#[derive(Serialize, JsonSchema)]
struct Overview {
    instances: Vec<Section>,
    #[serde(skip_serializing_if = "Option::is_none")]
    full_refresh: Option<Vec<Refreshed>>,
}

/// One instance's figures (only `instance_id`, `kind` and `status` when it could not be set up).
#[derive(Serialize, JsonSchema)]
struct Section {
    instance_id: String,
    #[schemars(with = "String")]
    kind: InstanceKind,
    status: freshness::Freshness,
    #[serde(flatten)]
    figures: Option<Figures>,
}

/// An instance's figures, from its catalogue.
#[derive(Serialize, JsonSchema)]
struct Figures {
    torrents: usize,
    /// Torrents per state.
    #[schemars(with = "BTreeMap<String, usize>")]
    by_state: BTreeMap<adapters_downloads::TorrentState, usize>,
    /// Torrents with a tracker error, per class.
    #[schemars(with = "BTreeMap<String, usize>")]
    tracker_errors: BTreeMap<adapters_downloads::TrackerErrorClass, usize>,
    /// Bytes per second.
    dl_speed: u64,
    ul_speed: u64,
    /// Bytes free in the download folder, when the client reports it.
    free_space: Option<u64>,
    /// Bytes of all torrents.
    size: u64,
}

/// How one instance's full read went.
#[derive(Serialize, JsonSchema)]
struct Refreshed {
    instance_id: String,
    /// read, recent (read seconds ago) or failed.
    outcome: &'static str,
    torrents: Option<usize>,
    error: Option<String>,
}

fn overview(
    sources: &[&Source],
    full: Option<(String, Vec<Refreshed>)>,
) -> Result<Output, ToolError> {
    let mut sections = Vec::new();
    let mut lines = Vec::new();
    for s in sources {
        let status = freshness::status(s);
        let Some(b) = s.working() else {
            sections.push(Section {
                instance_id: s.id.clone(),
                kind: s.kind,
                status,
                figures: None,
            });
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
        sections.push(Section {
            instance_id: s.id.clone(),
            kind: s.kind,
            status,
            figures: Some(Figures {
                torrents: total,
                by_state: o.by_state,
                tracker_errors: o.tracker_errors,
                dl_speed: o.dl_speed,
                ul_speed: o.ul_speed,
                free_space: o.free_space,
                size: o.size,
            }),
        });
    }
    let mut summary = format!("{}.", lines.join("; "));
    let mut data = Overview {
        instances: sections,
        full_refresh: None,
    };
    if let Some((said, rows)) = full {
        summary = format!("{said}. {summary}");
        data.full_refresh = Some(rows);
    }
    let out = crate::typed::output(summary, &data)?;
    Ok(freshness::stamp(out, sources).next("find_torrents"))
}

/// What each instance's full read came to: a sentence for the summary, and `full_refresh` rows.
fn refreshed(sources: &[&Source], fulls: &[Full]) -> (String, Vec<Refreshed>) {
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    for (s, full) in sources.iter().zip(fulls) {
        let (outcome, torrents, error) = match full {
            Full::Read(n) => {
                lines.push(format!("read {} in full ({n} torrents)", s.id));
                ("read", Some(*n), None)
            }
            Full::Recent => {
                lines.push(format!("{} was read in full seconds ago", s.id));
                ("recent", None, None)
            }
            Full::Failed(why) => {
                lines.push(format!("could not read {} in full", s.id));
                ("failed", None, Some(why.as_str()))
            }
        };
        rows.push(Refreshed {
            instance_id: s.id.clone(),
            outcome,
            torrents,
            error: error.map(str::to_string),
        });
    }
    (capitalized(&lines.join("; ")), rows)
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
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
