//! The subtitle instances as the tools see them: one client per OpenSubtitles or Bazarr
//! instance, and adapter failures as sentences naming the instance and what to do, never a URL
//! or a key.

use std::{sync::Arc, time::Duration};

use adapters_subtitles::{Bazarr, Error, OpenSubtitles};
use domain::{InstanceKind, KindFamily};

use super::refs::Refs;
use governance::{ErrorCode, InstanceSpec, Instances, ToolError};

/// The clients, built once at start, and the references handed out.
#[derive(Default, Clone)]
pub struct Subtitles {
    sources: Arc<Vec<Source>>,
    pub(crate) refs: Arc<Refs>,
}

pub(crate) enum Client {
    OpenSubtitles(OpenSubtitles),
    Bazarr(Bazarr),
}

/// One subtitle instance.
pub(crate) struct Source {
    pub id: String,
    pub kind: InstanceKind,
    pub timeout: Duration,
    client: Result<Client, String>,
}

impl Subtitles {
    pub fn from_instances(instances: &Instances) -> Subtitles {
        let sources = instances
            .all()
            .iter()
            .filter(|s| s.kind.family() == KindFamily::Subtitles)
            .map(|spec| {
                let timeout = instances.timeout(&spec.id);
                Source {
                    id: spec.id.clone(),
                    kind: spec.kind,
                    timeout,
                    client: client(spec, timeout),
                }
            })
            .collect();
        Subtitles {
            sources: Arc::new(sources),
            refs: Arc::new(Refs::default()),
        }
    }

    pub(crate) fn sources(&self) -> impl Iterator<Item = &Source> {
        self.sources.iter()
    }

    pub(crate) fn get(&self, id: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.id == id)
    }

    /// For diagnose: Bazarr answers its status; an OpenSubtitles instance is configured (a
    /// check would spend nothing, but is not asked of the public service on every diagnose).
    pub async fn check(&self, id: &str) -> Option<Result<String, String>> {
        let source = self.get(id)?;
        Some(match source.client() {
            Err(e) => Err(e.message),
            Ok(Client::OpenSubtitles(_)) => Ok("configured".into()),
            Ok(Client::Bazarr(b)) => match b.version().await {
                Ok(v) => Ok(format!("answers, Bazarr {v}")),
                Err(e) => Err(source.error(&e).message),
            },
        })
    }
}

fn client(spec: &InstanceSpec, timeout: Duration) -> Result<Client, String> {
    let key = spec
        .api_key
        .clone()
        .ok_or_else(|| format!("instance {} has no api_key; set it in the config", spec.id))?;
    let timeouts = httpx::Timeouts {
        connect: Duration::from_secs(3),
        request: timeout,
    };
    let made = match spec.kind {
        InstanceKind::Bazarr => {
            let url = spec.url.clone().ok_or_else(|| {
                format!(
                    "instance {} has no url; set the Bazarr address in the config",
                    spec.id
                )
            })?;
            Bazarr::new(url, key, timeouts).map(Client::Bazarr)
        }
        _ => OpenSubtitles::new(spec.url.clone(), key, timeouts).map(Client::OpenSubtitles),
    };
    made.map_err(|e| format!("instance {}: {e}", spec.id))
}

impl Source {
    pub(crate) fn client(&self) -> Result<&Client, ToolError> {
        self.client
            .as_ref()
            .map_err(|why| ToolError::new(ErrorCode::BackendMisconfigured, why.clone()))
    }

    pub(crate) fn timeouts(&self) -> httpx::Timeouts {
        httpx::Timeouts {
            connect: Duration::from_secs(3),
            request: self.timeout,
        }
    }

    /// A failure of this instance as a sentence that names it.
    pub(crate) fn error(&self, e: &Error) -> ToolError {
        let what = match self.kind {
            InstanceKind::Bazarr => format!("the Bazarr instance \"{}\"", self.id),
            _ => format!("the OpenSubtitles instance \"{}\"", self.id),
        };
        let (code, text) = match e {
            e if e.is_credentials() => (
                ErrorCode::BackendUnauthorized,
                format!("{what} refused the API key (HTTP 401); check the instance's api_key"),
            ),
            Error::Quota { message } => (
                ErrorCode::BackendRateLimited,
                format!("{what} has no downloads left today: {message}"),
            ),
            Error::Http(httpx::Error::RateLimited { .. }) => (
                ErrorCode::BackendRateLimited,
                format!("{what} is rate limiting; try again in a few seconds"),
            ),
            Error::Http(httpx::Error::Timeout) => (
                ErrorCode::BackendUnreachable,
                format!("{what} did not answer in time"),
            ),
            Error::Http(httpx::Error::Unreachable { .. }) => (
                ErrorCode::BackendUnreachable,
                format!(
                    "{what} cannot be reached: {}",
                    httpx::redact(&e.to_string())
                ),
            ),
            Error::Config(why) => (ErrorCode::BackendMisconfigured, format!("{what}: {why}")),
            other => (
                ErrorCode::BackendError,
                format!("{what}: {}", httpx::redact(&other.to_string())),
            ),
        };
        ToolError::new(code, text)
    }
}
