//! `whoami`: the person, grant, capabilities, instances, allowances, request quotas left and
//! content limits behind this key.
//!
//! The answer is a function of the caller's authority, the database's state and the clock only
//! through allowance and quota windows, so it is kept per authority (see [`Kept`]) until the
//! database changes or a counted charge leaves its window. The caller's key is checked anew on
//! every request before the tool runs, so a kept answer never outlives a revocation.

use std::{collections::BTreeSet, fmt::Write, sync::Arc};

use domain::{Capability, Role};
use parking_lot::Mutex;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use store::{Authority, Version};

use crate::{Ctx, Meta, Output, Tool, ToolError, requests::earliest};

pub struct Whoami;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {}

/// The answer's data, written straight from the authority (keys in sorted order, as a JSON
/// tree of it would have them).
#[derive(Serialize)]
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

#[derive(Serialize)]
struct Grant<'a> {
    allowances: Vec<Value>,
    capabilities: &'a BTreeSet<Capability>,
    expires_at: Option<i64>,
    instances: Instances<'a>,
    name: &'a str,
    revision: i64,
    tools: Option<&'a [String]>,
}

/// The person's content limits, keys in sorted order (as a JSON tree of them had them).
#[derive(Serialize)]
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

#[derive(Serialize)]
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
    const META: Meta = Meta {
        name: "whoami",
        title: "Who am I",
        description: "Shows whose authority this connection acts with: the person and role, the grant with its capabilities, instances, tools, allowances left (and when they refill) and expiry, the request quotas left, and any content limits. Call this first.",
        effect: Effect::Read,
        capability: Capability::Discover,
        needs_plan: false,
        allowance: None,
    };

    async fn run(&self, ctx: &Ctx, _input: Input) -> Result<Output, ToolError> {
        let authority = &ctx.caller.authority;
        let kept = ctx.kept_whoami();
        // Read before the data: a commit racing the computation can only cause a miss.
        let version = ctx.store().version();
        if let Some(version) = version
            && let Some(hit) = kept.get(authority, version, now_ms())
        {
            return Ok(hit);
        }
        let (answer, changes_at) = answer(ctx).await?;
        Ok(match version {
            Some(version) => kept.put(authority, version, now_ms(), changes_at, answer),
            None => answer,
        })
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
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
        summary.push_str(&crate::allowance::sentence(left));
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
            allowances: allowances.iter().map(crate::allowance::data).collect(),
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

/// Callers whose answers are kept at most (a household's keys).
const KEPT: usize = 16;

/// whoami's answers kept per authority, rendered once.
///
/// An entry is used only for the very same authority (the `Arc` the store handed out, held
/// here so its address cannot be taken by another while kept), under the same database state,
/// and before its first counted charge leaves its window. Any commit, by this process or
/// another (the CLI), changes the state: a use of an allowance, a grant or person change.
#[derive(Default)]
pub(crate) struct Kept(Mutex<Vec<Entry>>);

struct Entry {
    authority: Arc<Authority>,
    version: Version,
    /// The answer holds from this instant (unix ms) ...
    from: i64,
    /// ... until this one, when a counted charge leaves its window.
    before: Option<i64>,
    answer: Output,
}

impl Kept {
    /// The answer kept for `authority` under `version`, when it still holds at `now`.
    fn get(&self, authority: &Arc<Authority>, version: Version, now: i64) -> Option<Output> {
        let entries = self.0.lock();
        let entry = entries
            .iter()
            .find(|e| Arc::ptr_eq(&e.authority, authority))?;
        let holds = entry.version == version
            && entry.from <= now
            && entry.before.is_none_or(|before| now < before);
        holds.then(|| entry.answer.clone())
    }

    /// Keeps `answer`, computed under `version` and finished at `from`, until `before`;
    /// returns it to hand out. Answers of another state are let go.
    fn put(
        &self,
        authority: &Arc<Authority>,
        version: Version,
        from: i64,
        before: Option<i64>,
        answer: Output,
    ) -> Output {
        let answer = answer.shared();
        let mut entries = self.0.lock();
        entries.retain(|e| e.version == version && !Arc::ptr_eq(&e.authority, authority));
        entries.insert(
            0,
            Entry {
                authority: authority.clone(),
                version,
                from,
                before,
                answer: answer.clone(),
            },
        );
        entries.truncate(KEPT);
        answer
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A file store (it has database states) and its owner's authority.
    async fn owner() -> (store::Store, Arc<Authority>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = store::Store::open(dir.path()).await.unwrap();
        let (_, key) = store.bootstrap_owner("owner").await.unwrap().unwrap();
        let authority = store
            .key_authority(&key.info.key_id)
            .await
            .unwrap()
            .unwrap();
        (store, authority, dir)
    }

    #[tokio::test]
    async fn a_kept_answer_holds_from_its_instant_until_a_charge_leaves_its_window() {
        let (store, authority, _dir) = owner().await;
        let version = store.version().unwrap();
        let kept = Kept::default();
        kept.put(
            &authority,
            version,
            1_000,
            Some(5_000),
            Output::new("kept", json!(1)),
        );
        for now in [1_000, 4_999] {
            let hit = kept.get(&authority, version, now);
            assert_eq!(hit.map(|o| o.summary), Some("kept".into()), "at {now}");
        }
        assert!(
            kept.get(&authority, version, 5_000).is_none(),
            "the window rolled over"
        );
        assert!(
            kept.get(&authority, version, 999).is_none(),
            "never for an earlier instant"
        );
        kept.put(
            &authority,
            version,
            1_000,
            None,
            Output::new("no charge", json!(1)),
        );
        assert!(
            kept.get(&authority, version, i64::MAX).is_some(),
            "only a write changes it"
        );
    }

    #[tokio::test]
    async fn a_kept_answer_is_for_the_same_authority_under_the_same_state_only() {
        let (store, authority, _dir) = owner().await;
        let version = store.version().unwrap();
        let kept = Kept::default();
        kept.put(&authority, version, 0, None, Output::new("kept", json!(1)));
        let equal = Arc::new(Authority::clone(&authority));
        assert!(
            kept.get(&equal, version, 1).is_none(),
            "another authority, even an equal one"
        );
        store.set_tool_switch("whoami", false).await.unwrap();
        let changed = store.version().unwrap();
        assert!(kept.get(&authority, changed, 1).is_none(), "any commit");
        kept.put(&equal, changed, 0, None, Output::new("new", json!(1)));
        assert_eq!(
            kept.0.lock().len(),
            1,
            "answers of the older state are let go"
        );
    }

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
