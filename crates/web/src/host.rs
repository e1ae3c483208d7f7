//! The bridge between the MCP edge and the tools: turns tool declarations into MCP tool
//! definitions once, and tool outcomes into MCP results.

use std::{collections::HashMap, sync::Arc, time::Duration};

use mcp::{
    HostError, ListedTool, ServerIdentity, ToolHost,
    model::{
        CallToolResult, ContentBlock, ErrorData, JsonObject, ReadResourceResult, Resource,
        ResourceContents, ResourceTemplate, Tool, ToolAnnotations,
    },
};
use policy::Effect;
use serde_json::Value;
use tools::{App, Called, Caller, ToolView, guides::Topic};

use crate::Metrics;

/// The tool host behind every surface.
pub struct Host {
    pub app: App,
    identity: ServerIdentity,
    metrics: Arc<Metrics>,
    /// MCP definitions of every tool, built once.
    defs: HashMap<&'static str, Arc<ListedTool>>,
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
        }
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

/// Summary first, then the JSON envelope; the envelope also as structuredContent.
pub fn render(outcome: Result<tools::Output, tools::ToolError>) -> CallToolResult {
    let (summary, envelope, is_error) = match outcome {
        Ok(out) => (out.summary.clone(), out.into_envelope(), false),
        Err(e) => (e.message.clone(), e.envelope(), true),
    };
    let json = serde_json::to_string(&envelope).unwrap_or_default();
    let content = vec![ContentBlock::text(summary), ContentBlock::text(json)];
    let mut result = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = Some(envelope);
    result
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
        let names = self
            .app
            .visible(caller)
            .await
            .map_err(|e| HostError(e.to_string()))?;
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
    ) -> Result<CallToolResult, ErrorData> {
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

    fn observe(&self, method: &str, status: u16, elapsed: Duration) {
        self.metrics.request(method, status, elapsed);
    }
}

/// `Value` of a tool's MCP definition, for the REST mirror and the snapshot.
pub fn definition_json(tool: &Tool) -> Value {
    serde_json::to_value(tool).unwrap_or_default()
}
