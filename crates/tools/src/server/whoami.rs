//! `whoami`: the person, grant, capabilities, instances, allowances, request quotas left and
//! content limits behind this key.
//!
//! The answer is a function of the caller's authority, the database's state and the clock only
//! through allowance and quota windows, so it is kept per authority (through [`governance::stored`]) until
//! the database changes or a counted charge leaves its window. The caller's key is checked anew on
//! every request before the tool runs, so a kept answer never outlives a revocation.

use std::{collections::BTreeSet, fmt::Write};

use domain::{Capability, Role};
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::requests::earliest;
use governance::{
    Ctx, Meta, Output, Tool, ToolError,
    stored::{self, Keep},
};

/// The tables its answer reads: a kept answer holds while none of them changed.
const READS: &[store::Group] = &[
    store::Group::Authority,
    store::Group::Requests,
    store::Group::Audit,
];
pub struct Whoami;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

/// The answer's data, written straight from the authority (keys in sorted order, as a JSON
/// tree of it would have them).
#[derive(Serialize, JsonSchema)]
struct Data<'a> {
    /// `null` when nothing is limited.
    content_limits: Option<Limits<'a>>,
    grant: Grant<'a>,
    key_id: &'a str,
    person: Person<'a>,
    /// Only for a caller who may request.
    #[serde(skip_serializing_if = "Option::is_none")]
    request_quotas: Option<Value>,
}

#[derive(Serialize, JsonSchema)]
struct Grant<'a> {
    allowances: Vec<Value>,
    #[schemars(with = "Vec<String>")]
    capabilities: &'a BTreeSet<Capability>,
    expires_at: Option<i64>,
    /// "all", or the instance ids the grant is scoped to.
    #[schemars(with = "Value")]
    instances: Instances<'a>,
    name: &'a str,
    revision: i64,
    tools: Option<&'a [String]>,
}

/// The person's content limits, keys in sorted order (as a JSON tree of them had them).
#[derive(Serialize, JsonSchema)]
struct Limits<'a> {
    block_unrated: bool,
    blocked_genres: &'a [String],
    max_movie_cert: Option<&'a str>,
    max_tv_rating: Option<&'a str>,
    rating_region: Option<&'a str>,
}

impl<'a> Limits<'a> {
    fn of(l: &'a store::ContentLimits) -> Limits<'a> {
        Limits {
            block_unrated: l.block_unrated,
            blocked_genres: &l.blocked_genres,
            max_movie_cert: l.max_movie_cert.as_deref(),
            max_tv_rating: l.max_tv_rating.as_deref(),
            rating_region: l.rating_region.as_deref(),
        }
    }
}

#[derive(Serialize, JsonSchema)]
struct Person<'a> {
    name: &'a str,
    role: Role,
}

/// `"all"`, or the instance ids the grant is scoped to.
struct Instances<'a>(Option<&'a [String]>);

impl Serialize for Instances<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_str("all"),
            Some(ids) => ids.serialize(s),
        }
    }
}

impl Tool for Whoami {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data<'static>>);
    const META: Meta = Meta {
        name: "whoami",
        title: "Who am I",
        description: "Shows whose authority this connection acts with: the person and role, the grant with its capabilities, instances, tools, allowances left (and when they refill) and expiry, the request quotas left, and any content limits. Call this first.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: false,
        },
        allowance: None,
        or_capabilities: &[],
        family: None,
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        // The key is part of the answer; the view compares person and grant only.
        let view = stored::view(ctx, &ctx.caller.authority.key_id);
        ctx.stored()
            .answer(ctx.state_of(READS), Self::META.name, view, || async {
                let (answer, changes_at) = answer(ctx).await?;
                Ok((
                    answer,
                    changes_at.map_or(Keep::WhileUnchanged, Keep::Before),
                ))
            })
            .await
    }
}

/// The answer as it stands now, and the first instant it would read differently without a
/// write (a counted charge leaving its window).
async fn answer(ctx: &Ctx) -> Result<(Output, Option<i64>), ToolError> {
    let a = &ctx.caller.authority;
    let limits = &a.person.limits;
    let quotas = crate::requests::quotas_left(ctx).await?;
    let allowances = ctx
        .store()
        .allowances_left(a.person.id, &a.grant.allowances)
        .await?;
    let limited = !limits.is_unlimited();
    let mut summary = format!(
        "You act as {} ({}) with the grant \"{}\" ({} capabilities); {}",
        a.person.name,
        a.person.role,
        a.grant.name,
        a.grant.capabilities.len(),
        if limited {
            "content limits apply"
        } else {
            "no content limits"
        },
    );
    let mut changes_at = quotas.as_ref().and_then(|q| q.changes_at);
    for (i, left) in allowances.iter().enumerate() {
        summary.push_str(if i == 0 { "; allowances: " } else { ", " });
        summary.push_str(&governance::allowance::sentence(left));
        changes_at = earliest(changes_at, left.changes_at);
    }
    let (request_quotas, sentence) = quotas.map(|q| (q.data, q.sentence)).unzip();
    if let Some(sentence) = sentence {
        let _ = write!(summary, "; {sentence}");
    }
    summary.push('.');
    let data = Data {
        content_limits: limited.then(|| Limits::of(limits)),
        grant: Grant {
            allowances: allowances.iter().map(governance::allowance::data).collect(),
            capabilities: &a.grant.capabilities,
            expires_at: a.grant.expires_at,
            instances: Instances(a.grant.instances.as_deref()),
            name: &a.grant.name,
            revision: a.grant.revision,
            tools: a.grant.tools.as_deref(),
        },
        key_id: &a.key_id,
        person: Person {
            name: &a.person.name,
            role: a.person.role,
        },
        request_quotas,
    };
    let out = Output::typed(summary, &data)?.next("get_guide {\"topic\":\"setup\"}");
    Ok((out, changes_at))
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn the_limits_view_writes_what_a_tree_of_the_limits_wrote() {
        let limits = store::ContentLimits {
            max_movie_cert: Some("PG-13".into()),
            max_tv_rating: None,
            rating_region: Some("US".into()),
            block_unrated: true,
            blocked_genres: vec!["Horror".into(), "say \"boo\"".into()],
        };
        let tree = serde_json::to_string(&serde_json::to_value(&limits).unwrap()).unwrap();
        assert_eq!(serde_json::to_string(&Limits::of(&limits)).unwrap(), tree);
    }
}
