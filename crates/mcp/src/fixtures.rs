//! The official conformance suite's fixtures (tools, prompts, resources named `test_*` and
//! `test://*`), served only while `[mcp] conformance_fixtures` is on so that the full suites
//! can run against the real dispatcher, HTTP edge and stdio loop. Compiled only with the
//! `conformance-fixtures` feature (test builds); a product build has `no_fixtures.rs` instead.

use std::{
    sync::{Arc, LazyLock},
    time::Duration,
};

use rmcp::model::{
    ErrorCode, GetPromptResult, JsonObject, Prompt, PromptArgument, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Tool,
};
use serde_json::{Value, json};

use crate::{
    Completing, CompletionTarget, Context, Era, ListedTool, LogLevel, RenderedResult, TaskSupport,
    ToolHost,
    dispatch::{MISSING_CLIENT_CAPABILITY, RpcError},
};

/// A 1×1 red PNG.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/// Eight samples of silence, 8 kHz mono WAV.
const WAV: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// (name, description, required string arguments)
const TOOLS: &[(&str, &str, &[&str])] = &[
    ("test_simple_text", "Returns simple text", &[]),
    ("test_image_content", "Returns an image", &[]),
    ("test_audio_content", "Returns audio", &[]),
    (
        "test_embedded_resource",
        "Returns an embedded resource",
        &[],
    ),
    (
        "test_multiple_content_types",
        "Returns text, image and resource",
        &[],
    ),
    ("test_tool_with_logging", "Sends three log messages", &[]),
    (
        "test_logging_tool",
        "Sends log messages at the requested level",
        &[],
    ),
    (
        "test_tool_with_progress",
        "Reports progress 0, 50, 100",
        &[],
    ),
    ("test_error_handling", "Always fails", &[]),
    ("test_sampling", "Asks the client's model", &["prompt"]),
    ("test_elicitation", "Asks the user", &["message"]),
    (
        "test_elicitation_sep1034_defaults",
        "Asks with defaults",
        &[],
    ),
    (
        "test_elicitation_sep1330_enums",
        "Asks with every enum form",
        &[],
    ),
    (
        "test_missing_capability",
        "Needs the sampling capability",
        &[],
    ),
];

/// The tasks extension's fixtures (its conformance scenarios): (name, description, input schema).
fn task_tools() -> [(&'static str, &'static str, Value); 4] {
    let none = json!({ "type": "object", "properties": {} });
    [
        (
            "greet",
            "Says hello (never a task)",
            json!({ "type": "object",
            "properties": { "name": { "type": "string" } }, "required": ["name"] }),
        ),
        (
            "slow_compute",
            "Sleeps `seconds`, then answers (a task when the client declares tasks)",
            json!({ "type": "object", "properties": { "seconds": { "type": "number" },
                "label": { "type": "string" } } }),
        ),
        (
            "failing_job",
            "Fails as a tool after about a second (always a task)",
            none.clone(),
        ),
        (
            "protocol_error_job",
            "Fails at the protocol level (always a task)",
            none,
        ),
    ]
}

/// How the task fixtures relate to tasks; `None` for the other fixtures and the host's tools.
pub(crate) fn task_support(name: &str) -> Option<TaskSupport> {
    match name {
        "greet" => Some(TaskSupport::Never),
        "slow_compute" => Some(TaskSupport::Optional {
            shortcut: Duration::ZERO,
            stoppable: true,
        }),
        "failing_job" | "protocol_error_job" => Some(TaskSupport::Required { stoppable: true }),
        _ => None,
    }
}

static LISTED: LazyLock<Vec<Arc<ListedTool>>> = LazyLock::new(|| {
    let tasks = task_tools().into_iter().map(|(name, description, schema)| {
        let Value::Object(schema) = schema else {
            unreachable!("a json! object is an object")
        };
        Arc::new(ListedTool::new(Tool::new(
            name,
            description,
            Arc::new(schema),
        )))
    });
    TOOLS
        .iter()
        .map(|(name, description, required)| {
            let properties: serde_json::Map<String, Value> = required
                .iter()
                .map(|a| ((*a).to_string(), json!({ "type": "string" })))
                .collect();
            let schema =
                json!({ "type": "object", "properties": properties, "required": required });
            let Value::Object(schema) = schema else {
                unreachable!("a json! object is an object")
            };
            Arc::new(ListedTool::new(Tool::new(
                *name,
                *description,
                Arc::new(schema),
            )))
        })
        .chain(tasks)
        .collect()
});

