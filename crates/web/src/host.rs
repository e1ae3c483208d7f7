//! The bridge between the MCP edge and the tools: turns tool declarations into MCP tool
//! definitions once, and tool outcomes into MCP results.

use std::{collections::HashMap, sync::Arc, time::Duration};

use mcp::{
    Completing, CompletionTarget, Context, HostError, ListedTool, RenderedResult, ServerIdentity,
    ToolHost,
    model::{
        ErrorData, GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage,
        ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, Tool,
        ToolAnnotations,
    },
};
use policy::Effect;
use serde_json::{Value, json};
use tools::{
    App, Called, Caller, ToolView, completions::Target, guides::Topic, prompts::PromptSpec,
};

use crate::Metrics;

/// The tool host behind every surface.
pub struct Host {
    pub app: App,
    identity: ServerIdentity,
    metrics: Arc<Metrics>,
    /// MCP definitions of every tool, built once.
    defs: HashMap<&'static str, Arc<ListedTool>>,
    /// `[mcp] conformance_fixtures`: the suite's `test_*` fixtures are served too.
    fixtures: bool,
}

impl Host {
    pub fn new(app: App, metrics: Arc<Metrics>) -> Host {
        let defs = app
            .all_tools()
            .iter()
            .map(|v| (v.meta.name, Arc::new(ListedTool::new(definition(v)))))
            .collect();
        let identity = ServerIdentity {
            name: "marquee".into(),
            title: "Marquee".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            instructions: tools::INSTRUCTIONS.into(),
        };
        Host {
            app,
            identity,
            metrics,
            defs,
            fixtures: false,
        }
    }

    /// Serves the conformance suite's fixtures beside the tools (test servers only).
    pub fn with_conformance_fixtures(mut self, on: bool) -> Host {
        self.fixtures = on;
        self
    }

