//! The bridge between the MCP edge and the tools: turns tool declarations into MCP tool
//! definitions once, and tool outcomes into MCP results.

use std::{collections::HashMap, future::Future, pin::Pin, sync::Arc, time::Duration};

use governance::{
    App, Called, Caller, ErrorKind, Line, ToolView,
    ask::{Question, Reply, Unanswered},
};
use mcp::{
    AskError, Asker, Completing, CompletionTarget, Context, HostError, ListedTool, LogLevel,
    Notifier, RenderedResult, ServerIdentity, Settle, TaskRecord, TaskSupport, ToolHost,
    model::{
        ErrorData, GetPromptResult, JsonObject, MetaObject, Prompt, PromptArgument, PromptMessage,
        ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, Tool,
        ToolAnnotations,
    },
};
use serde_json::{Value, json};
use tools::{completions::Target, guides::Topic, prompts::PromptSpec, views::View};

use crate::{Metrics, protocol_tasks};

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
    /// One of the build's own tools' definition.
    pub fn definition(&self, name: &str) -> Option<&Tool> {
        self.defs.get(name).map(|d| d.tool())
    }

    /// A tool's definition as `tools/list` gives it now: the build's own, or an external
    /// server's as the server describes it.
    pub fn definition_now(&self, name: &str) -> Option<Arc<ListedTool>> {
        self.listed(name)
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// A tool's listed definition: built once for the build's own tools; an external server's
    /// as the server describes it now.
    fn listed(&self, name: &str) -> Option<Arc<ListedTool>> {
        self.defs.get(name).cloned().or_else(|| {
            let view = self.app.tool_view(name)?;
            Some(Arc::new(ListedTool::new(definition(&view))))
        })
    }
}

/// The four annotations a tool declares (read-only and destructive from its effect, the
/// other two in its `Meta`).
pub fn annotations(meta: &tools::Meta) -> ToolAnnotations {
    let a = meta.annotations();
    ToolAnnotations::with_title(meta.title)
        .read_only(a.read_only)
        .destructive(a.destructive)
        .idempotent(a.idempotent)
        .open_world(a.open_world)
}

fn definition(view: &ToolView) -> Tool {
    let m = view.meta;
    let tool = Tool::new(m.name, m.description, Arc::new(view.input_schema.clone()))
        .with_title(m.title)
        .with_raw_output_schema(Arc::new(view.output_schema.clone()))
        .with_annotations(annotations(&m));
    match view.view {
        // MCP Apps (SEP-1865): `_meta.ui.resourceUri`, and the flat key hosts read before it.
        Some(v) => {
            let mut meta = JsonObject::new();
            meta.insert("ui".into(), json!({ "resourceUri": v.uri }));
            meta.insert("ui/resourceUri".into(), v.uri.into());
            tool.with_meta(MetaObject(meta))
        }
        None => tool,
    }
}

/// The MIME type of an MCP Apps HTML view.
pub const VIEW_MIME: &str = "text/html;profile=mcp-app";

/// A view as `resources/list` shows it.
fn view_resource(v: &View) -> Resource {
    let mut r = Resource::new(v.uri, v.name).with_mime_type(VIEW_MIME);
    r.title = Some(v.title.into());
    r.description = Some(v.description.into());
    r
}