/// Whether `host` serves the fixtures (`[mcp] conformance_fixtures`).
pub(crate) fn served<H: ToolHost>(host: &H) -> bool {
    host.conformance_fixtures()
}

pub(crate) fn tools() -> &'static [Arc<ListedTool>] {
    &LISTED
}

/// Fixture calls that talk back while they run.
pub(crate) fn streams(name: &str) -> bool {
    matches!(
        name,
        "test_tool_with_logging"
            | "test_logging_tool"
            | "test_tool_with_progress"
            | "test_sampling"
            | "test_elicitation"
            | "test_elicitation_sep1034_defaults"
            | "test_elicitation_sep1330_enums"
    )
}

fn text(t: &str) -> Value {
    json!({ "type": "text", "text": t })
}

fn result(content: Vec<Value>, is_error: bool) -> Result<RenderedResult, RpcError> {
    Ok(RenderedResult::content(&content, is_error))
}

fn argument<'a>(arguments: Option<&'a JsonObject>, name: &str) -> Result<&'a str, RpcError> {
    arguments
        .and_then(|a| a.get(name))
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::new(
                ErrorCode::INVALID_PARAMS,
                format!("invalid params: argument \"{name}\" (a string) is required"),
            )
        })
}

/// Runs a fixture tool; `None` when `name` is not one.
pub(crate) async fn call(
    name: &str,
    arguments: Option<&JsonObject>,
    cx: &Context<'_>,
) -> Option<Result<RenderedResult, RpcError>> {
    let pause = || tokio::time::sleep(Duration::from_millis(50));
    Some(match name {
        "test_simple_text" => result(vec![text("This is a simple text response for testing.")], false),
        "test_image_content" => result(vec![json!({ "type": "image", "data": PNG, "mimeType": "image/png" })], false),
        "test_audio_content" => result(vec![json!({ "type": "audio", "data": WAV, "mimeType": "audio/wav" })], false),
        "test_embedded_resource" => result(vec![json!({ "type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content." } })], false),
        "test_multiple_content_types" => result(vec![
            text("Multiple content types test:"),
            json!({ "type": "image", "data": PNG, "mimeType": "image/png" }),
            json!({ "type": "resource", "resource": { "uri": "test://mixed-content-resource",
                "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}" } }),
        ], false),
        "test_tool_with_logging" | "test_logging_tool" => {
            for (i, line) in ["Tool execution started", "Tool processing data", "Tool execution completed"].iter().enumerate() {
                if i > 0 {
                    pause().await;
                }
                cx.log(LogLevel::Info, "conformance", json!(line));
            }
            result(vec![text("Tool with logging executed successfully")], false)
        }
        "test_tool_with_progress" => {
            for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    pause().await;
                }
                cx.progress(p, Some(100.0), None);
            }
            result(vec![text("Tool with progress executed successfully")], false)
        }
        "greet" => {
            let name = match argument(arguments, "name") { Ok(n) => n, Err(e) => return Some(Err(e)) };
            result(vec![text(&format!("Hello, {name}!"))], false)
        }
        "slow_compute" => {
            let seconds = arguments.and_then(|a| a.get("seconds")).and_then(Value::as_f64).unwrap_or(0.0);
            let seconds = seconds.clamp(0.0, 600.0);
            let steps = (seconds * 4.0).ceil() as u32;
            for step in 0..steps {
                cx.progress(f64::from(step), Some(f64::from(steps)), Some("computing"));
                tokio::time::sleep(Duration::from_secs_f64(seconds / f64::from(steps))).await;
            }
            let label = arguments.and_then(|a| a.get("label")).and_then(Value::as_str).unwrap_or("");
            result(vec![text(&format!("computed {label} in {seconds} s"))], false)
        }
        "failing_job" => {
            tokio::time::sleep(Duration::from_secs(1)).await;
            result(vec![text("the job failed, as it always does")], true)
        }
        "protocol_error_job" => Err(RpcError::new(ErrorCode::INTERNAL_ERROR, "the job broke at the protocol level")),
        "test_error_handling" => result(vec![text("This tool intentionally returns an error for testing")], true),
        "test_sampling" => {
            let prompt = match argument(arguments, "prompt") { Ok(p) => p, Err(e) => return Some(Err(e)) };
            let params = json!({ "messages": [{ "role": "user", "content": text(prompt) }], "maxTokens": 100 });
            match cx.ask("sampling/createMessage", "sampling", params).await {
                Ok(answer) => {
                    let said = answer.get("content").and_then(|c| c.get("text")).and_then(Value::as_str).unwrap_or("");
                    result(vec![text(&format!("LLM response: {said}"))], false)
                }
                Err(e) => result(vec![text(&format!("sampling failed: {e}"))], true),
            }
        }
        "test_elicitation" => {
            let message = match argument(arguments, "message") { Ok(m) => m, Err(e) => return Some(Err(e)) };
            elicit(cx, message, json!({ "type": "object", "properties": {
                "username": { "type": "string", "description": "User's response" },
                "email": { "type": "string", "description": "User's email address" } },
                "required": ["username", "email"] }), "User response").await
        }
        "test_elicitation_sep1034_defaults" => elicit(cx, "Please review and update the form fields with defaults", json!({
            "type": "object", "properties": {
                "name": { "type": "string", "description": "User name", "default": "John Doe" },
                "age": { "type": "integer", "description": "User age", "default": 30 },
                "score": { "type": "number", "description": "User score", "default": 95.5 },
                "status": { "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active" },
                "verified": { "type": "boolean", "description": "Verification status", "default": true } } }),
            "Elicitation completed").await,
        "test_elicitation_sep1330_enums" => elicit(cx, "Please select options from the enum fields", json!({
            "type": "object", "properties": {
                "untitledSingle": { "type": "string", "description": "Choose an option", "enum": ["option1", "option2", "option3"] },
                "titledSingle": { "type": "string", "description": "Choose a titled option", "oneOf": [
                    { "const": "value1", "title": "First Option" }, { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" }] },
                "legacyEnum": { "type": "string", "description": "Choose a legacy option", "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"] },
                "untitledMulti": { "type": "array", "description": "Choose multiple options",
                    "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
                "titledMulti": { "type": "array", "description": "Choose multiple titled options", "items": { "anyOf": [
                    { "const": "value1", "title": "First Choice" }, { "const": "value2", "title": "Second Choice" },
                    { "const": "value3", "title": "Third Choice" }] } } } }),
            "Elicitation completed").await,
        "test_missing_capability" => {
            if cx.era() == Era::Modern && !cx.client_can("sampling") {
                return Some(Err(RpcError {
                    code: MISSING_CLIENT_CAPABILITY,
                    message: "missing required client capability: sampling".into(),
                    data: Some(json!({ "requiredCapabilities": { "sampling": {} } })),
                }));
            }
            result(vec![text("The client declared sampling")], false)
        }
        _ => return None,
    })
}

