//! `get_activity`: the audit log, newest first, paged; your own entries unless you hold `audit.read`.

use chrono::{SecondsFormat, TimeZone, Utc};
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use store::{AuditEntry, AuditQuery};

use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    stored::{self, Keep},
};

/// The tables its answer reads: a kept answer holds while none of them changed.
const READS: &[store::Group] = &[store::Group::Authority, store::Group::Audit];
pub struct GetActivity;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Entries per page, 1 to 200 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = governance::contract::MAX_PAGE))]
    pub limit: Option<u32>,
    /// Continue after this entry id (the previous page's next_before_id).
    #[serde(default)]
    pub before_id: Option<i64>,
    /// Only this person's entries; needs audit.read for anyone but yourself.
    #[serde(default)]
    pub person: Option<String>,
}

fn time(ms: i64) -> String {
    Utc.timestamp_millis_opt(ms)
        .single()
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
        .unwrap_or_default()
}

impl Tool for GetActivity {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Page<'static>>);
    const META: Meta = Meta {
        name: "get_activity",
        title: "Show activity",
        description: "Shows audit log entries, newest first: who ran which changing tool on which instance, and how it ended (executing, applied, failed, outcome_unknown). Your own entries unless your grant has audit.read.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let limit = governance::contract::page_limit(input.limit)?;
        let sees_all = ctx.caller.can(Capability::AuditRead);
        let view = stored::view(ctx, (sees_all, &input));
        ctx.stored()
            .answer(ctx.state_of(READS), Self::META.name, view, || async {
                Ok((
                    page(ctx, input, limit, sees_all).await?,
                    Keep::WhileUnchanged,
                ))
            })
            .await
    }
}

/// A page as answered; fields in sorted order, as a JSON tree of it has its keys.
#[derive(Serialize, JsonSchema)]
struct Page<'a> {
    entries: Vec<Entry<'a>>,
    next_before_id: Option<i64>,
}

/// An audit entry as shown (sorted fields, as above).
#[derive(Serialize, JsonSchema)]
struct Entry<'a> {
    args_digest: &'a str,
    at: String,
    finished_at: Option<String>,
    id: i64,
    instance: Option<&'a str>,
    key_id: Option<&'a str>,
    message: Option<&'a str>,
    person: &'a str,
    status: &'static str,
    tool: &'a str,
}

impl<'a> Entry<'a> {
    fn of(r: &'a AuditEntry) -> Entry<'a> {
        Entry {
            args_digest: &r.args_digest,
            at: time(r.at),
            finished_at: r.finished_at.map(time),
            id: r.id,
            instance: r.instance.as_deref(),
            key_id: r.key_id.as_deref(),
            message: r.message.as_deref(),
            person: &r.person,
            status: r.status.as_str(),
            tool: &r.tool,
        }
    }
}

/// One page, read from the store alone.
async fn page(ctx: &Ctx, input: Input, limit: u32, sees_all: bool) -> Result<Output, ToolError> {
    let person = ctx
            .person_scope(input.person.as_deref(), sees_all, "only grants with audit.read may read other people's activity; omit person to see your own")
            .await?;
    let rows = ctx
        .store()
        .audit_page(&AuditQuery {
            person,
            before_id: input.before_id,
            limit: limit + 1,
        })
        .await?;
    let (rows, next_before_id) = governance::contract::keyset_page(rows, limit, |r| r.id);
    let entries: Vec<Entry> = rows.iter().map(Entry::of).collect();
    let scope = if person.is_none() { "everyone's" } else { "" };
    let summary = match entries.len() {
        0 if input.before_id.is_some() => "No older activity.".to_string(),
        0 => "No activity recorded yet: nothing has been changed through Marquee.".to_string(),
        n => format!(
            "{n} {scope} activity entr{} , newest first{}.",
            if n == 1 { "y" } else { "ies" },
            if next_before_id.is_some() {
                "; more with next_before_id"
            } else {
                ""
            }
        )
        .replace("  ", " ")
        .replace(" ,", ","),
    };
    let mut out = Output::typed(
        summary,
        &Page {
            entries,
            next_before_id,
        },
    )?;
    if let Some(id) = next_before_id {
        out = out.next(format!("get_activity {{\"before_id\":{id}}}"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use store::AuditStatus;

    use super::*;

    #[test]
    fn a_typed_entry_writes_the_text_the_tree_wrote() {
        for n in 0..16_i64 {
            let some = |s: &str| (n % 2 == 0).then(|| format!("{s} \"{n}\" \\ \u{2028}"));
            let r = AuditEntry {
                id: n,
                at: 1_700_000_000_000 + n,
                person: format!("kid {n} é"),
                key_id: some("key"),
                tool: "pause_torrents".into(),
                instance: (n % 3 == 0).then(|| "qb-1".into()),
                args_digest: format!("{n:064x}"),
                status: AuditStatus::ALL[n as usize % 4],
                message: some("it\nfailed"),
                finished_at: (n % 4 != 1).then_some(1_700_000_000_040 + n),
            };
            // The entry as it was first written, key by key.
            let tree = json!({
                "id": r.id, "at": time(r.at), "person": r.person, "key_id": r.key_id, "tool": r.tool,
                "instance": r.instance, "args_digest": r.args_digest, "status": r.status.as_str(),
                "message": r.message, "finished_at": r.finished_at.map(time),
            });
            assert_eq!(
                serde_json::to_string(&Entry::of(&r)).unwrap(),
                serde_json::to_string(&tree).unwrap(),
                "entry {n}"
            );
        }
    }
}
