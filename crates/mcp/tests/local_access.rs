//! Key-less local access lets programs on this machine in without a key; a browser (any
//! request with an Origin) never: a page on another local port must not act as the household.

#![allow(clippy::unwrap_used)]

use std::{
    net::{Ipv4Addr, SocketAddr},
    sync::Arc,
};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use mcp::{
    Context, HostError, ListedTool, RenderedResult, ServerIdentity, ToolHost,
    edge::authenticate,
    model::{ErrorData, JsonObject, ReadResourceResult, Resource, ResourceTemplate},
    throttle::Throttle,
};

/// A host with no tools that lets key-less requests from this machine in, as `[auth]
/// local_person` does.
struct Local(ServerIdentity);

impl ToolHost for Local {
    type Caller = ();

    fn identity(&self) -> &ServerIdentity {
        &self.0
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

    fn list_resources(&self, _: &()) -> Vec<Resource> {
        Vec::new()
    }

    fn list_resource_templates(&self, _: &()) -> Vec<ResourceTemplate> {
        Vec::new()
    }

    async fn read_resource(
        &self,
        _: &(),
        _: &str,
    ) -> Result<Option<ReadResourceResult>, HostError> {
        Ok(None)
    }

    async fn authenticate_local(&self) -> Result<Option<()>, HostError> {
        Ok(Some(()))
    }
}

#[tokio::test]
async fn a_key_less_call_from_a_browser_is_refused_even_from_this_machine() {
    let host = Local(ServerIdentity {
        name: "t".into(),
        title: "t".into(),
        version: "0".into(),
        instructions: String::new(),
    });
    let throttle = Throttle::default();
    let loopback = Some(SocketAddr::from((Ipv4Addr::LOCALHOST, 50000)));
    let program = HeaderMap::new();
    assert!(
        authenticate(&host, &throttle, &program, None, loopback, "/mcp")
            .await
            .is_ok(),
        "a program on this machine"
    );
    let mut browser = HeaderMap::new();
    browser.insert(
        header::ORIGIN,
        HeaderValue::from_static("http://localhost:5173"),
    );
    let refused = authenticate(&host, &throttle, &browser, None, loopback, "/mcp")
        .await
        .expect_err("a browser is refused");
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let elsewhere = Some(SocketAddr::from(([192, 0, 2, 7], 50000)));
    assert!(
        authenticate(&host, &throttle, &program, None, elsewhere, "/mcp")
            .await
            .is_err(),
        "another machine"
    );
}
