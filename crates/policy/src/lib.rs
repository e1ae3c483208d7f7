//! Pure decisions: given a caller, an action and the switches in force, Allow, Deny with a
//! reason the model can act on, or NeedsPlan. No IO, no async, cannot fail.

use std::collections::BTreeSet;

use domain::{Capability, Role};

mod rules;
pub use rules::{Outward, PlannedFor, cost_of, planned_for};

/// What a tool does to the world; its MCP annotations follow from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Effect {
    /// Reads only.
    Read,
    /// Changes something reversible and bounded (pause, resume, trigger a search).
    Write,
    /// Deletes or overwrites what cannot be brought back.
    Destructive,
    /// Costs money or a scarce allowance outside the household (indexer grabs on a budget).
    ExternalCost,
}

impl Effect {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The caller as policy sees it: re-read from the store on every call.
#[derive(Clone, Copy, Debug)]
pub struct Caller<'a> {
    pub role: Role,
    pub capabilities: &'a BTreeSet<Capability>,
    /// `None`: every instance.
    pub instances: Option<&'a [String]>,
    /// `None`: every tool the capabilities allow; else only these tools.
    pub tools: Option<&'a [String]>,
}

/// What is being attempted.
#[derive(Clone, Copy, Debug)]
pub struct Action<'a> {
    pub tool: &'a str,
    pub capability: Capability,
    /// Capabilities that serve as well as `capability` (the change tools serve whoever may
    /// plan a change: downloads.write or settings.write); usually empty.
    pub or_capabilities: &'a [Capability],
    pub effect: Effect,
    /// Whose calls go plan, approve, apply ([`planned_for`] of the tool's effect and
    /// capability; [`PlannedFor::NoOne`] for a call already being planned).
    pub planned_for: PlannedFor,
    /// The resolved instance the call touches; `None` for a call that touches no instance
    /// (or before one is resolved). Instance scope is decided here and nowhere else.
    pub instance: Option<&'a str>,
}

/// Switches in force for this request.
#[derive(Clone, Copy, Debug)]
pub struct Switches {
    /// `[mcp] allow_destructive`, read on every request.
    pub allow_destructive: bool,
    /// The owner's per-tool switch.
    pub tool_enabled: bool,
}

/// Proof that policy allowed an action. Only [`decide`] makes one. It names the instance it
/// was decided for, so a proof for one instance opens no handle on another, and the effect
/// it was decided for: only a changing one gives the [`Write`] proof that write-capable
/// handles ask for, so a read decision can never open a write handle.
#[derive(Debug)]
pub struct Allowed {
    instance: Option<String>,
    effect: Effect,
}

impl Allowed {
    /// The instance this decision covers; `None` when it was decided without one.
    pub fn instance(&self) -> Option<&str> {
        self.instance.as_deref()
    }

    /// True when this proof was decided for the instance `id`.
    pub fn covers(&self, id: &str) -> bool {
        self.instance.as_deref() == Some(id)
    }

    /// The effect of the action this was decided for.
    pub fn effect(&self) -> Effect {
        self.effect
    }

    /// The write proof, when this decision was taken for an action that changes something;
    /// `None` for a read.
    pub fn write(&self) -> Option<Write<'_>> {
        (self.effect != Effect::Read).then_some(Write { allowed: self })
    }
}

/// Proof that policy allowed a changing action on one instance: what every write-capable
/// handle asks for. Only [`Allowed::write`] makes one, from a decision for a changing effect.
#[derive(Debug, Clone, Copy)]
pub struct Write<'a> {
    allowed: &'a Allowed,
}

impl Write<'_> {
    /// The instance this decision covers; `None` when it was decided without one.
    pub fn instance(&self) -> Option<&str> {
        self.allowed.instance()
    }

    /// True when this proof was decided for the instance `id`.
    pub fn covers(&self, id: &str) -> bool {
        self.allowed.covers(id)
    }
}

#[derive(Debug)]
pub enum Decision {
    Allow(Allowed),
    Deny {
        reason: String,
    },
    /// Allowed only as a plan the owner approves.
    NeedsPlan {
        missing: Capability,
    },
}

