//! Answers read from the store, kept while the tables they read are unchanged and handed out
//! again, rendered once.
//!
//! Such an answer is a function of the question, the caller's view (who asks, and whether
//! they see everyone's rows) and the state of the tables it reads: [`store::Version`] narrowed
//! to their groups (`Ctx::state_of`), which a commit to one of those tables changes, by this
//! process or any other on the same file (the CLI), and a commit elsewhere does not. A call
//! looks its answer up under the state its caller's authority was read under, at the start of
//! the request ([`crate::Caller`]), which is before the data: a commit racing the read can only
//! cause a miss, and a call's answer is as of its authorization. An answer that also reads the
//! clock (a quota window) says until when it holds; one that read a live backend is not kept.
//! Without a state (an in-memory store) nothing is kept. Callers that ask the same question
//! under the same state while its answer is computed wait for that one computation (single
//! flight) instead of starting their own.

use std::{
    fmt::{Debug, Write},
    future::Future,
    hash::{Hash, Hasher},
    sync::Arc,
};

use kept::Kept;
use store::{Authority, Version};

use crate::{Ctx, Output, ToolError};

/// Answers kept in all: a household's repeated pages, per person. A 200-row page is about
/// 120 KB, and its rendered form is kept with it: this bounds the memory to a few dozen MB.
const KEPT: usize = 32;

/// How long a computed answer may be handed out again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Until the database changes.
    WhileUnchanged,
    /// Until the database changes or this instant (unix ms) comes, whichever is first.
    Before(i64),
    /// Not again: it read something besides the store (a live backend).
    Never,
}

/// A kept answer's view: the caller's authority as this call holds it, then `question` (the
/// tool's parsed input and anything else its answer depends on), written out. The whole
/// person and grant count, because the authority may have been read under an older version
/// than the data: an answer computed for it must never serve a newer one. They are compared
/// as values (no text is written for them); the question's text is short.
pub fn view(ctx: &Ctx, question: impl Debug) -> View {
    View::new(&ctx.caller.authority, question)
}

/// See [`view`].
#[derive(Clone)]
pub struct View {
    authority: Arc<Authority>,
    question: String,
    /// Of the person's and the grant's ids, the grant's revision and the question:
    /// most entries that are not this view are passed over by it alone.
    hash: u64,
}

impl View {
    fn new(authority: &Arc<Authority>, question: impl Debug) -> View {
        let mut text = String::with_capacity(128);
        let _ = write!(text, "{question:?}");
        let mut h = std::hash::DefaultHasher::new();
        (
            authority.person.id.0,
            authority.grant.id,
            authority.grant.revision,
        )
            .hash(&mut h);
        text.hash(&mut h);
        View {
            authority: authority.clone(),
            question: text,
            hash: h.finish(),
        }
    }

    /// The same view: same question, same person and grant (the same authority read, or one
    /// equal in every field; the key a caller used does not change what it may see).
    fn is(&self, other: &View) -> bool {
        self.hash == other.hash
            && self.question == other.question
            && (Arc::ptr_eq(&self.authority, &other.authority)
                || (self.authority.person == other.authority.person
                    && self.authority.grant == other.authority.grant))
    }
}

#[derive(Clone)]
struct Key {
    tool: &'static str,
    view: View,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.view.is(&other.view) && self.tool == other.tool
    }
}

impl Eq for Key {}

/// The view's own hash and the tool: equal keys have equal views, so equal hashes.
impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.view.hash);
        self.tool.hash(h);
    }
}

/// A kept answer and `Keep::Before`'s instant (unix ms), if it has one.
type Entry = (Output, Option<i64>);

/// What one computation of an answer gave, for every caller that waited for it.
type Computed = Result<(Output, Keep), ToolError>;

/// Kept answers, each under the state of the tables its tool reads, and the computations
/// under way (single flight: callers asking the same while one runs wait for it and get its
/// answer, even one not kept).
pub struct Stored {
    kept: Kept<Key, Version, Entry, ToolError>,
}