/// A view as `resources/read` answers it: the page, and the image origins its CSP needs.
fn view_contents(v: &View) -> ResourceContents {
    let mut meta = JsonObject::new();
    meta.insert(
        "ui".into(),
        json!({ "csp": { "resourceDomains": v.image_origins }, "prefersBorder": false }),
    );
    ResourceContents::text(v.html, v.uri)
        .with_mime_type(VIEW_MIME)
        .with_meta(MetaObject(meta))
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

    async fn authenticate_bearer(
        &self,
        credential: &str,
        resource: &str,
    ) -> Result<Option<Caller>, HostError> {
        let found = if store::is_access_token(credential) {
            let resource = format!("{}{resource}", self.app.settings().public_url());
            self.app.authenticate_token(credential, &resource).await
        } else {
            self.app.authenticate(credential).await
        };
        found.map_err(|e| HostError(e.to_string()))
    }

    fn resource_metadata_url(&self, resource: &str) -> Option<String> {
        let base = self.app.settings().public_url();
        (!base.is_empty()).then(|| format!("{base}/.well-known/oauth-protected-resource{resource}"))
    }

    async fn authenticate_local(&self) -> Result<Option<Caller>, HostError> {
        self.app
            .authenticate_local()
            .await
            .map_err(|e| HostError(e.to_string()))
    }

    async fn list_tools(&self, caller: &Caller) -> Result<Arc<[Arc<ListedTool>]>, HostError> {
        let names = self.app.listed(caller);
        Ok(names.iter().filter_map(|n| self.listed(n)).collect())
    }

    async fn call_tool(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Option<JsonObject>,
        cx: &Context<'_>,
    ) -> Result<RenderedResult, ErrorData> {
        // Only a streamed call whose client asked for progress or log messages gets a line
        // back; the plain JSON path allocates nothing for it.
        let report = cx
            .notifier()
            .map(|n| Arc::new(Reporter(n)) as Arc<dyn tools::report::Report>);
        // Only a tool that may ask gets a line for questions.
        let asker = self.app.asks(name).then(|| Arc::new(Asking(cx.asker())));
        let line = Line {
            report,
            asker: asker.clone().map(|a| a as Arc<dyn tools::ask::Ask>),
        };
        match self.app.call_reporting(caller, name, arguments, line).await {
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
                let name = self.app.tool_label(name).unwrap_or("-");
                // 2026-07-28: a question the call could not get answered goes back to the
                // client as an input_required result; the call did nothing.
                if let Some(asking) = asker.and_then(|a| a.0.input_required()) {
                    self.metrics.tool_call(name, "input_required");
                    return Ok(asking);
                }
                self.metrics
                    .tool_call(name, if outcome.is_ok() { "ok" } else { "error" });
                Ok(render(outcome))
            }
        }
    }

    async fn list_resources(&self, caller: &Caller) -> Vec<Resource> {
        let external = tools::federated::list_resources(&self.app, caller).await;
        let views = self.app.visible_views(caller);
        let guides = Topic::ALL.iter().map(|t| {
            let mut r = Resource::new(t.uri(), format!("guide-{}", t.name()))
                .with_mime_type("text/markdown");
            r.title = Some(t.title().to_string());
            r.description = Some(format!("Marquee guide: {}", t.title()));
            r
        });
        guides
            .chain(views.into_iter().map(view_resource))
            .chain(external.into_iter().filter_map(from_external))
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
        caller: &Caller,
        uri: &str,
    ) -> Result<Option<ReadResourceResult>, ErrorData> {
        if let Some(answer) = tools::federated::read_resource(&self.app, caller, uri).await {
            // A server the caller may not reach has, for them, no such resource.
            return match answer {
                Ok(value) => serde_json::from_value(value).map(Some).map_err(|e| {
                    ErrorData::internal_error(
                        format!("the external server's resource is malformed: {e}"),
                        None,
                    )
                }),
                Err(e) if e.code.kind() == ErrorKind::Denied => Ok(None),
                Err(e) if matches!(e.code.kind(), ErrorKind::BadInput | ErrorKind::NotFound) => {
                    Err(ErrorData::invalid_params(e.message, None))
                }
                Err(e) => Err(ErrorData::internal_error(e.message, None)),
            };
        }
        if uri.starts_with("ui://") {
            // A view is served only to callers who can see a tool that shows it.
            let view = self
                .app
                .visible_views(caller)
                .into_iter()
                .find(|v| v.uri == uri);
            return Ok(view.map(|v| ReadResourceResult::new(vec![view_contents(v)])));
        }
        Ok(Topic::from_uri(uri).map(|t| {
            let contents =
                ResourceContents::text(t.text(), t.uri()).with_mime_type("text/markdown");
            ReadResourceResult::new(vec![contents])
        }))
    }

    fn conformance_fixtures(&self) -> bool {
        self.fixtures
    }

    fn streams(&self, tool: &str) -> bool {
        // A tool that may ask streams, so a legacy-era client can be asked on the way.
        self.app.is_long(tool) || self.app.asks(tool)
    }

    fn task_support(&self, tool: &str) -> TaskSupport {
        // Marquee's long tools, and every external server's (which may take any time).
        if self.app.is_long(tool) || self.app.is_external(tool) {
            TaskSupport::Optional {
                shortcut: mcp::SHORTCUT,
                stoppable: self.app.only_reads(tool),
            }
        } else {
            TaskSupport::Never
        }
    }

    fn keeps_tasks(&self) -> bool {
        true
    }

    async fn create_task(
        &self,
        caller: &Caller,
        tool: &str,
        stoppable: bool,
    ) -> Result<TaskRecord, HostError> {
        let person = caller.authority.person.id;
        let ttl = i64::try_from(mcp::TASK_TTL_MS).unwrap_or(i64::MAX);
        let task = self
            .app
            .store()
            .create_protocol_task(person, tool, stoppable, ttl)
            .await;
        task.map(protocol_tasks::record)
            .map_err(|e| HostError(e.to_string()))
    }

    async fn get_task(&self, caller: &Caller, id: &str) -> Result<Option<TaskRecord>, HostError> {
        let person = caller.authority.person.id;
        let stale = i64::try_from(mcp::STALE.as_millis()).unwrap_or(i64::MAX);
        let task = self
            .app
            .store()
            .protocol_task(person, id, stale, protocol_tasks::STOPPED)
            .await;
        task.map(|t| t.map(protocol_tasks::record))
            .map_err(|e| HostError(e.to_string()))
    }

    async fn settle_task(&self, id: &str, settle: Settle) -> Result<bool, HostError> {
        protocol_tasks::settle(self.app.store(), id, settle)
            .await
            .map_err(|e| HostError(e.to_string()))
    }

    async fn cancel_task(&self, caller: &Caller, id: &str) -> Result<Option<bool>, HostError> {
        let person = caller.authority.person.id;
        let cancelled = self.app.store().cancel_protocol_task(person, id).await;
        cancelled.map_err(|e| HostError(e.to_string()))
    }

    async fn list_prompts(&self, caller: &Caller) -> Result<Vec<Prompt>, HostError> {
        let usable = tools::prompts::usable(&self.app, caller);
        let external = tools::federated::list_prompts(&self.app, caller).await;
        Ok(usable
            .into_iter()
            .map(prompt_definition)
            .chain(external.into_iter().filter_map(from_external))
            .collect())
    }

    async fn get_prompt(
        &self,
        caller: &Caller,
        name: &str,
        arguments: &JsonObject,
    ) -> Result<Option<GetPromptResult>, ErrorData> {
        let given = Some(arguments.clone());
        if let Some(answer) = tools::federated::get_prompt(&self.app, caller, name, given).await {
            return match answer {
                Ok(value) => serde_json::from_value(value).map(Some).map_err(|e| {
                    ErrorData::internal_error(
                        format!("the external server's prompt is malformed: {e}"),
                        None,
                    )
                }),
                // A server the caller may not reach has, for them, no such prompt.
                Err(e) if e.code.kind() == ErrorKind::Denied => Ok(None),
                Err(e) if matches!(e.code.kind(), ErrorKind::BadInput | ErrorKind::NotFound) => {
                    Err(ErrorData::invalid_params(e.message, None))
                }
                Err(e) => Err(ErrorData::internal_error(e.message, None)),
            };
        }
        let usable = tools::prompts::usable(&self.app, caller);
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
        tools::completions::complete(
            &self.app,
            caller,
            target,
            completing.argument,
            completing.value,
            completing.context,
        )
        .await
        .map_err(|e| HostError(e.to_string()))
    }

    fn observe(&self, method: &str, status: u16, elapsed: Duration) {
        self.metrics.request(method, status, elapsed);
    }
}