/// May the tool appear in this caller's `tools/list`? The same checks as [`decide`] before
/// an instance is known.
pub fn visible(caller: Caller<'_>, action: Action<'_>, switches: Switches) -> bool {
    switches.tool_enabled
        && (action.effect != Effect::Destructive || switches.allow_destructive)
        && holds(caller, action)
        && names_tool(caller, action.tool)
}

/// Does the caller hold the action's capability, or one that serves as well?
fn holds(caller: Caller<'_>, action: Action<'_>) -> bool {
    std::iter::once(&action.capability)
        .chain(action.or_capabilities)
        .any(|c| caller.capabilities.contains(c))
}

/// What a caller sees of rows that are not their own, and which household rules bind them:
/// decided once per caller from the role and the grant, so that no tool asks the role itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// Everyone's requests (owners, admins, grants with requests.manage); else one's own.
    pub all_requests: bool,
    /// Everyone's planned changes and operations (owners and admins); else one's own.
    pub all_changes: bool,
    /// The household's set-up: instance URLs and folders, people's names, admin-only prompts.
    pub household: bool,
    /// Never content-filtered nor quota-bound, and one's requests are approved as made
    /// (owners and admins).
    pub exempt: bool,
    /// The person's content limits filter what they discover.
    pub content_limited: bool,
}

/// The [`Scope`] of a caller; `has_limits` says whether the person has content limits set.
pub fn scope(caller: Caller<'_>, has_limits: bool) -> Scope {
    let admin = caller.role.is_admin();
    Scope {
        all_requests: admin || caller.capabilities.contains(&Capability::RequestsManage),
        all_changes: admin,
        household: admin,
        exempt: admin,
        content_limited: !admin && has_limits,
    }
}

/// Does the caller's grant cover the instance `id`? For choosing among instances (the ones a
/// listing reads); a call on one instance is decided by [`decide`] with that instance.
pub fn covers(caller: Caller<'_>, id: &str) -> bool {
    caller
        .instances
        .is_none_or(|list| list.iter().any(|i| i == id))
}

/// May the caller reach `tool` of the external MCP server `instance`? Its instance scope as
/// for any instance; a kid only through a grant that names the server or the tool itself, so
/// that a kid's tools are unchanged by a server no grant of theirs names.
pub fn reaches_external(caller: Caller<'_>, instance: &str, tool: &str) -> bool {
    let named = || {
        caller
            .instances
            .is_some_and(|l| l.iter().any(|i| i == instance))
            || caller.tools.is_some_and(|l| l.iter().any(|t| t == tool))
    };
    covers(caller, instance) && (caller.role != Role::Kid || named())
}

/// Does the caller's explicit tool list (if any) name `tool`?
fn names_tool(caller: Caller<'_>, tool: &str) -> bool {
    caller
        .tools
        .is_none_or(|list| list.iter().any(|t| t == tool))
}

