//! `search_subtitles`: asks the subtitle instances for subtitles of a title (by media
//! identity) or of a local file (`instance_id` + `path` of a folder instance: the file's
//! OpenSubtitles movie hash, read through the confined handle, narrows the search, and its
//! scanned identity or recognised name says what it is). Rows carry a `subtitle_ref` for
//! `download_subtitle`: bound to the caller, expiring, never the file id or a link.

use std::time::Instant;

use adapters_subtitles::{
    bazarr::{Bazarr, Offer, Target},
    opensubtitles::{Found, Search},
};
use domain::{Capability, KindFamily, MediaSource};
use futures::future::join_all;
use policy::Effect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    identity::{Ident, resolve},
    languages,
    refs::{Held, What},
    source::{Client, Source},
    subtitles,
};
use crate::discover::identity::TitleType;
use governance::{Ctx, ErrorCode, Meta, Output, Tool, ToolError};

pub struct SearchSubtitles;

const MAX_PATH: u32 = 4096;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The title's source, as a discovery row gives it: builtin, imdb or tmdb (movies and
    /// shows), tvdb (shows).
    #[serde(default)]
    pub media_source: Option<MediaSource>,
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub media_id: Option<String>,
    /// movie or tv (needed with a tmdb id of a show).
    #[serde(default)]
    pub media_type: Option<TitleType>,
    /// TV: the season.
    #[serde(default)]
    #[schemars(range(min = 0, max = 1000))]
    pub season: Option<u32>,
    /// TV: the episode.
    #[serde(default)]
    #[schemars(range(min = 0, max = 10000))]
    pub episode: Option<u32>,
    /// A folder instance holding the video (with path).
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub instance_id: Option<String>,
    /// The video, relative to the folder's root.
    #[serde(default)]
    #[schemars(length(min = 1, max = MAX_PATH))]
    pub path: Option<String>,
    /// Languages wanted: ISO 639-1 codes with a region where meant (en, fr, pt-BR), or names.
    #[schemars(length(min = 1, max = 10), inner(length(min = 1, max = 40)))]
    pub languages: Vec<String>,
    /// true: only hearing-impaired (SDH) subtitles; false: none of them; absent: both.
    #[serde(default)]
    pub hearing_impaired: Option<bool>,
    /// true: only forced (foreign parts only) subtitles; false: none of them; absent: both.
    #[serde(default)]
    pub forced: Option<bool>,
    /// Only this subtitle instance (list_instances names them); every one by default.
    #[serde(default)]
    #[schemars(length(min = 1, max = 64))]
    pub service: Option<String>,
    /// The most rows answered (default 30).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

/// One subtitle found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Row {
    /// For download_subtitle: valid for a day, for you only.
    pub subtitle_ref: String,
    /// The subtitle instance that answered it.
    pub service: String,
    /// ISO 639-1, with a region where meant.
    pub language: String,
    /// The release it was made for.
    pub release: Option<String>,
    pub hearing_impaired: bool,
    pub forced: bool,
    /// It was made for exactly this file (the movie hash matched).
    pub hash_match: bool,
    pub downloads: Option<u64>,
    pub from_trusted: bool,
    pub machine_translated: bool,
    pub fps: Option<f64>,
    pub uploaded: Option<String>,
    pub uploader: Option<String>,
    /// Bazarr: the provider and Bazarr's score.
    pub provider: Option<String>,
    pub score: Option<f64>,
}

/// One instance's part in the search.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Asked {
    pub service: String,
    pub rows: usize,
    pub error: Option<String>,
    pub millis: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Data {
    /// What was searched for.
    pub searched_for: String,
    /// The languages asked, normalised.
    pub languages: Vec<String>,
    /// The local file's OpenSubtitles movie hash, when a file was named.
    pub movie_hash: Option<String>,
    pub subtitles: Vec<Row>,
    pub services: Vec<Asked>,
}

