//! Which tools a caller sees (and may call) and which of them MCP `tools/list` shows: the
//! groups a grant lists, the `core` group always, and any tool or federated server it names.

use std::borrow::Cow;

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

    /// The group the tool `name` is listed under: its family's (a lookup, no allocation), a
    /// federated tool's server id, or `core` for a tool no family declared.
    pub(crate) fn group_of(&self, name: &str) -> Cow<'static, str> {
        if let Some(group) = self.groups.get(name) {
            return Cow::Borrowed(group);
        }
        match self
            .registry
            .get(name)
            .and_then(|t| t.external().map(str::to_owned))
        {
            Some(server) => Cow::Owned(server),
            None => Cow::Borrowed(domain::CORE_GROUP),
        }
    }

    /// Whether `tools/list` shows the visible tool `name` to `authority`: any tool when the
    /// grant lists every group (the owner: no lookup at all); a `core` tool; a tool of a group
    /// it lists; a tool it names (`tools`); a federated server's tool when it names the server
    /// (`instances`).
    pub(crate) fn listed(&self, authority: &Authority, name: &str) -> bool {
        let grant = &authority.grant;
        let Some(groups) = &grant.groups else {
            return true;
        };
        let group = self.group_of(name);
        let group = group.as_ref();
        let federated = !self.groups.contains_key(name) && group != domain::CORE_GROUP;
        group == domain::CORE_GROUP
            || groups.iter().any(|x| x == group)
            || grant
                .tools
                .as_ref()
                .is_some_and(|t| t.iter().any(|x| x == name))
            || (federated
                && grant
                    .instances
                    .as_ref()
                    .is_some_and(|i| i.iter().any(|x| x == group)))
    }
}
