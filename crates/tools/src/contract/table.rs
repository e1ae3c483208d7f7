//! `docs/tools.md`: one row per tool of the registry, with what governs it (effect class,
//! capability, allowance kind, who its calls are planned for) and its four MCP annotations.
//! Generated, never written by hand; a test keeps the checked-in file equal to it.

use std::fmt::Write as _;

use policy::PlannedFor;

use crate::families;

/// The whole of `docs/tools.md`.
pub fn tools_table() -> String {
    let mut rows: Vec<(&'static str, governance::Meta)> = families()
        .iter()
        .flat_map(|f| f.tools().into_iter().map(move |t| (f.name(), t.meta())))
        .collect();
    rows.sort_by_key(|(_, m)| m.name);
    let mut out = String::from(HEAD);
    for (family, m) in rows {
        let a = m.annotations();
        let planned = match (m.planned_for(), m.plan) {
            // A planned tool without plan hooks is refused for whoever would need a plan.
            (PlannedFor::NoOne, _) => "no one".to_string(),
            (rule, Some(_)) => rule.describe().to_string(),
            (rule, None) => format!("{} (refused: no plan hooks)", rule.describe()),
        };
        let mut capability = m.capability.as_str().to_string();
        for c in m.or_capabilities {
            let _ = write!(capability, " or {}", c.as_str());
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            m.name,
            family,
            m.effect.as_str(),
            capability,
            m.allowance.map_or("none", |k| k.as_str()),
            planned,
            yes(a.read_only),
            yes(a.destructive),
            yes(a.idempotent),
            yes(a.open_world),
        );
    }
    out
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

const HEAD: &str = "# Tools

Every tool this build has, generated from the tool registry (each tool's `Meta`). Do not edit
by hand: `UPDATE_DOCS=1 cargo test -p tools --test tools_doc` writes it again.

- **effect**: `read` changes nothing; `write` changes something reversible and bounded;
  `destructive` removes what cannot be brought back, and is listed only while
  `[mcp] allow_destructive` is on; `external_cost` spends something scarce outside the
  household (live indexer searches, grabs). Every call of an effect other than `read` is
  audited.
- **capability**: what the caller's grant must hold (or one of the alternatives named).
- **allowance**: the allowance kind each call spends, reserved with its audit entry. The rule
  for every family: live indexer searches are `external_cost` and spend `searches`; grabs of
  any origin spend `grabs`; writes through a federated server spend `federated_writes`.
- **planned for**: whose calls are stored as a plan for the owner's approval instead of
  acting (`policy::planned_for`): destructive tools for all but the owner and grants with
  `destructive.direct`; settings changes for everyone, the owner included; every other tool
  for no one.
- **read-only, destructive, idempotent, open world**: the MCP annotations `tools/list`
  serves. Open world: the tool reaches TMDB, MusicBrainz, indexers, trackers or a URL a
  caller gives; the household's own library services and torrent clients are a closed world.

| tool | family | effect | capability | allowance | planned for | read-only | destructive | idempotent | open world |
|---|---|---|---|---|---|---|---|---|---|
";
