//! `get_guide`: how Marquee works, by topic; the same text as the `marquee://guides/{topic}` resources.

use std::sync::LazyLock;

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::guides::Topic;
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetGuide;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// setup, permissions or troubleshooting.
    pub topic: Topic,
}

impl Tool for GetGuide {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Guide<'static>>);
    const META: Meta = Meta {
        name: "get_guide",
        title: "Read a guide",
        description: "Returns a short guide: setup (first start, people, keys, backends), permissions (roles, grants, switches, audit) or troubleshooting (what errors mean and what to do).",
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

    async fn run(&self, _ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        Ok(ANSWERS[input.topic as usize].clone())
    }
}

/// Each topic's answer (in [`Topic::ALL`]'s order, which is the declaration order, so a
/// topic's discriminant is its index: see the test), made once: the guides are part of the
/// build, so the answer is the same for everyone, and its rendered form is shared.
static ANSWERS: LazyLock<[Output; 3]> = LazyLock::new(|| Topic::ALL.map(answer));

/// The answer's data: one guide, and the topics of the others.
#[derive(Serialize, JsonSchema)]
struct Guide<'a> {
    other_topics: Vec<&'a str>,
    /// The guide, in Markdown.
    text: &'a str,
    title: &'a str,
    topic: &'a str,
    /// The guide as a resource.
    uri: String,
}

fn answer(t: Topic) -> Output {
    let others: Vec<&str> = Topic::ALL
        .iter()
        .filter(|o| **o != t)
        .map(|o| o.name())
        .collect();
    let data = serde_json::to_value(Guide {
        other_topics: others,
        text: t.text(),
        title: t.title(),
        topic: t.name(),
        uri: t.uri(),
    })
    .unwrap_or_default();
    Output::new(
        format!("{}: the guide follows in data.text.", t.title()),
        data,
    )
    .shared()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_topic_finds_its_own_answer() {
        for t in Topic::ALL {
            let data = ANSWERS[t as usize].data();
            assert_eq!(data["topic"], t.name());
        }
    }
}
