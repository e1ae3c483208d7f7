//! The library instances as the tools see them: one client per Radarr, Sonarr, Lidarr or
//! Readarr instance, how an optional `instance_id` picks one, and how adapter failures become
//! sentences that name the instance and what to do. Reads get a [`Reader`]; the
//! write-capable client only comes from [`Source::writer`] with the `policy::Allowed` proof.
//! The client field is private to this file, so no tool can reach it around the proof.

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use adapters_library::{Error, LibraryClient, Service, Writer};
use domain::{InstanceKind, KindFamily, MediaType};
use futures::future::join_all;
use policy::Allowed;
use serde_json::json;

use super::reader::Reader;
use governance::{
    context::Ctx,
    contract::ToolError,
    error::ErrorCode,
    instances::{InstanceSpec, Instances},
    report::Level,
};

/// The library instances' clients, built once at start; a clone shares them (a background
/// job holds one).
#[derive(Default, Clone)]
pub struct Libraries {
    sources: Arc<Vec<Source>>,
}

/// One library instance.
pub(crate) struct Source {
    pub id: String,
    pub kind: InstanceKind,
    /// The default instance of its kind.
    pub default: bool,
    /// The client, or why the instance's config could not make one.
    client: Result<Arc<LibraryClient>, String>,
    /// What the instance holds, for discovery's `in_library`.
    pub held: super::held::HeldCache,
    /// How long one request to it may take.
    timeout: std::time::Duration,
}

impl Libraries {
    pub fn from_instances(instances: &Instances) -> Libraries {
        let sources = instances
            .all()
            .iter()
            .filter(|s| s.kind.family() == KindFamily::Library)
            .filter_map(|spec| {
                Some(Source {
                    id: spec.id.clone(),
                    kind: spec.kind,
                    default: spec.default,
                    client: client(spec, service_of(spec.kind)?, instances.timeout(&spec.id)),
                    held: Default::default(),
                    timeout: instances.timeout(&spec.id),
                })
            })
            .collect();
        Libraries {
            sources: Arc::new(sources),
        }
    }

    /// The default instance of the kind that holds `media_type`, when one is configured.
    pub(crate) fn default_for(&self, media_type: MediaType) -> Option<&Source> {
        let kind = kind_for(media_type);
        self.sources.iter().find(|s| s.kind == kind && s.default)
    }

    pub(crate) fn by_id(&self, id: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.id == id)
    }

    pub(crate) fn sources(&self) -> impl Iterator<Item = &Source> {
        self.sources.iter()
    }

    /// For diagnose: asks the library instance `id` its own `system/status` (it answers, it
    /// accepts the key); a failure is the sentence naming the instance and what to do. `None`
    /// when `id` is no library instance.
    pub async fn check(&self, spec: &InstanceSpec) -> Option<Result<String, String>> {
        let source = self.by_id(&spec.id)?;
        // A client of its own, with the key `spec` carries (one entered in the owner's browser).
        let client = match client(spec, service_of(spec.kind)?, source.timeout) {
            Ok(c) => c,
            Err(why) => return Some(Err(why)),
        };
        Some(client.status().await.map_err(|e| source.error(e).message))
    }
}

pub(crate) fn service_of(kind: InstanceKind) -> Option<Service> {
    match kind {
        InstanceKind::Radarr => Some(Service::Radarr),
        InstanceKind::Sonarr => Some(Service::Sonarr),
        InstanceKind::Lidarr => Some(Service::Lidarr),
        InstanceKind::Readarr => Some(Service::Readarr),
        _ => None,
    }
}

/// Which library serves a media type: the kind of instance that holds it. The one place this
/// is decided; [`serves`], [`library_for`] and the default instance [`granted`] picks all ask
/// it.
pub(crate) fn kind_for(media_type: MediaType) -> InstanceKind {
    match media_type {
        MediaType::Movie => InstanceKind::Radarr,
        MediaType::Tv => InstanceKind::Sonarr,
        MediaType::Music => InstanceKind::Lidarr,
        MediaType::Book => InstanceKind::Readarr,
    }
}

/// Checks that `source` holds titles of this media type.
pub(crate) fn serves(source: &Source, media_type: MediaType) -> Result<(), ToolError> {
    let kind = kind_for(media_type);
    if source.kind == kind {
        return Ok(());
    }
    Err(ToolError::invalid(format!(
        "instance {} is a {} instance and holds no {} titles; use a {kind} instance",
        source.id,
        source.kind,
        media_type_word(media_type),
    )))
}

/// The library instance that serves a media type: the one named (checked to hold it), or the
/// default instance of its kind; `None` when none is named and none of that kind is configured.
pub(crate) fn library_for<'c>(
    ctx: &'c Ctx,
    media_type: MediaType,
    instance_id: Option<&str>,
) -> Result<Option<&'c Source>, ToolError> {
    if instance_id.is_none() && ctx.instances().default_of(kind_for(media_type)).is_none() {
        return Ok(None);
    }
    let source = one(ctx, instance_id, Some(media_type))?;
    serves(source, media_type)?;
    Ok(Some(source))
}