/// Decides one call.
pub fn decide(caller: Caller<'_>, action: Action<'_>, switches: Switches) -> Decision {
    if !switches.tool_enabled {
        return Decision::Deny {
            reason: format!("the tool {} is switched off by the owner", action.tool),
        };
    }
    if action.effect == Effect::Destructive && !switches.allow_destructive {
        return Decision::Deny {
            reason: format!(
                "{} is a destructive tool and destructive tools are off; the owner can enable them with [mcp] allow_destructive = true",
                action.tool
            ),
        };
    }
    if !holds(caller, action) {
        let mut needed = vec![action.capability.to_string()];
        needed.extend(action.or_capabilities.iter().map(|c| c.to_string()));
        return Decision::Deny {
            reason: format!(
                "your grant does not include the capability \"{}\" that {} needs; ask the owner for a grant that has it",
                needed.join("\" or \""),
                action.tool
            ),
        };
    }
    if !names_tool(caller, action.tool) {
        return Decision::Deny {
            reason: format!(
                "your grant does not include the tool {}; it names: {}",
                action.tool,
                caller.tools.unwrap_or_default().join(", ")
            ),
        };
    }
    if let Some(instance) = action.instance
        && !covers(caller, instance)
    {
        return Decision::Deny {
            reason: format!(
                "your grant does not cover the instance \"{instance}\"; it covers: {}",
                caller.instances.unwrap_or_default().join(", ")
            ),
        };
    }
    let direct = caller.capabilities.contains(&Capability::DestructiveDirect);
    if action.planned_for.plans(caller.role, direct) {
        return Decision::NeedsPlan {
            missing: Capability::DestructiveDirect,
        };
    }
    Decision::Allow(Allowed {
        instance: action.instance.map(str::to_owned),
        effect: action.effect,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(list: &[Capability]) -> BTreeSet<Capability> {
        list.iter().copied().collect()
    }

    #[test]
    fn effects_are_named_in_snake_case() {
        let names = [
            Effect::Read,
            Effect::Write,
            Effect::Destructive,
            Effect::ExternalCost,
        ]
        .map(Effect::as_str);
        assert_eq!(names, ["read", "write", "destructive", "external_cost"]);
    }

    fn action(effect: Effect, capability: Capability) -> Action<'static> {
        Action {
            tool: "t",
            capability,
            or_capabilities: &[],
            effect,
            planned_for: PlannedFor::NoOne,
            instance: None,
        }
    }

    const ON: Switches = Switches {
        allow_destructive: true,
        tool_enabled: true,
    };

    #[test]
    fn a_kid_reaches_an_external_server_only_through_a_grant_that_names_it() {
        let c = caps(&[Capability::Federated]);
        let home = ["home".to_string()];
        let tool = ["home__lights".to_string()];
        let who = |role, instances, tools| Caller {
            role,
            capabilities: &c,
            instances,
            tools,
        };
        assert!(reaches_external(
            who(Role::User, None, None),
            "home",
            "home__lights"
        ));
        assert!(!reaches_external(
            who(Role::Kid, None, None),
            "home",
            "home__lights"
        ));
        assert!(reaches_external(
            who(Role::Kid, Some(&home), None),
            "home",
            "home__lights"
        ));
        assert!(reaches_external(
            who(Role::Kid, None, Some(&tool)),
            "home",
            "home__lights"
        ));
        assert!(!reaches_external(
            who(Role::Kid, None, Some(&tool)),
            "home",
            "home__other"
        ));
        assert!(!reaches_external(
            who(Role::User, Some(&home), None),
            "notes",
            "notes__x"
        ));
    }

    #[test]
    fn scope_by_role_grant_and_limits() {
        let none = caps(&[]);
        let manage = caps(&[Capability::RequestsManage]);
        let of = |role, capabilities, limits| {
            scope(
                Caller {
                    role,
                    capabilities,
                    instances: None,
                    tools: None,
                },
                limits,
            )
        };
        for role in [Role::Owner, Role::Admin] {
            let s = of(role, &none, true);
            assert!(s.all_requests && s.all_changes && s.household && s.exempt);
            assert!(!s.content_limited, "admins are never filtered");
        }
        let user = of(Role::User, &none, false);
        assert_eq!(
            user,
            Scope {
                all_requests: false,
                all_changes: false,
                household: false,
                exempt: false,
                content_limited: false,
            }
        );
        assert!(of(Role::User, &manage, false).all_requests);
        assert!(!of(Role::User, &manage, false).all_changes);
        assert!(of(Role::User, &none, true).content_limited);
    }

    #[test]
    fn only_a_decision_for_a_changing_effect_gives_a_write_proof() {
        let c = caps(&[Capability::DownloadsRead, Capability::DownloadsWrite]);
        let caller = Caller {
            role: Role::Owner,
            capabilities: &c,
            instances: None,
            tools: None,
        };
        let on = |effect, capability| Action {
            instance: Some("qb"),
            ..action(effect, capability)
        };
        let Decision::Allow(read) = decide(caller, on(Effect::Read, Capability::DownloadsRead), ON)
        else {
            panic!("expected allow")
        };
        assert_eq!(read.effect(), Effect::Read);
        assert!(
            read.write().is_none(),
            "a read decision opens no write handle"
        );
        for effect in [Effect::Write, Effect::Destructive, Effect::ExternalCost] {
            let Decision::Allow(write) = decide(caller, on(effect, Capability::DownloadsWrite), ON)
            else {
                panic!("expected allow")
            };
            let proof = write
                .write()
                .expect("a changing decision gives a write proof");
            assert!(proof.covers("qb") && !proof.covers("tr"));
            assert_eq!(proof.instance(), Some("qb"));
        }
    }

    #[test]
    fn capability_is_required() {
        let c = caps(&[Capability::Discover]);
        let caller = Caller {
            role: Role::User,
            capabilities: &c,
            instances: None,
            tools: None,
        };
        assert!(matches!(
            decide(caller, action(Effect::Read, Capability::Discover), ON),
            Decision::Allow(_)
        ));
        let Decision::Deny { reason } = decide(
            caller,
            action(Effect::Write, Capability::DownloadsWrite),
            ON,
        ) else {
            panic!("expected deny")
        };
        assert!(reason.contains("downloads.write"), "{reason}");
        assert!(!visible(
            caller,
            action(Effect::Write, Capability::DownloadsWrite),
            ON
        ));
    }

    #[test]
    fn any_capability_that_serves_as_well_is_enough() {
        let c = caps(&[Capability::SettingsWrite]);
        let caller = Caller {
            role: Role::Admin,
            capabilities: &c,
            instances: None,
            tools: None,
        };
        let served = [Capability::SettingsWrite];
        let either = Action {
            or_capabilities: &served,
            ..action(Effect::Write, Capability::DownloadsWrite)
        };
        assert!(matches!(decide(caller, either, ON), Decision::Allow(_)));
        assert!(visible(caller, either, ON));
        let none = caps(&[Capability::Discover]);
        let reader = Caller {
            capabilities: &none,
            ..caller
        };
        let Decision::Deny { reason } = decide(reader, either, ON) else {
            panic!("expected deny")
        };
        assert!(
            reason.contains("\"downloads.write\" or \"settings.write\""),
            "{reason}"
        );
    }

    #[test]
    fn destructive_switch_and_tool_switch() {
        let c = caps(&Capability::ALL);
        let caller = Caller {
            role: Role::Owner,
            capabilities: &c,
            instances: None,
            tools: None,
        };
        let off = Switches {
            allow_destructive: false,
            tool_enabled: true,
        };
        let Decision::Deny { reason } = decide(
            caller,
            action(Effect::Destructive, Capability::DownloadsWrite),
            off,
        ) else {
            panic!()
        };
        assert!(reason.contains("allow_destructive"), "{reason}");
        assert!(!visible(
            caller,
            action(Effect::Destructive, Capability::DownloadsWrite),
            off
        ));
        let disabled = Switches {
            allow_destructive: true,
            tool_enabled: false,
        };
        assert!(matches!(
            decide(caller, action(Effect::Read, Capability::Discover), disabled),
            Decision::Deny { .. }
        ));
        assert!(!visible(
            caller,
            action(Effect::Read, Capability::Discover),
            disabled
        ));
    }

    #[test]
    fn instance_scope_and_plans() {
        let c = caps(&[Capability::DownloadsWrite, Capability::Destructive]);
        let scope = vec!["qbit-main".to_string()];
        let caller = Caller {
            role: Role::Admin,
            capabilities: &c,
            instances: Some(&scope),
            tools: None,
        };
        let mut a = action(Effect::Write, Capability::DownloadsWrite);
        a.instance = Some("qbit-other");
        assert!(matches!(decide(caller, a, ON), Decision::Deny { .. }));
        a.instance = Some("qbit-main");
        let Decision::Allow(proof) = decide(caller, a, ON) else {
            panic!("expected allow")
        };
        assert!(proof.covers("qbit-main") && !proof.covers("qbit-other"));
        a.planned_for = PlannedFor::AllButDirect;
        assert!(matches!(decide(caller, a, ON), Decision::NeedsPlan { .. }));
    }

    #[test]
    fn an_explicit_tool_list_limits_listing_and_calls() {
        let c = caps(&[Capability::Discover]);
        let list = vec!["search_titles".to_string()];
        let caller = Caller {
            role: Role::User,
            capabilities: &c,
            instances: None,
            tools: Some(&list),
        };
        let mut a = action(Effect::Read, Capability::Discover);
        a.tool = "search_titles";
        assert!(visible(caller, a, ON));
        assert!(matches!(decide(caller, a, ON), Decision::Allow(_)));
        a.tool = "get_trending";
        assert!(!visible(caller, a, ON));
        let Decision::Deny { reason } = decide(caller, a, ON) else {
            panic!("expected deny")
        };
        assert_eq!(
            reason,
            "your grant does not include the tool get_trending; it names: search_titles"
        );
    }
}
