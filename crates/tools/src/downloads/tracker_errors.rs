//! `tracker_errors`: torrents whose trackers complain, grouped by class of complaint across
//! instances, with the commonest messages and what to do about each class.

use std::{collections::BTreeMap, sync::Arc};

use adapters_downloads::TrackerErrorClass;
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Source, chosen, freshness, refresher};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct TrackerErrors;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only this download instance (default: every download instance your grant covers).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

#[derive(Default)]
struct Group {
    count: usize,
    by_instance: BTreeMap<String, usize>,
    messages: BTreeMap<Arc<str>, usize>,
}

/// The answer's data: torrents with tracker errors grouped by class, and each instance's
/// freshness.
#[derive(Serialize, JsonSchema)]
struct Grouped {
    groups: Vec<GroupRow>,
    total: usize,
    instances: Vec<freshness::Freshness>,
}

/// One class of tracker error: how many torrents, where, the most frequent messages, and what
/// to do.
#[derive(Serialize, JsonSchema)]
struct GroupRow {
    /// unregistered, auth, unreachable, rate_limited or other.
    #[schemars(with = "String")]
    class: TrackerErrorClass,
    count: usize,
    by_instance: BTreeMap<String, usize>,
    /// The most frequent messages, most frequent first (at most 5).
    messages: Vec<MessageRow>,
    what_to_do: &'static str,
    /// The find_torrents call that lists them.
    list_with: String,
}

/// A tracker's message and how many torrents show it.
#[derive(Serialize, JsonSchema)]
struct MessageRow {
    message: String,
    count: usize,
}

impl Tool for TrackerErrors {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Grouped>);
    const META: Meta = Meta {
        name: "tracker_errors",
        title: "Tracker errors",
        description: "Groups the torrents whose trackers complain by class (unregistered, auth, unreachable, rate_limited, other) across every download instance (or one), with counts per instance, the commonest messages and what to do. find_torrents with tracker_error lists the torrents of a class.",
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
        refresher::ensure_loaded(&sources).await;
        let memo = super::downloads(ctx).count_memo();
        memo.answer(&sources, (Self::META.name, input.instance_id), || {
            groups(&sources)
        })
    }
}

/// The tracker errors of `sources`, grouped over every torrent.
fn groups(sources: &[&Source]) -> Result<Output, ToolError> {
    let mut groups: BTreeMap<TrackerErrorClass, Group> = BTreeMap::new();
    for s in sources {
        let Some(b) = s.working() else { continue };
        for g in b.catalogue.tracker_error_groups() {
            let e = groups.entry(g.class).or_default();
            e.count += g.count;
            *e.by_instance.entry(s.id.clone()).or_default() += g.count;
            for (m, n) in g.messages {
                *e.messages.entry(m).or_default() += n;
            }
        }
    }
    let total: usize = groups.values().map(|g| g.count).sum();
    let out: Vec<_> = groups
        .iter()
        .map(|(class, g)| {
            let mut messages: Vec<(&Arc<str>, &usize)> = g.messages.iter().collect();
            messages.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
            messages.truncate(5);
            GroupRow {
                class: *class,
                count: g.count,
                by_instance: g.by_instance.clone(),
                messages: messages
                    .iter()
                    .map(|(m, n)| MessageRow {
                        message: m.to_string(),
                        count: **n,
                    })
                    .collect(),
                what_to_do: advice(*class),
                list_with: format!("find_torrents {{\"tracker_error\":\"{}\"}}", class.as_str()),
            }
        })
        .collect();
    let tail = freshness::summary_tail(sources);
    let summary = if total == 0 {
        format!("No torrent has a tracker error{tail}.")
    } else {
        let parts: Vec<String> = groups
            .iter()
            .map(|(c, g)| format!("{} {}", g.count, c.as_str()))
            .collect();
        format!(
            "{total} torrent{} with tracker errors: {}{tail}.",
            if total == 1 { "" } else { "s" },
            parts.join(", ")
        )
    };
    let data = Grouped {
        groups: out,
        total,
        instances: sources.iter().map(|s| freshness::status(s)).collect(),
    };
    let mut result = crate::typed::output(summary, &data)?;
    if let Some(first) = groups.keys().next() {
        result = result.next(format!(
            "find_torrents {{\"tracker_error\":\"{}\"}}",
            first.as_str()
        ));
    }
    Ok(freshness::stamp(result, sources))
}

fn advice(class: TrackerErrorClass) -> &'static str {
    match class {
        TrackerErrorClass::Unregistered => {
            "the tracker no longer knows these torrents (deleted, trumped or never uploaded): remove them or replace them with a new release"
        }
        TrackerErrorClass::Auth => {
            "the tracker refuses the account (passkey, client ban, ratio): fix the account on the tracker's site, then reannounce"
        }
        TrackerErrorClass::Unreachable => {
            "the tracker could not be reached: usually passes on its own; reannounce later"
        }
        TrackerErrorClass::RateLimited => {
            "the tracker asks for fewer announces: wait, do not reannounce"
        }
        TrackerErrorClass::Other => "read the messages; torrent_detail shows each tracker",
    }
}
