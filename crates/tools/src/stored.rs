//! Answers read from the store, kept while the database is unchanged and handed out again,
//! rendered once.
//!
//! Such an answer is a function of the question, the caller's view (who asks, and whether
//! they see everyone's rows) and the database's state. The state is [`store::Store::version`],
//! which every commit changes, by this process or any other on the same file (the CLI), and
//! which is read before the data: a commit racing the read can only cause a miss. An answer
//! that also reads the clock (a quota window) says until when it holds; one that read a live
//! backend is not kept. Without a version (an in-memory store) nothing is kept. Callers that
//! ask the same question under the same state while its answer is computed wait for that one
//! computation (single flight) instead of starting their own.

use std::{fmt::Debug, future::Future, sync::Arc};

use parking_lot::Mutex;
use store::{Store, Version};
use tokio::sync::OnceCell;

use crate::{Ctx, Output, ToolError};

/// Answers kept in all: a household's repeated pages, per person. A 200-row page is about
/// 120 KB, and its rendered form is kept with it: this bounds the memory to a few dozen MB.
const KEPT: usize = 32;

/// How long a computed answer may be handed out again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Until the database changes.
    WhileUnchanged,
    /// Until the database changes or this instant (unix ms) comes, whichever is first.
    Before(i64),
    /// Not again: it read something besides the store (a live backend).
    Never,
}

/// A kept answer's view: the caller's person and grant as this call's authority holds them,
/// then `question` (the tool's parsed input and anything else its answer depends on). The
/// whole authority is part of it because the authority may have been read under an older
/// version than the data: an answer computed for it must never serve a newer one.
pub(crate) fn view(ctx: &Ctx, question: impl Debug) -> String {
    let authority = &ctx.caller.authority;
    format!("{:?}|{:?}|{question:?}", authority.person, authority.grant)
}

#[derive(Clone, PartialEq, Eq)]
struct Key {
    tool: &'static str,
    /// The caller's view and the whole parsed input, written out (see the tools).
    view: String,
}

struct Entry {
    key: Key,
    version: Version,
    /// `Keep::Before`'s instant.
    before: Option<i64>,
    answer: Output,
}

/// What one computation of an answer gave, for every caller that waited for it.
type Computed = Result<(Output, Keep), ToolError>;

/// A computation under way: its question, the database state it reads, and its answer to be.
type Flight = (Key, Version, Arc<OnceCell<Computed>>);

/// Kept answers, most recently used first, and the computations under way.
#[derive(Default)]
pub(crate) struct Stored {
    entries: Mutex<Vec<Entry>>,
    /// One computation per question and database state at a time (single flight): callers
    /// asking the same while it runs wait for it and get its answer, even one not kept.
    flights: Mutex<Vec<Flight>>,
}

impl Stored {
    /// The kept answer of `tool` for `view`, or `compute`'s, kept as it says (failures are not).
    /// Callers asking the same question while `compute` runs share its answer.
    pub async fn answer<F, Fut>(
        &self,
        store: &Store,
        tool: &'static str,
        view: String,
        compute: F,
    ) -> Result<Output, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Computed>,
    {
        let Some(version) = store.version() else {
            return compute().await.map(|(answer, _)| answer);
        };
        let key = Key { tool, view };
        if let Some(hit) = self.get(&key, version, chrono::Utc::now().timestamp_millis()) {
            return Ok(hit);
        }
        let flight = {
            let mut flights = self.flights.lock();
            match flights.iter().find(|(k, v, _)| *k == key && *v == version) {
                Some((.., f)) => f.clone(),
                None => {
                    // A flight of an older state that every caller left is of no more use.
                    flights.retain(|(_, v, _)| *v == version);
                    let f = Arc::new(OnceCell::new());
                    flights.push((key.clone(), version, f.clone()));
                    f
                }
            }
        };
        let computed = flight
            .get_or_init(|| async {
                let computed = compute().await;
                match computed {
                    Ok((answer, keep)) => Ok((self.keep(&key, version, answer, keep), keep)),
                    Err(e) => Err(e),
                }
            })
            .await
            .clone();
        // Kept (or not) before the flight ends, so a caller coming later finds the answer.
        self.flights
            .lock()
            .retain(|(.., f)| !Arc::ptr_eq(f, &flight));
        computed.map(|(answer, _)| answer)
    }

