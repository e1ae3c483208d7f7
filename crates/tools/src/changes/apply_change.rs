//! `apply_change`: runs an approved change once. Re-checks authority and every dependency
//! hash first, so a stale plan is refused before anything happens; the same idempotency key
//! answers the same operation, and two racing applies run the work once.

use domain::{Capability, Role};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use store::{Begun, Change, ChangeStatus, NewAudit, Operation};

use governance::plan::{Planned, Run, not_plannable, review_url};

use super::{operation_json, operation_sentence};
use governance::{
    Ctx, Meta, Output, Tool, ToolError, allowance, authority, error::ErrorCode, report::Level,
};

pub struct ApplyChange;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The change to apply, as the planned tool answered it (chg_…).
    #[schemars(regex(pattern = crate::ids::CHANGE_ID))]
    pub change_id: String,
    /// Any new random text of 8 to 128 letters, digits, '-', '_', '.' or ':'. Calling again with the same key answers the same operation instead of acting twice.
    #[schemars(regex(pattern = crate::ids::IDEMPOTENCY_KEY))]
    pub idempotency_key: String,
}

impl Tool for ApplyChange {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<super::OperationData<'static>>);
    const META: Meta = Meta {
        name: "apply_change",
        title: "Apply a planned change",
        description: "Applies a change that a planned tool (delete_torrents, remove_queue_item, plan_profile_change, upsert_custom_format, revert_change) stored, once the owner approved it in the browser. Authority and the live state the plan read are checked again first: a changed state refuses the change and nothing happens. Answers the operation (get_operation follows it). The same idempotency_key again answers the same operation; the work runs once.",
        effect: Effect::Write,
        capability: Capability::DownloadsWrite,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[Capability::SettingsWrite, Capability::Federated],
        family: None,
        plan: None,
    };
    const LONG: bool = true;

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let resolved = resolve(ctx, &input).await?;
        let (op, note) = act(resolved).await?;
        Ok(answer(&op, note))
    }
}

/// The note on an operation a racing apply started.
const RACED: &str = "Another apply of this change started it first; the work runs once.";

/// What the checks found before anything runs.
enum Resolved<'i> {
    /// An operation answered as it stands, with a note: the one this key started before, or
    /// a racing apply's. Nothing runs again.
    Started(Box<Operation>, &'static str),
    /// A change the caller may apply whose plan still holds.
    Ready(Box<Ready<'i>>),
}

/// A change ready to start.
struct Ready<'i> {
    change: Change,
    key: &'i str,
    /// The statuses the operation may start from.
    startable: &'static [ChangeStatus],
    meta: Meta,
    hooks: &'static dyn Planned,
    /// The call's context under the planned tool's declaration: its capability, not
    /// apply_change's, decides each instance it touches.
    ctx: Ctx,
}

/// Checks the key (an earlier use answers its operation), the change, the caller's authority
/// and every dependency hash; a stale plan is refused here, before anything happens.
async fn resolve<'i>(ctx: &Ctx, input: &'i Input) -> Result<Resolved<'i>, ToolError> {
    let key = valid_key(&input.idempotency_key)?;
    let me = ctx.caller.authority.person.id;
    if let Some(op) = ctx.store().operation_by_key(me, key).await? {
        if op.change_id.as_deref() != Some(input.change_id.as_str()) {
            return Err(ToolError::new(
                ErrorCode::Conflict,
                "this idempotency_key was already used for another change; use a new key",
            ));
        }
        return Ok(Resolved::Started(
            Box::new(op),
            "This idempotency_key was used before: this is the operation it started; nothing was run again.",
        ));
    }
    let change = ctx
        .store()
        .change(&input.change_id)
        .await?
        .filter(|c| c.created_by == me || ctx.caller.authority.person.role == Role::Owner)
        .ok_or_else(|| {
            ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "no change with id \"{}\" that you planned; the planned tool's answer names it",
                    input.change_id
                ),
            )
        })?;
    let startable = authorize(ctx, &change).await?;
    // From here the planned tool's own declaration decides each instance it touches: its
    // capability, not apply_change's (the approval or the caller's authority was checked
    // just above).
    let (meta, hooks) = planned(ctx, &change.tool)?;
    let ctx = ctx.for_plan(meta);
    if let Some(op) = stale(&ctx, hooks, &change).await? {
        return Ok(Resolved::Started(Box::new(op), RACED));
    }
    Ok(Resolved::Ready(Box::new(Ready {
        change,
        key,
        startable,
        meta,
        hooks,
        ctx,
    })))
}

