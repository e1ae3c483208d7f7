//! The media-server instances as the tools see them: one client per Jellyfin, Emby or Plex
//! instance (its per-instance `timeout_seconds`, Plex managed users' `user_tokens`), its kept
//! index, which of them a caller may read, and how a failure becomes a sentence naming the
//! server (never a token: the adapter's errors carry method and path only).

use std::sync::Arc;

use adapters_media::{Error, MediaClient, Server};
use domain::{InstanceKind, KindFamily};
use governance::{Ctx, Instances, Job, ToolError};

use super::index::Index;

/// The media-server instances' clients, built once at start.
#[derive(Default, Clone)]
pub struct MediaServers {
    list: Arc<Vec<MediaServer>>,
}

/// One media server.
pub(crate) struct MediaServer {
    pub id: String,
    /// The client, or why the instance's config could not make one.
    client: Result<Arc<MediaClient>, String>,
    /// Its items by provider id, synced in the background.
    pub index: Index,
    /// How long one request to it may take.
    timeout: std::time::Duration,
}

fn server_of(kind: InstanceKind) -> Option<Server> {
    match kind {
        InstanceKind::Jellyfin => Some(Server::Jellyfin),
        InstanceKind::Emby => Some(Server::Emby),
        InstanceKind::Plex => Some(Server::Plex),
        _ => None,
    }
}

impl MediaServers {
    pub fn from_instances(instances: &Instances) -> MediaServers {
        let list = instances
            .all()
            .iter()
            .filter(|s| s.kind.family() == KindFamily::MediaServers)
            .filter_map(|spec| {
                let server = server_of(spec.kind)?;
                let timeout = instances.timeout(&spec.id);
                let users = instances.user_tokens(&spec.id).to_vec();
                let client = client(spec, server, timeout, users);
                let index = Index::new(client.as_ref().ok().cloned());
                Some(MediaServer {
                    id: spec.id.clone(),
                    client,
                    index,
                    timeout,
                })
            })
            .collect();
        MediaServers {
            list: Arc::new(list),
        }
    }

    pub(crate) fn by_id(&self, id: &str) -> Option<&MediaServer> {
        self.list.iter().find(|s| s.id == id)
    }

    /// The servers the caller's grant covers.
    pub(crate) fn readable<'a>(&'a self, ctx: &'a Ctx) -> impl Iterator<Item = &'a MediaServer> {
        self.list.iter().filter(|s| ctx.covers(&s.id))
    }

    pub(crate) fn jobs(&self) -> Vec<Job> {
        self.list.iter().map(|s| s.index.job(&s.id)).collect()
    }

    /// For diagnose and a key entered in the owner's browser: asks the server `spec` names
    /// whether it answers and takes the token `spec` carries (a client of its own is made for
    /// the question).
    pub async fn check(&self, spec: &governance::InstanceSpec) -> Option<Result<String, String>> {
        let server = self.by_id(&spec.id)?;
        let kind = server_of(spec.kind)?;
        Some(match client(spec, kind, server.timeout, Vec::new()) {
            Ok(c) => c.status().await.map_err(|e| server.failure(&e)),
            Err(why) => Err(why),
        })
    }
}

fn client(
    spec: &governance::InstanceSpec,
    server: Server,
    timeout: std::time::Duration,
    users: Vec<(String, domain::Secret)>,
) -> Result<Arc<MediaClient>, String> {
    let url = spec.url.clone().ok_or_else(|| {
        format!(
            "media server {} has no url; set url in its [[instances]] entry",
            spec.id
        )
    })?;
    let token = spec.api_key.clone().ok_or_else(|| {
        format!(
            "media server {} has no token; set api_key (or api_key_file) in its [[instances]] entry",
            spec.id
        )
    })?;
    let timeouts = httpx::Timeouts {
        connect: httpx::Timeouts::default().connect.min(timeout),
        request: timeout,
    };
    MediaClient::new(server, url, token, users, timeouts)
        .map(Arc::new)
        .map_err(|e| format!("media server {} cannot be set up: {e}", spec.id))
}

impl MediaServer {
    pub(crate) fn client(&self) -> Result<&MediaClient, String> {
        self.client.as_deref().map_err(Clone::clone)
    }

    /// A sentence naming the server and what to do.
    pub(crate) fn failure(&self, e: &Error) -> String {
        let hint = if e.is_unreachable() {
            "; is it running at its configured url?"
        } else if e.is_unauthorized() {
            "; check its token (api_key)"
        } else {
            ""
        };
        format!("media server {} could not be read: {e}{hint}", self.id)
    }
}

/// One server the answer could not read, and why.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Unreadable {
    pub instance_id: String,
    pub reason: String,
}

/// The answer's failures as warnings; an error when every server failed and none answered.
pub(crate) fn all_failed(read: usize, failed: &[Unreadable]) -> Option<ToolError> {
    (read == 0 && !failed.is_empty()).then(|| {
        ToolError::new(
            governance::ErrorCode::BackendUnavailable,
            failed
                .iter()
                .map(|f| f.reason.clone())
                .collect::<Vec<_>>()
                .join("; "),
        )
    })
}