    /// Keeps `answer` as `keep` says; returns the answer to hand out.
    fn keep(&self, key: &Key, version: Version, answer: Output, keep: Keep) -> Output {
        let before = match keep {
            Keep::Never => return answer,
            Keep::WhileUnchanged => None,
            Keep::Before(at) => Some(at),
        };
        let answer = answer.shared();
        let mut entries = self.entries.lock();
        // Answers of an older state can never be handed out again: let them go now.
        entries.retain(|e| e.key != *key && e.version == version);
        entries.insert(
            0,
            Entry {
                key: key.clone(),
                version,
                before,
                answer: answer.clone(),
            },
        );
        entries.truncate(KEPT);
        answer
    }

    /// The answer kept for `key` under `version`, still good at `now`; a stale one is dropped.
    fn get(&self, key: &Key, version: Version, now: i64) -> Option<Output> {
        let mut entries = self.entries.lock();
        let at = entries.iter().position(|e| e.key == *key)?;
        let entry = entries.remove(at);
        if entry.version != version || entry.before.is_some_and(|before| now >= before) {
            return None;
        }
        let answer = entry.answer.clone();
        entries.insert(0, entry);
        Some(answer)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;

    use super::*;

    /// Asks `stored` for one answer that `keep` says how to keep; counts the computations.
    async fn ask(stored: &Stored, store: &Store, n: &AtomicUsize, keep: Keep) -> Output {
        stored
            .answer(store, "tool", "view".into(), || async {
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
                .answer(&store, "tool", view.into(), || async {
                    Ok((Output::new(view, json!(1)), Keep::WhileUnchanged))
                })
                .await
                .unwrap();
        }
        assert_eq!(stored.entries.lock().len(), 2);
        store.set_tool_switch("whoami", false).await.unwrap();
        stored
            .answer(&store, "tool", "c".into(), || async {
                Ok((Output::new("c", json!(1)), Keep::WhileUnchanged))
            })
            .await
            .unwrap();
        let views: Vec<String> = stored
            .entries
            .lock()
            .iter()
            .map(|e| e.key.view.clone())
            .collect();
        assert_eq!(views, ["c"]);
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
            view: "view".into(),
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
            .answer(&store, "tool", "failing".into(), || async {
                Err::<(Output, Keep), _>(ToolError::invalid("no"))
            })
            .await;
        assert!(failed.is_err());
        assert!(
            stored
                .entries
                .lock()
                .iter()
                .all(|e| e.key.view != "failing")
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
            stored.answer(&store, "tool", "view".into(), slow),
            stored.answer(&store, "tool", "view".into(), slow)
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
        assert!(stored.flights.lock().is_empty());
    }

    #[tokio::test]
    async fn views_do_not_share_answers() {
        let (store, _dir) = file_store().await;
        let stored = Stored::default();
        for (view, summary) in [("kid", "kid's"), ("owner", "owner's")] {
            stored
                .answer(&store, "tool", view.into(), || async {
                    Ok((Output::new(summary, json!(1)), Keep::WhileUnchanged))
                })
                .await
                .unwrap();
        }
        let kid = stored
            .answer(&store, "tool", "kid".into(), || async {
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
    async fn an_in_memory_store_keeps_nothing() {
        let store = Store::open_in_memory().await.unwrap();
        let (stored, n) = (Stored::default(), AtomicUsize::new(0));
        ask(&stored, &store, &n, Keep::WhileUnchanged).await;
        ask(&stored, &store, &n, Keep::WhileUnchanged).await;
        assert_eq!(n.load(Ordering::SeqCst), 2);
    }
}
