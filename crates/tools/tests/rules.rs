//! Every tool's declaration follows the rules written once in `policy`: who its calls are
//! planned for (and that a tool planned for someone has the plan hooks to store the plan), and
//! what a call reaching outside the household costs.

use policy::{Outward, PlannedFor, cost_of};

/// The tools of each outward kind this build has.
const OUTWARD: &[(&str, Outward)] = &[
    ("search_releases", Outward::IndexerSearch),
    ("trigger_search", Outward::IndexerSearch),
    ("search_indexers", Outward::IndexerSearch),
    ("grab_release", Outward::Grab),
];

#[test]
fn outward_tools_declare_the_effect_and_allowance_of_the_rule() {
    let metas = tools::tool_metas();
    for (name, outward) in OUTWARD {
        let m = metas
            .iter()
            .find(|m| m.name == *name)
            .unwrap_or_else(|| panic!("{name}"));
        let (effect, kind) = cost_of(*outward);
        assert_eq!((m.effect, m.allowance), (effect, Some(kind)), "{name}");
    }
    // No other tool spends what the rule reserves for outward calls.
    for m in &metas {
        let outward = OUTWARD.iter().any(|(n, _)| *n == m.name);
        let reserved = matches!(
            m.allowance,
            Some(domain::AllowanceKind::Searches | domain::AllowanceKind::Grabs)
        );
        assert_eq!(outward, reserved, "{}", m.name);
        assert!(
            m.allowance != Some(domain::AllowanceKind::FederatedWrites),
            "{}: no federated tool in this build",
            m.name
        );
    }
}

#[test]
fn every_tool_planned_for_someone_can_store_a_plan() {
    let mut broke = Vec::new();
    for m in tools::tool_metas() {
        let always = m.plan.is_some_and(|p| p.always());
        let ok = match m.planned_for() {
            PlannedFor::NoOne => m.plan.is_none(),
            PlannedFor::AllButDirect => m.plan.is_some() && !always,
            PlannedFor::Everyone => always,
        };
        if !ok {
            broke.push(format!(
                "{}: planned for {:?}, plan hooks {}",
                m.name,
                m.planned_for(),
                match m.plan {
                    None => "none",
                    Some(p) if p.always() => "always",
                    Some(_) => "some",
                }
            ));
        }
    }
    assert!(broke.is_empty(), "{}", broke.join("\n"));
}

/// Who goes through a plan, per tool that is planned for anyone: the table of the README's
/// promise ("risky writes are planned for all but the owner").
#[test]
fn the_planned_tools_and_for_whom() {
    let planned: Vec<(&str, PlannedFor)> = tools::tool_metas()
        .iter()
        .map(|m| (m.name, m.planned_for()))
        .filter(|(_, p)| *p != PlannedFor::NoOne)
        .collect();
    assert_eq!(
        planned,
        [
            ("delete_torrents", PlannedFor::AllButDirect),
            ("plan_configuration", PlannedFor::Everyone),
            ("plan_maintenance", PlannedFor::Everyone),
            ("plan_organize", PlannedFor::Everyone),
            ("plan_people", PlannedFor::Everyone),
            ("plan_profile_change", PlannedFor::Everyone),
            ("plan_requests", PlannedFor::Everyone),
            ("plan_row", PlannedFor::Everyone),
            ("plan_run", PlannedFor::Everyone),
            ("plan_schedule", PlannedFor::Everyone),
            ("plan_season", PlannedFor::Everyone),
            ("plan_setup", PlannedFor::Everyone),
            ("plan_theme", PlannedFor::Everyone),
            ("remove_queue_item", PlannedFor::AllButDirect),
            ("revert_change", PlannedFor::Everyone),
            ("scrape_metadata", PlannedFor::Everyone),
            ("upsert_custom_format", PlannedFor::Everyone),
        ]
    );
}
