//! `policy::decide` and `policy::visible` as one table: who calls (role, capabilities, the
//! grant's instance and tool scope), what is attempted (tool, capability, effect, plan,
//! instance) and the switches in force, against the decision and whether the tool is listed.
//! Every rule of `decide` has rows on both sides of it, and rows where two rules meet show
//! which one speaks first. A failure names each row that broke, with what it got.

use std::collections::BTreeSet;

use domain::{Capability, Role};
use policy::{Action, Caller, Decision, Effect, PlannedFor, Switches, covers, decide, visible};

use Capability::{
    Destructive, DestructiveDirect, Discover, DownloadsRead, DownloadsWrite, SettingsWrite,
};

/// The decision a row expects.
#[derive(Clone, Copy)]
enum Want {
    /// Allowed, with the instance the proof names.
    Allow(Option<&'static str>),
    /// Denied with exactly this reason.
    Deny(&'static str),
    /// Allowed only as a plan; the capability that would have let the caller act at once.
    Plan(Capability),
}

impl Want {
    fn describe(self) -> String {
        match self {
            Want::Allow(instance) => format!("Allow for {instance:?}"),
            Want::Deny(reason) => format!("Deny: {reason}"),
            Want::Plan(missing) => format!("NeedsPlan, missing {missing}"),
        }
    }
}

fn describe(decision: &Decision) -> String {
    match decision {
        Decision::Allow(proof) => {
            // The proof covers the instance it names and no other.
            assert!(!proof.covers("some-other-instance"), "{proof:?}");
            if let Some(id) = proof.instance() {
                assert!(proof.covers(id), "{proof:?}");
            }
            format!("Allow for {:?}", proof.instance())
        }
        Decision::Deny { reason } => format!("Deny: {reason}"),
        Decision::NeedsPlan { missing } => format!("NeedsPlan, missing {missing}"),
    }
}

struct Row {
    name: &'static str,
    // The caller.
    role: Role,
    caps: &'static [Capability],
    /// The grant's instances; `None`: every instance.
    instances: Option<&'static [&'static str]>,
    /// The grant's tool list; `None`: every tool its capabilities allow.
    tools: Option<&'static [&'static str]>,
    // The action.
    tool: &'static str,
    capability: Capability,
    or: &'static [Capability],
    effect: Effect,
    planned_for: PlannedFor,
    instance: Option<&'static str>,
    // The switches.
    allow_destructive: bool,
    tool_enabled: bool,
    // Expected.
    want: Want,
    listed: bool,
}

/// A user who may read downloads everywhere, reading torrents: allowed and listed. Each row
/// changes what it is about.
const BASE: Row = Row {
    name: "",
    role: Role::User,
    caps: &[DownloadsRead],
    instances: None,
    tools: None,
    tool: "find_torrents",
    capability: DownloadsRead,
    or: &[],
    effect: Effect::Read,
    planned_for: PlannedFor::NoOne,
    instance: None,
    allow_destructive: true,
    tool_enabled: true,
    want: Want::Allow(None),
    listed: true,
};

const OFF: &str = "the tool find_torrents is switched off by the owner";
const DESTRUCTIVE_OFF: &str = "delete_torrents is a destructive tool and destructive tools are off; the owner can enable them with [mcp] allow_destructive = true";