/// A call's questions, on their way to the client as elicitation (see `mcp::Asker`).
struct Asking(Asker);

impl tools::ask::Ask for Asking {
    fn ask<'a>(
        &'a self,
        question: &'a Question,
    ) -> Pin<Box<dyn Future<Output = Result<Reply, Unanswered>> + Send + 'a>> {
        Box::pin(async move {
            let answer = self
                .0
                .elicit(question.key, &question.message, choice_form(question))
                .await
                .map_err(|e| match e {
                    AskError::Unsupported(_) => Unanswered::Unsupported,
                    AskError::Pending => Unanswered::Sent,
                    AskError::TimedOut => Unanswered::TimedOut,
                    AskError::Refused(why) => Unanswered::Failed(why),
                })?;
            Ok(match answer.get("action").and_then(Value::as_str) {
                Some("accept") => Reply::Chose(
                    answer
                        .get("content")
                        .and_then(|c| c.get(CHOICE))
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                ),
                Some("decline") => Reply::Declined,
                _ => Reply::Cancelled,
            })
        })
    }
}

/// The field of the elicitation form that carries the choice.
const CHOICE: &str = "choice";

/// A one-field elicitation form: a single-select of the question's choices, each titled.
fn choice_form(question: &Question) -> Value {
    let options: Vec<Value> = question
        .choices
        .iter()
        .map(|c| json!({ "const": c.value, "title": c.label }))
        .collect();
    json!({
        "type": "object",
        "properties": { CHOICE: {
            "type": "string",
            "title": question.argument,
            "description": question.message,
            "oneOf": options,
        } },
        "required": [CHOICE],
    })
}

/// A call's progress and log messages, on their way to the client as MCP notifications.
struct Reporter(Notifier);

impl tools::report::Report for Reporter {
    fn progress(&self, done: f64, total: Option<f64>, message: &str) {
        self.0
            .progress(done, total, (!message.is_empty()).then_some(message));
    }

    fn log(&self, level: tools::report::Level, logger: &str, message: &str) {
        use tools::report::Level;
        let level = match level {
            Level::Debug => LogLevel::Debug,
            Level::Info => LogLevel::Info,
            Level::Warning => LogLevel::Warning,
            Level::Error => LogLevel::Error,
        };
        self.0.log(level, logger, Value::String(message.to_owned()));
    }
}

/// An external server's listed resource or prompt as rmcp reads it; one it cannot read is
/// left out (logged), the rest still listed.
fn from_external<T: serde::de::DeserializeOwned>(item: Value) -> Option<T> {
    serde_json::from_value(item)
        .map_err(|e| tracing::debug!(target: "marquee::federated", "external item left out: {e}"))
        .ok()
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