    /// The MCP definition of one tool, whoever asks.
    pub fn definition(&self, name: &str) -> Option<&Tool> {
        self.defs.get(name).map(|d| d.tool())
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

/// Annotations follow from the effect class.
pub fn annotations(effect: Effect, title: &str) -> ToolAnnotations {
    let (read_only, destructive, idempotent, open_world) = match effect {
        Effect::Read => (true, false, true, false),
        Effect::Write => (false, false, false, false),
        Effect::Destructive => (false, true, false, false),
        Effect::ExternalCost => (false, false, false, true),
    };
    ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(open_world)
}

fn definition(view: &ToolView) -> Tool {
    let m = view.meta;
    Tool::new(m.name, m.description, Arc::new(view.input_schema.clone()))
        .with_title(m.title)
        .with_raw_output_schema(Arc::new(tools::contract::output_schema()))
        .with_annotations(annotations(m.effect, m.title))
}

/// Summary first, then the JSON envelope as text; the same envelope as structuredContent.
/// The envelope is serialized once (and, for an answer a tool keeps, rendered once).
pub fn render(outcome: Result<tools::Output, tools::ToolError>) -> RenderedResult {
    match outcome {
        Ok(out) => out.rendered(|out| match out.envelope_json() {
            Ok(envelope) => RenderedResult::structured(&out.summary, envelope, false),
            Err(e) => failed(&e),
        }),
        Err(e) => failed(&e),
    }
}

fn failed(e: &tools::ToolError) -> RenderedResult {
    match e.envelope_json() {
        Some(envelope) => RenderedResult::structured(&e.message, envelope, true),
        None => RenderedResult::content(&[json!({ "type": "text", "text": e.message })], true),
    }
}

impl ToolHost for Host {
    type Caller = Caller;

    fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    async fn authenticate(&self, credential: &str) -> Result<Option<Caller>, HostError> {
        self.app
            .authenticate(credential)
            .await
            .map_err(|e| HostError(e.to_string()))
    }

    async fn authenticate_local(&self) -> Result<Option<Caller>, HostError> {
        self.app
            .authenticate_local()
            .await
            .map_err(|e| HostError(e.to_string()))
    }

    async fn list_tools(&self, caller: &Caller) -> Result<Arc<[Arc<ListedTool>]>, HostError> {
        let names = self.app.visible(caller);
        Ok(names
            .iter()
            .filter_map(|n| self.defs.get(n).cloned())
            .collect())
    }

    async fn call_tool(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Option<JsonObject>,
        _cx: &Context<'_>,
    ) -> Result<RenderedResult, ErrorData> {
        match self.app.call(caller, name, arguments).await {
            Called::UnknownTool => {
                self.metrics.tool_call("-", "unknown_tool");
                Err(ErrorData::invalid_params(
                    format!(
                        "unknown tool: {}",
                        name.chars().take(64).collect::<String>()
                    ),
                    None,
                ))
            }
            Called::Done(outcome) => {
                self.metrics
                    .tool_call(name, if outcome.is_ok() { "ok" } else { "error" });
                Ok(render(outcome))
            }
        }
    }

    fn list_resources(&self, _caller: &Caller) -> Vec<Resource> {
        Topic::ALL
            .iter()
            .map(|t| {
                let mut r = Resource::new(t.uri(), format!("guide-{}", t.name()))
                    .with_mime_type("text/markdown");
                r.title = Some(t.title().to_string());
                r.description = Some(format!("Marquee guide: {}", t.title()));
                r
            })
            .collect()
    }

    fn list_resource_templates(&self, _caller: &Caller) -> Vec<ResourceTemplate> {
        let mut t = ResourceTemplate::new("marquee://guides/{topic}", "guide")
            .with_mime_type("text/markdown");
        t.title = Some("Marquee guides".into());
        t.description = Some("Guides by topic: setup, permissions, troubleshooting".into());
        vec![t]
    }

    async fn read_resource(
        &self,
        _caller: &Caller,
        uri: &str,
    ) -> Result<Option<ReadResourceResult>, HostError> {
        Ok(Topic::from_uri(uri).map(|t| {
            let contents =
                ResourceContents::text(t.text(), t.uri()).with_mime_type("text/markdown");
            ReadResourceResult::new(vec![contents])
        }))
    }

    fn conformance_fixtures(&self) -> bool {
        self.fixtures
    }

    async fn list_prompts(&self, caller: &Caller) -> Result<Vec<Prompt>, HostError> {
        let usable = self
            .app
            .prompts(caller)
            .await
            .map_err(|e| HostError(e.to_string()))?;
        Ok(usable.into_iter().map(prompt_definition).collect())
    }

    async fn get_prompt(
        &self,
        caller: &Caller,
        name: &str,
        arguments: &JsonObject,
    ) -> Result<Option<GetPromptResult>, ErrorData> {
        let usable = self.app.prompts(caller).await.map_err(|e| {
            tracing::error!(error = %e, "prompts/get failed");
            ErrorData::internal_error("internal error; the server log has the details", None)
        })?;
        let Some(spec) = usable.into_iter().find(|p| p.name == name) else {
            return Ok(None);
        };
        let given: Vec<&str> = arguments.keys().map(String::as_str).collect();
        let value = |n: &str| arguments.get(n).and_then(Value::as_str).map(str::to_owned);
        let text = spec
            .render(value, &given)
            .map_err(|why| ErrorData::invalid_params(why, None))?;
        let message = PromptMessage::new_text(Role::User, text);
        Ok(Some(
            GetPromptResult::new(vec![message]).with_description(spec.description),
        ))
    }

    async fn complete(
        &self,
        caller: &Caller,
        completing: &Completing<'_>,
    ) -> Result<Vec<String>, HostError> {
        let target = match completing.target {
            CompletionTarget::Prompt(name) => Target::Prompt(name),
            CompletionTarget::Resource(uri) => Target::Resource(uri),
        };
        self.app
            .complete(caller, target, completing.argument, completing.value)
            .await
            .map_err(|e| HostError(e.to_string()))
    }

    fn observe(&self, method: &str, status: u16, elapsed: Duration) {
        self.metrics.request(method, status, elapsed);
    }
}

/// The MCP definition of a prompt.
fn prompt_definition(spec: &PromptSpec) -> Prompt {
    let arguments = spec
        .arguments
        .iter()
        .map(|a| {
            let mut arg = PromptArgument::new(a.name);
            arg.description = Some(a.description.into());
            arg.required = Some(a.required);
            arg
        })
        .collect::<Vec<_>>();
    let arguments = (!arguments.is_empty()).then_some(arguments);
    Prompt::new(spec.name, Some(spec.description), arguments).with_title(spec.title)
}

/// `Value` of a tool's MCP definition, for the REST mirror and the snapshot.
pub fn definition_json(tool: &Tool) -> Value {
    serde_json::to_value(tool).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn the_text_copy_is_the_envelope_escaped_and_the_result_is_a_call_tool_result() {
        let data = json!({
            "quote": "say \"hi\"", "path": "C:\\media\\films", "ctl": "a\u{1}b\nc",
            "unicode": "Amélie \u{2028} 東京", "rows": [1, 2.5, null, true],
        });
        let out = tools::Output::new("Found \"two\"\n", data.clone()).warn("w\\1");
        let envelope = out.envelope();
        let rendered = render(Ok(out));
        let v: Value = serde_json::from_str(&rendered.json()).unwrap();
        assert_eq!(v["content"][0]["text"], "Found \"two\"\n");
        let text: Value = serde_json::from_str(v["content"][1]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, envelope);
        assert_eq!(v["structuredContent"], envelope);
        assert_eq!(v["structuredContent"]["data"], data);
        assert_eq!(v["isError"], false);
        let model = rendered.to_model().unwrap();
        assert_eq!(model.structured_content, Some(envelope));
        let failed = render(Err(tools::ToolError::invalid("bad \"x\"")));
        let v: Value = serde_json::from_str(&failed.json()).unwrap();
        assert_eq!(v["isError"], true);
        assert_eq!(v["structuredContent"]["data"]["code"], "invalid_argument");
    }

    #[test]
    fn a_shared_answer_is_rendered_once_and_a_changed_one_again() {
        let kept = tools::Output::new("s", json!({"n": 1})).shared();
        let a = render(Ok(kept.clone()));
        let b = render(Ok(kept.clone()));
        assert_eq!(a.json(), b.json());
        let changed = render(Ok(kept.warn("new")));
        assert_ne!(changed.json(), a.json());
        assert!(changed.json().contains("\"warnings\":[\"new\"]"));
    }
}
