//! The catalogue instances (builtin, TMDB, TVDB, AniList, MusicBrainz, LRCLIB) built once at start, and how a tool picks
//! one: the named `instance_id`, or, when omitted, the default catalogue if it can answer the
//! question, else the default instance of a kind that can.

use std::{future::Future, sync::Arc, time::Duration};

use adapters_catalogue::{
    AniList, AniListConfig, Builtin, Catalogue, Lrclib, LrclibConfig, MusicBrainz,
    MusicBrainzConfig, Tmdb, TmdbAuth, TmdbConfig, Tvdb, TvdbConfig,
};
use domain::{InstanceKind, KindFamily};
use tokio::sync::OnceCell;

use super::{
    kept::{self, Kept},
    limits::Gate,
    ratings::RatingCache,
};
use governance::{ErrorCode, Job, JobFuture};
use governance::{
    context::Ctx,
    contract::{Output, ToolError},
    instances::{InstanceSpec, Instances},
};

/// The builtin catalogue, loaded once per process however many instances name it.
static BUILTIN: OnceCell<Result<Arc<Builtin>, String>> = OnceCell::const_new();

async fn builtin() -> Result<Arc<Builtin>, String> {
    BUILTIN
        .get_or_init(|| async {
            match tokio::task::spawn_blocking(Builtin::shared).await {
                Ok(Ok(b)) => {
                    tracing::info!(films = b.len(), load_time = ?b.load_time(), "builtin catalogue loaded");
                    Ok(b)
                }
                Ok(Err(e)) => Err(format!("the builtin catalogue data did not load: {e}")),
                Err(e) => Err(format!("loading the builtin catalogue failed: {e}")),
            }
        })
        .await
        .clone()
}

enum Source {
    Ready(Arc<dyn Catalogue>),
    /// Loaded on first use, or at start by the job `discover.builtin`.
    Builtin,
    /// Could not be built from its config; the reason, for every call and for diagnose.
    Broken(String),
}

/// One catalogue instance.
pub(crate) struct Entry {
    pub id: String,
    source: Source,
    /// Ratings read from details for rows that came without one.
    pub ratings: RatingCache,
    /// Answers kept: the builtin catalogue's for good (its data never changes), a remote
    /// catalogue's for a while.
    kept: Kept,
}

impl Entry {
    /// `compute`'s answer of `tool` to `question`, kept per question and per caller's limits and
    /// handed out again (see `kept.rs`). A broken instance's refusal is not kept.
    pub async fn answer<F, Fut>(
        &self,
        ctx: &Ctx,
        tool: &'static str,
        mut question: String,
        compute: F,
    ) -> Result<Output, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Output, ToolError>>,
    {
        // Rows say in_library and playable_on: an answer is kept per view of the libraries and
        // of the media servers too.
        let (held, playable) = futures::join!(
            crate::library::held::for_caller(ctx),
            crate::media::playable::for_caller(ctx)
        );
        question.push_str(held.key());
        question.push_str(playable.key());
        let limits =
            Gate::for_caller_would_filter(ctx).then(|| ctx.caller.authority.person.limits.clone());
        self.kept.answer(tool, question, limits, compute).await
    }

    pub async fn catalogue(&self) -> Result<Arc<dyn Catalogue>, ToolError> {
        match &self.source {
            Source::Ready(c) => Ok(c.clone()),
            Source::Builtin => builtin()
                .await
                .map(|b| b as Arc<dyn Catalogue>)
                .map_err(|e| ToolError::new(ErrorCode::BackendUnavailable, e)),
            Source::Broken(why) => Err(ToolError::new(
                ErrorCode::BackendMisconfigured,
                format!(
                    "the catalogue instance \"{}\" cannot be used: {why}",
                    self.id
                ),
            )),
        }
    }
}

/// The catalogue instances, in config order.
#[derive(Default)]
pub struct Catalogues {
    entries: Vec<Entry>,
}

/// A TMDB credential: `password` (or `password_file`) holds a read-access token, `api_key` a v3
/// key, or a read-access token when it has a token's shape (a JWT: "eyJ…" in three dotted parts).
fn tmdb_auth(spec: &InstanceSpec) -> Option<TmdbAuth> {
    if let Some(token) = spec.password.as_ref().filter(|t| !t.is_empty()) {
        return Some(TmdbAuth::ReadToken(token.clone()));
    }
    let key = spec.api_key.as_ref().filter(|k| !k.is_empty())?;
    let jwt = key.expose().starts_with("eyJ") && key.expose().split('.').count() == 3;
    Some(if jwt {
        TmdbAuth::ReadToken(key.clone())
    } else {
        TmdbAuth::ApiKey(key.clone())
    })
}

