//! The one authority path: every question "may this caller do this" is put to
//! `policy::decide` (or `policy::visible` for `tools/list`) from here, with the caller's live
//! grant, the owner's switches and, once a tool has resolved it, the instance it touches.

use domain::Capability;
use policy::{Action, Allowed, Decision, Switches};
use store::{Authority, ToolSwitches};

use crate::{
    context::Caller,
    contract::Meta,
    error::{ErrorCode, ToolError},
};

/// The caller as policy sees it.
pub(crate) fn who(authority: &Authority) -> policy::Caller<'_> {
    let grant = &authority.grant;
    policy::Caller {
        role: authority.person.role,
        capabilities: &grant.capabilities,
        instances: grant.instances.as_deref(),
        tools: grant.tools.as_deref(),
    }
}

fn switches(
    authority: &Authority,
    switches: &ToolSwitches,
    meta: &Meta,
    allow_destructive: bool,
) -> Switches {
    Switches {
        allow_destructive,
        tool_enabled: switches.enabled(meta.name, authority.person.id),
    }
}

fn action<'a>(meta: &Meta, instance: Option<&'a str>) -> Action<'a> {
    Action {
        tool: meta.name,
        capability: meta.capability,
        or_capabilities: meta.or_capabilities,
        effect: meta.effect,
        planned_for: meta.planned_for(),
        instance,
    }
}

/// [`decide`] for a call already being planned, or an approved plan being carried out: the
/// same checks and instance scope, no plan asked again.
pub fn decide_while_planning(
    caller: &Caller,
    meta: &Meta,
    allow_destructive: bool,
    instance: &str,
) -> Result<Allowed, ToolError> {
    let a = &caller.authority;
    let action = Action {
        planned_for: policy::PlannedFor::NoOne,
        ..action(meta, Some(instance))
    };
    match policy::decide(
        who(a),
        action,
        switches(a, &caller.switches, meta, allow_destructive),
    ) {
        Decision::Allow(proof) => Ok(proof),
        Decision::Deny { reason } => Err(ToolError::denied(reason)),
        Decision::NeedsPlan { missing } => Err(ToolError::denied(format!(
            "{} needs the owner's approval (your grant lacks {missing})",
            meta.name
        ))),
    }
}

/// Decides one call of `meta` by `caller`, on `instance` once the tool has resolved it.
pub fn decide(
    caller: &Caller,
    meta: &Meta,
    allow_destructive: bool,
    instance: Option<&str>,
) -> Result<Allowed, ToolError> {
    decide_or_plan(caller, meta, allow_destructive, instance)?.map_err(|missing| {
        ToolError::new(
            ErrorCode::NeedsPlan,
            format!(
                "{} needs the owner's approval (your grant lacks {missing}); call it through its plan",
                meta.name
            ),
        )
    })
}

/// [`decide`], with a NeedsPlan answer as `Ok(Err(missing))`: the call may be planned for the
/// owner's approval, and `missing` is the authority the caller lacks.
pub fn decide_or_plan(
    caller: &Caller,
    meta: &Meta,
    allow_destructive: bool,
    instance: Option<&str>,
) -> Result<Result<Allowed, Capability>, ToolError> {
    let a = &caller.authority;
    match policy::decide(
        who(a),
        action(meta, instance),
        switches(a, &caller.switches, meta, allow_destructive),
    ) {
        Decision::Allow(proof) => Ok(Ok(proof)),
        Decision::Deny { reason } => Err(ToolError::denied(reason)),
        Decision::NeedsPlan { missing } => Ok(Err(missing)),
    }
}

/// The write proof of `allowed`, which every write-capable handle asks for; refused when the
/// decision was taken for a read (a read tool never opens a write handle).
pub fn write_proof(allowed: &Allowed) -> Result<policy::Write<'_>, ToolError> {
    allowed.write().ok_or_else(|| {
        tracing::error!(instance = ?allowed.instance(), "a write handle was asked for with a read decision");
        ToolError::new(
            ErrorCode::Internal,
            "the write was stopped: it was decided as a read; the server log has the details",
        )
    })
}

/// May `meta` appear in the `tools/list` of a caller with `authority`?
pub fn visible(
    authority: &Authority,
    tool_switches: &ToolSwitches,
    meta: &Meta,
    allow_destructive: bool,
) -> bool {
    policy::visible(
        who(authority),
        action(meta, None),
        switches(authority, tool_switches, meta, allow_destructive),
    )
}

/// Does `caller`'s grant cover the instance `id`? For choosing which instances a call that
/// names none reads; each chosen instance is then decided with [`decide`].
pub fn covers(authority: &Authority, id: &str) -> bool {
    policy::covers(who(authority), id)
}

/// May a caller with `authority` reach `tool` of the external server `instance`? (See
/// `policy::reaches_external`: instance scope, and a kid only through a grant naming it.)
pub fn reaches_external(authority: &Authority, instance: &str, tool: &str) -> bool {
    policy::reaches_external(who(authority), instance, tool)
}