impl Default for Stored {
    fn default() -> Stored {
        Stored {
            kept: Kept::new(KEPT),
        }
    }
}

impl Stored {
    /// The kept answer of `tool` for `view`, or `compute`'s, kept as it says (failures are not).
    /// Callers asking the same question while `compute` runs share its answer.
    pub async fn answer<F, Fut>(
        &self,
        state: Option<Version>,
        tool: &'static str,
        view: View,
        compute: F,
    ) -> Result<Output, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Computed>,
    {
        let Some(version) = state else {
            return compute().await.map(|(answer, _)| answer);
        };
        let key = Key { tool, view };
        if let Some(hit) = self.get(&key, version, chrono::Utc::now().timestamp_millis()) {
            return Ok(hit);
        }
        let computed = self.kept.compute(key, version, || async {
            let (answer, keep) = compute().await?;
            let before = match keep {
                Keep::Never => return Ok(((answer, None), kept::Keep::No)),
                Keep::WhileUnchanged => None,
                Keep::Before(at) => Some(at),
            };
            // This tool's answers of an older state can never be handed out again: let them
            // go now. Other tools' answers are kept under the state of the groups they read.
            self.kept.retain(|k, v| k.tool != tool || *v == version);
            Ok(((answer.shared(), before), kept::Keep::Yes))
        });
        computed.await.map(|(answer, _)| answer)
    }

    /// The answer kept for `key` under `version`, still good at `now`. A stale one stays
    /// until the next answer of its tool is kept, which lets it go.
    fn get(&self, key: &Key, version: Version, now: i64) -> Option<Output> {
        let (answer, before) = self.kept.get(key, &version)?;
        if before.is_some_and(|before| now >= before) {
            return None;
        }
        Some(answer)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use std::collections::BTreeMap;

    use domain::{Capability, PersonId, Role};
    use serde_json::json;
    use store::{ContentLimits, Grant, Person, Store};

    use super::*;

    /// The owner's authority, as a key check reads it.
    fn owner() -> Authority {
        Authority {
            person: Person {
                id: PersonId(1),
                name: "owner".into(),
                role: Role::Owner,
                created_at: 0,
                limits: ContentLimits::default(),
            },
            key_id: "k1".into(),
            grant: Grant {
                id: 1,
                name: "owner".into(),
                capabilities: [Capability::Discover].into(),
                instances: None,
                allowances: BTreeMap::new(),
                expires_at: None,
                revision: 1,
                builtin: true,
                tools: None,
                groups: None,
            },
        }
    }

    /// The owner's view of `question` (a fresh read of the authority each time).
    fn v(question: &str) -> View {
        View::new(&Arc::new(owner()), question)
    }

    /// Asks `stored` for one answer that `keep` says how to keep; counts the computations.
    async fn ask(stored: &Stored, store: &Store, n: &AtomicUsize, keep: Keep) -> Output {
        stored
            .answer(store.version(), "tool", v("view"), || async {
                n.fetch_add(1, Ordering::SeqCst);
                Ok((Output::new("answer", json!(1)), keep))
            })
            .await
            .unwrap()
    }

    async fn file_store() -> (Store, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).await.unwrap();
        (store, dir)
    }

