//! A host with no tools of its own, for this crate's tests: one valid credential (`good`),
//! the conformance fixtures, protocol tasks kept in memory, and key-less local access when
//! `local` says so.

#![allow(dead_code)]

use std::{collections::HashMap, sync::Arc};

use mcp::{
    Context, HostError, ListedTool, RenderedResult, ServerIdentity, Settle, TaskRecord, ToolHost,
    model::{ErrorData, JsonObject, ReadResourceResult, Resource, ResourceTemplate, TaskStatus},
};
use parking_lot::Mutex;

pub struct TestHost {
    pub identity: ServerIdentity,
    /// Lets key-less requests from this machine in, as `[auth] local_person` does.
    pub local: bool,
    /// Protocol tasks, as a store would keep them.
    pub tasks: Mutex<HashMap<String, TaskRecord>>,
}

fn now() -> String {
    "2026-12-06T00:00:00.000Z".into()
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
            tasks: Mutex::new(HashMap::new()),
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

    fn keeps_tasks(&self) -> bool {
        true
    }

    async fn create_task(&self, _: &(), _: &str, _: bool) -> Result<TaskRecord, HostError> {
        let mut tasks = self.tasks.lock();
        let record = TaskRecord {
            id: format!("task-{}", tasks.len() + 1),
            status: TaskStatus::Working,
            message: None,
            created_at: now(),
            updated_at: now(),
            ttl_ms: mcp::TASK_TTL_MS,
            outcome: None,
        };
        tasks.insert(record.id.clone(), record.clone());
        Ok(record)
    }

    async fn get_task(&self, _: &(), id: &str) -> Result<Option<TaskRecord>, HostError> {
        Ok(self.tasks.lock().get(id).cloned())
    }

    async fn settle_task(&self, id: &str, settle: Settle) -> Result<bool, HostError> {
        let mut tasks = self.tasks.lock();
        let Some(task) = tasks
            .get_mut(id)
            .filter(|t| t.status == TaskStatus::Working)
        else {
            return Ok(false);
        };
        match settle {
            Settle::Beat { message } => task.message = message.or(task.message.take()),
            Settle::Completed(result) => {
                task.status = TaskStatus::Completed;
                task.outcome = Some(result);
            }
            Settle::Failed(error) => {
                task.status = TaskStatus::Failed;
                task.outcome = Some(error);
            }
        }
        Ok(true)
    }

    async fn cancel_task(&self, _: &(), id: &str) -> Result<Option<bool>, HostError> {
        let mut tasks = self.tasks.lock();
        let Some(task) = tasks.get_mut(id) else {
            return Ok(None);
        };
        let working = task.status == TaskStatus::Working;
        if working {
            task.status = TaskStatus::Cancelled;
        }
        Ok(Some(working))
    }
}
