//! `browse_titles`: movies or shows by filters (genre, years, rating, votes, language, country,
//! streaming provider, keyword, studio, certification, runtime), names resolved to ids by the
//! catalogue; a limited person's certification cap and blocked genres are pushed into the query and
//! checked again on the answer.

use adapters_catalogue::{BrowseFilters, CertificationCeiling};
use domain::{Capability, InstanceKind};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    catalogues::Entry,
    identity::TitleType,
    limits::{Gate, pass_titles},
    pick, render,
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct BrowseTitles;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// movie or tv (the builtin catalogue holds movies only).
    pub media_type: TitleType,
    /// Genre names; a title must carry all of them. Unknown names are answered with the valid ones.
    #[serde(default)]
    #[schemars(length(max = 20))]
    pub genres: Vec<String>,
    /// First release year, from.
    #[serde(default)]
    pub year_from: Option<i32>,
    /// First release year, up to and including.
    #[serde(default)]
    pub year_to: Option<i32>,
    /// Lowest average vote, 0 to 10 (TMDB).
    #[serde(default)]
    pub min_rating: Option<f32>,
    /// Fewest votes (TMDB).
    #[serde(default)]
    pub min_votes: Option<u32>,
    /// Original language: ISO 639-1 code ("en"), or a language name for the builtin catalogue.
    #[serde(default)]
    pub language: Option<String>,
    /// Country of origin: ISO 3166-1 code ("FR"), or a country name for the builtin catalogue.
    #[serde(default)]
    pub country: Option<String>,
    /// A streaming provider name ("Netflix"); needs watch_region (TMDB).
    #[serde(default)]
    pub streaming_provider: Option<String>,
    /// ISO 3166-1 region of streaming_provider (e.g. "US").
    #[serde(default)]
    pub watch_region: Option<String>,
    /// A keyword ("heist") (TMDB).
    #[serde(default)]
    pub keyword: Option<String>,
    /// A studio or production company name (TMDB).
    #[serde(default)]
    pub company: Option<String>,
    /// Highest certification, e.g. "PG-13" (movies); read in certification_region.
    #[serde(default)]
    pub max_certification: Option<String>,
    /// Region of max_certification (default "US").
    #[serde(default)]
    pub certification_region: Option<String>,
    /// Shortest runtime in minutes.
    #[serde(default)]
    pub runtime_min: Option<u32>,
    /// Longest runtime in minutes.
    #[serde(default)]
    pub runtime_max: Option<u32>,
    /// Page, from 1 (default 1).
    #[serde(default)]
    #[schemars(range(min = 1, max = super::render::MAX_PAGE))]
    pub page: Option<u32>,
    /// The catalogue to browse, as list_instances shows it (default: the default catalogue).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for BrowseTitles {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> = Some(
        governance::contract::data_of::<super::render::ListData<'static, render::TitleRow<'static>>>,
    );
    const META: Meta = Meta {
        name: "browse_titles",
        title: "Browse titles",
        description: "Lists movies or shows matching filters: genres, year range, rating and votes, language, country, streaming provider in a region, keyword, studio, certification and runtime. Names are resolved by the catalogue; an unknown name is answered with the valid options. Titles this account's content limits forbid are left out and counted.",
        effect: Effect::Read,
        capability: Capability::Discover,
        hints: governance::Hints {
            idempotent: true,
            open_world: true,
        },
        allowance: None,
        or_capabilities: &[],
        family: Some(domain::KindFamily::Catalogue),
        plan: None,
    };

    async fn run(&self, ctx: &Ctx, input: Input) -> Result<Output, ToolError> {
        let kinds: &[InstanceKind] = match input.media_type {
            TitleType::Movie => &[InstanceKind::Builtin, InstanceKind::Tmdb],
            TitleType::Tv => &[InstanceKind::Tmdb],
        };
        let entry = pick(ctx, input.instance_id.as_deref(), kinds, "browsing titles")?;
        let question = format!("{input:?}");
        entry
            .answer(ctx, Self::META.name, question, || browse(ctx, entry, input))
            .await
    }
}

async fn browse(ctx: &Ctx, entry: &Entry, input: Input) -> Result<Output, ToolError> {
    let media_type = input.media_type.media_type();
    let catalogue = entry.catalogue().await?;
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let asked = input
        .max_certification
        .as_ref()
        .map(|max| CertificationCeiling {
            region: input
                .certification_region
                .clone()
                .unwrap_or_else(|| "US".into())
                .to_ascii_uppercase(),
            max: max.clone(),
        });
    let mut warnings = Vec::new();
    let ceiling = match (&mut gate, asked) {
        (None, asked) => asked,
        (Some(g), asked) => match (g.ceiling(media_type).await?, asked) {
            (None, asked) => asked,
            (Some(cap), None) => Some(cap),
            (Some(cap), Some(asked)) => {
                let milder = asked.region == cap.region
                    && matches!(
                        (g.rank(media_type, &asked.max).await?, g.rank(media_type, &cap.max).await?),
                        (Some(a), Some(c)) if a <= c
                    );
                if milder {
                    Some(asked)
                } else {
                    warnings.push(format!(
                        "the certification filter was replaced by this account's limit ({} in {})",
                        cap.max, cap.region
                    ));
                    Some(cap)
                }
            }
        },
    };
    let without_genres = match &mut gate {
        Some(g) => g.excluded_genres(media_type).await?,
        None => Vec::new(),
    };
    let filters = BrowseFilters {
        media_type,
        genres: input.genres.clone(),
        without_genres,
        year_from: input.year_from,
        year_to: input.year_to,
        min_vote_average: input.min_rating,
        min_vote_count: input.min_votes,
        original_language: input.language.clone(),
        country: input.country.clone(),
        watch_provider: input.streaming_provider.clone(),
        watch_region: input.watch_region.clone(),
        keyword: input.keyword.clone(),
        company: input.company.clone(),
        certification: ceiling,
        runtime_min: input.runtime_min,
        runtime_max: input.runtime_max,
        page: render::page(input.page)?,
    };
    let mut page = catalogue
        .browse(&filters)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    let passed = pass_titles(&mut gate, std::mem::take(&mut page.items)).await?;
    let kind = match input.media_type {
        TitleType::Movie => "movies",
        TitleType::Tv => "shows",
    };
    let mut out = render::titles_output(
        &entry.id,
        &format!("among {kind} matching the filters"),
        &page,
        &passed.rows,
        passed.hidden,
        gate.is_some(),
        &super::in_library::for_caller(ctx).await,
    )?;
    for w in warnings {
        out = out.warn(w);
    }
    Ok(out)
}
