//! `diagnose_queue`, the Import Doctor: across every library instance (or one), each queue item
//! that is not progressing gets a verdict from a closed list, a plain sentence, the evidence it
//! used (the service's messages, and the download client's state when an instance the caller may
//! read holds the same hash: see `client.rs`) and `next_call`: the exact tool call that fixes it,
//! or what a person must do. Items that are fine are counted, not listed.

use std::collections::BTreeMap;

use adapters_library::{QueueItem, Service};
use domain::Capability;
use futures::{StreamExt, stream::FuturesOrdered};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    super::source::{Source, chosen, merged, service_of},
    client::{Clients, Seen},
    verdict::{Verdict, sentence, stuck, verdict},
};
use governance::{Ctx, Meta, Output, Tool, ToolError, report::Level};

pub struct DiagnoseQueue;

/// How many next calls that read the service (manual import candidates) run at once.
const NEXT_CALLS_AT_ONCE: usize = 8;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// One library instance (default: every library instance).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for DiagnoseQueue {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Diagnosis<'static>>);
    const META: Meta = Meta {
        name: "diagnose_queue",
        title: "Diagnose stuck downloads",
        description: "The Import Doctor: reads the download queue of every library instance (or one) and gives each item that is not progressing a verdict (sample_file, needs_unpacking, wrong_episode_mapping, not_an_upgrade, missing_remote_path_mapping, no_eligible_files, stalled_download, download_client_unreachable, unknown), a plain sentence, evidence (the service's own messages, and the download client's state when a download instance you may read holds the same hash), and next_call: the exact tool call that fixes it, or what a person must do. Items that are fine are only counted.",
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
    const LONG: bool = true;

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let sources = chosen(ctx, input.instance_id.as_deref())?;
        let (m, clients) = tokio::join!(merged(ctx, sources, |c| c.queue()), Clients::gather(ctx));
        if let Some(e) = m.all_failed() {
            return Err(e);
        }
        let mut fine = 0usize;
        let mut found = Vec::new();
        let mut by_verdict: BTreeMap<&str, usize> = BTreeMap::new();
        for (source, items) in &m.read {
            for q in items {
                let seen = clients.seen(q);
                if !stuck(q) && !seen.stuck() {
                    fine += 1;
                    continue;
                }
                let v = verdict(q, seen.says());
                ctx.log(
                    Level::Info,
                    &format!("{}: {} on {}", v.name(), q.title, source.id),
                );
                *by_verdict.entry(v.name()).or_default() += 1;
                found.push((*source, q, v, seen));
            }
        }
        // A wrong mapping's fix reads the download's candidates: a few at a time, not in a row.
        let mut pending = FuturesOrdered::new();
        let mut next_calls = Vec::with_capacity(found.len());
        // remove_queue_item is destructive: named as the next call only where it is offered.
        let removable = ctx.settings().allow_destructive();
        for (source, q, v, seen) in &found {
            pending.push_back(next_call(source, q, *v, seen, removable));
            if pending.len() >= NEXT_CALLS_AT_ONCE
                && let Some(next) = pending.next().await
            {
                next_calls.push(next);
            }
        }
        while let Some(next) = pending.next().await {
            next_calls.push(next);
        }
        let rows: Vec<Stuck> = found
            .iter()
            .zip(next_calls)
            .map(|((source, q, v, seen), next)| {
                let unreachable = seen
                    .unreachable_instance()
                    .filter(|_| *v == Verdict::DownloadClientUnreachable);
                Stuck {
                    instance_id: &source.id,
                    queue_id: q.id,
                    title: &q.title,
                    verdict: v.name(),
                    sentence: sentence(*v, &q.title, &source.id, unreachable.map(|(id, _)| id)),
                    evidence: Evidence {
                        status: &q.status,
                        tracked_download_state: q.tracked_state.as_deref(),
                        tracked_download_status: q.tracked_status.as_deref(),
                        status_messages: &q.messages,
                        error: q.error.as_deref(),
                        download_client: q.download_client.as_deref(),
                        download_id: q.download_id.as_deref(),
                        client_state: seen.evidence(),
                    },
                    next_call: next,
                }
            })
            .collect();
        let verdicts: Vec<String> = by_verdict.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let mut summary = format!(
            "{} stuck, {fine} fine{}.",
            super::super::count(rows.len(), "item", "items"),
            if verdicts.is_empty() {
                String::new()
            } else {
                format!(" ({})", verdicts.join(", "))
            }
        );
        if !m.failed.is_empty() {
            let names: Vec<&str> = m.failed.iter().map(|(s, _)| s.id.as_str()).collect();
            summary.push_str(&format!(
                " Could not be read: {} (see warnings).",
                names.join(", ")
            ));
        }
        let mut out = crate::typed::output(
            summary,
            &Diagnosis {
                stuck: rows,
                fine,
                by_verdict,
                unreadable: m.failed_data(),
            },
        )?;
        for w in m.warnings() {
            out = out.warn(w);
        }
        Ok(out)
    }
}

fn call(tool: &'static str, arguments: Value) -> Call {
    Call { tool, arguments }
}

fn person(what: String) -> Next {
    Next::Person {
        person: what,
        then: None,
    }
}

