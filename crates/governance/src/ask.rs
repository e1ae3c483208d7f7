//! Asking the person behind the client to choose, when a call is ambiguous (which seasons,
//! which of several titles). The protocol edge implements [`Ask`] (elicitation, or a
//! 2026-07-28 input-required result); tools never see the wire. A client that cannot answer
//! gets a tool error listing the choices, so the model can ask in chat and call again with
//! the argument named. An answer is a choice among values the tool offered, validated like any
//! input; it is never an approval of anything.

use std::{future::Future, pin::Pin};

use serde_json::{Value, json};

use crate::{ErrorCode, ToolError};

/// One question: a message for the person and the values they may pick.
#[derive(Clone, Debug)]
pub struct Question {
    /// Names the question within its tool: a 2026-07-28 retry carries the answer under it.
    pub key: &'static str,
    /// The argument the answer stands for, so a model can name it on a direct call.
    pub argument: &'static str,
    /// One sentence for the person.
    pub message: String,
    /// What may be picked, best first; never empty.
    pub choices: Vec<Choice>,
}

/// One value a question offers.
#[derive(Clone, Debug)]
pub struct Choice {
    /// What the answer carries back.
    pub value: String,
    /// What the person reads.
    pub label: String,
    /// What a model needs to make the same choice with a direct call (ids, title, year).
    pub data: Value,
}

/// What the person did with a question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Chose(String),
    Declined,
    Cancelled,
}

/// Why a question got no reply on this call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unanswered {
    /// The client cannot answer questions (it declared no elicitation, or the call was not
    /// streamed).
    Unsupported,
    /// 2026-07-28: the question went back as an input-required result; the client asks the
    /// person and calls again with the answer. This call ends having done nothing.
    Sent,
    /// No answer came in time.
    TimedOut,
    /// The client answered with an error.
    Failed(String),
}

/// Where a call's questions go while it runs.
pub trait Ask: Send + Sync {
    fn ask<'a>(
        &'a self,
        question: &'a Question,
    ) -> Pin<Box<dyn Future<Output = Result<Reply, Unanswered>> + Send + 'a>>;
}

impl Question {
    /// The choices as a model reads them in an error: `value (label)`.
    fn listed(&self) -> String {
        let shown: Vec<String> = self
            .choices
            .iter()
            .map(|c| {
                if c.label == c.value {
                    c.value.clone()
                } else {
                    format!("{} ({})", c.value, c.label)
                }
            })
            .collect();
        shown.join(", ")
    }

    fn data(&self) -> Value {
        let choices: Vec<Value> = self
            .choices
            .iter()
            .map(|c| {
                let mut v = c.data.clone();
                if let Value::Object(m) = &mut v {
                    m.insert("value".into(), c.value.clone().into());
                    m.insert("label".into(), c.label.clone().into());
                }
                v
            })
            .collect();
        json!({ "question": self.message, "argument": self.argument, "choices": choices })
    }

    /// The refusal for a client that cannot answer: the question and every choice, so the
    /// model can ask in chat and call again naming the argument.
    pub fn unanswerable(&self, why: &str) -> ToolError {
        ToolError::new(
            ErrorCode::ChoiceNeeded,
            format!(
                "{} {why}; nothing was done; ask the person and call again with {}; choices: {}",
                self.message,
                self.argument,
                self.listed()
            ),
        )
        .with_data(self.data())
    }

    /// Checks a reply: a value outside the choices is refused like a bad argument.
    pub fn check(&self, reply: Reply) -> Result<&Choice, ToolError> {
        match reply {
            Reply::Chose(value) => self
                .choices
                .iter()
                .find(|c| c.value == value)
                .ok_or_else(|| {
                    ToolError::invalid(format!(
                        "the answer \"{}\" is not one of the choices; nothing was done; choices: {}",
                        value.chars().take(80).collect::<String>(),
                        self.listed()
                    ))
                }),
            Reply::Declined => Err(ToolError::new(
                ErrorCode::Declined,
                "the person declined to choose; nothing was done",
            )),
            Reply::Cancelled => Err(ToolError::new(
                ErrorCode::Declined,
                "the person cancelled the question; nothing was done",
            )),
        }
    }

    /// What a call that got no reply answers.
    pub fn unanswered(&self, why: Unanswered) -> ToolError {
        match why {
            Unanswered::Unsupported => self.unanswerable("(this client cannot ask the person)"),
            Unanswered::TimedOut => self.unanswerable("(no answer came in time)"),
            Unanswered::Failed(e) => self.unanswerable(&format!(
                "(the client could not ask: {})",
                e.chars().take(120).collect::<String>()
            )),
            Unanswered::Sent => ToolError::new(
                ErrorCode::InputRequired,
                format!(
                    "waiting for the person's answer: {} Nothing was done yet.",
                    self.message
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seasons() -> Question {
        Question {
            key: "seasons",
            argument: "seasons or season_scope",
            message: "Which seasons of Bluey (2018)?".into(),
            choices: vec![
                Choice {
                    value: "all".into(),
                    label: "all 3 seasons".into(),
                    data: json!({ "season_scope": "all" }),
                },
                Choice {
                    value: "2".into(),
                    label: "2".into(),
                    data: json!({ "seasons": [2] }),
                },
            ],
        }
    }

    #[test]
    fn an_answer_outside_the_choices_is_refused() {
        let e = seasons().check(Reply::Chose("7".into())).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert_eq!(
            e.message,
            "the answer \"7\" is not one of the choices; nothing was done; choices: all (all 3 seasons), 2"
        );
        assert_eq!(
            seasons().check(Reply::Chose("2".into())).unwrap().value,
            "2"
        );
    }

    #[test]
    fn declining_or_cancelling_does_nothing() {
        for reply in [Reply::Declined, Reply::Cancelled] {
            let e = seasons().check(reply).unwrap_err();
            assert_eq!(e.code, ErrorCode::Declined);
            assert!(e.message.ends_with("nothing was done"), "{}", e.message);
        }
    }

    #[test]
    fn a_client_that_cannot_answer_gets_every_choice() {
        let e = seasons().unanswered(Unanswered::Unsupported);
        assert_eq!(e.code, ErrorCode::ChoiceNeeded);
        assert_eq!(
            e.message,
            "Which seasons of Bluey (2018)? (this client cannot ask the person); nothing was done; ask the person and call again with seasons or season_scope; choices: all (all 3 seasons), 2"
        );
        let data = seasons().data();
        assert_eq!(
            data["choices"][0],
            json!({ "season_scope": "all", "value": "all", "label": "all 3 seasons" })
        );
    }
}
