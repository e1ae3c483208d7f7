//! One tool of an external server, served as `<instance id>__<tool>`: its schema, title and
//! annotations passed through (the specification's defaults filled in), its effect read from
//! its annotations (read-only → a read; otherwise a write, destructive unless it says it is not),
//! its arguments checked before they leave, and its answer passed back in `data`.

use std::sync::Arc;

use adapters_mcp::{RemoteTool, SEPARATOR, Server};
use domain::{AllowanceKind, Capability};
use governance::{
    DynTool, ErrorCode, Hints, Meta, Output, ToolError, View,
    contract::{BoxFuture, Prepared},
    intern,
    plan::{self, Planned},
};
use policy::Effect;
use serde_json::{Map, Value, json};

use super::{arguments, planned};

/// The longest summary an answer's text gives; the whole answer is in `data`.
const SUMMARY_CHARS: usize = 4000;

/// A tool of an external server, while the server is up.
pub(crate) struct External {
    pub(crate) server: Arc<Server>,
    /// Its name on its server.
    pub(crate) remote: String,
    pub(crate) meta: Meta,
    pub(crate) schema: Map<String, Value>,
}

impl External {
    /// `None` for a name MCP does not allow or too long once prefixed (it is not served).
    pub(crate) fn new(server: Arc<Server>, tool: &RemoteTool) -> Option<External> {
        let name = format!("{}{SEPARATOR}{}", server.id(), tool.name);
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
        if name.len() > 128 || tool.name.is_empty() || !tool.name.chars().all(allowed) {
            tracing::warn!(instance = %server.id(), tool = %tool.name.chars().take(64).collect::<String>(), "an external tool's name is not a valid MCP tool name once prefixed; it is not served");
            return None;
        }
        let hints = tool.hints;
        let effect = if hints.read_only {
            Effect::Read
        } else if hints.destructive {
            Effect::Destructive
        } else {
            Effect::Write
        };
        let planned: &'static dyn Planned = &planned::ExternalPlanned;
        let meta = Meta {
            name: intern(&name),
            title: intern(tool.title.as_deref().unwrap_or(&tool.name)),
            description: intern(tool.description.as_deref().unwrap_or("")),
            effect,
            capability: Capability::Federated,
            hints: Hints {
                idempotent: hints.idempotent,
                open_world: hints.open_world,
            },
            allowance: (effect != Effect::Read).then_some(AllowanceKind::FederatedWrites),
            or_capabilities: &[],
            family: None,
            plan: (effect == Effect::Destructive).then_some(planned),
        };
        let mut schema = tool.input_schema.clone();
        schema
            .entry("type")
            .or_insert_with(|| Value::String("object".into()));
        Some(External {
            remote: tool.name.clone(),
            server,
            meta,
            schema,
        })
    }

    async fn run(
        &self,
        ctx: &governance::Ctx,
        arguments: Map<String, Value>,
    ) -> Result<Output, ToolError> {
        if let Some(missing) = ctx.needs_plan() {
            let proposal = planned::proposal(self, arguments);
            return plan::propose(ctx, self.meta, Some(missing), proposal).await;
        }
        ctx.authorize(self.server.id())?;
        call(&self.server, self.meta, &self.remote, arguments, ctx).await
    }
}

impl DynTool for External {
    fn meta(&self) -> Meta {
        self.meta
    }

    fn input_schema(&self) -> Map<String, Value> {
        self.schema.clone()
    }

    fn view(&self) -> Option<&'static View> {
        None
    }

    fn long(&self) -> bool {
        false
    }

    fn asks(&self) -> bool {
        false
    }

    fn external(&self) -> Option<&str> {
        Some(self.server.id())
    }

    fn prepare<'a>(&'a self, arguments: Map<String, Value>) -> Result<Prepared<'a>, ToolError> {
        arguments::check(&self.schema, &arguments)?;
        Ok(Box::new(
            move |ctx: &'a governance::Ctx| -> BoxFuture<'a, Result<Output, ToolError>> {
                Box::pin(self.run(ctx, arguments))
            },
        ))
    }
}

