//! The rules written once that every tool's declaration follows: which calls are planned for
//! the owner's approval, and for whom; and what a call that reaches outside the household
//! costs (its effect and the allowance it spends).

use domain::{AllowanceKind, Capability, Role};

use crate::Effect;

/// Whose calls of a tool are stored as a plan for the owner's approval instead of acting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum PlannedFor {
    /// No one: whoever may call the tool acts at once (bounded by its allowance, if any).
    NoOne,
    /// Everyone but the owner and grants holding `destructive.direct`.
    AllButDirect,
    /// Everyone, the owner included: the tool only ever stores a plan (its plan hooks say
    /// so with `always`), and applying the plan is the audited act.
    Everyone,
}

impl PlannedFor {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Who acts at once, in words (for the tools table).
    pub fn describe(self) -> &'static str {
        match self {
            PlannedFor::NoOne => "no one",
            PlannedFor::AllButDirect => "all but the owner and destructive.direct",
            PlannedFor::Everyone => "everyone, the owner included",
        }
    }

    /// Must a caller with `role` and `direct` (holding `destructive.direct`) go through a
    /// plan? For [`PlannedFor::Everyone`] the owner passes policy and the tool's own plan
    /// hooks store the plan (`Planned::always`), so that the owner's plan names no missing
    /// capability.
    pub fn plans(self, role: Role, direct: bool) -> bool {
        match self {
            PlannedFor::NoOne => false,
            PlannedFor::AllButDirect | PlannedFor::Everyone => !(role == Role::Owner || direct),
        }
    }
}

/// The rule: which tools are planned for whom, from what a tool declares.
///
/// - A destructive tool (deletes or removes what cannot be brought back) is planned for all
///   but the owner and `destructive.direct` grants, and listed only while
///   `[mcp] allow_destructive` is on.
/// - A change of a service's settings (`settings.write`) is always a plan, the owner's too:
///   the owner reviews the diff before it is written.
/// - A write of the household's files (`files.write`: organising them, writing metadata
///   beside them) is always a plan too: the owner reviews every path before a file is touched.
/// - So is a write of the household's shortlists (`shortlists`: themes, rows, runs): the owner
///   reviews what the media servers will show before it is saved.
/// - Everything else acts at once for whoever holds the capability: reads; reversible writes
///   (pause, categories, rescans, manual imports of files the service itself proposed); and
///   external costs (indexer searches, grabs), which are bounded by their allowance instead of
///   by a review, since an approval that waits hours defeats a live search or grab.
pub const fn planned_for(effect: Effect, capability: Capability) -> PlannedFor {
    match (effect, capability) {
        (Effect::Read, _) => PlannedFor::NoOne,
        (Effect::Destructive, _) => PlannedFor::AllButDirect,
        (_, Capability::SettingsWrite) => PlannedFor::Everyone,
        (_, Capability::FilesWrite) => PlannedFor::Everyone,
        (_, Capability::Shortlists) => PlannedFor::Everyone,
        (Effect::Write | Effect::ExternalCost, _) => PlannedFor::NoOne,
    }
}

/// What a call reaches outside the household's own services, for the rule of what it costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Outward {
    /// A live search of indexers, asked directly or through a library service.
    IndexerSearch,
    /// A release grabbed for download, of any origin (an indexer row, a library's pick).
    Grab,
    /// A write carried out through a federated server (another Marquee).
    FederatedWrite,
}

/// The rule for every family, present and to come: the effect a call of this kind declares
/// and the allowance each call spends.
pub const fn cost_of(outward: Outward) -> (Effect, AllowanceKind) {
    match outward {
        Outward::IndexerSearch => (Effect::ExternalCost, AllowanceKind::Searches),
        Outward::Grab => (Effect::ExternalCost, AllowanceKind::Grabs),
        Outward::FederatedWrite => (Effect::ExternalCost, AllowanceKind::FederatedWrites),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every effect against a capability of each kind, with who goes through a plan.
    #[test]
    fn planned_for_follows_the_table() {
        use Capability::*;
        use PlannedFor::*;
        let table = [
            (Effect::Read, Discover, NoOne),
            (Effect::Read, SettingsRead, NoOne),
            (Effect::Read, SettingsWrite, NoOne),
            (Effect::Write, DownloadsWrite, NoOne),
            (Effect::Write, LibraryWrite, NoOne),
            (Effect::Write, Request, NoOne),
            (Effect::Write, RequestsManage, NoOne),
            (Effect::Write, SettingsWrite, Everyone),
            (Effect::Write, Shortlists, Everyone),
            (Effect::Read, Shortlists, NoOne),
            (Effect::ExternalCost, LibraryWrite, NoOne),
            (Effect::ExternalCost, DownloadsWrite, NoOne),
            (Effect::ExternalCost, SettingsWrite, Everyone),
            (Effect::Destructive, DownloadsWrite, AllButDirect),
            (Effect::Destructive, LibraryWrite, AllButDirect),
            (Effect::Destructive, SettingsWrite, AllButDirect),
        ];
        let broke: Vec<String> = table
            .iter()
            .filter(|(e, c, want)| planned_for(*e, *c) != *want)
            .map(|(e, c, want)| format!("{e:?} {c}: want {want:?}, got {:?}", planned_for(*e, *c)))
            .collect();
        assert!(broke.is_empty(), "{}", broke.join("\n"));
    }

    #[test]
    fn who_goes_through_a_plan() {
        use PlannedFor::*;
        let table = [
            (NoOne, Role::Kid, false, false),
            (NoOne, Role::User, false, false),
            (AllButDirect, Role::Owner, false, false),
            (AllButDirect, Role::Admin, false, true),
            (AllButDirect, Role::Admin, true, false),
            (AllButDirect, Role::User, false, true),
            (AllButDirect, Role::User, true, false),
            (Everyone, Role::Owner, false, false),
            (Everyone, Role::Admin, false, true),
            (Everyone, Role::Admin, true, false),
        ];
        for (rule, role, direct, want) in table {
            assert_eq!(
                rule.plans(role, direct),
                want,
                "{rule:?} {role:?} direct={direct}"
            );
        }
    }

    #[test]
    fn outward_calls_cost_their_own_allowance() {
        use strum::VariantArray;
        let got: Vec<(&str, Effect, AllowanceKind)> = Outward::VARIANTS
            .iter()
            .map(|o| {
                let (e, k) = cost_of(*o);
                (<&str>::from(*o), e, k)
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "indexer_search",
                    Effect::ExternalCost,
                    AllowanceKind::Searches
                ),
                ("grab", Effect::ExternalCost, AllowanceKind::Grabs),
                (
                    "federated_write",
                    Effect::ExternalCost,
                    AllowanceKind::FederatedWrites
                ),
            ]
        );
    }
}