async fn elicit(
    cx: &Context<'_>,
    message: &str,
    schema: Value,
    said: &str,
) -> Result<RenderedResult, RpcError> {
    let params = json!({ "mode": "form", "message": message, "requestedSchema": schema });
    match cx.ask("elicitation/create", "elicitation", params).await {
        Ok(answer) => {
            let action = answer
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("cancel");
            let content = answer.get("content").cloned().unwrap_or(json!({}));
            result(
                vec![text(&format!("{said}: action={action}, content={content}"))],
                false,
            )
        }
        Err(e) => result(vec![text(&format!("elicitation failed: {e}"))], true),
    }
}

pub(crate) fn resources() -> Vec<Resource> {
    [
        ("test://static-text", "static-text", "text/plain"),
        ("test://static-binary", "static-binary", "image/png"),
        ("test://watched-resource", "watched-resource", "text/plain"),
    ]
    .into_iter()
    .map(|(uri, name, mime)| Resource::new(uri, name).with_mime_type(mime))
    .collect()
}

pub(crate) fn resource_templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("test://template/{id}/data", "template")
            .with_mime_type("application/json"),
    ]
}

/// Reads a fixture resource; `None` when fixtures are off or `uri` is not one.
pub(crate) fn read(enabled: bool, uri: &str) -> Option<ReadResourceResult> {
    if !enabled {
        return None;
    }
    let contents = match uri {
        "test://static-text" => {
            ResourceContents::text("This is the content of the static text resource.", uri)
                .with_mime_type("text/plain")
        }
        "test://watched-resource" => {
            ResourceContents::text("Watched resource content.", uri).with_mime_type("text/plain")
        }
        "test://static-binary" => ResourceContents::blob(PNG, uri).with_mime_type("image/png"),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let body =
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            ResourceContents::text(body.to_string(), uri).with_mime_type("application/json")
        }
    };
    Some(ReadResourceResult::new(vec![contents]))
}