/// Calls `remote` on `server`: its answer in `data`, its text as the summary; an answer with
/// `isError` is an error of the call. Either way the answer (or the error's data) names the
/// server and carries `arguments_bytes` and `is_error`, which the audit entry keeps.
pub(crate) async fn call(
    server: &Server,
    meta: Meta,
    remote: &str,
    arguments: Map<String, Value>,
    ctx: &governance::Ctx,
) -> Result<Output, ToolError> {
    let size = serde_json::to_vec(&arguments).map_or(0, |b| b.len());
    // The server's progress goes on to whoever hears this call's (a client, a task).
    let progress = ctx.reporter().map(|report| -> adapters_mcp::Progress {
        Arc::new(move |done, total, message| {
            report.progress(done, total, &httpx::redact(message.unwrap_or("")));
        })
    });
    let answer = server
        .call(remote, arguments, progress)
        .await
        .map_err(|e| {
            error(e)
                .with_data(json!({"server": server.id(), "tool": remote, "arguments_bytes": size}))
        })?;
    let text = answer.text();
    if answer.is_error {
        let text = if text.is_empty() {
            "no text".into()
        } else {
            cut(&text)
        };
        return Err(ToolError::new(
            ErrorCode::BackendError,
            format!("{} answered with an error: {text}", meta.name),
        )
        .with_data(json!({
            "server": server.id(),
            "tool": remote,
            "arguments_bytes": size,
            "answer_bytes": answer.bytes,
            "is_error": true,
        })));
    }
    let summary = if text.is_empty() {
        format!("{} answered.", meta.name)
    } else {
        cut(&text)
    };
    Ok(Output::new(
        summary,
        json!({
            "server": server.id(),
            "tool": remote,
            "content": answer.content,
            "structured_content": answer.structured,
            "arguments_bytes": size,
            "answer_bytes": answer.bytes,
            "is_error": false,
        }),
    ))
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(SUMMARY_CHARS) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

pub(crate) fn error(e: adapters_mcp::Error) -> ToolError {
    use adapters_mcp::Error::*;
    let code = match &e {
        Down { .. } => ErrorCode::BackendUnavailable,
        Timeout { .. } => ErrorCode::BackendUnreachable,
        TooLarge { .. } | Refused { .. } | Failed { .. } => ErrorCode::BackendError,
    };
    let mut message = e.to_string();
    if matches!(e, Down { .. }) {
        message.push_str("; its tools are listed again once it is back");
    }
    ToolError::new(code, message)
}

/// A tool name of a server that is down: every call answers that the server is down.
pub(crate) struct Down {
    server: Arc<Server>,
    meta: Meta,
}

impl Down {
    /// `name`: one the server listed (already interned when its tool was built).
    pub(crate) fn new(server: Arc<Server>, name: &'static str) -> Down {
        Down {
            server,
            meta: Meta {
                name,
                title: name,
                description: "",
                effect: Effect::Read,
                capability: Capability::Federated,
                hints: Hints {
                    idempotent: true,
                    open_world: true,
                },
                allowance: None,
                or_capabilities: &[],
                family: None,
                plan: None,
            },
        }
    }
}

impl DynTool for Down {
    fn meta(&self) -> Meta {
        self.meta
    }

    fn input_schema(&self) -> Map<String, Value> {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema
    }

    fn view(&self) -> Option<&'static View> {
        None
    }

    fn long(&self) -> bool {
        false
    }

    fn asks(&self) -> bool {
        false
    }

    fn external(&self) -> Option<&str> {
        Some(self.server.id())
    }

    fn prepare<'a>(&'a self, _arguments: Map<String, Value>) -> Result<Prepared<'a>, ToolError> {
        Err(error(self.server.down()))
    }
}
