//! The scheduler: finds the tasks due at the clock's time, claims each due time once (a
//! time missed while the server was down is recorded, never run late), and runs a task's
//! calls in order for its creator, with the authority the creator's key has at that moment.
//! A call refused for want of authority ends the run as failed, with the refusal audited.
//! Results are kept with the run; the notifier hears of it on a task of its own.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use governance::{Called, Delegate};
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use store::{NewAudit, Store, Task};

use super::{
    Notify,
    notify::{self, Message, Notifier, TaskRef},
    schedule::{self, Clock, SystemClock, TriggerType},
};

/// A due time older than this when the scheduler looks is one the server was down for.
pub const MISSED_AFTER: chrono::Duration = chrono::Duration::minutes(2);

/// One call of a task, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredCall {
    pub tool: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

/// What one call of a run gave.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CallResult {
    pub tool: String,
    pub ok: bool,
    /// The answer's summary, or the error's sentence.
    pub summary: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The error code, for a call that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The answer's data, for a call that succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The scheduler's settings from the config.
#[derive(Debug, Clone)]
pub struct TasksConfig {
    /// `[tasks] time_zone`: where cron expressions and local dates are read.
    pub zone: Tz,
    /// `[[notifiers]]`.
    pub notifiers: Vec<Notifier>,
}

impl Default for TasksConfig {
    fn default() -> TasksConfig {
        TasksConfig {
            zone: schedule::machine_zone(),
            notifiers: Vec::new(),
        }
    }
}

/// The tasks family's state: one per core.
pub struct Scheduler {
    store: Store,
    delegate: Delegate,
    clock: RwLock<Arc<dyn Clock>>,
    config: RwLock<Arc<TasksConfig>>,
    /// This process's mark on the runs it begins: a run still `running` under another mark
    /// was cut short by a stop.
    boot: String,
}

impl Scheduler {
    pub fn new(store: Store, delegate: Delegate) -> Scheduler {
        Scheduler {
            delegate,
            clock: RwLock::new(Arc::new(SystemClock)),
            config: RwLock::new(Arc::new(TasksConfig::default())),
            // A process that joined the store as a replica marks its runs with its replica id,
            // whose heartbeat tells other machines' replicas whether it still runs.
            boot: store.replica().map_or_else(
                || {
                    format!(
                        "{}:{}:{:016x}",
                        store::machine(),
                        std::process::id(),
                        rand::random::<u64>()
                    )
                },
                str::to_owned,
            ),
            store,
        }
    }

    /// Uses `clock` from now on (tests drive due times with a [`schedule::ManualClock`]).
    pub fn set_clock(&self, clock: Arc<dyn Clock>) {
        *self.clock.write() = clock;
    }

    pub fn configure(&self, config: TasksConfig) {
        *self.config.write() = Arc::new(config);
    }

    pub fn now(&self) -> DateTime<Utc> {
        self.clock.read().now()
    }

    pub fn config(&self) -> Arc<TasksConfig> {
        self.config.read().clone()
    }

    /// Runs another process left `running` become `interrupted`, unless that process still
    /// runs: a replica whose heartbeat is fresh (on any machine), or a process of this machine
    /// (another server on the same data folder, its runs under way).
    pub async fn recover(&self) -> Result<u64, store::Error> {
        let elsewhere = self.store.task_runs_running_elsewhere(&self.boot).await?;
        if elsewhere.is_empty() {
            return Ok(0);
        }
        let live = self.store.live_replicas().await?;
        let gone: Vec<i64> = elsewhere
            .into_iter()
            .filter(|(_, boot)| !live.contains(boot) && !store::runs_here(boot))
            .map(|(id, _)| id)
            .collect();
        if gone.is_empty() {
            return Ok(0);
        }
        let n = self.store.interrupt_task_runs(&gone).await?;
        if n > 0 {
            tracing::warn!(
                runs = n,
                "task runs cut short by a stop are now interrupted; none is run again on its own"
            );
        }
        Ok(n)
    }

    /// The time after `after` a task is due next: `None` for a date task (it is due once).
    pub fn next_after(&self, task: &Task, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match TriggerType::parse(&task.trigger_type)? {
            TriggerType::Date => None,
            TriggerType::Cron => {
                let cron = schedule::parse_cron(&task.schedule).ok()?;
                schedule::next_cron(&cron, self.config().zone, after)
            }
        }
    }