/// The answer's data: the stuck items with their verdicts and fixes, how many are fine, and
/// the instances that could not be read.
#[derive(Serialize, JsonSchema)]
struct Diagnosis<'a> {
    stuck: Vec<Stuck<'a>>,
    fine: usize,
    by_verdict: BTreeMap<&'static str, usize>,
    unreadable: Vec<crate::library::shapes::Unreadable>,
}

/// A stuck queue item: why, on what evidence, and what clears it.
#[derive(Serialize, JsonSchema)]
struct Stuck<'a> {
    instance_id: &'a str,
    queue_id: i64,
    title: &'a str,
    verdict: &'static str,
    sentence: String,
    evidence: Evidence<'a>,
    next_call: Next,
}

/// What the service and the download client say about the item.
#[derive(Serialize, JsonSchema)]
struct Evidence<'a> {
    status: &'a str,
    tracked_download_state: Option<&'a str>,
    tracked_download_status: Option<&'a str>,
    status_messages: &'a [String],
    error: Option<&'a str>,
    download_client: Option<&'a str>,
    download_id: Option<&'a str>,
    client_state: super::client::ClientState<'a>,
}

/// A tool call that clears the item.
#[derive(Serialize, JsonSchema)]
struct Call {
    tool: &'static str,
    /// The call's arguments, as the tool takes them.
    arguments: Value,
}

/// What clears the item: a tool call, or what a person must do (then, perhaps, a call).
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum Next {
    Call(Call),
    Person {
        person: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        then: Option<Call>,
    },
}

/// The call that clears the item, or what a person must do.
async fn next_call(
    source: &Source,
    q: &QueueItem,
    v: Verdict,
    seen: &Seen<'_>,
    removable: bool,
) -> Next {
    let remove = |action: &str| {
        if !removable {
            let blocklist = if action == "remove_and_blocklist" {
                " and blocklist the release"
            } else {
                ""
            };
            return person(format!(
                "remove {} from {} Activity > Queue{blocklist} (remove_queue_item is not offered here: destructive tools are off, [mcp] allow_destructive)",
                q.title, source.id
            ));
        }
        Next::Call(call(
            "remove_queue_item",
            json!({ "instance_id": source.id, "queue_ids": [q.id], "action": action }),
        ))
    };
    let candidates = call(
        "get_manual_import_candidates",
        json!({ "instance_id": source.id, "queue_id": q.id }),
    );
    match v {
        Verdict::SampleFile | Verdict::NoEligibleFiles | Verdict::StalledDownload => {
            remove("remove_and_blocklist")
        }
        Verdict::NotAnUpgrade => remove("remove"),
        Verdict::NeedsUnpacking => Next::Person {
            person: format!(
                "unpack the archive of {} in the download client's folder (or turn on unpacking there), then import it",
                q.title
            ),
            then: Some(candidates),
        },
        Verdict::WrongEpisodeMapping => {
            Next::Call(mapped_import(source, q).await.unwrap_or(candidates))
        }
        Verdict::MissingRemotePathMapping => person(format!(
            "in {} open Settings > Download Clients > Remote Path Mappings and map the folder the download client reports ({}) to where {} sees the same files; the import is then retried by itself",
            source.id,
            q.messages
                .iter()
                .find_map(|m| m.split(": ").nth(1))
                .and_then(|p| p.split(". ").next())
                .unwrap_or("its download folder"),
            source.id
        )),
        Verdict::DownloadClientUnreachable => match seen.unreachable_instance() {
            Some((client, why)) if q.status != "downloadClientUnavailable" => person(format!(
                "start the download client {client} (Marquee's download instance; it could not be read: {why}) or correct its url in marquee.toml; the diagnose tool shows what Marquee can reach"
            )),
            _ => person(format!(
                "start the download client {} or correct its address in {} Settings > Download Clients; the diagnose tool shows what Marquee can reach",
                q.download_client.as_deref().unwrap_or("of this download"),
                source.id
            )),
        },
        Verdict::Unknown => person(format!(
            "open {} Activity > Queue and read the item's messages (in the evidence); if the download failed, remove it{}",
            source.id,
            if removable {
                " with remove_queue_item"
            } else {
                " there"
            }
        )),
    }
}

/// A wrong mapping's fix: import the download's files as the item the service grabbed them for.
async fn mapped_import(source: &Source, q: &QueueItem) -> Option<Call> {
    let client = source.client().ok()?;
    let download = q.download_id.as_deref()?;
    let files = client
        .manual_import_candidates(Some(download), None)
        .await
        .ok()?;
    let item_id = q.item_id?;
    let sonarr = service_of(source.kind) == Some(Service::Sonarr);
    let episode = q.episode_id;
    if files.is_empty() || (sonarr && episode.is_none()) {
        return None;
    }
    let files: Vec<Value> = files
        .iter()
        .map(|f| match (sonarr, episode) {
            (true, Some(e)) => json!({ "path": f.path, "item_id": item_id, "episode_ids": [e] }),
            _ => json!({ "path": f.path, "item_id": item_id }),
        })
        .collect();
    Some(call(
        "execute_manual_import",
        json!({ "instance_id": source.id, "queue_id": q.id, "files": files }),
    ))
}
