//! Pure decisions: given a caller, an action and the switches in force, Allow, Deny with a
//! reason the model can act on, or NeedsPlan. No IO, no async, cannot fail.

use std::collections::BTreeSet;

use domain::{Capability, Role};

/// What a tool does to the world; its MCP annotations follow from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::Destructive => "destructive",
            Effect::ExternalCost => "external_cost",
        }
    }
}

/// The caller as policy sees it: re-read from the store on every call.
#[derive(Clone, Copy, Debug)]
pub struct Caller<'a> {
    pub role: Role,
    pub capabilities: &'a BTreeSet<Capability>,
    /// `None`: every instance.
    pub instances: Option<&'a [String]>,
}

/// What is being attempted.
#[derive(Clone, Copy, Debug)]
pub struct Action<'a> {
    pub tool: &'a str,
    pub capability: Capability,
    pub effect: Effect,
    /// Planned tools go plan, approve, apply.
    pub needs_plan: bool,
    /// The instance touched, when the tool names one.
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

/// Proof that policy allowed an action. Only [`decide`] makes one, so a write-capable
/// handle that asks for it cannot be had without a decision.
#[derive(Debug)]
pub struct Allowed {
    _private: (),
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

/// May the tool appear in this caller's `tools/list`?
pub fn visible(caller: Caller<'_>, action: Action<'_>, switches: Switches) -> bool {
    switches.tool_enabled
        && (action.effect != Effect::Destructive || switches.allow_destructive)
        && caller.capabilities.contains(&action.capability)
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
    if !caller.capabilities.contains(&action.capability) {
        return Decision::Deny {
            reason: format!(
                "your grant does not include the capability \"{}\" that {} needs; ask the owner for a grant that has it",
                action.capability, action.tool
            ),
        };
    }
    if let (Some(instance), Some(allowed)) = (action.instance, caller.instances)
        && !allowed.iter().any(|i| i == instance)
    {
        return Decision::Deny {
            reason: format!(
                "your grant does not cover the instance \"{instance}\"; it covers: {}",
                allowed.join(", ")
            ),
        };
    }
    let direct =
        caller.role == Role::Owner || caller.capabilities.contains(&Capability::DestructiveDirect);
    if action.needs_plan && !direct {
        return Decision::NeedsPlan {
            missing: Capability::DestructiveDirect,
        };
    }
    Decision::Allow(Allowed { _private: () })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(list: &[Capability]) -> BTreeSet<Capability> {
        list.iter().copied().collect()
    }

    fn action(effect: Effect, capability: Capability) -> Action<'static> {
        Action {
            tool: "t",
            capability,
            effect,
            needs_plan: false,
            instance: None,
        }
    }

    const ON: Switches = Switches {
        allow_destructive: true,
        tool_enabled: true,
    };

    #[test]
    fn capability_is_required() {
        let c = caps(&[Capability::Discover]);
        let caller = Caller {
            role: Role::User,
            capabilities: &c,
            instances: None,
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
    fn destructive_switch_and_tool_switch() {
        let c = caps(&Capability::ALL);
        let caller = Caller {
            role: Role::Owner,
            capabilities: &c,
            instances: None,
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
        };
        let mut a = action(Effect::Write, Capability::DownloadsWrite);
        a.instance = Some("qbit-other");
        assert!(matches!(decide(caller, a, ON), Decision::Deny { .. }));
        a.instance = Some("qbit-main");
        assert!(matches!(decide(caller, a, ON), Decision::Allow(_)));
        a.needs_plan = true;
        assert!(matches!(decide(caller, a, ON), Decision::NeedsPlan { .. }));
    }
}
