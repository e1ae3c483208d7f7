//! One title by identity, read through the caller's content limits: the path `get_title_details`,
//! `get_recommendations` and the request tools share.

use adapters_catalogue::TitleDetails;
use domain::{MediaId, MediaSource};
use serde::Serialize;

use super::{
    catalogues::{Entry, pick},
    identity::{self, TitleType},
    limits::{Gate, not_available},
    render,
};
use governance::{context::Ctx, contract::ToolError};

/// A title's details and where they were read.
pub(crate) struct Looked<'c> {
    pub entry: &'c Entry,
    pub details: TitleDetails,
    /// Content limits were checked (and passed).
    pub limited: bool,
}

/// Reads a title named by `media_source` + `media_id`; a title the limits forbid answers
/// exactly `That title is not available for this account.`
pub(crate) async fn title<'c>(
    ctx: &'c Ctx,
    source: Option<MediaSource>,
    id: Option<String>,
    media_type: TitleType,
    instance_id: Option<&str>,
) -> Result<Looked<'c>, ToolError> {
    let (entry, id) = entry_for(ctx, source, id, media_type, instance_id)?;
    read(ctx, entry, id, media_type).await
}

/// The catalogue that answers for a title named by `media_source` + `media_id` (the named
/// `instance_id`, or the default one that knows such ids), and the id, checked.
pub(crate) fn entry_for<'c>(
    ctx: &'c Ctx,
    source: Option<MediaSource>,
    id: Option<String>,
    media_type: TitleType,
    instance_id: Option<&str>,
) -> Result<(&'c Entry, MediaId), ToolError> {
    let id = identity::required(source, id)?;
    identity::check_type(&id, media_type.media_type())?;
    let what = format!("{} ids", id.media_source);
    let entry = pick(
        ctx,
        instance_id,
        identity::kinds_for(id.media_source),
        &what,
    )?;
    Ok((entry, id))
}

/// Reads title `id` from `entry` through the caller's content limits (see [`title`]).
pub(crate) async fn read<'c>(
    ctx: &Ctx,
    entry: &'c Entry,
    id: MediaId,
    media_type: TitleType,
) -> Result<Looked<'c>, ToolError> {
    let media_type = media_type.media_type();
    let catalogue = entry.catalogue().await?;
    let mut gate = Gate::for_caller(ctx, entry, catalogue.clone());
    let region = gate
        .as_ref()
        .map_or_else(|| "US".to_string(), |g| g.region.clone());
    let details = catalogue
        .title_details(&id, media_type, &region)
        .await
        .map_err(|e| render::catalogue_error(e, &entry.id))?;
    if let Some(g) = &mut gate
        && !g.allows(&details).await?
    {
        return Err(not_available());
    }
    Ok(Looked {
        entry,
        details,
        limited: gate.is_some(),
    })
}

/// True when `other` is `own` again: the same id, or the IMDb id a builtin id is. A MyAnimeList
/// id equal in digits to an AniList id is another source's id, and shown.
fn same_title_id(other: &MediaId, own: &MediaId) -> bool {
    other.media_id == own.media_id
        && (other.media_source == own.media_source
            || matches!(
                (other.media_source, own.media_source),
                (MediaSource::Imdb, MediaSource::Builtin)
                    | (MediaSource::Builtin, MediaSource::Imdb)
            ))
}

/// "Heat (1995)".
pub(crate) fn label(d: &TitleDetails) -> String {
    match d.summary.year {
        Some(y) => format!("{} ({y})", d.summary.title),
        None => d.summary.title.clone(),
    }
}