const ROWS: &[Row] = &[
    Row {
        name: "the base row: a capability held, no scope, nothing switched off",
        ..BASE
    },
    // The owner's per-tool switch comes first, whoever calls.
    Row {
        name: "a tool switched off is denied and not listed",
        tool_enabled: false,
        want: Want::Deny(OFF),
        listed: false,
        ..BASE
    },
    Row {
        name: "a tool switched off is denied to the owner too",
        role: Role::Owner,
        caps: &Capability::ALL,
        tool_enabled: false,
        want: Want::Deny(OFF),
        listed: false,
        ..BASE
    },
    Row {
        name: "the tool switch speaks before the destructive switch and the capability",
        caps: &[],
        tool: "find_torrents",
        effect: Effect::Destructive,
        allow_destructive: false,
        tool_enabled: false,
        want: Want::Deny(OFF),
        listed: false,
        ..BASE
    },
    // allow_destructive: only destructive tools depend on it.
    Row {
        name: "a destructive tool with destructive tools off is denied and not listed",
        role: Role::Owner,
        caps: &Capability::ALL,
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        allow_destructive: false,
        want: Want::Deny(DESTRUCTIVE_OFF),
        listed: false,
        ..BASE
    },
    Row {
        name: "the destructive switch speaks before a missing capability",
        caps: &[],
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        allow_destructive: false,
        want: Want::Deny(DESTRUCTIVE_OFF),
        listed: false,
        ..BASE
    },
    Row {
        name: "a destructive tool with destructive tools on is allowed to the owner",
        role: Role::Owner,
        caps: &[DownloadsWrite],
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        ..BASE
    },
    Row {
        name: "a write is not destructive: allowed with destructive tools off",
        caps: &[DownloadsWrite],
        tool: "pause_torrents",
        capability: DownloadsWrite,
        effect: Effect::Write,
        allow_destructive: false,
        ..BASE
    },
    Row {
        name: "a read is allowed with destructive tools off",
        allow_destructive: false,
        ..BASE
    },
    Row {
        name: "an external cost is not destructive: allowed with destructive tools off",
        caps: &[DownloadsWrite],
        tool: "grab_release",
        capability: DownloadsWrite,
        effect: Effect::ExternalCost,
        allow_destructive: false,
        ..BASE
    },
    // The capability.
    Row {
        name: "a missing capability is denied, naming it, and the tool is not listed",
        caps: &[Discover],
        tool: "pause_torrents",
        capability: DownloadsWrite,
        effect: Effect::Write,
        want: Want::Deny(
            "your grant does not include the capability \"downloads.write\" that pause_torrents needs; ask the owner for a grant that has it",
        ),
        listed: false,
        ..BASE
    },
    Row {
        name: "the owner's role is no capability: an owner's grant without it is denied",
        role: Role::Owner,
        caps: &[],
        want: Want::Deny(
            "your grant does not include the capability \"downloads.read\" that find_torrents needs; ask the owner for a grant that has it",
        ),
        listed: false,
        ..BASE
    },
    Row {
        name: "a capability that serves as well is enough",
        role: Role::Admin,
        caps: &[SettingsWrite],
        tool: "plan_change",
        capability: DownloadsWrite,
        or: &[SettingsWrite],
        effect: Effect::Write,
        ..BASE
    },
    Row {
        name: "the main capability is enough when others would serve too",
        role: Role::Admin,
        caps: &[DownloadsWrite],
        tool: "plan_change",
        capability: DownloadsWrite,
        or: &[SettingsWrite],
        effect: Effect::Write,
        ..BASE
    },
    Row {
        name: "neither capability: denied naming each one that would serve",
        caps: &[DownloadsRead],
        tool: "plan_change",
        capability: DownloadsWrite,
        or: &[SettingsWrite, Destructive],
        effect: Effect::Write,
        want: Want::Deny(
            "your grant does not include the capability \"downloads.write\" or \"settings.write\" or \"destructive\" that plan_change needs; ask the owner for a grant that has it",
        ),
        listed: false,
        ..BASE
    },
    Row {
        name: "a missing capability speaks before a tool list that leaves the tool out",
        caps: &[],
        tools: Some(&["search_titles"]),
        want: Want::Deny(
            "your grant does not include the capability \"downloads.read\" that find_torrents needs; ask the owner for a grant that has it",
        ),
        listed: false,
        ..BASE
    },
    // The grant's tool list.
    Row {
        name: "a tool list that names the tool allows it",
        tools: Some(&["torrent_detail", "find_torrents"]),
        ..BASE
    },
    Row {
        name: "a tool list that leaves the tool out denies it, naming the list",
        tools: Some(&["torrent_detail", "search_titles"]),
        want: Want::Deny(
            "your grant does not include the tool find_torrents; it names: torrent_detail, search_titles",
        ),
        listed: false,
        ..BASE
    },
    Row {
        name: "an empty tool list names no tool",
        tools: Some(&[]),
        want: Want::Deny("your grant does not include the tool find_torrents; it names: "),
        listed: false,
        ..BASE
    },
    Row {
        name: "the tool list speaks before the instance scope",
        tools: Some(&["search_titles"]),
        instances: Some(&["qb"]),
        instance: Some("tr"),
        want: Want::Deny(
            "your grant does not include the tool find_torrents; it names: search_titles",
        ),
        listed: false,
        ..BASE
    },
    // The grant's instances: decided for the instance a call touches; listing knows none.
    Row {
        name: "an instance the grant covers is allowed, and the proof names it",
        instances: Some(&["qb", "tr"]),
        instance: Some("tr"),
        want: Want::Allow(Some("tr")),
        ..BASE
    },
    Row {
        name: "an instance the grant does not cover is denied, naming those it covers; still listed",
        instances: Some(&["qb", "sab"]),
        instance: Some("tr"),
        want: Want::Deny("your grant does not cover the instance \"tr\"; it covers: qb, sab"),
        ..BASE
    },
    Row {
        name: "a grant with an empty instance list covers none",
        instances: Some(&[]),
        instance: Some("qb"),
        want: Want::Deny("your grant does not cover the instance \"qb\"; it covers: "),
        ..BASE
    },
    Row {
        name: "a grant without an instance list covers every instance",
        instance: Some("anything"),
        want: Want::Allow(Some("anything")),
        ..BASE
    },
    Row {
        name: "a call that touches no instance passes a scoped grant, and its proof names none",
        instances: Some(&["qb"]),
        instance: None,
        want: Want::Allow(None),
        ..BASE
    },
    Row {
        name: "the instance scope speaks before the plan",
        role: Role::Admin,
        caps: &[DownloadsWrite, Destructive],
        instances: Some(&["qb"]),
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        planned_for: PlannedFor::AllButDirect,
        instance: Some("tr"),
        want: Want::Deny("your grant does not cover the instance \"tr\"; it covers: qb"),
        ..BASE
    },
    // Plans: the owner, or destructive.direct, acts at once; anyone else plans.
    Row {
        name: "a planned tool is a plan for an admin without destructive.direct; still listed",
        role: Role::Admin,
        caps: &[DownloadsWrite, Destructive],
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        planned_for: PlannedFor::AllButDirect,
        instance: Some("qb"),
        want: Want::Plan(DestructiveDirect),
        ..BASE
    },
    Row {
        name: "a planned tool is a plan for a user",
        caps: &[DownloadsWrite],
        tool: "set_category",
        capability: DownloadsWrite,
        effect: Effect::Write,
        planned_for: PlannedFor::AllButDirect,
        want: Want::Plan(DestructiveDirect),
        ..BASE
    },
    Row {
        name: "a planned tool is a plan for a kid",
        role: Role::Kid,
        planned_for: PlannedFor::AllButDirect,
        want: Want::Plan(DestructiveDirect),
        ..BASE
    },
    Row {
        name: "the owner acts at once on a planned tool",
        role: Role::Owner,
        caps: &[DownloadsWrite],
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        planned_for: PlannedFor::AllButDirect,
        instance: Some("qb"),
        want: Want::Allow(Some("qb")),
        ..BASE
    },
    Row {
        name: "destructive.direct acts at once on a planned tool, whatever the role",
        role: Role::User,
        caps: &[DownloadsWrite, DestructiveDirect],
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        planned_for: PlannedFor::AllButDirect,
        instance: Some("qb"),
        want: Want::Allow(Some("qb")),
        ..BASE
    },
    Row {
        name: "a settings change planned for everyone passes policy for the owner (its hooks plan)",
        role: Role::Owner,
        caps: &[SettingsWrite],
        tool: "plan_profile_change",
        capability: SettingsWrite,
        effect: Effect::Write,
        planned_for: PlannedFor::Everyone,
        instance: Some("radarr"),
        want: Want::Allow(Some("radarr")),
        ..BASE
    },
    Row {
        name: "a settings change planned for everyone is a plan for an admin",
        role: Role::Admin,
        caps: &[SettingsWrite],
        tool: "plan_profile_change",
        capability: SettingsWrite,
        effect: Effect::Write,
        planned_for: PlannedFor::Everyone,
        want: Want::Plan(DestructiveDirect),
        ..BASE
    },
    Row {
        name: "destructive.direct is no capability for the tool itself",
        role: Role::Admin,
        caps: &[DestructiveDirect],
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        planned_for: PlannedFor::AllButDirect,
        want: Want::Deny(
            "your grant does not include the capability \"downloads.write\" that delete_torrents needs; ask the owner for a grant that has it",
        ),
        listed: false,
        ..BASE
    },
    Row {
        name: "a destructive tool that is not planned is allowed to whoever holds its capability",
        role: Role::Admin,
        caps: &[DownloadsWrite],
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        planned_for: PlannedFor::NoOne,
        ..BASE
    },
    Row {
        name: "the destructive switch speaks before the plan",
        role: Role::Admin,
        caps: &[DownloadsWrite, Destructive],
        tool: "delete_torrents",
        capability: DownloadsWrite,
        effect: Effect::Destructive,
        planned_for: PlannedFor::AllButDirect,
        allow_destructive: false,
        want: Want::Deny(DESTRUCTIVE_OFF),
        listed: false,
        ..BASE
    },
];

