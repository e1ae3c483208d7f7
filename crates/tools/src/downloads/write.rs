//! The one path every bulk write takes: validate the named hashes, find the instance of each,
//! let the tool check its own arguments against those instances, then act once per instance
//! and re-read the touched torrents.

use std::collections::HashMap;

use adapters_downloads::{BulkOutcome, Result as DlResult, Writer};
use domain::InfoHash;
use schemars::JsonSchema;
use serde::Deserialize;

use policy::Allowed;

use super::{
    Source, chosen_granted, freshness, granted, hashes,
    outcome::{self, TorrentResult},
    refresher,
};
use governance::{
    context::Ctx,
    contract::{Output, ToolError},
};

/// The input of a write that only names torrents.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HashesInput {
    /// The torrents, by info hash: 40 hexadecimal characters, any case, at most 100; repeats are ignored. One malformed entry refuses the whole call.
    #[schemars(length(min = 1, max = super::hashes::MAX_HASHES))]
    #[schemars(inner(regex(pattern = crate::ids::INFO_HASH)))]
    pub info_hashes: Vec<String>,
    /// The download instance holding them (default: each torrent is looked up on every download instance your grant covers).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

/// A write that only names torrents: plan, act, answer.
pub(crate) async fn simple(
    ctx: &Ctx,
    input: &HashesInput,
    op: Op<'_>,
) -> Result<Output, ToolError> {
    let plan = plan(
        ctx,
        &input.info_hashes,
        hashes::MAX_HASHES,
        input.instance_id.as_deref(),
    )
    .await?;
    Ok(finish(plan, op).await)
}

/// Acts on a validated plan and renders the per-torrent outcomes.
pub(crate) async fn finish(plan: Plan<'_>, op: Op<'_>) -> Output {
    let repeats = plan.repeats;
    let out = outcome::output(op.verb(), execute(plan, op).await);
    if repeats > 0 {
        out.warn(format!(
            "{repeats} repeated info hash{} ignored",
            if repeats == 1 { " was" } else { "es were" }
        ))
    } else {
        out
    }
}

/// One bulk change, as the adapter does it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Op<'a> {
    Pause,
    Resume,
    Recheck,
    Reannounce,
    /// `None` removes the category.
    SetCategory(Option<&'a str>),
    /// The same call as [`Op::SetCategory`], used where it moves the data (Transmission).
    MoveToCategory(&'a str),
    SetTags(&'a [String]),
    Delete {
        with_data: bool,
    },
}

impl Op<'_> {
    /// The `status` of a torrent this was done to.
    pub fn status(self) -> &'static str {
        match self {
            Op::Pause => "paused",
            Op::Resume => "resumed",
            Op::Recheck => "recheck_started",
            Op::Reannounce => "reannounced",
            Op::SetCategory(_) => "category_set",
            Op::MoveToCategory(_) => "moved",
            Op::SetTags(_) => "tags_set",
            Op::Delete { .. } => "deleted",
        }
    }

    /// The past tense for summaries and messages.
    pub fn verb(self) -> &'static str {
        match self {
            Op::Pause => "paused",
            Op::Resume => "resumed",
            Op::Recheck => "sent to recheck",
            Op::Reannounce => "reannounced",
            Op::SetCategory(_) => "recategorized",
            Op::MoveToCategory(_) => "moved",
            Op::SetTags(_) => "retagged",
            Op::Delete { with_data: true } => "deleted with data",
            Op::Delete { with_data: false } => "removed, data kept",
        }
    }

    async fn send(self, client: Writer<'_>, hashes: &[InfoHash]) -> DlResult<BulkOutcome> {
        match self {
            Op::Pause => client.pause(hashes).await,
            Op::Resume => client.resume(hashes).await,
            Op::Recheck => client.recheck(hashes).await,
            Op::Reannounce => client.reannounce(hashes).await,
            Op::SetCategory(c) => client.set_category(hashes, c).await,
            Op::MoveToCategory(c) => client.move_to_category(hashes, c).await,
            Op::SetTags(t) => client.set_tags(hashes, t).await,
            Op::Delete { with_data } => client.delete(hashes, with_data).await,
        }
    }
}

/// The torrents to send one instance, with the decision that allows this call there.
pub(crate) struct Group<'c> {
    pub source: &'c Source,
    allowed: Allowed,
    pub hashes: Vec<InfoHash>,
}

/// Where each named torrent is, decided before anything happens.
pub(crate) struct Plan<'c> {
    /// Per instance, the torrents to send it, in the order they were named.
    pub groups: Vec<Group<'c>>,
    /// Torrents nothing will be done to: on no instance, or on several.
    pub failures: Vec<TorrentResult>,
    /// The hashes as named (repeats dropped), for the order of the results.
    order: Vec<InfoHash>,
    /// How many repeated hashes were dropped.
    pub repeats: usize,
}