/// The adapter's timeouts with the instance's own `timeout_seconds` (`own`) as the request
/// timeout, when the config sets one: a hung catalogue holds a call no longer than that.
fn timeouts(own: Option<Duration>) -> httpx::Timeouts {
    let default = httpx::Timeouts::default();
    match own {
        Some(request) => httpx::Timeouts {
            connect: default.connect.min(request),
            request,
        },
        None => default,
    }
}

/// A built adapter as a source, or the reason it could not be built.
fn ready<C: Catalogue + 'static>(built: adapters_catalogue::Result<C>) -> Source {
    match built {
        Ok(c) => Source::Ready(Arc::new(c)),
        Err(e) => Source::Broken(e.to_string()),
    }
}

fn build(spec: &InstanceSpec, own_timeout: Option<Duration>) -> Source {
    match spec.kind {
        InstanceKind::Builtin => Source::Builtin,
        InstanceKind::Tmdb => {
            let Some(auth) = tmdb_auth(spec) else {
                return Source::Broken(
                    "a tmdb instance needs api_key (a v3 key) or password (a read-access token)"
                        .into(),
                );
            };
            let mut config = TmdbConfig::new(auth);
            config.timeouts = timeouts(own_timeout);
            if let Some(url) = &spec.url {
                config.base_url = url.clone();
            }
            ready(Tmdb::new(config))
        }
        InstanceKind::Musicbrainz => {
            // MusicBrainz asks clients to name a contact in the User-Agent: `username` holds it.
            let mut config = MusicBrainzConfig {
                contact: spec.username.clone(),
                timeouts: timeouts(own_timeout),
                ..MusicBrainzConfig::default()
            };
            if let Some(url) = &spec.url {
                config.base_url = url.clone();
            }
            ready(MusicBrainz::new(config))
        }
        InstanceKind::Tvdb => {
            // The project key in api_key; a subscriber key's PIN in password (or password_file).
            let Some(key) = spec.api_key.clone().filter(|k| !k.is_empty()) else {
                return Source::Broken(
                    "a tvdb instance needs api_key (a TVDB project key), and password holding the subscriber PIN when the key is a user-supported one"
                        .into(),
                );
            };
            let mut config = TvdbConfig::new(key);
            config.pin = spec.password.clone();
            config.timeouts = timeouts(own_timeout);
            if let Some(url) = &spec.url {
                config.base_url = url.clone();
            }
            ready(Tvdb::new(config))
        }
        InstanceKind::Anilist => {
            let mut config = AniListConfig {
                timeouts: timeouts(own_timeout),
                ..AniListConfig::default()
            };
            if let Some(url) = &spec.url {
                config.base_url = url.clone();
            }
            ready(AniList::new(config))
        }
        InstanceKind::Lrclib => {
            let mut config = LrclibConfig {
                timeouts: timeouts(own_timeout),
                ..LrclibConfig::default()
            };
            if let Some(url) = &spec.url {
                config.base_url = url.clone();
            }
            ready(Lrclib::new(config))
        }
        other => Source::Broken(format!("{other} is not a catalogue")),
    }
}

impl Catalogues {
    pub fn from_instances(instances: &Instances) -> Catalogues {
        let entries: Vec<Entry> = instances
            .all()
            .iter()
            .filter(|s| s.kind.family().answers_titles())
            .map(|spec| {
                let source = build(spec, instances.own_timeout(&spec.id));
                let kept = match source {
                    Source::Builtin => Kept::forever(),
                    _ => Kept::for_a_while(kept::REMOTE_FOR),
                };
                Entry {
                    id: spec.id.clone(),
                    source,
                    ratings: RatingCache::new(Duration::from_secs(6 * 3600)),
                    kept,
                }
            })
            .collect();
        Catalogues { entries }
    }

