//! The indexer instances as the tools see them: one client per Prowlarr or Torznab instance,
//! the indexers a search asks (each Prowlarr indexer alone, a feed as one), and adapter failures
//! as sentences that name the indexer and what to do, never a URL or a key.

use std::sync::Arc;

use adapters_indexers::{Api, Error, Indexer, IndexerClient};
use domain::{InstanceKind, KindFamily};
use futures::future::join_all;

use super::refs::Refs;
use governance::{Ctx, ErrorCode, InstanceSpec, Instances, ToolError};

/// The indexer instances' clients, built once at start, and the release references handed out.
#[derive(Default, Clone)]
pub struct Indexers {
    sources: Arc<Vec<Source>>,
    pub(crate) refs: Arc<Refs>,
}

/// One indexer instance.
pub(crate) struct Source {
    pub id: String,
    pub kind: InstanceKind,
    /// The client, or why the instance's config could not make one.
    client: Result<IndexerClient, String>,
}

/// One indexer a search asks: a Prowlarr indexer, or a whole feed.
#[derive(Clone)]
pub(crate) struct Unit<'a> {
    pub source: &'a Source,
    /// Prowlarr's indexer id.
    pub indexer: Option<i64>,
    /// What answers and filters name it by: `instance` for a feed, `instance/id` for a
    /// Prowlarr indexer.
    pub key: String,
    pub name: String,
    /// A Prowlarr indexer's search parameters, from its list.
    pub caps: Option<adapters_indexers::SearchCaps>,
}

impl Indexers {
    pub fn from_instances(instances: &Instances) -> Indexers {
        let sources = instances
            .all()
            .iter()
            .filter(|s| s.kind.family() == KindFamily::Indexers)
            .map(|spec| Source {
                id: spec.id.clone(),
                kind: spec.kind,
                client: client(spec, instances.timeout(&spec.id)),
            })
            .collect();
        Indexers {
            sources: Arc::new(sources),
            refs: Arc::new(Refs::default()),
        }
    }

    pub(crate) fn sources(&self) -> impl Iterator<Item = &Source> {
        self.sources.iter()
    }

    /// For diagnose: the instance answers its indexer list (Prowlarr) or its caps (a feed).
    pub async fn check(&self, id: &str) -> Option<Result<String, String>> {
        let source = self.sources.iter().find(|s| s.id == id)?;
        Some(match source.indexers().await {
            Ok(list) => Ok(format!(
                "answers, with {}",
                crate::library::count(list.len(), "indexer", "indexers")
            )),
            Err(e) => Err(e.message),
        })
    }
}

fn client(spec: &InstanceSpec, timeout: std::time::Duration) -> Result<IndexerClient, String> {
    let api = match spec.kind {
        InstanceKind::Prowlarr => Api::Prowlarr,
        _ => Api::Torznab,
    };
    let url = spec.url.clone().ok_or_else(|| {
        format!(
            "instance {} has no url; set the {} in the config",
            spec.id,
            if api == Api::Prowlarr {
                "Prowlarr address"
            } else {
                "feed's API endpoint (…/api)"
            }
        )
    })?;
    let key = spec
        .api_key
        .clone()
        .ok_or_else(|| format!("instance {} has no api_key; set it in the config", spec.id))?;
    let timeouts = httpx::Timeouts {
        connect: std::time::Duration::from_secs(3),
        request: timeout,
    };
    IndexerClient::new(api, url, key, timeouts).map_err(|e| format!("instance {}: {e}", spec.id))
}

impl Source {
    pub(crate) fn client(&self) -> Result<&IndexerClient, ToolError> {
        self.client
            .as_ref()
            .map_err(|why| ToolError::new(ErrorCode::BackendMisconfigured, why.clone()))
    }

    /// The indexers behind this instance.
    pub(crate) async fn indexers(&self) -> Result<Vec<Indexer>, ToolError> {
        let client = self.client()?;
        let what = match self.kind {
            InstanceKind::Prowlarr => format!("prowlarr instance {}", self.id),
            _ => format!("indexer {}", self.id),
        };
        client
            .indexers(&self.id)
            .await
            .map_err(|e| self.error(&what, &e))
    }

