//! Long calls as protocol tasks (the tasks extension of 2026-07-28), driven by the official
//! Rust SDK's client over real HTTP: a call of a task-supporting tool answers with a task,
//! `tasks/get` inlines the result once done, `tasks/cancel` stops it, progress becomes the
//! status message, and a client that did not declare the extension is answered in place.

#![allow(clippy::unwrap_used, clippy::panic)]

mod host;

use std::{
    sync::{Arc, OnceLock},
    time::Duration,
};

use host::TestHost;
use mcp::edge::{Edge, EdgeConfig};
use rmcp::{
    RoleClient,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
        ClientCapabilities, ClientConfig, DetailedTask, GetTaskParams, Implementation,
        ProtocolVersion, TaskPayload, TaskStatus,
    },
    service::{ClientLifecycleMode, RunningService, ServiceError, serve_client_with_lifecycle},
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::json;

async fn serve() -> String {
    let ready = Arc::new(OnceLock::new());
    let _ = ready.set(Arc::new(TestHost::new(false)));
    let edge = Arc::new(Edge {
        ready,
        config: EdgeConfig::default(),
        throttle: Default::default(),
        peers: Default::default(),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        axum::serve(listener, mcp::edge::router(edge))
            .await
            .unwrap();
    });
    url
}

async fn client(url: &str, tasks: bool) -> RunningService<RoleClient, ClientConfig> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let capabilities = if tasks {
        ClientCapabilities::builder().enable_tasks().build()
    } else {
        ClientCapabilities::default()
    };
    let info = ClientConfig::new(capabilities, Implementation::new("tasks-test", "0"));
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header("good");
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    serve_client_with_lifecycle(
        info,
        StreamableHttpClientTransport::from_config(config),
        lifecycle,
    )
    .await
    .unwrap()
}

fn call(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(serde_json::from_value(arguments).unwrap())
}

async fn start(
    c: &RunningService<RoleClient, ClientConfig>,
    name: &str,
    args: serde_json::Value,
) -> String {
    match c.call_tool_once(call(name, args)).await.unwrap() {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, TaskStatus::Working);
            assert_eq!(created.task.ttl_ms, Some(mcp::TASK_TTL_MS));
            assert_eq!(created.task.poll_interval_ms, Some(mcp::POLL_INTERVAL_MS));
            created.task.task_id
        }
        other => panic!("{name}: expected a task, got {other:?}"),
    }
}

async fn get(c: &RunningService<RoleClient, ClientConfig>, id: &str) -> DetailedTask {
    c.get_task(GetTaskParams::new(id.to_owned()))
        .await
        .unwrap()
        .task
}

async fn settled(c: &RunningService<RoleClient, ClientConfig>, id: &str) -> DetailedTask {
    for _ in 0..200 {
        let task = get(c, id).await;
        if task.status().is_terminal() {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} did not settle");
}

fn text_of(payload: TaskPayload) -> (String, bool) {
    let TaskPayload::Completed { result } = payload else {
        panic!("expected a completed task, got {payload:?}");
    };
    let result: CallToolResult = serde_json::from_value(result.into()).unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    (text, result.is_error == Some(true))
}

#[tokio::test]
async fn a_long_call_becomes_a_task_whose_result_tasks_get_inlines() {
    let c = client(&serve().await, true).await;
    let id = start(&c, "slow_compute", json!({"seconds": 0.3, "label": "sum"})).await;
    let working = get(&c, &id).await;
    assert_eq!(
        working.task.task_id, id,
        "found at once: kept before it was answered"
    );
    let done = settled(&c, &id).await;
    assert_eq!(
        text_of(done.payload),
        ("computed sum in 0.3 s".into(), false)
    );

    // A tool that ran and failed completes with isError; a protocol error fails the task.
    let id = start(&c, "failing_job", json!({})).await;
    let (_, is_error) = text_of(settled(&c, &id).await.payload);
    assert!(is_error);
    let id = start(&c, "protocol_error_job", json!({})).await;
    match settled(&c, &id).await.payload {
        TaskPayload::Failed { error } => assert_eq!(error["code"], -32603),
        other => panic!("expected a failed task, got {other:?}"),
    }
    // A tool that is never a task answers in place.
    match c
        .call_tool_once(call("greet", json!({"name": "Ann"})))
        .await
        .unwrap()
    {
        CallToolResponse::Complete(result) => {
            assert_eq!(result.content[0].as_text().unwrap().text, "Hello, Ann!");
        }
        other => panic!("greet: expected a result, got {other:?}"),
    }
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_task_stops_and_stays_cancelled() {
    let c = client(&serve().await, true).await;
    let id = start(&c, "slow_compute", json!({"seconds": 60})).await;
    c.cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    assert_eq!(get(&c, &id).await.status(), TaskStatus::Cancelled);
    // Cancelling a settled task is acknowledged the same way and changes nothing.
    c.cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    assert_eq!(get(&c, &id).await.status(), TaskStatus::Cancelled);
    let unknown = c.get_task(GetTaskParams::new("task-999")).await;
    assert!(
        matches!(unknown, Err(ServiceError::McpError(ref e)) if e.code.0 == -32602),
        "{unknown:?}"
    );
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn progress_becomes_the_status_message_while_it_works() {
    let c = client(&serve().await, true).await;
    let id = start(&c, "slow_compute", json!({"seconds": 8})).await;
    let mut message = None;
    for _ in 0..100 {
        message = get(&c, &id).await.task.status_message;
        if message.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let message = message.expect("a status message within the heartbeat");
    assert!(message.ends_with(": computing"), "{message}");
    c.cancel_task(CancelTaskParams::new(id)).await.unwrap();
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_the_extension_is_answered_in_place() {
    let c = client(&serve().await, false).await;
    match c
        .call_tool_once(call("slow_compute", json!({"seconds": 0.1, "label": "x"})))
        .await
        .unwrap()
    {
        CallToolResponse::Complete(result) => {
            assert_eq!(
                result.content[0].as_text().unwrap().text,
                "computed x in 0.1 s"
            );
        }
        other => panic!("expected a result in place, got {other:?}"),
    }
    // A tool that is always a task, and the tasks methods, need the extension: -32021.
    let refused = c.call_tool_once(call("failing_job", json!({}))).await;
    assert!(
        matches!(refused, Err(ServiceError::McpError(ref e)) if e.code.0 == -32021),
        "{refused:?}"
    );
    let refused = c.get_task(GetTaskParams::new("task-1")).await;
    assert!(
        matches!(refused, Err(ServiceError::McpError(ref e)) if e.code.0 == -32021),
        "{refused:?}"
    );
    c.cancel().await.unwrap();
}
