//! `get_guide`: how Marquee works, by topic; the same text as the `marquee://guides/{topic}` resources.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::{Ctx, Meta, Output, Tool, ToolError, guides::Topic};

pub struct GetGuide;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// setup, permissions or troubleshooting.
    pub topic: Topic,
}

impl Tool for GetGuide {
    type Input = Input;
    const META: Meta = Meta {
        name: "get_guide",
        title: "Read a guide",
        description: "Returns a short guide: setup (first start, people, keys, backends), permissions (roles, grants, switches, audit) or troubleshooting (what errors mean and what to do).",
        effect: Effect::Read,
        capability: Capability::Discover,
        needs_plan: false,
        allowance: None,
    };

    async fn run(&self, _ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let t = input.topic;
        let others: Vec<&str> = Topic::ALL
            .iter()
            .filter(|o| **o != t)
            .map(|o| o.name())
            .collect();
        let data = json!({ "topic": t.name(), "title": t.title(), "uri": t.uri(), "text": t.text(), "other_topics": others });
        Ok(Output::new(
            format!("{}: the guide follows in data.text.", t.title()),
            data,
        ))
    }
}