    /// A failure of `what` (an indexer of this instance, or the instance) as a sentence.
    pub(crate) fn error(&self, what: &str, e: &Error) -> ToolError {
        let (code, text) = sentence(what, e);
        ToolError::new(code, text)
    }
}

/// What a person reads about a failure of `what`.
pub(crate) fn sentence(what: &str, e: &Error) -> (ErrorCode, String) {
    if e.is_credentials() {
        return (
            ErrorCode::BackendUnauthorized,
            format!("{what} refused the API key ({e}); check the instance's api_key"),
        );
    }
    match e {
        Error::Http(httpx::Error::Timeout) => (
            ErrorCode::BackendUnreachable,
            format!("{what} did not answer in time"),
        ),
        Error::Http(httpx::Error::Unreachable { .. }) => (
            ErrorCode::BackendUnreachable,
            format!(
                "{what} cannot be reached: {}",
                adapters_indexers::clean_text(&e.to_string())
            ),
        ),
        Error::Http(httpx::Error::Decode { detail }) => (
            ErrorCode::BackendError,
            format!("{what} answered something unreadable: {detail}"),
        ),
        Error::Http(other) => (
            ErrorCode::BackendError,
            format!(
                "{what}: {}",
                adapters_indexers::clean_text(&other.to_string())
            ),
        ),
        Error::Feed { .. } => (ErrorCode::BackendError, format!("{what}: {e}")),
        Error::Config(why) => (ErrorCode::BackendMisconfigured, format!("{what}: {why}")),
    }
}

/// The indexers a search asks, of the instances the caller's grant covers: each enabled
/// Prowlarr indexer alone, each feed as one. An instance whose list cannot be read is named in
/// `failed` and the others are still asked.
pub(crate) async fn units<'a>(ctx: &Ctx, indexers: &'a Indexers) -> (Vec<Unit<'a>>, Vec<String>) {
    let covered: Vec<&Source> = indexers.sources().filter(|s| ctx.covers(&s.id)).collect();
    let lists = join_all(covered.iter().map(|s| async move {
        match s.kind {
            InstanceKind::Prowlarr => (s, Some(s.indexers().await)),
            _ => (s, None),
        }
    }))
    .await;
    let mut out = Vec::new();
    let mut failed = Vec::new();
    for (source, list) in lists {
        match list {
            None => out.push(Unit {
                source,
                indexer: None,
                key: source.id.clone(),
                name: source.id.clone(),
                caps: None,
            }),
            Some(Ok(list)) => {
                for i in list.into_iter().filter(|i| i.enabled) {
                    let Some(id) = i.id else { continue };
                    out.push(Unit {
                        source,
                        indexer: Some(id),
                        key: format!("{}/{id}", source.id),
                        caps: i.search_caps(),
                        name: i.name,
                    });
                }
            }
            Some(Err(e)) => failed.push(e.message),
        }
    }
    (out, failed)
}

/// The units `wanted` names (keys, instance ids or indexer names, case-insensitive); an unknown
/// name is refused with the valid keys.
pub(crate) fn select<'a>(
    all: Vec<Unit<'a>>,
    wanted: Option<&[String]>,
) -> Result<Vec<Unit<'a>>, ToolError> {
    let Some(wanted) = wanted.filter(|w| !w.is_empty()) else {
        return Ok(all);
    };
    let matches = |u: &Unit<'_>, w: &str| {
        u.key.eq_ignore_ascii_case(w)
            || u.source.id.eq_ignore_ascii_case(w)
            || u.name.eq_ignore_ascii_case(w)
    };
    if let Some(unknown) = wanted
        .iter()
        .find(|w| !all.iter().any(|u| matches(u, w.trim())))
    {
        let valid: Vec<String> = all
            .iter()
            .map(|u| format!("{} ({})", u.key, u.name))
            .collect();
        return Err(ToolError::invalid(format!(
            "unknown indexer \"{}\"; valid indexers: {}",
            unknown.chars().take(60).collect::<String>(),
            if valid.is_empty() {
                "none".to_string()
            } else {
                valid.join(", ")
            }
        )));
    }
    Ok(all
        .into_iter()
        .filter(|u| wanted.iter().any(|w| matches(u, w.trim())))
        .collect())
}
