//! A build without the `conformance-fixtures` feature (every product build): the same surface
//! as `fixtures.rs`, serving nothing. A host that asks for the fixtures is refused before it
//! starts (see [`crate::CONFORMANCE_FIXTURES`]); the dispatcher serves none either way.

use std::sync::Arc;

use rmcp::model::{
    GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource, ResourceTemplate,
};

use crate::{Completing, Context, ListedTool, RenderedResult, ToolHost, dispatch::RpcError};

/// Never: this build has no fixtures.
pub(crate) fn served<H: ToolHost>(_host: &H) -> bool {
    false
}

pub(crate) fn tools() -> &'static [Arc<ListedTool>] {
    &[]
}

pub(crate) fn streams(_name: &str) -> bool {
    false
}

pub(crate) fn task_support(_name: &str) -> Option<crate::TaskSupport> {
    None
}

pub(crate) async fn call(
    _name: &str,
    _arguments: Option<&JsonObject>,
    _cx: &Context<'_>,
) -> Option<Result<RenderedResult, RpcError>> {
    None
}

pub(crate) fn resources() -> Vec<Resource> {
    Vec::new()
}

pub(crate) fn resource_templates() -> Vec<ResourceTemplate> {
    Vec::new()
}

pub(crate) fn read(_enabled: bool, _uri: &str) -> Option<ReadResourceResult> {
    None
}

pub(crate) fn prompts() -> Vec<Prompt> {
    Vec::new()
}

pub(crate) fn get_prompt(
    _name: &str,
    _arguments: &JsonObject,
) -> Option<Result<GetPromptResult, RpcError>> {
    None
}

pub(crate) fn complete(_c: &Completing<'_>) -> Option<Vec<String>> {
    None
}
