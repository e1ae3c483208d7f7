//! Answers of the builtin catalogue, kept and handed out again rendered once. Its data never
//! changes while the process runs, so an answer is a pure function of the question and of the
//! caller's content limits, and both are the key: a kid and the owner asking the same question
//! never share an answer, nor do two people whose limits differ. Failures are not kept.

use std::future::Future;

use parking_lot::Mutex;
use store::ContentLimits;

use super::limits::Gate;
use crate::{Ctx, Output, ToolError};

/// Answers kept per catalogue instance: enough for the broad questions a household repeats.
const KEPT: usize = 64;

#[derive(PartialEq, Eq)]
struct Key {
    tool: &'static str,
    /// The tool's whole parsed input, as its `Debug` writes it (every field of it).
    question: String,
    /// The limits the answer was filtered by; `None` when the caller's answers are not filtered.
    limits: Option<ContentLimits>,
}

/// Kept answers, most recently used first.
#[derive(Default)]
pub(crate) struct Kept {
    entries: Mutex<Vec<(Key, Output)>>,
}

impl Kept {
    /// The kept answer of `tool` to `question` for this caller, or `compute`'s, then kept.
    pub async fn answer<F, Fut>(
        &self,
        ctx: &Ctx,
        tool: &'static str,
        question: String,
        compute: F,
    ) -> Result<Output, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Output, ToolError>>,
    {
        let limits =
            Gate::for_caller_would_filter(ctx).then(|| ctx.caller.authority.person.limits.clone());
        let key = Key {
            tool,
            question,
            limits,
        };
        if let Some(hit) = self.get(&key) {
            return Ok(hit);
        }
        let out = compute().await?.shared();
        let mut entries = self.entries.lock();
        entries.retain(|(k, _)| *k != key);
        entries.insert(0, (key, out.clone()));
        entries.truncate(KEPT);
        Ok(out)
    }

    fn get(&self, key: &Key) -> Option<Output> {
        let mut entries = self.entries.lock();
        let at = entries.iter().position(|(k, _)| k == key)?;
        let entry = entries.remove(at);
        let out = entry.1.clone();
        entries.insert(0, entry);
        Some(out)
    }
}