/// Compares what the plan read with the live state: unchanged is `None`; changed is a racing
/// apply's operation (it ran the work first and changed what the plan read) or a `stale_plan`
/// refusal.
async fn stale(
    ctx: &Ctx,
    hooks: &dyn Planned,
    change: &Change,
) -> Result<Option<Operation>, ToolError> {
    let now = hooks.dependencies(ctx, change).await?;
    let planned: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&change.dependency_hashes).unwrap_or_default();
    let changed: Vec<&String> = planned
        .iter()
        .filter(|(k, v)| now.get(*k) != Some(*v))
        .map(|(k, _)| k)
        .collect();
    if changed.is_empty() {
        return Ok(None);
    }
    if let Some(op) = ctx.store().operation_for_change(&change.id).await? {
        return Ok(Some(op));
    }
    let listed: Vec<&str> = changed.iter().take(5).map(|s| s.as_str()).collect();
    Err(ToolError::new(ErrorCode::StalePlan,
        format!(
            "change {} is stale: what it read has changed since it was planned ({}); nothing was done; plan it again",
            change.id,
            listed.join(", ")
        ),
    )
    .with_data(json!({"change_id": change.id, "changed": changed})))
}

/// Starts the operation (the audit entry and the planned tool's allowance first, before any
/// mutation), runs the planned tool's work once and records how it ended.
async fn act(resolved: Resolved<'_>) -> Result<(Operation, &'static str), ToolError> {
    let r = match resolved {
        Resolved::Started(op, note) => return Ok((*op, note)),
        Resolved::Ready(r) => r,
    };
    let (ctx, change) = (&r.ctx, &r.change);
    // An external server's tool is audited under the server, as its direct calls are.
    let external = ctx.tool_external(&change.tool);
    let entry = NewAudit {
        person: ctx.caller.authority.person.id,
        key_id: Some(ctx.caller.authority.key_id.clone()).filter(|k| k != "local"),
        tool: change.tool.clone(),
        instance: external.clone(),
        args_digest: change.content_hash.clone(),
    };
    // The planned tool's allowance is spent now, with the audit entry, before any mutation.
    let charge = r
        .meta
        .allowance
        .and_then(|kind| Some((kind, *ctx.caller.authority.grant.allowances.get(&kind)?)));
    let begun = ctx
        .store()
        .begin_operation(&change.id, r.key, r.startable, &entry, charge)
        .await
        .map_err(|e| match e {
            store::Error::Conflict(m) => ToolError::new(ErrorCode::Conflict, m),
            other => other.into(),
        })?;
    let op = match begun {
        Begun::Exhausted(left) => return Err(allowance::exhausted(r.meta.name, &left)),
        Begun::Existing(op) => return Ok((op, RACED)),
        Begun::Started(op) => op,
    };
    ctx.log(
        Level::Info,
        &format!("operation {} started for change {}", op.id, change.id),
    );
    ctx.progress(0, None, &format!("operation {} started", op.id));
    let run = Run::new(ctx, &op.id);
    let outcome = r.hooks.apply(ctx, change, &run).await;
    let message = governance::audit_message(&outcome, external.is_some());
    let (succeeded, result) = match outcome {
        Ok(out) => {
            let data = out.data();
            let clean = data.get("failed").is_none_or(|f| f == 0);
            (clean, data)
        }
        Err(e) => (false, json!({"code": e.code.as_str()})),
    };
    let op = match ctx
        .store()
        .finish_operation(&op.id, succeeded, &result.to_string(), &message)
        .await
    {
        Ok(op) => op,
        // Cancelled meanwhile: answer it as it stands.
        Err(store::Error::Conflict(_)) => ctx.store().operation(&op.id).await?.unwrap_or(op),
        Err(e) => return Err(e.into()),
    };
    ctx.log(
        if succeeded {
            Level::Info
        } else {
            Level::Warning
        },
        &format!("operation {} finished: {message}", op.id),
    );
    Ok((op, ""))
}