    #[tokio::test]
    async fn an_answer_is_computed_again_after_any_commit() {
        let (store, _dir) = file_store().await;
        let (stored, n) = (Stored::default(), AtomicUsize::new(0));
        ask(&stored, &store, &n, Keep::WhileUnchanged).await;
        ask(&stored, &store, &n, Keep::WhileUnchanged).await;
        assert_eq!(n.load(Ordering::SeqCst), 1);
        store.set_tool_switch("whoami", false).await.unwrap();
        ask(&stored, &store, &n, Keep::WhileUnchanged).await;
        assert_eq!(n.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn answers_of_an_older_state_are_let_go_when_a_new_one_is_kept() {
        let (store, _dir) = file_store().await;
        let stored = Stored::default();
        for view in ["a", "b"] {
            stored
                .answer(store.version(), "tool", v(view), || async {
                    Ok((Output::new(view, json!(1)), Keep::WhileUnchanged))
                })
                .await
                .unwrap();
        }
        assert_eq!(stored.kept.len(), 2);
        store.set_tool_switch("whoami", false).await.unwrap();
        stored
            .answer(store.version(), "tool", v("c"), || async {
                Ok((Output::new("c", json!(1)), Keep::WhileUnchanged))
            })
            .await
            .unwrap();
        let views: Vec<String> = stored
            .kept
            .keys()
            .iter()
            .map(|k| k.view.question.clone())
            .collect();
        assert_eq!(views, ["\"c\""]);
    }

    #[tokio::test]
    async fn another_tools_answers_stay_when_one_is_kept_under_a_newer_state_of_its_own() {
        use store::Group;
        let (store, _dir) = file_store().await;
        let stored = Stored::default();
        let n = AtomicUsize::new(0);
        let of = |groups: &[Group]| store.version().map(|v| v.only(groups));
        let ask = |tool: &'static str, state| {
            let n = &n;
            let stored = &stored;
            async move {
                stored
                    .answer(state, tool, v("q"), || async move {
                        n.fetch_add(1, Ordering::SeqCst);
                        Ok((Output::new(tool, json!(1)), Keep::WhileUnchanged))
                    })
                    .await
                    .unwrap()
            }
        };
        ask("activity", of(&[Group::Audit])).await;
        ask("requests", of(&[Group::Requests])).await;
        store
            .set_quota(
                &store::QuotaScope::Role { role: Role::User },
                domain::MediaType::Movie,
                5,
                7,
            )
            .await
            .unwrap();
        ask("requests", of(&[Group::Requests])).await;
        assert_eq!(
            n.load(Ordering::SeqCst),
            3,
            "the requests page is read again"
        );
        ask("activity", of(&[Group::Audit])).await;
        assert_eq!(
            n.load(Ordering::SeqCst),
            3,
            "the activity page, which reads no request, is still kept"
        );
    }

    #[tokio::test]
    async fn an_answer_kept_before_an_instant_is_not_handed_out_from_it_on() {
        let (store, _dir) = file_store().await;
        let (stored, n) = (Stored::default(), AtomicUsize::new(0));
        let now = chrono::Utc::now().timestamp_millis();
        ask(&stored, &store, &n, Keep::Before(now + 3_600_000)).await;
        ask(&stored, &store, &n, Keep::Before(now)).await;
        assert_eq!(n.load(Ordering::SeqCst), 1, "an hour from now: kept");
        let key = Key {
            tool: "tool",
            view: v("view"),
        };
        let version = store.version().unwrap();
        assert!(stored.get(&key, version, now + 3_599_999).is_some());
        assert!(stored.get(&key, version, now + 3_600_000).is_none());
        let past = Stored::default();
        ask(&past, &store, &n, Keep::Before(now - 1)).await;
        ask(&past, &store, &n, Keep::Before(now - 1)).await;
        assert_eq!(
            n.load(Ordering::SeqCst),
            3,
            "already past: computed each time"
        );
    }

    #[tokio::test]
    async fn an_answer_that_read_a_live_backend_or_failed_is_not_kept() {
        let (store, _dir) = file_store().await;
        let (stored, n) = (Stored::default(), AtomicUsize::new(0));
        ask(&stored, &store, &n, Keep::Never).await;
        ask(&stored, &store, &n, Keep::Never).await;
        assert_eq!(n.load(Ordering::SeqCst), 2);
        let failed = stored
            .answer(store.version(), "tool", v("failing"), || async {
                Err::<(Output, Keep), _>(ToolError::invalid("no"))
            })
            .await;
        assert!(failed.is_err());
        assert!(
            stored
                .kept
                .keys()
                .iter()
                .all(|k| k.view.question != "\"failing\"")
        );
    }

    #[tokio::test]
    async fn callers_asking_at_once_share_one_computation_even_of_an_answer_not_kept() {
        let (store, _dir) = file_store().await;
        let (stored, n) = (Stored::default(), AtomicUsize::new(0));
        let slow = || async {
            n.fetch_add(1, Ordering::SeqCst);
            // Lets the second caller arrive while this computation is under way.
            for _ in 0..8 {
                tokio::task::yield_now().await;
            }
            Ok((Output::new("live", json!(1)), Keep::Never))
        };
        let (a, b) = tokio::join!(
            stored.answer(store.version(), "tool", v("view"), slow),
            stored.answer(store.version(), "tool", v("view"), slow)
        );
        assert_eq!(
            (a.unwrap().summary, b.unwrap().summary),
            ("live".into(), "live".into())
        );
        assert_eq!(n.load(Ordering::SeqCst), 1);
        ask(&stored, &store, &n, Keep::Never).await;
        assert_eq!(
            n.load(Ordering::SeqCst),
            2,
            "once it is over, the next caller computes"
        );
        assert_eq!(stored.kept.flights(), 0);
    }

    #[tokio::test]
    async fn views_do_not_share_answers() {
        let (store, _dir) = file_store().await;
        let stored = Stored::default();
        for (view, summary) in [("kid", "kid's"), ("owner", "owner's")] {
            stored
                .answer(store.version(), "tool", v(view), || async {
                    Ok((Output::new(summary, json!(1)), Keep::WhileUnchanged))
                })
                .await
                .unwrap();
        }
        let kid = stored
            .answer(store.version(), "tool", v("kid"), || async {
                Ok((
                    Output::new("computed again", json!(1)),
                    Keep::WhileUnchanged,
                ))
            })
            .await
            .unwrap();
        assert_eq!(kid.summary, "kid's");
    }

    #[tokio::test]
    async fn an_answer_is_never_served_to_an_authority_that_differs_in_any_field() {
        let (store, _dir) = file_store().await;
        let (stored, n) = (Stored::default(), AtomicUsize::new(0));
        let ask_as = |authority: Authority| {
            let (stored, store, n) = (&stored, &store, &n);
            async move {
                let view = View::new(&Arc::new(authority), "page");
                stored
                    .answer(store.version(), "tool", view, || async {
                        n.fetch_add(1, Ordering::SeqCst);
                        Ok((Output::new("answer", json!(1)), Keep::WhileUnchanged))
                    })
                    .await
                    .unwrap();
                n.load(Ordering::SeqCst)
            }
        };
        assert_eq!(ask_as(owner()).await, 1);
        let mut other_key = owner();
        other_key.key_id = "k2".into();
        assert_eq!(
            ask_as(other_key).await,
            1,
            "another key of the same authority"
        );
        let mut changes: Vec<(&str, Authority)> = Vec::new();
        let mut a = owner();
        a.grant.revision = 2;
        changes.push(("grant revision", a));
        let mut a = owner();
        a.grant.capabilities.insert(Capability::AuditRead);
        changes.push(("capabilities, same revision", a));
        let mut a = owner();
        a.person.limits.blocked_genres = vec!["Horror".into()];
        changes.push(("person's limits", a));
        let mut a = owner();
        a.person.role = Role::Kid;
        changes.push(("person's role", a));
        let mut a = owner();
        a.grant.id = 2;
        changes.push(("another grant", a));
        let mut a = owner();
        a.person.id = PersonId(2);
        changes.push(("another person", a));
        for (i, (what, authority)) in changes.into_iter().enumerate() {
            assert_eq!(ask_as(authority).await, i + 2, "{what}: computed for it");
        }
    }

    #[tokio::test]
    async fn an_in_memory_store_keeps_nothing() {
        let store = Store::open_in_memory().await.unwrap();
        let (stored, n) = (Stored::default(), AtomicUsize::new(0));
        ask(&stored, &store, &n, Keep::WhileUnchanged).await;
        ask(&stored, &store, &n, Keep::WhileUnchanged).await;
        assert_eq!(n.load(Ordering::SeqCst), 2);
    }
}