impl Tool for SearchSubtitles {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Data>);
    const META: Meta = Meta {
        name: "search_subtitles",
        title: "Search subtitles",
        description: "Searches the subtitle services (OpenSubtitles, Bazarr) for subtitles in the given languages (ISO 639-1 with a region where meant: en, fr, pt-BR; names accepted), of a title (media_source + media_id, season/episode for a show) or of a video in a folder instance (instance_id + path: its OpenSubtitles movie hash narrows the search, hash_match marks subtitles made for exactly that file). hearing_impaired and forced: true for only those, false for none. Rows: language, release, hearing-impaired, forced, downloads, trust; each with a subtitle_ref for download_subtitle (valid for a day, for you only). A service that fails is named in a warning; the others still answer.",
        effect: Effect::Read,
        capability: Capability::SubtitlesRead,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(KindFamily::Subtitles),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let langs = languages::parse(&input.languages)?;
        let ident = resolve(ctx, &input).await?;
        let all = subtitles(ctx);
        let chosen: Vec<&Source> = match &input.service {
            Some(id) => {
                let Some(s) = all.get(id) else {
                    let ids: Vec<&str> = all.sources().map(|s| s.id.as_str()).collect();
                    return Err(ToolError::new(
                        ErrorCode::NotFound,
                        format!(
                            "unknown subtitle instance \"{id}\"; subtitle instances: {}",
                            ids.join(", ")
                        ),
                    ));
                };
                ctx.authorize(&s.id)?;
                vec![s]
            }
            None => all.sources().filter(|s| ctx.covers(&s.id)).collect(),
        };
        if chosen.is_empty() {
            return Err(ToolError::new(
                ErrorCode::BackendMisconfigured,
                "no subtitle instance (opensubtitles or bazarr) is configured for you; list_instances shows them",
            ));
        }
        let answers = join_all(chosen.iter().map(|s| {
            let ident = &ident;
            let langs = &langs;
            let input = &input;
            async move {
                let started = Instant::now();
                let found = ask(s, ident, langs, input).await;
                (*s, found, started.elapsed())
            }
        }))
        .await;
        let person = ctx.caller.authority.person.id;
        let mut rows: Vec<(Row, bool, u64)> = Vec::new();
        let mut asked = Vec::new();
        let mut warnings = Vec::new();
        for (source, found, took) in answers {
            let millis = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
            match found {
                Ok(found) => {
                    asked.push(Asked {
                        service: source.id.clone(),
                        rows: found.len(),
                        error: None,
                        millis,
                    });
                    for f in found {
                        rows.push(row(all, source, person, f));
                    }
                }
                Err(e) => {
                    warnings.push(e.message.clone());
                    asked.push(Asked {
                        service: source.id.clone(),
                        rows: 0,
                        error: Some(e.message),
                        millis,
                    });
                }
            }
        }
        if rows.is_empty() && asked.iter().all(|a| a.error.is_some()) {
            return Err(ToolError::new(ErrorCode::BackendError, warnings.join("; ")));
        }
        // Made for this very file first, then the most downloaded.
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)));
        let limit = input.limit.unwrap_or(30) as usize;
        let subtitles: Vec<Row> = rows.into_iter().take(limit).map(|r| r.0).collect();
        let data = Data {
            searched_for: ident.label.clone(),
            languages: langs,
            movie_hash: ident.hash.clone(),
            subtitles,
            services: asked,
        };
        let summary = format!(
            "{} subtitle{} for {} ({})",
            data.subtitles.len(),
            if data.subtitles.len() == 1 { "" } else { "s" },
            data.searched_for,
            data.languages.join(", ")
        );
        let mut out = Output::typed(summary, &data)?;
        for w in warnings {
            out = out.warn(w);
        }
        Ok(out)
    }
}

/// One row found, before it becomes a [`Row`].
enum Hit {
    File(Box<Found>),
    Offer {
        target: Target,
        offer: Box<Offer>,
        language: String,
    },
}

fn row(
    all: &super::Subtitles,
    source: &Source,
    person: domain::PersonId,
    hit: Hit,
) -> (Row, bool, u64) {
    match hit {
        Hit::File(f) => {
            let language = languages::one(&f.language).unwrap_or_else(|| f.language.clone());
            let subtitle_ref = all.refs.issue(Held {
                person,
                made: Instant::now(),
                instance: source.id.clone(),
                what: What::File { file_id: f.file_id },
                language: language.clone(),
                hearing_impaired: f.hearing_impaired,
                forced: f.forced,
                release: f.release.clone(),
            });
            let r = Row {
                subtitle_ref,
                service: source.id.clone(),
                language,
                release: f.release.clone(),
                hearing_impaired: f.hearing_impaired,
                forced: f.forced,
                hash_match: f.moviehash_match,
                downloads: Some(f.download_count),
                from_trusted: f.from_trusted,
                machine_translated: f.machine_translated || f.ai_translated,
                fps: f.fps,
                uploaded: f.upload_date.clone(),
                uploader: f.uploader.clone(),
                provider: None,
                score: None,
            };
            (r, f.moviehash_match, f.download_count)
        }
        Hit::Offer {
            target,
            offer,
            language,
        } => {
            let release = offer.release_info.first().cloned();
            let score = offer.score;
            let r = Row {
                subtitle_ref: all.refs.issue(Held {
                    person,
                    made: Instant::now(),
                    instance: source.id.clone(),
                    what: What::Bazarr {
                        target,
                        offer: offer.clone(),
                    },
                    language: language.clone(),
                    hearing_impaired: offer.hearing_impaired,
                    forced: offer.forced,
                    release: release.clone(),
                }),
                service: source.id.clone(),
                language,
                release,
                hearing_impaired: offer.hearing_impaired,
                forced: offer.forced,
                hash_match: false,
                downloads: None,
                from_trusted: false,
                machine_translated: false,
                fps: None,
                uploaded: None,
                uploader: offer.uploader.clone(),
                provider: Some(offer.provider.clone()),
                score,
            };
            (r, false, score.map_or(0, |s| s.max(0.0) as u64))
        }
    }
}