/// The details as shown: the row's fields ([`render::TitleRow`]) and the full record, written
/// straight to JSON. The keys come in the order a JSON tree of them writes (alphabetical) and
/// absent values are left out, as when this was a tree; `content_limits_applied` says whether
/// the caller's limits were checked.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct DetailsData<'a> {
    cast: &'a [String],
    certifications: Vec<RatingData<'a>>,
    content_limits_applied: bool,
    countries: &'a [String],
    directors: &'a [String],
    /// Ids other than the title's own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    external_ids: Vec<IdData<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    genres: &'a [String],
    instance_id: &'a str,
    languages: &'a [String],
    media_id: &'a str,
    media_source: MediaSource,
    media_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    original_language: Option<&'a str>,
    /// In full (a list row shortens it).
    #[serde(skip_serializing_if = "Option::is_none")]
    overview: Option<&'a str>,
    /// The household's media servers that have the title now; left out when the caller reads
    /// no media server or none could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    playable_on: Option<Vec<crate::media::playable::PlayableOn>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    poster_url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rating: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rating_region: Option<&'a str>,
    release_dates: Vec<ReleaseData<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runtime_minutes: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seasons: Option<u32>,
    title: &'a str,
    /// Widened to `f64` as a JSON tree held it, so the digits written are the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    vote_average: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vote_count: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    year: Option<i32>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct RatingData<'a> {
    rating: &'a str,
    region: &'a str,
}

#[derive(Serialize, schemars::JsonSchema)]
struct ReleaseData<'a> {
    date: &'a str,
    kind: Option<&'a str>,
    region: Option<&'a str>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct IdData<'a> {
    media_id: &'a str,
    media_source: MediaSource,
}

impl<'a> DetailsData<'a> {
    /// The details with the media servers that have the title.
    pub(crate) fn playable_on(
        self,
        playable_on: Option<Vec<crate::media::playable::PlayableOn>>,
    ) -> DetailsData<'a> {
        DetailsData {
            playable_on,
            ..self
        }
    }

    pub(crate) fn new(instance: &'a str, d: &'a TitleDetails, limited: bool) -> DetailsData<'a> {
        let t = &d.summary;
        let (rating, rating_region) = render::rating_of(&t.certification);
        DetailsData {
            cast: &d.cast,
            certifications: d
                .certifications
                .iter()
                .map(|c| RatingData {
                    rating: &c.rating,
                    region: &c.region,
                })
                .collect(),
            content_limits_applied: limited,
            countries: &d.countries,
            directors: &d.directors,
            external_ids: t
                .external_ids
                .iter()
                .filter(|e| !same_title_id(e, &t.id))
                .map(|e| IdData {
                    media_id: &e.media_id,
                    media_source: e.media_source,
                })
                .collect(),
            genres: &t.genres,
            instance_id: instance,
            languages: &d.languages,
            media_id: &t.id.media_id,
            media_source: t.id.media_source,
            media_type: render::media_type_str(t.media_type),
            original_language: t.original_language.as_deref(),
            overview: t.overview.as_deref(),
            playable_on: None,
            poster_url: t.poster_url.as_deref(),
            rating,
            rating_region,
            release_dates: d
                .release_dates
                .iter()
                .map(|r| ReleaseData {
                    date: &r.date,
                    kind: r.kind.as_deref(),
                    region: r.region.as_deref(),
                })
                .collect(),
            runtime_minutes: d.runtime_minutes,
            seasons: d.seasons,
            title: &t.title,
            vote_average: t.vote_average.map(f64::from),
            vote_count: t.vote_count,
            year: t.year,
        }
    }
}

#[cfg(test)]
mod tests {
    use adapters_catalogue::{
        Catalogue, Certification, RegionalRating, ReleaseDate, TitleSummary, builtin::Builtin,
    };
    use domain::MediaType;
    use serde_json::{Value, json};

    use super::*;

    /// The details as a JSON tree, the way they were built before [`DetailsData`].
    fn details_tree(instance: &str, d: &TitleDetails, limited: bool) -> Value {
        let mut v = serde_json::to_value(render::TitleRow::new(&d.summary)).unwrap();
        let extra = json!({
            "instance_id": instance,
            "overview": d.summary.overview,
            "certifications": d.certifications,
            "runtime_minutes": d.runtime_minutes,
            "cast": d.cast,
            "directors": d.directors,
            "release_dates": d.release_dates,
            "languages": d.languages,
            "countries": d.countries,
            "seasons": d.seasons,
        });
        if let (Value::Object(row), Value::Object(extra)) = (&mut v, extra) {
            for (k, val) in extra {
                if !val.is_null() {
                    row.insert(k, val);
                }
            }
        }
        v["content_limits_applied"] = limited.into();
        v
    }