pub(crate) fn prompts() -> Vec<Prompt> {
    let arg = |name: &str, description: &str| {
        let mut a = PromptArgument::new(name);
        a.description = Some(description.into());
        a.required = Some(true);
        a
    };
    vec![
        Prompt::new(
            "test_simple_prompt",
            Some("A simple prompt without arguments"),
            None,
        ),
        Prompt::new(
            "test_prompt_with_arguments",
            Some("A prompt with two arguments"),
            Some(vec![
                arg("arg1", "First test argument"),
                arg("arg2", "Second test argument"),
            ]),
        ),
        Prompt::new(
            "test_prompt_with_embedded_resource",
            Some("A prompt with an embedded resource"),
            Some(vec![arg("resourceUri", "URI of the resource to embed")]),
        ),
        Prompt::new(
            "test_prompt_with_image",
            Some("A prompt with an image"),
            None,
        ),
    ]
}

/// Renders a fixture prompt; `None` when `name` is not one.
pub(crate) fn get_prompt(
    name: &str,
    arguments: &JsonObject,
) -> Option<Result<GetPromptResult, RpcError>> {
    let arg = |n: &str| {
        arguments.get(n).and_then(Value::as_str).ok_or_else(|| {
            RpcError::new(
                ErrorCode::INVALID_PARAMS,
                format!("invalid params: prompt argument \"{n}\" is required"),
            )
        })
    };
    let user = |content: Value| json!({ "role": "user", "content": content });
    let messages = match name {
        "test_simple_prompt" => vec![user(text("This is a simple prompt for testing."))],
        "test_prompt_with_arguments" => {
            let (a, b) = match (arg("arg1"), arg("arg2")) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
            };
            vec![user(text(&format!(
                "Prompt with arguments: arg1='{a}', arg2='{b}'"
            )))]
        }
        "test_prompt_with_embedded_resource" => {
            let uri = match arg("resourceUri") {
                Ok(u) => u,
                Err(e) => return Some(Err(e)),
            };
            vec![
                user(
                    json!({ "type": "resource", "resource": { "uri": uri, "mimeType": "text/plain",
                    "text": "Embedded resource content for testing." } }),
                ),
                user(text("Please process the embedded resource above.")),
            ]
        }
        "test_prompt_with_image" => vec![
            user(json!({ "type": "image", "data": PNG, "mimeType": "image/png" })),
            user(text("Please analyze the image above.")),
        ],
        _ => return None,
    };
    let parsed =
        serde_json::from_value(json!({ "messages": messages })).map_err(|_| RpcError::internal());
    Some(parsed)
}

/// Completes a fixture prompt's argument; `None` for anything else.
pub(crate) fn complete(c: &Completing<'_>) -> Option<Vec<String>> {
    match c.target {
        CompletionTarget::Prompt(name) if name.starts_with("test_") => {}
        CompletionTarget::Resource(uri) if uri.starts_with("test://") => {}
        _ => return None,
    }
    let words = ["paris", "park", "party", "test", "testing", "template"];
    Some(
        words
            .iter()
            .filter(|w| w.starts_with(c.value))
            .map(|w| (*w).to_string())
            .collect(),
    )
}
