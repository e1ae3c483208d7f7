//! `list_indexers`: the indexers a search can ask: each Prowlarr instance's indexers with their
//! health (disabled by Prowlarr after failures, until when) and categories, and each Torznab
//! feed as one indexer (its caps). An instance that cannot be read is named in a warning.

use chrono::Utc;
use domain::{Capability, InstanceKind, Role};
use futures::future::join_all;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{indexers, search_indexers::not_for_kids};
use governance::{Ctx, Meta, Output, Tool, ToolError};
use policy::Effect;

pub struct ListIndexers;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Only this indexer instance (default: every one your grant covers).
    #[serde(default)]
    #[schemars(length(max = 100))]
    pub instance_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CategoryRow {
    pub id: u32,
    pub name: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct IndexerRow {
    /// What search_indexers' `indexers` takes: "instance/id" for a Prowlarr indexer, the
    /// instance id for a feed.
    pub id: String,
    pub name: String,
    pub instance_id: String,
    /// prowlarr or torznab.
    pub kind: &'static str,
    pub protocol: &'static str,
    pub enabled: bool,
    /// ok, or disabled (Prowlarr stopped asking it after failures, until disabled_till).
    pub health: &'static str,
    pub disabled_till: Option<String>,
    pub most_recent_failure: Option<String>,
    pub privacy: Option<String>,
    /// Identity searches it supports: imdbid, tvdbid, season, ep, ...
    pub movie_search: Vec<String>,
    pub tv_search: Vec<String>,
    pub categories: Vec<CategoryRow>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Data {
    pub indexers: Vec<IndexerRow>,
}

impl Tool for ListIndexers {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data>);
    const META: Meta = Meta {
        name: "list_indexers",
        title: "List indexers",
        description: "Lists the indexers search_indexers can ask: each Prowlarr instance's indexers (id, name, protocol, enabled, health: ok or disabled until a time after failures, privacy, the identity searches it supports, categories) and each Torznab feed as one indexer (from its caps). An instance that cannot be read is named in a warning.",
        effect: Effect::Read,
        capability: Capability::IndexersSearch,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Indexers),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        if ctx.caller.authority.person.role == Role::Kid {
            return Err(not_for_kids());
        }
        let family = indexers(ctx);
        let chosen: Vec<_> = match input.instance_id.as_deref() {
            Some(id) => {
                let (spec, _) = ctx.instance(domain::KindFamily::Indexers, Some(id))?;
                family.sources().filter(|s| s.id == spec.id).collect()
            }
            None => family.sources().filter(|s| ctx.covers(&s.id)).collect(),
        };
        let answers = join_all(chosen.iter().map(|s| s.indexers())).await;
        let now = Utc::now();
        let mut rows = Vec::new();
        let mut warnings = Vec::new();
        for (source, answer) in chosen.iter().zip(answers) {
            let list = match answer {
                Ok(list) => list,
                Err(e) => {
                    warnings.push(e.message);
                    continue;
                }
            };
            for i in list {
                let disabled = i.disabled_till.is_some_and(|t| t > now);
                rows.push(IndexerRow {
                    id: match i.id {
                        Some(n) => format!("{}/{n}", source.id),
                        None => source.id.clone(),
                    },
                    name: i.name,
                    instance_id: source.id.clone(),
                    kind: if source.kind == InstanceKind::Prowlarr {
                        "prowlarr"
                    } else {
                        "torznab"
                    },
                    protocol: i.protocol.as_str(),
                    enabled: i.enabled,
                    health: if disabled { "disabled" } else { "ok" },
                    disabled_till: i.disabled_till.map(|t| t.to_rfc3339()),
                    most_recent_failure: i.most_recent_failure.map(|t| t.to_rfc3339()),
                    privacy: i.privacy,
                    movie_search: i.movie_params,
                    tv_search: i.tv_params,
                    categories: i
                        .categories
                        .into_iter()
                        .map(|c| CategoryRow {
                            id: c.id,
                            name: c.name,
                        })
                        .collect(),
                });
            }
        }
        let unhealthy = rows
            .iter()
            .filter(|r| r.health != "ok" || !r.enabled)
            .count();
        let mut out = Output::typed(
            format!(
                "{} on {}{}.",
                crate::library::count(rows.len(), "indexer", "indexers"),
                crate::library::count(chosen.len(), "instance", "instances"),
                if unhealthy > 0 {
                    format!("; {unhealthy} disabled or failing")
                } else {
                    String::new()
                }
            ),
            &Data { indexers: rows },
        )?;
        for w in warnings {
            out = out.warn(w);
        }
        Ok(out)
    }
}
