//! Catalogue answers, kept and handed out again rendered once. An answer is a function of the
//! question and of the caller's content limits, and both are the key: a kid and the owner asking
//! the same question never share an answer, nor do two people whose limits differ. The builtin
//! catalogue's data never changes while the process runs, so its answers are kept for good; a
//! remote catalogue's (TMDB, MusicBrainz) for a while ([`REMOTE_FOR`]), so a household's repeated
//! broad questions do not each cost an upstream request (MusicBrainz allows one a second).
//! Failures are not kept. Callers asking the same question while its answer is read wait for
//! that one read.

use std::{
    future::Future,
    hash::{Hash, Hasher},
    time::Duration,
};

use store::ContentLimits;

use governance::{Output, ToolError};

/// Answers kept per catalogue instance: enough for the broad questions a household repeats.
const KEPT: usize = 64;

/// How long a remote catalogue's answer is handed out again: long enough that a busy evening's
/// repeated questions are answered from memory, short enough that new titles and ratings show
/// up the same day.
pub(crate) const REMOTE_FOR: Duration = Duration::from_secs(10 * 60);

#[derive(Clone, PartialEq, Eq)]
struct Key {
    tool: &'static str,
    /// The tool's whole parsed input, as its `Debug` writes it (every field of it).
    question: String,
    /// The limits the answer was filtered by; `None` when the caller's answers are not filtered.
    limits: Option<ContentLimits>,
}

/// Hashes the tool and the question alone: keys that differ only in limits share a bucket and
/// are told apart by `Eq`, so equal keys still hash equally.
impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.tool.hash(h);
        self.question.hash(h);
    }
}

/// Kept answers, the least recently used given up first when full. The catalogue's data has
/// no version: the token is `()`, and a remote answer's time limit is what lets it go.
pub(crate) struct Kept {
    answers: ::kept::Kept<Key, (), Output, ToolError>,
}

impl Kept {
    /// Answers kept for as long as the process runs (a catalogue whose data never changes).
    pub fn forever() -> Kept {
        Kept {
            answers: ::kept::Kept::new(KEPT),
        }
    }

    /// Answers kept for `keep_for` after they were read.
    pub fn for_a_while(keep_for: Duration) -> Kept {
        Kept {
            answers: ::kept::Kept::new(KEPT).with_time_limit(keep_for),
        }
    }

    /// The kept answer of `tool` to `question` for a caller filtered by `limits` (`None`: not
    /// filtered), or `compute`'s, then kept.
    pub async fn answer<F, Fut>(
        &self,
        tool: &'static str,
        question: String,
        limits: Option<ContentLimits>,
        compute: F,
    ) -> Result<Output, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Output, ToolError>>,
    {
        let key = Key {
            tool,
            question,
            limits,
        };
        self.answers
            .get_or_compute(key, (), || async {
                Ok((compute().await?.shared(), ::kept::Keep::Yes))
            })
            .await
    }

    /// How many answers are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.answers.len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Asks `kept` the question "q" as `limits`, counting the computations in `computed`.
    async fn ask(kept: &Kept, limits: Option<ContentLimits>, computed: &AtomicUsize) -> String {
        let out = kept
            .answer("search_titles", "q".into(), limits, || async {
                let n = computed.fetch_add(1, Ordering::SeqCst);
                Ok(Output::new(format!("answer {n}"), serde_json::json!({})))
            })
            .await;
        out.expect("the answer").summary
    }

    #[tokio::test(start_paused = true)]
    async fn a_remote_answer_is_handed_out_again_until_it_expires() {
        let kept = Kept::for_a_while(REMOTE_FOR);
        let computed = AtomicUsize::new(0);
        assert_eq!(ask(&kept, None, &computed).await, "answer 0");
        tokio::time::advance(REMOTE_FOR - Duration::from_secs(1)).await;
        assert_eq!(ask(&kept, None, &computed).await, "answer 0");
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(ask(&kept, None, &computed).await, "answer 1");
        assert_eq!(ask(&kept, None, &computed).await, "answer 1");
    }

    #[tokio::test(start_paused = true)]
    async fn a_builtin_answer_never_expires() {
        let kept = Kept::forever();
        let computed = AtomicUsize::new(0);
        assert_eq!(ask(&kept, None, &computed).await, "answer 0");
        tokio::time::advance(Duration::from_secs(30 * 24 * 3600)).await;
        assert_eq!(ask(&kept, None, &computed).await, "answer 0");
    }

    #[tokio::test(start_paused = true)]
    async fn answers_are_kept_apart_by_the_callers_limits() {
        let kept = Kept::for_a_while(REMOTE_FOR);
        let computed = AtomicUsize::new(0);
        let pg = ContentLimits {
            max_movie_cert: Some("PG".into()),
            ..ContentLimits::default()
        };
        assert_eq!(ask(&kept, None, &computed).await, "answer 0");
        assert_eq!(ask(&kept, Some(pg.clone()), &computed).await, "answer 1");
        assert_eq!(ask(&kept, None, &computed).await, "answer 0");
        assert_eq!(ask(&kept, Some(pg), &computed).await, "answer 1");
    }

    /// Asks `kept` the question `q` (no limits); whether it was computed afresh.
    async fn computes(kept: &Kept, q: &str) -> bool {
        let computed = AtomicUsize::new(0);
        kept.answer("search_titles", q.into(), None, || async {
            computed.fetch_add(1, Ordering::SeqCst);
            Ok(Output::new(q, serde_json::json!({})))
        })
        .await
        .expect("the answer");
        computed.load(Ordering::SeqCst) == 1
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_store_gives_up_the_least_recently_used_answer() {
        let kept = Kept::forever();
        for i in 0..KEPT {
            assert!(computes(&kept, &format!("q{i}")).await);
        }
        // q0 is the oldest kept, but asking it again makes q1 the least recently used.
        assert!(!computes(&kept, "q0").await);
        assert!(computes(&kept, "new").await);
        assert_eq!(kept.len(), KEPT);
        assert!(
            !computes(&kept, "q0").await,
            "q0 was used recently and stays"
        );
        assert!(!computes(&kept, "new").await);
        assert!(!computes(&kept, "q2").await);
        assert!(
            computes(&kept, "q1").await,
            "q1 was the least recently used, given up"
        );
        assert_eq!(kept.len(), KEPT);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failure_is_not_kept() {
        let kept = Kept::forever();
        let failed = kept
            .answer("search_titles", "q".into(), None, || async {
                Err(ToolError::new(
                    governance::ErrorCode::BackendUnavailable,
                    "down",
                ))
            })
            .await;
        assert!(failed.is_err());
        let computed = AtomicUsize::new(0);
        assert_eq!(ask(&kept, None, &computed).await, "answer 0");
    }
}
