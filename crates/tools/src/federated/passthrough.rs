//! An external server's resources and prompts, passed through under the rule its tools follow:
//! the owner and admins, or a grant with `federated` that reaches the server (a kid's grant
//! must name it). Listed resource names and URIs and prompt names are prefixed `<id>__`; a read
//! or a get is routed to its server by that prefix, and answers as the server answers, with
//! the URIs it names prefixed again.

use std::sync::Arc;

use adapters_mcp::{Ask, SEPARATOR, Server};
use domain::Capability;
use governance::{App, Caller, ErrorCode, Hints, Meta, ToolError, authority, intern};
use policy::Effect;
use serde_json::{Map, Value};

use super::{Federation, external};

/// May `caller` reach the resources and prompts of the server `id`?
fn may(caller: &Caller, id: &str) -> bool {
    let name = intern(&format!("{id}{SEPARATOR}"));
    let meta = Meta {
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
    };
    authority::visible(&caller.authority, &caller.switches, &meta, false)
        && authority::reaches_external(&caller.authority, id, "")
}

/// The servers `caller` may reach that are up.
fn reachable(app: &App, caller: &Caller) -> Vec<Arc<Server>> {
    let Some(federation) = app.family::<Arc<Federation>>() else {
        return Vec::new();
    };
    federation
        .servers
        .iter()
        .filter(|s| s.tools().is_some() && may(caller, s.id()))
        .cloned()
        .collect()
}

/// The server a prefixed name or URI names, the rest of it, when `caller` may reach it.
/// `None` when no configured server has that prefix (the name is not an external one).
fn route(
    app: &App,
    caller: &Caller,
    prefixed: &str,
) -> Option<Result<(Arc<Server>, String), ToolError>> {
    let (id, rest) = prefixed.split_once(SEPARATOR)?;
    let federation = app.family::<Arc<Federation>>()?;
    let server = federation.server(id)?.clone();
    if !may(caller, id) {
        return Some(Err(ToolError::denied(format!(
            "your grant does not reach the MCP server \"{id}\"; ask the owner for a grant that names it"
        ))));
    }
    Some(Ok((server, rest.to_string())))
}

/// Prefixes the string field `field` of `item` with `<id>__`.
fn prefix(item: &mut Value, field: &str, id: &str) {
    if let Some(Value::String(s)) = item.get_mut(field) {
        *s = format!("{id}{SEPARATOR}{s}");
    }
}

/// The listed items under `key` of each reachable server's answer to `ask`, with `fields`
/// prefixed. A server that cannot answer (it has none, or is failing) lists none.
async fn list(app: &App, caller: &Caller, ask: Ask, key: &str, fields: &[&str]) -> Vec<Value> {
    let mut all = Vec::new();
    for server in reachable(app, caller) {
        match server.ask(ask.clone()).await {
            Ok(mut answer) => {
                let Some(Value::Array(items)) = answer.get_mut(key).map(Value::take) else {
                    continue;
                };
                for mut item in items {
                    for field in fields {
                        prefix(&mut item, field, server.id());
                    }
                    all.push(item);
                }
            }
            Err(e) => {
                tracing::debug!(target: "marquee::federated", instance = %server.id(), "{key} not listed: {e}");
            }
        }
    }
    all
}

/// `resources/list`: every reachable server's resources, names and URIs prefixed.
pub async fn list_resources(app: &App, caller: &Caller) -> Vec<Value> {
    list(
        app,
        caller,
        Ask::ListResources,
        "resources",
        &["name", "uri"],
    )
    .await
}

/// `prompts/list`: every reachable server's prompts, names prefixed.
pub async fn list_prompts(app: &App, caller: &Caller) -> Vec<Value> {
    list(app, caller, Ask::ListPrompts, "prompts", &["name"]).await
}

/// `resources/read` of a prefixed URI: the server's answer, the URIs of its contents
/// prefixed. `None` when the URI names no external server.
pub async fn read_resource(
    app: &App,
    caller: &Caller,
    uri: &str,
) -> Option<Result<Value, ToolError>> {
    let (server, uri) = match route(app, caller, uri)? {
        Ok(found) => found,
        Err(e) => return Some(Err(e)),
    };
    // A read of another server counts against the person's call rate, as a tool call does.
    if let Err(e) = app.settings().call_rate.check(caller) {
        return Some(Err(e));
    }
    let answer = server.ask(Ask::ReadResource(uri)).await;
    Some(answer.map_err(external::error).map(|mut answer| {
        if let Some(Value::Array(contents)) = answer.get_mut("contents") {
            for item in contents {
                prefix(item, "uri", server.id());
            }
        }
        answer
    }))
}

/// `prompts/get` of a prefixed prompt name: the server's answer. `None` when the name names
/// no external server.
pub async fn get_prompt(
    app: &App,
    caller: &Caller,
    name: &str,
    arguments: Option<Map<String, Value>>,
) -> Option<Result<Value, ToolError>> {
    let (server, name) = match route(app, caller, name)? {
        Ok(found) => found,
        Err(e) => return Some(Err(e)),
    };
    if name.is_empty() {
        return Some(Err(ToolError::new(
            ErrorCode::InvalidArgument,
            "a prompt name is needed after the server's prefix",
        )));
    }
    if let Err(e) = app.settings().call_rate.check(caller) {
        return Some(Err(e));
    }
    let answer = server.ask(Ask::GetPrompt(name, arguments)).await;
    Some(answer.map_err(external::error))
}