    /// The job `discover.builtin` when an instance names the builtin catalogue: it loads the
    /// data at start (`serve` starts it), so the first question does not wait for it. Its
    /// later passes find it loaded and do nothing.
    pub(crate) fn jobs(&self) -> Vec<Job> {
        if !self
            .entries
            .iter()
            .any(|e| matches!(e.source, Source::Builtin))
        {
            return Vec::new();
        }
        let pass = || -> JobFuture {
            Box::pin(async {
                let _ = builtin().await;
            })
        };
        vec![Job {
            name: "discover.builtin".into(),
            every: Duration::from_secs(24 * 3600),
            on_every_replica: true,
            pass: Arc::new(pass),
        }]
    }

    pub(crate) fn entry(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// For diagnose: whether the catalogue instance `id` can be used, asked of its adapter (a
    /// broken config, a refused key). `None` when `id` is no catalogue or its source has no check
    /// of its own beyond being reachable.
    pub async fn check(&self, id: &str) -> Option<Result<String, String>> {
        let entry = self.entry(id)?;
        let catalogue = match entry.catalogue().await {
            Ok(c) => c,
            Err(e) => return Some(Err(e.message)),
        };
        match catalogue.check().await {
            Ok(found) => Some(Ok(found)),
            Err(adapters_catalogue::Error::Unsupported { .. }) => None,
            Err(
                e @ adapters_catalogue::Error::Backend {
                    error: httpx::Error::Unauthorized { .. },
                    ..
                },
            ) => Some(Err(format!(
                "{id}: {e}; check the instance's api_key (or password) in marquee.toml"
            ))),
            Err(e) => Some(Err(format!(
                "{id}: {e}; check that the service runs and the instance's url in marquee.toml"
            ))),
        }
    }
}

/// Picks the catalogue for a question only instances of `kinds` can answer (`what` names it).
pub(crate) fn pick<'c>(
    ctx: &'c Ctx,
    instance_id: Option<&str>,
    kinds: &[InstanceKind],
    what: &str,
) -> Result<&'c Entry, ToolError> {
    let names = |ks: &[InstanceKind]| {
        ks.iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let spec = match instance_id {
        Some(id) => {
            // A metadata source is named like a catalogue; an unknown id is refused as one.
            let family = ctx
                .instances()
                .all()
                .iter()
                .find(|s| s.id == id && s.kind.family().answers_titles())
                .map_or(KindFamily::Catalogue, |s| s.kind.family());
            let (spec, _) = ctx.instance(family, Some(id))?;
            if !kinds.contains(&spec.kind) {
                return Err(unsupported_here(ctx, spec, kinds, what));
            }
            spec
        }
        None => {
            let all = ctx.instances().all();
            let family_default = ctx.instances().resolve(KindFamily::Catalogue, None).ok();
            // Only kinds that can answer, and (with an instance-bound grant) only covered instances.
            let fits = |s: &&InstanceSpec| kinds.contains(&s.kind) && ctx.covers(&s.id);
            let chosen = family_default
                .filter(fits)
                .or_else(|| all.iter().filter(fits).find(|s| s.default))
                .or_else(|| all.iter().find(fits));
            let Some(chosen) = chosen else {
                let reason = if all.iter().any(|s| kinds.contains(&s.kind)) {
                    "your grant covers none; ask the owner for a grant that does"
                } else {
                    "none is configured; add one under [[instances]] in marquee.toml"
                };
                return Err(ToolError::new(
                    ErrorCode::Unsupported,
                    format!("{what} needs a {} catalogue and {reason}", names(kinds)),
                ));
            };
            ctx.instance(chosen.kind.family(), Some(&chosen.id))?.0
        }
    };
    super::catalogues(ctx).entry(&spec.id).ok_or_else(|| {
        ToolError::new(
            ErrorCode::UnknownInstance,
            format!("the catalogue instance \"{}\" is not loaded", spec.id),
        )
    })
}

fn unsupported_here(
    ctx: &Ctx,
    spec: &InstanceSpec,
    kinds: &[InstanceKind],
    what: &str,
) -> ToolError {
    let able: Vec<&str> = ctx
        .instances()
        .all()
        .iter()
        .filter(|s| kinds.contains(&s.kind))
        .map(|s| s.id.as_str())
        .collect();
    let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    let hint = if able.is_empty() {
        format!(
            "it needs a {} instance and none is configured",
            kinds.join(" or ")
        )
    } else {
        format!("use instance_id {}", able.join(" or "))
    };
    ToolError::new(
        ErrorCode::Unsupported,
        format!(
            "the {} catalogue \"{}\" cannot answer {what}; {hint}",
            spec.kind, spec.id
        ),
    )
}
