//! A host with no tools of its own, for this crate's tests: one valid credential (`good`),
//! the conformance fixtures, and key-less local access when `local` says so.

use std::sync::Arc;

use mcp::{
    Context, HostError, ListedTool, RenderedResult, ServerIdentity, ToolHost,
    model::{ErrorData, JsonObject, ReadResourceResult, Resource, ResourceTemplate},
};

pub struct TestHost {
    pub identity: ServerIdentity,
    /// Lets key-less requests from this machine in, as `[auth] local_person` does.
    pub local: bool,
}

impl TestHost {
    pub fn new(local: bool) -> TestHost {
        TestHost {
            identity: ServerIdentity {
                name: "t".into(),
                title: "T".into(),
                version: "0".into(),
                instructions: String::new(),
            },
            local,
        }
    }
}

impl ToolHost for TestHost {
    type Caller = ();

    fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    async fn authenticate(&self, credential: &str) -> Result<Option<()>, HostError> {
        Ok((credential == "good").then_some(()))
    }

    async fn list_tools(&self, _: &()) -> Result<Arc<[Arc<ListedTool>]>, HostError> {
        Ok(Arc::from(Vec::new()))
    }

    async fn call_tool(
        &self,
        _: &(),
        name: &str,
        _: Option<JsonObject>,
        _: &Context<'_>,
    ) -> Result<RenderedResult, ErrorData> {
        Err(ErrorData::invalid_params(
            format!("unknown tool: {name}"),
            None,
        ))
    }

    async fn list_resources(&self, _: &()) -> Vec<Resource> {
        Vec::new()
    }

    fn list_resource_templates(&self, _: &()) -> Vec<ResourceTemplate> {
        Vec::new()
    }

    async fn read_resource(
        &self,
        _: &(),
        _: &str,
    ) -> Result<Option<ReadResourceResult>, ErrorData> {
        Ok(None)
    }

    fn conformance_fixtures(&self) -> bool {
        true
    }

    async fn authenticate_local(&self) -> Result<Option<()>, HostError> {
        Ok(self.local.then_some(()))
    }
}