    fn same_text(instance: &str, d: &TitleDetails, limited: bool) {
        let typed = serde_json::to_string(&DetailsData::new(instance, d, limited)).unwrap();
        let tree = serde_json::to_string(&details_tree(instance, d, limited)).unwrap();
        assert_eq!(typed, tree, "{}", d.summary.id);
    }

    #[tokio::test]
    async fn typed_details_write_what_the_tree_wrote_for_every_builtin_film() {
        let b = Builtin::shared().expect("the shipped data loads");
        let mut n = 0;
        for page in 1.. {
            let mut filters = adapters_catalogue::BrowseFilters::new(MediaType::Movie);
            filters.page = page;
            let got = b.browse(&filters).await.expect("a page");
            if got.items.is_empty() {
                break;
            }
            for t in &got.items {
                let d = b
                    .title_details(&t.id, MediaType::Movie, "US")
                    .await
                    .unwrap();
                same_text("builtin", &d, n % 2 == 0);
                n += 1;
            }
        }
        assert_eq!(n, b.len(), "every film was read");
    }

    #[test]
    fn typed_details_write_what_the_tree_wrote_for_a_full_tmdb_record() {
        let summary = |vote: Option<f32>, cert: Certification| TitleSummary {
            id: MediaId::new(MediaSource::Tmdb, "1399"),
            media_type: MediaType::Tv,
            title: "Game of \"Thrones\" \u{1} 東京".into(),
            year: Some(2011),
            certification: cert,
            genres: vec!["Drama".into(), "Sci-Fi & Fantasy".into()],
            overview: Some("x".repeat(900)),
            original_language: Some("en".into()),
            vote_average: vote,
            vote_count: Some(25_000),
            poster_url: Some("https://image.tmdb.org/t/p/w500/a.jpg".into()),
            external_ids: vec![
                MediaId::new(MediaSource::Tmdb, "1399"),
                MediaId::new(MediaSource::Imdb, "tt0944947"),
            ],
        };
        let details = |s: TitleSummary| TitleDetails {
            summary: s,
            certifications: vec![
                RegionalRating {
                    region: "US".into(),
                    rating: "TV-MA".into(),
                },
                RegionalRating {
                    region: "DE".into(),
                    rating: "16".into(),
                },
            ],
            runtime_minutes: Some(57),
            cast: vec!["Emilia Clarke".into()],
            directors: vec![],
            release_dates: vec![
                ReleaseDate {
                    region: None,
                    date: "2011-04-17".into(),
                    kind: None,
                },
                ReleaseDate {
                    region: Some("GB".into()),
                    date: "2011-04-18".into(),
                    kind: Some("digital".into()),
                },
            ],
            languages: vec!["en".into()],
            countries: vec![],
            seasons: Some(8),
            backdrop_url: None,
        };
        let rated = Certification::Rated {
            region: "US".into(),
            rating: "TV-MA".into(),
        };
        for vote in [Some(8.456), Some(7.3), Some(0.1), Some(f32::NAN), None] {
            same_text("tmdb", &details(summary(vote, rated.clone())), true);
        }
        for cert in [
            Certification::Unrated { region: None },
            Certification::NotFetched,
        ] {
            same_text("tmdb", &details(summary(Some(6.0), cert)), false);
        }
        let mut bare = details(summary(None, Certification::NotFetched));
        bare.summary.overview = None;
        bare.summary.year = None;
        bare.summary.external_ids.clear();
        bare.summary.genres.clear();
        bare.runtime_minutes = None;
        bare.seasons = None;
        bare.certifications.clear();
        same_text("tmdb", &bare, false);
    }
}