fn client(
    spec: &InstanceSpec,
    service: Service,
    timeout: std::time::Duration,
) -> Result<Arc<LibraryClient>, String> {
    let url = spec.url.clone().ok_or_else(|| {
        format!(
            "instance {} has no url; set url in its [[instances]] entry",
            spec.id
        )
    })?;
    let key = spec.api_key.clone().ok_or_else(|| {
        format!(
            "instance {} has no api_key; set api_key (or api_key_file) in its [[instances]] entry",
            spec.id
        )
    })?;
    let timeouts = httpx::Timeouts {
        connect: httpx::Timeouts::default().connect.min(timeout),
        request: timeout,
    };
    LibraryClient::with_timeouts(service, url, key, timeouts)
        .map(Arc::new)
        .map_err(|e| format!("instance {} cannot be set up: {e}", spec.id))
}

impl Source {
    /// This instance's reads; no write is reachable from them.
    pub fn client(&self) -> Result<Reader<'_>, ToolError> {
        self.connected().map(Reader::new)
    }

    fn connected(&self) -> Result<&LibraryClient, ToolError> {
        self.client
            .as_deref()
            .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, e.clone()))
    }

    /// What this instance holds, for discovery's `in_library` (`held.rs` keeps and refreshes it
    /// in the background); `None` when the config could not make a client. The client itself
    /// stays private: no tool reaches a write through here.
    pub(crate) async fn held_ids(&self) -> Option<(Option<super::held::Set>, u64)> {
        let client = self.client.as_ref().ok()?;
        Some(self.held.get(client, &self.id).await)
    }

    /// The client for a write `policy::decide` allowed on this very instance.
    pub fn writer(&self, allowed: policy::Write<'_>) -> Result<Writer<'_>, ToolError> {
        if !allowed.covers(&self.id) {
            tracing::error!(instance = %self.id, decided_for = ?allowed.instance(), "a write was attempted with a proof for another instance");
            return Err(ToolError::new(
                ErrorCode::Internal,
                format!(
                    "the write to library instance {} was stopped: it was not decided for that instance; the server log has the details",
                    self.id
                ),
            ));
        }
        Ok(self.connected()?.unchecked_writer())
    }

    /// Turns an adapter failure into a sentence naming this instance and what to do.
    pub fn error(&self, e: Error) -> ToolError {
        backend_error(&self.id, e)
    }
}

/// An adapter failure as a tool error naming the instance.
pub(crate) fn backend_error(instance: &str, e: Error) -> ToolError {
    let data = json!({ "instance_id": instance });
    let (code, message) = match &e {
        _ if e.is_unreachable() => (
            ErrorCode::BackendUnreachable,
            format!(
                "library instance {instance} could not be reached ({e}); check that it is running and its url in marquee.toml, or run diagnose"
            ),
        ),
        _ if e.is_unauthorized() => (
            ErrorCode::BackendUnauthorized,
            format!(
                "library instance {instance} refused its api key ({e}); copy the key from its Settings > General into api_key in marquee.toml"
            ),
        ),
        Error::Incomplete { .. } => (
            ErrorCode::BackendIncomplete,
            format!(
                "library instance {instance}: {e}; nothing is shown rather than a partial list, try again"
            ),
        ),
        Error::NotFound(m) => (
            ErrorCode::NotFound,
            format!("library instance {instance}: {m}"),
        ),
        Error::Unsupported(m) => (
            ErrorCode::InvalidArgument,
            format!("library instance {instance}: {m}"),
        ),
        Error::Config(m) => (
            ErrorCode::BackendUnavailable,
            format!("library instance {instance}: {m}"),
        ),
        Error::Http { .. } => (
            ErrorCode::BackendError,
            format!(
                "library instance {instance} failed: {e}; run diagnose or check the service's own logs"
            ),
        ),
    };
    ToolError::new(code, message).with_data(data)
}

/// The named library instance; without a name, the default instance of the kind that holds
/// `media_type`, or the only library instance the grant covers; with the decision
/// `policy::decide` made for this call on it.
pub(crate) fn granted<'c>(
    ctx: &'c Ctx,
    id: Option<&str>,
    media_type: Option<MediaType>,
) -> Result<(&'c Source, Allowed), ToolError> {
    let (spec, allowed) = match (id, media_type) {
        (Some(_), _) => ctx.instance(KindFamily::Library, id)?,
        (None, Some(mt)) => {
            let kind = kind_for(mt);
            let spec = ctx.instances().default_of(kind).ok_or_else(|| {
                ToolError::new(ErrorCode::NoInstance,
                    format!("no {kind} instance is configured for {} titles; add one under [[instances]] in marquee.toml", media_type_word(mt)),
                )
            })?;
            ctx.instance(KindFamily::Library, Some(&spec.id))?
        }
        (None, None) => {
            let mut covered = chosen_granted(ctx, None)?;
            match covered.as_slice() {
                [_] => return Ok(covered.remove(0)),
                many => {
                    let ids: Vec<&str> = many.iter().map(|(s, _)| s.id.as_str()).collect();
                    return Err(ToolError::invalid(format!(
                        "several library instances are configured; name one with instance_id ({}) or give media_type",
                        ids.join(", ")
                    )));
                }
            }
        }
    };
    let source = super::libraries(ctx).by_id(&spec.id).ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidArgument,
            format!("instance {} is not a library service", spec.id),
        )
    })?;
    Ok((source, allowed))
}

