//! The methods beyond tools and resources: `prompts/list`, `prompts/get`,
//! `completion/complete`, `logging/setLevel` and (fixtures only) resource subscriptions.

use rmcp::model::{ErrorCode, JsonObject};
use serde_json::{Map, Value, json};

use crate::{
    Completing, CompletionTarget, Era, LogLevel, Peers, ToolHost, dispatch::RpcError, fixtures,
};

/// The most values one completion answer carries (the specification's limit).
const MAX_COMPLETIONS: usize = 100;

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(ErrorCode::INVALID_PARAMS, message)
}

pub(crate) fn set_level(
    params: &Map<String, Value>,
    peers: &Peers,
    owner: u64,
) -> Result<Map<String, Value>, RpcError> {
    let level = params
        .get("level")
        .and_then(|l| serde_json::from_value::<LogLevel>(l.clone()).ok())
        .ok_or_else(|| {
            invalid(format!(
                "invalid params: unknown log level; valid levels: {}",
                LogLevel::NAMES
            ))
        })?;
    peers.set_level(owner, level);
    Ok(Map::new())
}

pub(crate) fn subscription(params: &Map<String, Value>) -> Result<Map<String, Value>, RpcError> {
    match params.get("uri").and_then(Value::as_str) {
        Some(_) => Ok(Map::new()),
        None => Err(invalid(
            "invalid params: a subscription needs a string \"uri\"",
        )),
    }
}

pub(crate) async fn list_prompts<H: ToolHost>(
    host: &H,
    caller: &H::Caller,
    _era: Era,
) -> Result<Map<String, Value>, RpcError> {
    let mut prompts = host.list_prompts(caller).await.map_err(|e| {
        tracing::error!(error = %e, "prompts/list failed");
        RpcError::internal()
    })?;
    if fixtures::served(host) {
        prompts.extend(fixtures::prompts());
    }
    let mut out = Map::new();
    out.insert(
        "prompts".into(),
        serde_json::to_value(prompts).unwrap_or_default(),
    );
    Ok(out)
}

pub(crate) async fn get_prompt<H: ToolHost>(
    host: &H,
    caller: &H::Caller,
    params: &Map<String, Value>,
) -> Result<Map<String, Value>, RpcError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(invalid(
            "invalid params: prompts/get needs a string \"name\"",
        ));
    };
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => JsonObject::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => return Err(invalid("invalid params: \"arguments\" must be an object")),
    };
    if let Some(text) = arguments.iter().find(|(_, v)| !v.is_string()) {
        return Err(invalid(format!(
            "invalid params: prompt argument \"{}\" must be a string",
            text.0
        )));
    }
    let found = if fixtures::served(host)
        && let Some(found) = fixtures::get_prompt(name, &arguments)
    {
        Some(found?)
    } else {
        host.get_prompt(caller, name, &arguments)
            .await
            .map_err(|e| RpcError {
                code: e.code,
                message: e.message.into_owned(),
                data: e.data,
            })?
    };
    let Some(result) = found else {
        let known = host
            .list_prompts(caller)
            .await
            .map(|p| p.into_iter().map(|p| p.name).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        return Err(invalid(format!(
            "invalid params: unknown prompt \"{}\"; your prompts: {known}",
            name.chars().take(64).collect::<String>()
        )));
    };
    match serde_json::to_value(result) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(RpcError::internal()),
    }
}

pub(crate) async fn complete<H: ToolHost>(
    host: &H,
    caller: &H::Caller,
    params: &Map<String, Value>,
) -> Result<Map<String, Value>, RpcError> {
    let reference = params.get("ref").and_then(Value::as_object);
    let target = match reference
        .and_then(|r| r.get("type"))
        .and_then(Value::as_str)
    {
        Some("ref/prompt") => reference
            .and_then(|r| r.get("name"))
            .and_then(Value::as_str)
            .map(CompletionTarget::Prompt),
        Some("ref/resource") => reference
            .and_then(|r| r.get("uri"))
            .and_then(Value::as_str)
            .map(CompletionTarget::Resource),
        _ => None,
    };
    let Some(target) = target else {
        return Err(invalid(
            "invalid params: \"ref\" must be {\"type\":\"ref/prompt\",\"name\"} or {\"type\":\"ref/resource\",\"uri\"}",
        ));
    };
    let argument = params.get("argument").and_then(Value::as_object);
    let (Some(name), Some(value)) = (
        argument.and_then(|a| a.get("name")).and_then(Value::as_str),
        argument
            .and_then(|a| a.get("value"))
            .and_then(Value::as_str),
    ) else {
        return Err(invalid(
            "invalid params: \"argument\" needs a string \"name\" and a string \"value\"",
        ));
    };
    let empty = JsonObject::new();
    let context = params
        .get("context")
        .and_then(|c| c.get("arguments"))
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let completing = Completing {
        target,
        argument: name,
        value,
        context,
    };
    let mut values = if fixtures::served(host)
        && let Some(values) = fixtures::complete(&completing)
    {
        values
    } else {
        host.complete(caller, &completing).await.map_err(|e| {
            tracing::error!(error = %e, "completion/complete failed");
            RpcError::internal()
        })?
    };
    let total = values.len();
    values.truncate(MAX_COMPLETIONS);
    let mut out = Map::new();
    out.insert(
        "completion".into(),
        json!({ "values": values, "total": total, "hasMore": total > MAX_COMPLETIONS }),
    );
    Ok(out)
}