/// Checks the caller may apply `change` now and answers the statuses it may start from.
async fn authorize(ctx: &Ctx, change: &Change) -> Result<&'static [ChangeStatus], ToolError> {
    let (meta, _) = planned(ctx, &change.tool)?;
    // An external server's tool: only while the caller's grant still reaches that server and
    // tool (a kid's grant must name it), as for a direct call.
    if let Some(id) = ctx.tool_external(&change.tool)
        && !authority::reaches_external(&ctx.caller.authority, &id, &change.tool)
    {
        return Err(ToolError::denied(format!(
            "your grant does not reach the MCP server \"{id}\" (any longer); change {} was not applied; nothing was done",
            change.id
        )));
    }
    // The planned tool's own policy, on the authority read for this call.
    let allow_destructive = ctx.settings().allow_destructive();
    let missing = authority::decide_or_plan(&ctx.caller, &meta, allow_destructive, None)?.err();
    let grant = &ctx.caller.authority.grant;
    match (change.status, missing) {
        (ChangeStatus::Pending, None) => Ok(&[ChangeStatus::Pending, ChangeStatus::Approved]),
        (ChangeStatus::Approved, None) => Ok(&[ChangeStatus::Approved]),
        (ChangeStatus::Pending, Some(missing)) => Err(ToolError::new(ErrorCode::NeedsPlan,
            format!(
                "change {} waits for the owner's approval: your grant lacks {missing}; the owner can review it at {}; nothing was done",
                change.id,
                review_url(ctx, &change.id)
            ),
        )
        .with_data(json!({"change_id": change.id, "missing_authority": missing.to_string(), "review_url": review_url(ctx, &change.id)}))),
        (ChangeStatus::Approved, Some(_)) if change.approval_holds(grant.id, grant.revision) => {
            Ok(&[ChangeStatus::Approved])
        }
        (ChangeStatus::Approved, Some(missing)) => Err(ToolError::new(ErrorCode::NeedsPlan,
            format!(
                "the owner's approval of change {} no longer holds: it was given under revision {} of grant {}, and you now act with revision {} of grant \"{}\" (which lacks {missing}); plan the change again; nothing was done",
                change.id,
                change.approved_revision.unwrap_or_default(),
                change.grant_id.unwrap_or_default(),
                grant.revision,
                grant.name
            ),
        )),
        (ChangeStatus::Rejected, _) => Err(ToolError::new(ErrorCode::Denied,
            format!("the owner rejected change {}; nothing was done", change.id),
        )),
        (status, _) => Err(ToolError::new(ErrorCode::Conflict,
            format!(
                "change {} is {status}: it runs once; get_operation shows its operation",
                change.id
            ),
        )),
    }
}

/// The declaration and plan hooks of the planned tool `tool`.
fn planned(ctx: &Ctx, tool: &str) -> Result<(Meta, &'static dyn Planned), ToolError> {
    ctx.tool_meta(tool)
        .and_then(|meta| Some((meta, meta.plan?)))
        .ok_or_else(|| not_plannable(tool))
}

/// 8 to 128 of letters, digits, '-', '_', '.', ':'.
fn valid_key(key: &str) -> Result<&str, ToolError> {
    let ok = (8..=128).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    if ok {
        Ok(key)
    } else {
        Err(ToolError::invalid(
            "invalid argument \"idempotency_key\": use 8 to 128 letters, digits, '-', '_', '.' or ':' (a new random value per change)",
        ))
    }
}

/// The operation as answered, after the note on how this call came to it.
fn answer(op: &Operation, note: &str) -> Output {
    let mut summary = operation_sentence(op);
    if !note.is_empty() {
        summary = format!("{note} {summary}");
    }
    Output::new(summary, operation_json(op))
        .next(format!("get_operation {{\"operation_id\": \"{}\"}}", op.id))
}
