//! `get_title_details`: one title's full record (ratings per region, runtime, cast, directors,
//! release dates, seasons), or exactly "That title is not available for this account." when the
//! caller's content limits forbid it.

use domain::{Capability, MediaId, MediaSource};
use policy::Effect;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{
    catalogues::Entry,
    identity::TitleType,
    lookup::{self, DetailsData, label},
    render::{media_type_str, rating_fields},
};
use governance::{Ctx, Meta, Output, Tool, ToolError};

pub struct GetTitleDetails;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Where the id comes from (builtin, tmdb, imdb, ...), as a discovery row gave it; always with media_id.
    #[schemars(required)]
    pub media_source: Option<MediaSource>,
    /// The id within media_source (e.g. "603" for tmdb, "tt0113277" for builtin); always with media_source.
    #[schemars(required)]
    #[schemars(length(max = crate::ids::MEDIA_ID_MAX), regex(pattern = crate::ids::MEDIA_ID))]
    pub media_id: Option<String>,
    /// movie or tv.
    pub media_type: TitleType,
    /// The catalogue to read, as list_instances shows it (default: one that answers media_source).
    #[serde(default)]
    #[schemars(length(min = 1, max = crate::ids::INSTANCE_ID_MAX), regex(pattern = crate::ids::INSTANCE_ID))]
    pub instance_id: Option<String>,
}

impl Tool for GetTitleDetails {
    type Input = Input;
    const DATA: Option<governance::contract::DataSchema> =
        Some(governance::contract::data_of::<DetailsData<'static>>);
    const META: Meta = Meta {
        name: "get_title_details",
        title: "Title details",
        description: "Reads one title named by media_source + media_id: ratings per region, runtime, genres, cast, directors, release dates, languages, countries and (TV) the number of seasons.",
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
        let question = format!("{input:?}");
        let (entry, id) = lookup::entry_for(
            ctx,
            input.media_source,
            input.media_id,
            input.media_type,
            input.instance_id.as_deref(),
        )?;
        entry
            .answer(ctx, Self::META.name, question, || {
                details(ctx, entry, id, input.media_type)
            })
            .await
    }
}

/// The details of title `id` as `entry` answers them, read through the caller's limits.
async fn details(
    ctx: &Ctx,
    entry: &Entry,
    id: MediaId,
    media_type: TitleType,
) -> Result<Output, ToolError> {
    let looked = lookup::read(ctx, entry, id, media_type).await?;
    let d = &looked.details;
    let (rating, region) = rating_fields(&d.summary.certification);
    let mut facts = vec![media_type_str(d.summary.media_type).to_string()];
    match (rating.as_str(), region.as_str()) {
        (Some("unrated"), _) => facts.push("unrated".into()),
        (Some(r), Some(g)) => facts.push(format!("rated {r} ({g})")),
        _ => {}
    }
    if let Some(m) = d.runtime_minutes {
        facts.push(format!("{m} min"));
    }
    if let Some(s) = d.seasons {
        facts.push(format!("{s} season{}", if s == 1 { "" } else { "s" }));
    }
    if !d.directors.is_empty() {
        facts.push(format!("by {}", d.directors.join(", ")));
    }
    let summary = format!(
        "{}: {}; read from {}.",
        label(d),
        facts.join(", "),
        looked.entry.id
    );
    let id = &d.summary.id;
    let media = crate::media::playable::for_caller(ctx).await;
    let playable_on = media.of(
        d.summary.media_type,
        std::iter::once(id).chain(&d.summary.external_ids),
    );
    let summary = match playable_on.as_deref() {
        Some([]) | None => summary,
        Some(on) => {
            let mut servers: Vec<&str> = on.iter().map(|p| p.instance_id.as_str()).collect();
            servers.dedup();
            format!("{summary} Playable now on {}.", servers.join(", "))
        }
    };
    let data = DetailsData::new(&looked.entry.id, d, looked.limited).playable_on(playable_on);
    let mut out = Output::typed(summary, &data)?;
    for w in media.warnings() {
        out = out.warn(w.clone());
    }
    Ok(out.next(format!(
        "get_request_options {{\"media_source\":\"{}\",\"media_id\":\"{}\",\"media_type\":\"{}\"}}",
        id.media_source,
        id.media_id,
        media_type_str(d.summary.media_type)
    )))
}
