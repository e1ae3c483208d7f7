//! Which tools a caller sees (and may call) and which of them MCP `tools/list` shows: the
//! groups a grant lists, the `core` group always, and any tool or federated server it names.

use domain::KindFamily;
use store::{Authority, ToolSwitches};

use crate::{app::Shared, authority};

impl Shared {
    /// Names of the tools a caller with `authority` may see and call under `switches`.
    pub(crate) fn visible_to(
        &self,
        authority: &Authority,
        switches: &ToolSwitches,
    ) -> Vec<&'static str> {
        let allow_destructive = self.settings.allow_destructive();
        let instances = &self.instances;
        let family_present = |family: KindFamily| {
            instances
                .all()
                .iter()
                .any(|i| i.kind.family() == family && authority::covers(authority, &i.id))
        };
        self.registry
            .all()
            .iter()
            .filter(|t| {
                t.external()
                    .is_none_or(|id| authority::reaches_external(authority, id, t.meta().name))
            })
            .map(|t| t.meta())
            .filter(|m| m.family.is_none_or(family_present))
            .filter(|m| authority::visible(authority, switches, m, allow_destructive))
            .map(|m| m.name)
            .collect()
    }

    /// The group the tool `name` is listed under: a federated tool's server id, its family's,
    /// or `core` for a tool no family declared.
    pub(crate) fn group_of(&self, name: &str) -> String {
        let external = self
            .registry
            .get(name)
            .and_then(|t| t.external().map(str::to_owned));
        external.unwrap_or_else(|| {
            self.groups
                .get(name)
                .copied()
                .unwrap_or(domain::CORE_GROUP)
                .to_owned()
        })
    }

    /// Whether `tools/list` shows the visible tool `name` to `authority`: a `core` tool always;
    /// any tool when the grant lists every group; a tool of a group it lists; a tool it names
    /// (`tools`), or of a federated server it names (`instances`).
    pub(crate) fn listed(&self, authority: &Authority, name: &str) -> bool {
        let grant = &authority.grant;
        let group = self.group_of(name);
        let group = group.as_str();
        group == domain::CORE_GROUP
            || grant
                .groups
                .as_ref()
                .is_none_or(|g| g.iter().any(|x| x == group))
            || grant
                .tools
                .as_ref()
                .is_some_and(|t| t.iter().any(|x| x == name))
            || grant
                .instances
                .as_ref()
                .is_some_and(|i| i.iter().any(|x| x == group))
    }
}
