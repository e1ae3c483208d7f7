//! A call's owned handle for questions to the person behind the client (elicitation), in
//! either protocol era: legacy clients are asked `elicitation/create` on the call's own stream
//! and answer on a later message; a 2026-07-28 call ends with an `input_required` result and
//! the client calls again carrying the answers. Stateless either way: on a retry the call runs
//! again from the start and finds its answers waiting.
//!
//! The retry's answers (`inputResponses`, and the earlier rounds' answers the server echoed in
//! `requestState`) come from the client, so they are treated as input, never as trusted
//! state: the host checks every answer against the choices it offers on this run.

use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::{Map, Value, json};

use crate::{
    AskError, Era, Peers, RenderedResult,
    context::{Outbox, ask_on},
};

/// Made by [`crate::Context::asker`] for a call that may ask.
pub struct Asker {
    era: Era,
    owner: u64,
    peers: Option<Arc<Peers>>,
    out: Option<Outbox>,
    /// The client declared the `elicitation` capability (in `initialize`, or in this
    /// request's `_meta`).
    can_elicit: bool,
    /// 2026-07-28: answers carried by this retry, by question key.
    answers: Map<String, Value>,
    /// 2026-07-28: questions this run could not get answered; they go back to the client.
    pending: Mutex<Map<String, Value>>,
}

impl Asker {
    pub(crate) fn new(
        era: Era,
        owner: u64,
        peers: Option<Arc<Peers>>,
        out: Option<Outbox>,
        can_elicit: bool,
        answers: Map<String, Value>,
    ) -> Asker {
        Asker {
            era,
            owner,
            peers,
            out,
            can_elicit,
            answers,
            pending: Mutex::new(Map::new()),
        }
    }

    /// Asks the person to fill `schema` (a flat elicitation form) and returns the client's
    /// `ElicitResult` (`action`, `content`). `key` names the question within the call: a
    /// 2026-07-28 retry carries its answer under it. `Err(AskError::Pending)`: the question
    /// goes back to the client with this call's answer ([`Asker::input_required`]).
    pub async fn elicit(
        &self,
        key: &str,
        message: &str,
        schema: Value,
    ) -> Result<Map<String, Value>, AskError> {
        let params = json!({ "mode": "form", "message": message, "requestedSchema": schema });
        match self.era {
            Era::Legacy => {
                let (Some(peers), Some(out)) = (&self.peers, &self.out) else {
                    return Err(AskError::Unsupported("elicitation"));
                };
                if !self.can_elicit {
                    return Err(AskError::Unsupported("elicitation"));
                }
                ask_on(peers, self.owner, out, "elicitation/create", params).await
            }
            Era::Modern => {
                if let Some(Value::Object(answer)) = self.answers.get(key) {
                    return Ok(answer.clone());
                }
                if !self.can_elicit {
                    return Err(AskError::Unsupported("elicitation"));
                }
                let request = json!({ "method": "elicitation/create", "params": params });
                self.pending.lock().insert(key.to_owned(), request);
                Err(AskError::Pending)
            }
        }
    }

    /// The `input_required` result for the questions this call left open, if any: each
    /// question, and as `requestState` the answers already given, so that a later round
    /// (whose retry carries only its own answers) still has them.
    pub fn input_required(&self) -> Option<RenderedResult> {
        let pending = std::mem::take(&mut *self.pending.lock());
        if pending.is_empty() {
            return None;
        }
        let state = serde_json::to_string(&self.answers).unwrap_or_default();
        Some(RenderedResult::input_required(
            &Value::Object(pending),
            (!self.answers.is_empty()).then_some(state.as_str()),
        ))
    }
}

/// The answers a 2026-07-28 retry carries: those echoed in `requestState` (written by
/// [`Asker::input_required`]), then `inputResponses`, which win. Anything unreadable counts as
/// no answer: the question is simply asked again.
pub(crate) fn answers(params: &Map<String, Value>) -> Map<String, Value> {
    let mut answers = params
        .get("requestState")
        .and_then(Value::as_str)
        .and_then(|s| serde_json::from_str::<Map<String, Value>>(s).ok())
        .unwrap_or_default();
    if let Some(Value::Object(given)) = params.get("inputResponses") {
        answers.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    answers.retain(|_, v| v.is_object());
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_retry_keeps_the_earlier_rounds_answers_and_the_new_ones_win() {
        let state = json!({ "title": { "action": "accept", "content": { "choice": "a" } },
            "seasons": { "action": "decline" } })
        .to_string();
        let got = answers(&params(json!({
            "requestState": state,
            "inputResponses": { "seasons": { "action": "accept", "content": { "choice": "all" } },
                "junk": 3 },
        })));
        assert_eq!(got["title"]["content"]["choice"], "a");
        assert_eq!(got["seasons"]["content"]["choice"], "all");
        assert!(!got.contains_key("junk"));
        assert!(answers(&params(json!({ "requestState": "not json" }))).is_empty());
    }

    #[tokio::test]
    async fn a_modern_question_without_an_answer_goes_back_with_the_answers_so_far() {
        let given = answers(&params(json!({
            "inputResponses": { "title": { "action": "accept", "content": { "choice": "a" } } },
        })));
        let asker = Asker::new(Era::Modern, 1, None, None, true, given);
        let title = asker.elicit("title", "Which?", json!({})).await.unwrap();
        assert_eq!(title["content"]["choice"], "a");
        assert_eq!(
            asker.elicit("seasons", "Which seasons?", json!({})).await,
            Err(AskError::Pending)
        );
        let result: Value = serde_json::from_str(&asker.input_required().unwrap().json()).unwrap();
        assert_eq!(
            result["inputRequests"]["seasons"]["method"],
            "elicitation/create"
        );
        let state: Value = serde_json::from_str(result["requestState"].as_str().unwrap()).unwrap();
        assert_eq!(state["title"]["content"]["choice"], "a");
    }

    #[tokio::test]
    async fn a_client_without_elicitation_cannot_be_asked() {
        let asker = Asker::new(Era::Modern, 1, None, None, false, Map::new());
        assert_eq!(
            asker.elicit("k", "Which?", json!({})).await,
            Err(AskError::Unsupported("elicitation"))
        );
        assert!(asker.input_required().is_none());
        let legacy = Asker::new(Era::Legacy, 1, None, None, true, Map::new());
        assert_eq!(
            legacy.elicit("k", "Which?", json!({})).await,
            Err(AskError::Unsupported("elicitation"))
        );
    }
}
