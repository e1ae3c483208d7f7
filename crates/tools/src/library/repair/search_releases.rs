//! `search_releases`: an interactive indexer search of one exact scope on the instance that holds
//! it. Rows say what the service would accept and why not, and carry a `release_ref` (a keyed
//! one-way reference) instead of any GUID or URL.

use domain::Capability;
use policy::Effect;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Scope, resolve};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct SearchReleases;

/// One release the service's indexers offered.
#[derive(Debug, Serialize, JsonSchema)]
struct ReleaseRow {
    /// A one-way reference to this release in this scope on this instance, for grab_release.
    release_ref: String,
    /// The indexer's id at the service, for grab_release.
    indexer_id: i64,
    title: String,
    indexer: String,
    size_bytes: i64,
    age_days: i64,
    seeders: Option<i64>,
    leechers: Option<i64>,
    /// torrent or usenet, as the service says.
    protocol: Option<String>,
    quality: Option<String>,
    custom_format_score: i64,
    languages: Vec<String>,
    /// Whether the service would grab it on its own.
    accepted: bool,
    /// Why not, in the service's words.
    rejections: Vec<String>,
}

/// The answer's data.
#[derive(Debug, Serialize, JsonSchema)]
struct Releases {
    instance_id: String,
    /// The title (and season or episode) searched, as people name it.
    scope: String,
    /// The first releases, in the service's order.
    releases: Vec<ReleaseRow>,
    /// How many releases the search found (more than `releases` holds when cut).
    total: usize,
}

/// Rows shown at most; the rest are counted.
const MAX_ROWS: usize = 50;

impl Tool for SearchReleases {
    type Input = Scope;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<Releases>);
    const META: Meta = Meta {
        name: "search_releases",
        title: "Search indexers for releases",
        description: "Runs the library service's interactive indexer search for one title it holds: a movie (radarr), a season or one episode (sonarr, season required), an album (lidarr, by musicbrainz id) or a book (readarr: media_type book, media_id the book_source_id search_books shows, no media_source). Rows: title, indexer, size, age, seeders, quality, custom-format score, languages, whether the service would accept it and its rejections, and a release_ref to pass to grab_release with the same scope. Slow: indexers are asked live, and each call spends one unit of the searches allowance.",
        effect: Effect::ExternalCost,
        capability: Capability::LibraryWrite,
        hints: governance::Hints {
            idempotent: false,
            open_world: true,
        },
        allowance: Some(domain::AllowanceKind::Searches),
        or_capabilities: &[],
        family: Some(domain::KindFamily::Library),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Scope) -> Result<Output, ToolError> {
        let (source, scope, label) = resolve(ctx, &input).await?;
        let client = source.client()?;
        let releases = client.releases(&scope).await.map_err(|e| source.error(e))?;
        let accepted = releases.iter().filter(|r| r.approved).count();
        let rows: Vec<ReleaseRow> = releases
            .iter()
            .take(MAX_ROWS)
            .map(|r| ReleaseRow {
                release_ref: super::refs::issue(
                    &source.id,
                    &client.release_ref(&source.id, &scope, r),
                    ctx.caller.authority.person.id,
                ),
                indexer_id: r.indexer_id,
                title: r.title.clone(),
                indexer: r.indexer.clone(),
                size_bytes: r.size,
                age_days: r.age_days,
                seeders: r.seeders,
                leechers: r.leechers,
                protocol: r.protocol.clone(),
                quality: r.quality.clone(),
                custom_format_score: r.custom_format_score,
                languages: r.languages.clone(),
                accepted: r.approved,
                rejections: r.rejections.clone(),
            })
            .collect();
        let mut output = Output::typed(
            format!(
                "{} found {} for {label}; the service would accept {accepted}.",
                source.id,
                super::super::count(releases.len(), "release", "releases"),
            ),
            &Releases {
                instance_id: source.id.clone(),
                scope: label,
                releases: rows,
                total: releases.len(),
            },
        )?;
        if releases.len() > MAX_ROWS {
            output = output.warn(format!(
                "showing the first {MAX_ROWS} of {} releases",
                releases.len()
            ));
        }
        Ok(output)
    }
}