#[test]
fn decide_and_visible_follow_the_table() {
    let mut broke = Vec::new();
    for row in ROWS {
        let caps: BTreeSet<Capability> = row.caps.iter().copied().collect();
        let instances: Option<Vec<String>> = row
            .instances
            .map(|l| l.iter().map(|s| s.to_string()).collect());
        let tools: Option<Vec<String>> =
            row.tools.map(|l| l.iter().map(|s| s.to_string()).collect());
        let caller = Caller {
            role: row.role,
            capabilities: &caps,
            instances: instances.as_deref(),
            tools: tools.as_deref(),
        };
        let action = Action {
            tool: row.tool,
            capability: row.capability,
            or_capabilities: row.or,
            effect: row.effect,
            planned_for: row.planned_for,
            instance: row.instance,
        };
        let switches = Switches {
            allow_destructive: row.allow_destructive,
            tool_enabled: row.tool_enabled,
        };
        let got = describe(&decide(caller, action, switches));
        let want = row.want.describe();
        if got != want {
            broke.push(format!(
                "{}:\n  decide want {want}\n  decide got  {got}",
                row.name
            ));
        }
        let listed = visible(caller, action, switches);
        if listed != row.listed {
            broke.push(format!(
                "{}:\n  visible want {}\n  visible got  {listed}",
                row.name, row.listed
            ));
        }
    }
    assert!(
        broke.is_empty(),
        "{} of {} rows broke:\n{}",
        broke.len(),
        ROWS.len(),
        broke.join("\n")
    );
}

/// The rows' names are distinct, so a failure names one row.
#[test]
fn each_row_has_its_own_name() {
    let mut names = BTreeSet::new();
    for row in ROWS {
        assert!(!row.name.is_empty(), "a row without a name");
        assert!(names.insert(row.name), "two rows named {:?}", row.name);
    }
}

/// `covers`, which listings use to choose among instances: the same scope as `decide`'s.
#[test]
fn covers_is_the_grant_instance_scope() {
    let caps = BTreeSet::new();
    let scoped = ["qb".to_string(), "tr".to_string()];
    let empty: [String; 0] = [];
    for (instances, id, want) in [
        (None, "anything", true),
        (Some(&scoped[..]), "qb", true),
        (Some(&scoped[..]), "tr", true),
        (Some(&scoped[..]), "sab", false),
        (Some(&scoped[..]), "QB", false),
        (Some(&empty[..]), "qb", false),
    ] {
        let caller = Caller {
            role: Role::Owner,
            capabilities: &caps,
            instances,
            tools: None,
        };
        assert_eq!(covers(caller, id), want, "{instances:?} covers {id}");
    }
}