impl<'c> Plan<'c> {
    /// Exactly `hashes` on `source`, as a stored plan names them.
    pub fn exact(source: &'c Source, allowed: Allowed, hashes: Vec<InfoHash>) -> Plan<'c> {
        Plan {
            groups: vec![Group {
                source,
                allowed,
                hashes: hashes.clone(),
            }],
            failures: Vec::new(),
            order: hashes,
            repeats: 0,
        }
    }

    /// The instances something will be sent to.
    pub fn sources(&self) -> Vec<&Source> {
        self.groups.iter().map(|g| g.source).collect()
    }
}

/// Validates `raw` (see [`hashes::list`]) and finds each torrent: on the named instance, or in
/// the catalogues of every instance the grant covers.
pub(crate) async fn plan<'c>(
    ctx: &'c Ctx,
    raw: &[String],
    max: usize,
    instance_id: Option<&str>,
) -> Result<Plan<'c>, ToolError> {
    let (order, repeats) = hashes::list(raw, max)?;
    if instance_id.is_some() {
        let (source, allowed) = granted(ctx, instance_id)?;
        source.backend()?;
        refresher::ensure_loaded(&[source]).await;
        return Ok(Plan {
            groups: vec![Group {
                source,
                allowed,
                hashes: order.clone(),
            }],
            failures: Vec::new(),
            order,
            repeats,
        });
    }
    let mut decided: Vec<(&Source, Option<Allowed>)> = chosen_granted(ctx, None)?
        .into_iter()
        .map(|(s, a)| (s, Some(a)))
        .collect();
    let sources: Vec<&Source> = decided.iter().map(|(s, _)| *s).collect();
    refresher::ensure_loaded(&sources).await;
    if order.iter().any(|h| !sources.iter().any(|s| s.has(h))) {
        // Added a moment ago, perhaps: look once more before calling it missing.
        refresher::refresh_recent(&sources).await;
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut failures = Vec::new();
    for h in &order {
        let on: Vec<&Source> = sources.iter().copied().filter(|s| s.has(h)).collect();
        match on.as_slice() {
            [] => failures.push(TorrentResult::failed(
                Some(*h),
                None,
                "not_found",
                not_found(&sources),
            )),
            [s] => match groups.iter_mut().find(|g| g.source.id == s.id) {
                Some(g) => g.hashes.push(*h),
                None => {
                    let allowed = decided
                        .iter_mut()
                        .find(|(d, _)| d.id == s.id)
                        .and_then(|(_, a)| a.take());
                    if let Some(allowed) = allowed {
                        groups.push(Group {
                            source: s,
                            allowed,
                            hashes: vec![*h],
                        });
                    }
                }
            },
            several => {
                let ids: Vec<&str> = several.iter().map(|s| s.id.as_str()).collect();
                failures.push(TorrentResult::failed(
                    Some(*h),
                    None,
                    "ambiguous",
                    format!(
                        "the torrent is on several instances ({}); name instance_id to choose one; nothing was changed",
                        ids.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(Plan {
        groups,
        failures,
        order,
        repeats,
    })
}

fn not_found(sources: &[&Source]) -> String {
    let ids: Vec<&str> = sources.iter().map(|s| s.id.as_str()).collect();
    let unread: Vec<&str> = sources
        .iter()
        .filter(|s| !freshness::loaded(s))
        .map(|s| s.id.as_str())
        .collect();
    let mut m = format!("not found on any instance (searched {})", ids.join(", "));
    if !unread.is_empty() {
        m.push_str(&format!("; {} could not be read", unread.join(", ")));
    }
    m
}

/// Sends `op` once per instance (all instances at once), then re-reads the touched torrents.
/// Results come in the order the hashes were named.
pub(crate) async fn execute(plan: Plan<'_>, op: Op<'_>) -> Vec<TorrentResult> {
    let calls = plan.groups.iter().map(|group| async move {
        let (source, hashes) = (group.source, &group.hashes);
        let (backend, writer) = match source
            .backend()
            .and_then(|b| Ok((b, source.writer(governance::authority::write_proof(&group.allowed)?)?)))
        {
            Ok(both) => both,
            Err(e) => {
                return hashes
                    .iter()
                    .map(|h| {
                        TorrentResult::failed(
                            Some(*h),
                            Some(&source.id),
                            "unavailable",
                            e.message.clone(),
                        )
                    })
                    .collect::<Vec<_>>();
            }
        };
        match op.send(writer, hashes).await {
            Ok(out) => {
                if let Err(e) = backend.catalogue.refresh_hashes(hashes).await {
                    tracing::debug!(instance = %source.id, error = %e, "re-reading written torrents failed");
                }
                let id = &source.id;
                let mut rows: Vec<TorrentResult> = out
                    .done
                    .iter()
                    .map(|h| {
                        TorrentResult::done(
                            Some(*h),
                            id,
                            op.status(),
                            format!("{} on instance {id}", op.verb()),
                        )
                    })
                    .collect();
                rows.extend(out.not_found.iter().map(|h| {
                    TorrentResult::failed(
                        Some(*h),
                        Some(id),
                        "not_found",
                        format!("instance {id} has no torrent with this info hash; nothing was changed"),
                    )
                }));
                rows
            }
            Err(e) => hashes
                .iter()
                .map(|h| TorrentResult::from_error(Some(*h), &source.id, &e))
                .collect(),
        }
    });
    let mut by_hash: HashMap<Option<InfoHash>, Vec<TorrentResult>> = HashMap::new();
    for r in futures::future::join_all(calls)
        .await
        .into_iter()
        .flatten()
        .chain(plan.failures)
    {
        by_hash.entry(r.info_hash).or_default().push(r);
    }
    plan.order
        .iter()
        .flat_map(|h| by_hash.remove(&Some(*h)).unwrap_or_default())
        .collect()
}