/// The named library instance (or the default one of the kind that holds `media_type`), for a read.
pub(crate) fn one<'c>(
    ctx: &'c Ctx,
    id: Option<&str>,
    media_type: Option<MediaType>,
) -> Result<&'c Source, ToolError> {
    granted(ctx, id, media_type).map(|(source, _)| source)
}

/// The named library instance, or every library instance `policy::decide` allows this call
/// on, each with its decision.
pub(crate) fn chosen_granted<'c>(
    ctx: &'c Ctx,
    id: Option<&str>,
) -> Result<Vec<(&'c Source, Allowed)>, ToolError> {
    if id.is_some() {
        return Ok(vec![granted(ctx, id, None)?]);
    }
    let covered: Vec<(&Source, Allowed)> = super::libraries(ctx)
        .sources
        .iter()
        .filter_map(|s| ctx.authorize(&s.id).ok().map(|a| (s, a)))
        .collect();
    if covered.is_empty() {
        ctx.instance(KindFamily::Library, None)?;
        return Err(ToolError::denied("your grant covers no library instance"));
    }
    Ok(covered)
}

/// The named library instance, or every library instance this call is allowed on, for a read.
pub(crate) fn chosen<'c>(ctx: &'c Ctx, id: Option<&str>) -> Result<Vec<&'c Source>, ToolError> {
    Ok(chosen_granted(ctx, id)?
        .into_iter()
        .map(|(source, _)| source)
        .collect())
}

/// What a merged read got: each instance's answer, and the instances that could not be read.
pub(crate) struct Merged<'c, T> {
    pub read: Vec<(&'c Source, T)>,
    pub failed: Vec<(&'c Source, ToolError)>,
}

impl<T> Merged<'_, T> {
    /// The unreadable instances as shown: `[{instance_id, code, error}]`.
    pub fn failed_data(&self) -> Vec<super::shapes::Unreadable> {
        self.failed
            .iter()
            .map(|(s, e)| super::shapes::Unreadable {
                instance_id: s.id.clone(),
                code: e.code.as_str(),
                error: e.message.clone(),
            })
            .collect()
    }

    /// Warnings naming each instance that could not be read.
    pub fn warnings(&self) -> Vec<String> {
        self.failed.iter().map(|(_, e)| e.message.clone()).collect()
    }

    /// All instances failed: the first failure (one instance) or a sentence naming them all.
    pub fn all_failed(&self) -> Option<ToolError> {
        if !self.read.is_empty() || self.failed.is_empty() {
            return None;
        }
        if let [(_, e)] = self.failed.as_slice() {
            return Some(e.clone());
        }
        let names: Vec<String> = self
            .failed
            .iter()
            .map(|(s, e)| format!("{} ({})", s.id, e.code))
            .collect();
        Some(
            ToolError::new(
                ErrorCode::BackendUnreachable,
                format!(
                    "no library instance could be read: {}; run diagnose",
                    names.join(", ")
                ),
            )
            .with_data(json!({ "unreadable": self.failed_data() })),
        )
    }
}

/// Reads every source concurrently; one slow or failing instance holds up or hides no other.
/// Each instance read is progress for a client that asked, and a log message at its level.
pub(crate) async fn merged<'c, T, F, Fut>(
    ctx: &Ctx,
    sources: Vec<&'c Source>,
    read: F,
) -> Merged<'c, T>
where
    F: Fn(Reader<'c>) -> Fut,
    Fut: Future<Output = Result<T, Error>>,
{
    let total = sources.len();
    ctx.progress(
        0,
        Some(total),
        &format!("reading {} library instance(s)", total),
    );
    let done = AtomicUsize::new(0);
    let futs = sources.into_iter().map(|s| {
        let (read, done) = (&read, &done);
        async move {
            let out = match s.client() {
                Ok(c) => read(c).await.map_err(|e| s.error(e)),
                Err(e) => Err(e),
            };
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            match &out {
                Ok(_) => ctx.log(Level::Info, &format!("read library instance {}", s.id)),
                Err(e) => ctx.log(Level::Warning, &e.message),
            }
            ctx.progress(n, Some(total), &format!("read {} of {total}: {}", n, s.id));
            (s, out)
        }
    });
    let mut m = Merged {
        read: Vec::new(),
        failed: Vec::new(),
    };
    for (s, out) in join_all(futs).await {
        match out {
            Ok(v) => m.read.push((s, v)),
            Err(e) => m.failed.push((s, e)),
        }
    }
    m
}

pub(crate) fn media_type_word(mt: MediaType) -> &'static str {
    match mt {
        MediaType::Movie => "movie",
        MediaType::Tv => "tv",
        MediaType::Music => "music",
        MediaType::Book => "book",
    }
}