    /// One look at the clock: every due time is claimed once; a time missed by more than
    /// [`MISSED_AFTER`] is recorded and skipped. Answers the runs begun (they go on in the
    /// background).
    pub async fn tick(self: &Arc<Self>) -> Vec<i64> {
        let mut begun = Vec::new();
        if let Err(e) = self.recover().await {
            tracing::error!(error = %e, "task runs could not be recovered");
        }
        let now = self.now();
        let due = match self.store.due_tasks(now.timestamp_millis()).await {
            Ok(d) => d,
            Err(e) => {
                tracing::error!(error = %e, "due tasks could not be read");
                return begun;
            }
        };
        for task in due {
            let Some(at) = task.next_run_at else { continue };
            let missed = now.timestamp_millis() - at > MISSED_AFTER.num_milliseconds();
            let next = self.next_after(&task, now).map(|t| t.timestamp_millis());
            match self
                .store
                .claim_due_task(task.id, at, next, missed, &self.boot)
                .await
            {
                Ok(Some(run)) => {
                    self.spawn_run(task, run);
                    begun.push(run);
                }
                Ok(None) if missed => {
                    tracing::warn!(
                        task = task.id,
                        due = at,
                        "a task's time passed while the server was down; it was not run late"
                    );
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::error!(task = task.id, error = %e, "a due task could not be claimed")
                }
            }
        }
        begun
    }

    /// Begins a run of `task` now, for a person who asked; answers its id at once.
    pub async fn run_now(self: &Arc<Self>, task: Task) -> Result<i64, store::Error> {
        let run = self.store.begin_task_run(task.id, &self.boot).await?;
        self.spawn_run(task, run);
        Ok(run)
    }

    fn spawn_run(self: &Arc<Self>, task: Task, run: i64) {
        let me = self.clone();
        tokio::spawn(async move { me.execute(task, run).await });
    }

