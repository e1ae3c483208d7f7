//! `get_activity`: the audit log, newest first, paged; your own entries unless you hold `audit.read`.

use chrono::{SecondsFormat, TimeZone, Utc};
use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use store::AuditQuery;

use crate::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetActivity;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Entries per page, 1 to 200 (default 20).
    #[serde(default)]
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
    const META: Meta = Meta {
        name: "get_activity",
        title: "Show activity",
        description: "Shows audit log entries, newest first: who ran which changing tool on which instance, and how it ended (executing, applied, failed, outcome_unknown). Your own entries unless your grant has audit.read.",
        effect: Effect::Read,
        capability: Capability::Discover,
        needs_plan: false,
        allowance: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let limit = crate::contract::page_limit(input.limit)?;
        let sees_all = ctx.caller.can(Capability::AuditRead);
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
        let more = rows.len() > limit as usize;
        let rows: Vec<_> = rows.into_iter().take(limit as usize).collect();
        let next_before_id = if more {
            rows.last().map(|r| r.id)
        } else {
            None
        };
        let entries: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({
                    "id": r.id, "at": time(r.at), "person": r.person, "key_id": r.key_id, "tool": r.tool,
                    "instance": r.instance, "args_digest": r.args_digest, "status": r.status.as_str(),
                    "message": r.message, "finished_at": r.finished_at.map(time),
                })
            })
            .collect();
        let scope = if person.is_none() { "everyone's" } else { "" };
        let summary = match entries.len() {
            0 if input.before_id.is_some() => "No older activity.".to_string(),
            0 => "No activity recorded yet: nothing has been changed through Marquee.".to_string(),
            n => format!(
                "{n} {scope} activity entr{} , newest first{}.",
                if n == 1 { "y" } else { "ies" },
                if more {
                    "; more with next_before_id"
                } else {
                    ""
                }
            )
            .replace("  ", " ")
            .replace(" ,", ","),
        };
        let mut out = Output::new(
            summary,
            json!({ "entries": entries, "next_before_id": next_before_id }),
        );
        if let Some(id) = next_before_id {
            out = out.next(format!("get_activity {{\"before_id\":{id}}}"));
        }
        Ok(out)
    }
}
