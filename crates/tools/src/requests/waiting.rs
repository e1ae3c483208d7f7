//! Approved requests carried on without a caller: the job `requests.follow` hands over every
//! approved request that waits for a library (approved while none served its media type) once
//! one does, and follows the handed-over ones through their service, recording `available` (or
//! a removal) as `check_request_status` would. It runs at start and every minute.

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use domain::{Capability, Role};
use policy::{Action, Allowed, Decision, Effect, PlannedFor, Switches};
use store::{MediaRequest, RequestQuery, RequestStatus, Store};

use super::arrive;
use crate::library::{Libraries, source::Source};
use governance::{Job, JobFuture, Slots, ToolError};

/// How often the pass runs.
const EVERY: Duration = Duration::from_secs(60);
/// Approved requests read per page.
const PAGE: u32 = 200;

/// The job, when the store and at least one library instance are installed.
pub(crate) fn job(slots: &Slots) -> Option<Job> {
    let store = slots.get::<Store>()?.clone();
    let libraries = slots.get::<Libraries>()?.clone();
    // With no library instance there is nothing to hand over or follow.
    libraries.sources().next()?;
    let shared = Arc::new((store, libraries));
    let pass = move || -> JobFuture {
        let shared = shared.clone();
        Box::pin(async move {
            let (store, libraries) = &*shared;
            if let Err(e) = pass(store, libraries).await {
                tracing::warn!(error = %e.message, "requests.follow: the approved requests could not be read");
            }
        })
    };
    Some(Job {
        name: "requests.follow".into(),
        every: EVERY,
        on_every_replica: false,
        pass: Arc::new(pass),
    })
}

/// One pass over every approved request.
pub(crate) async fn pass(store: &Store, libraries: &Libraries) -> Result<(), ToolError> {
    let mut before = None;
    loop {
        let page = store
            .requests_page(&RequestQuery {
                status: Some(RequestStatus::Approved),
                before_id: before,
                limit: PAGE,
                ..RequestQuery::default()
            })
            .await?;
        for request in &page {
            if let Err(e) = carry_on(store, libraries, request).await {
                tracing::warn!(request = request.id, error = %e.message, "requests.follow");
            }
        }
        match page.last() {
            Some(last) if page.len() >= PAGE as usize => before = Some(last.id),
            _ => return Ok(()),
        }
    }
}

/// Hands `request` over when it waits for a library that now serves it, or follows it when it
/// was handed over.
async fn carry_on(
    store: &Store,
    libraries: &Libraries,
    request: &MediaRequest,
) -> Result<(), ToolError> {
    match store.library_link(request.id).await? {
        None => {
            let Some(source) = libraries.default_for(request.media_type) else {
                return Ok(());
            };
            // An approval handing the same request over right now goes first.
            let Some(_claim) = arrive::claim(request.id) else {
                return Ok(());
            };
            if store.library_link(request.id).await?.is_some() {
                return Ok(());
            }
            let allowed = carried_out(&source.id)?;
            // Audited as the approval's own write: entered before the service is touched, in
            // the approver's name (the requester's when the approver is gone).
            let person = match &request.decided_by {
                Some(name) => store.person_by_name(name).await?.map(|p| p.id),
                None => None,
            }
            .unwrap_or(request.person);
            let entry = store
                .audit_begin(&store::NewAudit {
                    person,
                    key_id: None,
                    tool: "requests.follow".into(),
                    instance: Some(source.id.clone()),
                    args_digest: format!("request {}", request.id),
                })
                .await?;
            store
                .plan_arrival(request.id, &source.id, None, None)
                .await?;
            let said = arrive::hand_over_approved(store, source, &allowed, request).await?;
            let link = store.library_link(request.id).await?;
            let (status, message) = match link.and_then(|l| l.failure) {
                None => (store::AuditStatus::Applied, None),
                Some(why) => (store::AuditStatus::Failed, Some(why)),
            };
            store
                .audit_finish(entry, status, message.as_deref())
                .await?;
            tracing::info!(
                request = request.id,
                instance = %source.id,
                "an approved request that waited for a library was handed over:{said}"
            );
        }
        Some(link) if link.failure.is_none() && link.item_id.is_some() => {
            arrive::follow_with(store, request, |id| by_id(libraries, id)).await?;
        }
        Some(_) => {}
    }
    Ok(())
}

fn by_id<'l>(libraries: &'l Libraries, id: &str) -> Result<&'l Source, ToolError> {
    libraries.by_id(id).ok_or_else(|| {
        ToolError::new(
            governance::ErrorCode::UnknownInstance,
            format!("library instance {id} is no longer configured"),
        )
    })
}

/// The decision that lets the pass carry out an approval on instance `id`: asked of `policy`
/// for a caller holding only `requests.manage` (what approving took), so the write handle comes
/// from a decision like every other, and a refusal stops the hand-over.
fn carried_out(id: &str) -> Result<Allowed, ToolError> {
    let capabilities = BTreeSet::from([Capability::RequestsManage]);
    let caller = policy::Caller {
        role: Role::Admin,
        capabilities: &capabilities,
        instances: None,
        tools: None,
    };
    let action = Action {
        tool: "decide_request",
        capability: Capability::RequestsManage,
        or_capabilities: &[],
        effect: Effect::Write,
        planned_for: PlannedFor::NoOne,
        instance: Some(id),
    };
    let switches = Switches {
        allow_destructive: false,
        tool_enabled: true,
    };
    match policy::decide(caller, action, switches) {
        Decision::Allow(allowed) => Ok(allowed),
        Decision::Deny { reason } => Err(ToolError::denied(reason)),
        Decision::NeedsPlan { missing } => Err(ToolError::denied(format!(
            "handing the request over needs {missing}"
        ))),
    }
}

/// How many approved requests wait for a hand-over (no library instance was chosen for them).
pub(crate) async fn count(store: &Store) -> Result<u64, ToolError> {
    let mut before = None;
    let mut waiting = 0;
    loop {
        let page = store
            .requests_page(&RequestQuery {
                status: Some(RequestStatus::Approved),
                before_id: before,
                limit: PAGE,
                ..RequestQuery::default()
            })
            .await?;
        for request in &page {
            if store.library_link(request.id).await?.is_none() {
                waiting += 1;
            }
        }
        match page.last() {
            Some(last) if page.len() >= PAGE as usize => before = Some(last.id),
            _ => return Ok(waiting),
        }
    }
}
