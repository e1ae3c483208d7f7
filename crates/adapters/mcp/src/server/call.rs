//! A call of an external server's tool: sent with the progress token rmcp gives it, its
//! progress handed to whoever hears the call, cancelled on the server when given up, and
//! answered within the call's time and size limits.

use std::sync::Arc;

use rmcp::{
    RoleClient,
    model::{
        CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
        ClientRequest, NumberOrString, ProgressNotificationParam, ProgressToken, RequestId,
        ServerResult,
    },
    service::{Peer, PeerRequestOptions, ServiceError},
};
use serde_json::{Map, Value};

use super::Server;
use crate::{Answer, Error, redact};

/// Hears a call's progress as the server reports it: (progress, total, message), the message
/// with Marquee's secrets scrubbed.
pub type Progress = Arc<dyn Fn(f64, Option<f64>, Option<&str>) + Send + Sync>;

/// The key of a progress token in [`Server::progress`].
fn token_key(token: &ProgressToken) -> String {
    match &token.0 {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.to_string(),
    }
}

/// Tells the server a call was given up (timed out, or its caller gone) unless it answered.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        let param = CancelledNotificationParam::new(Some(id), Some("the call was given up".into()));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(param).await;
            });
        }
    }
}

/// Forgets a call's progress token when the call ends, however it ends.
struct Listening<'a> {
    server: &'a Server,
    token: Option<String>,
}

impl Drop for Listening<'_> {
    fn drop(&mut self) {
        if let Some(token) = self.token.take() {
            self.server.progress.lock().remove(&token);
        }
    }
}

impl Server {
    /// Hands a progress notification to the call that carried its token, if one still waits.
    pub(super) fn hear_progress(&self, params: &ProgressNotificationParam) {
        let hear = self
            .progress
            .lock()
            .get(&token_key(&params.progress_token))
            .cloned();
        if let Some(hear) = hear {
            let message = params
                .message
                .as_deref()
                .map(|m| redact::line(m, &self.config.secrets));
            hear(params.progress, params.total, message.as_deref());
        }
    }

    /// Calls the tool `name` (as the server names it) with `arguments`; with `progress`, the
    /// server's progress reaches it while the call runs. A call dropped before its answer
    /// (timed out, or its caller gone) is cancelled on the server.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        progress: Option<Progress>,
    ) -> Result<Answer, Error> {
        let (peer, generation) = self.peer()?;
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let work = async {
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            // rmcp gives every request a progress token of its own: it is learnt here.
            let handle = peer
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await?;
            let _listening = progress.map(|hear| {
                let token = token_key(&handle.progress_token);
                self.progress.lock().insert(token.clone(), hear);
                Listening {
                    server: self,
                    token: Some(token),
                }
            });
            let mut abandoned = Abandoned {
                peer: peer.clone(),
                id: Some(handle.id.clone()),
            };
            let answer = handle.await_response().await;
            abandoned.id = None;
            match answer? {
                ServerResult::CallToolResult(result) => Ok(result),
                ServerResult::EmptyResult(_) => Ok(CallToolResult::default()),
                _ => Err(ServiceError::UnexpectedResponse),
            }
        };
        let (scrubbed, size) = self.bounded(generation, work).await?;
        let mut value: Map<String, Value> =
            serde_json::from_slice(&scrubbed).map_err(|e| Error::Failed {
                id: self.config.id.clone(),
                message: e.to_string(),
            })?;
        let content = match value.remove("content") {
            Some(Value::Array(blocks)) => blocks,
            _ => Vec::new(),
        };
        Ok(Answer {
            content,
            structured: value.remove("structuredContent"),
            is_error: value.get("isError").and_then(Value::as_bool) == Some(true),
            bytes: size,
        })
    }
}