/// One instance's rows.
async fn ask(
    source: &Source,
    ident: &Ident,
    langs: &[String],
    input: &Input,
) -> Result<Vec<Hit>, ToolError> {
    match source.client()? {
        Client::OpenSubtitles(os) => {
            let s = Search {
                imdb_id: ident.imdb.filter(|_| !ident.tv),
                tmdb_id: ident.tmdb.filter(|_| !ident.tv),
                parent_imdb_id: ident.imdb.filter(|_| ident.tv),
                parent_tmdb_id: ident.tmdb.filter(|_| ident.tv),
                season: ident.season,
                episode: ident.episode,
                languages: langs.to_vec(),
                moviehash: ident.hash.clone(),
                hearing_impaired: input.hearing_impaired,
                forced: input.forced,
                query: ident
                    .text
                    .clone()
                    .filter(|_| ident.imdb.is_none() && ident.tmdb.is_none()),
            };
            let found = os.search(&s).await.map_err(|e| source.error(&e))?;
            Ok(found
                .into_iter()
                .filter(|f| wanted(&f.language, f.hearing_impaired, f.forced, langs, input))
                .map(|f| Hit::File(Box::new(f)))
                .collect())
        }
        Client::Bazarr(b) => {
            let Some(target) = bazarr_target(b, ident)
                .await
                .map_err(|e| source.error(&e))?
            else {
                return Err(ToolError::new(
                    ErrorCode::NotFound,
                    format!(
                        "the Bazarr instance \"{}\" does not know {}",
                        source.id, ident.label
                    ),
                ));
            };
            let offers = b.search(target).await.map_err(|e| source.error(&e))?;
            Ok(offers
                .into_iter()
                .filter_map(|o| {
                    let language = languages::one(&o.language)?;
                    wanted(&language, o.hearing_impaired, o.forced, langs, input).then(|| {
                        Hit::Offer {
                            target,
                            offer: Box::new(o),
                            language,
                        }
                    })
                })
                .collect())
        }
    }
}

fn wanted(language: &str, hi: bool, forced: bool, langs: &[String], input: &Input) -> bool {
    let language = languages::one(language).unwrap_or_else(|| language.to_owned());
    langs.iter().any(|w| languages::satisfies(&language, w))
        && input.hearing_impaired.is_none_or(|want| want == hi)
        && input.forced.is_none_or(|want| want == forced)
}

/// Bazarr's movie or episode for `ident`.
async fn bazarr_target(
    b: &Bazarr,
    ident: &Ident,
) -> Result<Option<Target>, adapters_subtitles::Error> {
    let imdb = ident.imdb.map(|n| format!("tt{n:07}"));
    if !ident.tv {
        let movies = b.movies().await?;
        return Ok(movies
            .into_iter()
            .find(|m| {
                (imdb.is_some() && m.imdb_id == imdb)
                    || (ident.tmdb.is_some()
                        && m.tmdb_id.and_then(|t| u64::try_from(t).ok()) == ident.tmdb)
            })
            .map(|m| Target::Movie {
                radarr_id: m.radarr_id,
            }));
    }
    let (Some(season), Some(episode)) = (ident.season, ident.episode) else {
        return Ok(None);
    };
    let series = b.series().await?;
    let Some(show) = series.into_iter().find(|s| {
        (ident.tvdb.is_some() && s.tvdb_id.and_then(|t| u64::try_from(t).ok()) == ident.tvdb)
            || (imdb.is_some() && s.imdb_id == imdb)
    }) else {
        return Ok(None);
    };
    let episodes = b.episodes(show.sonarr_series_id).await?;
    Ok(episodes
        .into_iter()
        .find(|e| e.season == season && e.episode == episode)
        .map(|e| Target::Episode {
            series_id: e.sonarr_series_id,
            episode_id: e.sonarr_episode_id,
        }))
}