    async fn execute(&self, task: Task, run: i64) {
        let calls: Vec<StoredCall> = serde_json::from_str(&task.calls).unwrap_or_default();
        let mut results: Vec<CallResult> = Vec::new();
        let mut failure: Option<String> = None;
        for (n, call) in calls.into_iter().enumerate() {
            let position = n + 1;
            let outcome = self
                .delegate
                .call_as(
                    &task.key_id,
                    task.person_id,
                    &call.tool,
                    call.arguments.clone(),
                )
                .await;
            let result = match outcome {
                Err(reason) => {
                    self.audit_refusal(&task, run, &call, &reason).await;
                    failure = Some(format!(
                        "call {position} ({}) was refused: {reason}",
                        call.tool
                    ));
                    CallResult::failed(&call.tool, "denied", &reason)
                }
                Ok(Called::UnknownTool) => {
                    let reason = format!("no tool is named {}", call.tool);
                    failure = Some(format!("call {position}: {reason}"));
                    CallResult::failed(&call.tool, "unknown_tool", &reason)
                }
                Ok(Called::Done(Err(e))) => {
                    if e.code.kind() == governance::ErrorKind::Denied {
                        self.audit_refusal(&task, run, &call, &e.message).await;
                    }
                    failure = Some(format!(
                        "call {position} ({}) failed: {}",
                        call.tool, e.message
                    ));
                    CallResult::failed(&call.tool, e.code.as_str(), &e.message)
                }
                Ok(Called::Done(Ok(out))) => CallResult {
                    tool: call.tool.clone(),
                    ok: true,
                    summary: out.summary.clone(),
                    warnings: out.warnings.clone(),
                    error: None,
                    data: Some(out.data()),
                },
            };
            results.push(result);
            let written = serde_json::to_string(&results).unwrap_or_default();
            if let Err(e) = self.store.record_task_results(run, &written).await {
                tracing::error!(run, error = %e, "a task run's results could not be recorded");
            }
            if failure.is_some() {
                break;
            }
        }
        let status = if failure.is_some() {
            "failed"
        } else {
            "succeeded"
        };
        let written = serde_json::to_string(&results).unwrap_or_default();
        match self
            .store
            .finish_task_run(run, status, &written, failure.as_deref())
            .await
        {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                tracing::error!(run, error = %e, "a task run could not be finished");
                return;
            }
        }
        tracing::info!(task = task.id, run, status, "task run finished");
        self.notify(&task, run, status, &results, failure).await;
    }

    /// A call refused for want of authority is audited: a failed entry naming the task's run.
    async fn audit_refusal(&self, task: &Task, run: i64, call: &StoredCall, reason: &str) {
        let arguments = serde_json::to_string(&call.arguments).unwrap_or_default();
        let entry = NewAudit {
            person: task.person_id,
            key_id: Some(task.key_id.clone()).filter(|k| k != "local"),
            tool: call.tool.clone(),
            instance: None,
            args_digest: format!("sha256:{}", hex::encode(Sha256::digest(arguments))),
        };
        let message = format!("task {} run {run}: {reason}", task.id);
        let written = match self.store.audit_begin(&entry).await {
            Ok(id) => {
                self.store
                    .audit_finish(id, store::AuditStatus::Failed, Some(&message))
                    .await
            }
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            tracing::error!(task = task.id, run, error = %e, "a task's refused call could not be audited");
        }
    }

    /// One pass of the notices people chose (`marquee people notify`): each change proposed
    /// since the last pass to the owner and admins who chose `approvals`, and each request that
    /// became available to its requester, if they chose `downloads`; through the notifier each
    /// chose, on tasks of their own. A first pass only marks where it starts. The number sent.
    pub async fn notices(&self) -> Result<usize, store::Error> {
        let mut sent = 0;
        if let Some(after) = self.cursor("approvals").await? {
            let waiting = self.store.pending_changes_after(after).await?;
            if let Some(last) = waiting.last().map(|c| c.created_at) {
                let choices = self.store.notify_choices("approvals").await?;
                for change in &waiting {
                    let payload = notify::ApprovalWaiting {
                        event: "approval_waiting",
                        change_id: change.id.clone(),
                        tool: change.tool.clone(),
                        person: change.creator.clone(),
                        summary: change.summary.clone(),
                        review: self.delegate.review_url(&change.id),
                    }
                    .payload();
                    // Only those who may decide hear of it, and never of their own proposal.
                    let to = choices.iter().filter(|(person, role, _)| {
                        matches!(role.as_str(), "owner" | "admin") && *person != change.created_by
                    });
                    sent += self.tell(to.map(|(_, _, n)| n.as_str()), &payload);
                }
                self.store.set_notice_cursor("approvals", last).await?;
            }
        }
        if let Some(after) = self.cursor("downloads").await? {
            let arrived = self.store.requests_available_after(after).await?;
            if let Some(last) = arrived.last().map(|a| a.at) {
                let choices = self.store.notify_choices("downloads").await?;
                for a in &arrived {
                    let payload = notify::Available {
                        event: "available",
                        request_id: a.request_id,
                        title: a.title.clone(),
                        year: a.year,
                        media_type: a.media_type.clone(),
                    }
                    .payload();
                    let to = choices.iter().filter(|(person, _, _)| *person == a.person);
                    sent += self.tell(to.map(|(_, _, n)| n.as_str()), &payload);
                }
                self.store.set_notice_cursor("downloads", last).await?;
            }
        }
        Ok(sent)
    }

    /// `event`'s cursor, or `None` after marking where a first pass starts.
    async fn cursor(&self, event: &str) -> Result<Option<i64>, store::Error> {
        if let Some(at) = self.store.notice_cursor(event).await? {
            return Ok(Some(at));
        }
        let start = self.store.notice_start(event).await?;
        self.store.set_notice_cursor(event, start).await?;
        Ok(None)
    }

    /// Sends `payload` through each named notifier on a task of its own; how many were sent.
    fn tell<'a>(
        &self,
        notifiers: impl Iterator<Item = &'a str>,
        payload: &notify::Payload,
    ) -> usize {
        let config = self.config();
        let mut sent = 0;
        for id in notifiers {
            let Some(notifier) = config.notifiers.iter().find(|n| n.id == id) else {
                tracing::warn!(notifier = %id, "a chosen notice names a notifier the config no longer has");
                continue;
            };
            let (notifier, payload) = (notifier.clone(), payload.clone());
            tokio::spawn(async move { notify::send(&notifier, &payload).await });
            sent += 1;
        }
        sent
    }

    /// Tells the task's notifier, when its `notify` rule says so, on a task of its own.
    async fn notify(
        &self,
        task: &Task,
        run: i64,
        status: &'static str,
        results: &[CallResult],
        error: Option<String>,
    ) {
        let Some(id) = &task.notifier else { return };
        let Some(notifier) = self
            .config()
            .notifiers
            .iter()
            .find(|n| &n.id == id)
            .cloned()
        else {
            tracing::warn!(task = task.id, notifier = %id, "a task names a notifier the config no longer has");
            return;
        };
        let tell = match Notify::parse(&task.notify) {
            Some(Notify::Always) | None => true,
            Some(Notify::OnError) => status == "failed",
            Some(Notify::OnWarning) => {
                status == "failed" || results.iter().any(|r| !r.warnings.is_empty())
            }
            Some(Notify::OnChange) => self.changed(task.id, run, results).await,
        };
        if !tell {
            return;
        }
        let message = Message {
            task: TaskRef {
                id: task.id,
                name: task.name.clone(),
            },
            run_id: run,
            status,
            summaries: results
                .iter()
                .map(|r| format!("{}: {}", r.tool, r.summary))
                .collect(),
            error,
        };
        tokio::spawn(async move { notify::send(&notifier, &message.payload()).await });
    }

    /// Whether a run's results differ from the task's previous finished run (its first run
    /// counts as a change).
    async fn changed(&self, task: i64, run: i64, results: &[CallResult]) -> bool {
        let Ok(Some(previous)) = self.store.previous_task_run(task, run).await else {
            return true;
        };
        let before: Vec<CallResult> = serde_json::from_str(&previous.results).unwrap_or_default();
        let strip = |r: &[CallResult]| -> Vec<(String, bool, Option<Value>)> {
            r.iter()
                .map(|c| (c.tool.clone(), c.ok, c.data.clone()))
                .collect()
        };
        strip(&before) != strip(results)
    }
}

impl CallResult {
    fn failed(tool: &str, code: &str, reason: &str) -> CallResult {
        CallResult {
            tool: tool.to_owned(),
            ok: false,
            summary: reason.to_owned(),
            warnings: Vec::new(),
            error: Some(code.to_owned()),
            data: None,
        }
    }
}
